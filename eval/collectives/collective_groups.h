// Which devices take part in one instance of a collective, per XLA's
// CollectiveOpGroupMode and the "process groups" of the StableHLO spec:
// cross-replica (no channel_id: replica_groups name replicas, within each
// partition), cross-partition (channel_id on ops without
// use_global_device_ids: they name partitions, within each replica),
// cross-replica-and-partition (channel_id, use_global_device_ids=false: a
// group of replicas spans every partition) and flattened ids
// (use_global_device_ids=true: replica * partitions + partition).
#ifndef HLO_EVAL_COLLECTIVES_COLLECTIVE_GROUPS_H_
#define HLO_EVAL_COLLECTIVES_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/collectives/replica_context.h"
#include "ir/instruction.h"

namespace hlo {

enum class CollectiveMode {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedId
};

// The mode of `inst` run as `op` (the wrapped op of a sugared async-start).
absl::StatusOr<CollectiveMode> CollectiveModeOf(const Instruction& inst, Opcode op);

// The devices (flattened numbers) of this device's group, in group order;
// NotFound when the groups leave this device out.
absl::StatusOr<std::vector<int64_t>> GroupDevices(const Instruction& inst, Opcode op,
                                                  const DeviceContext& device);

// For source_target_pairs ops (collective-permute, send/recv): the id of
// this device in the pairs' id space, and the device an id names.
int64_t PairId(CollectiveMode mode, const DeviceContext& device);
int64_t PairDevice(CollectiveMode mode, const DeviceContext& device, int64_t id);
// How many ids the pairs' id space has.
int64_t PairIdCount(CollectiveMode mode, const DeviceContext& device);

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_COLLECTIVE_GROUPS_H_
