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
#include "ir/module.h"

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
// The devices a collective-permute meets with (its whole id space, the
// device of id i at i).
std::vector<int64_t> PairGroup(CollectiveMode mode, const DeviceContext& device);

// Every group some collective of `module` meets in (all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-broadcast and -permute, in every
// form) on replicas x partitions devices, whose operands are at most
// `max_bytes` over the whole group: sorted, each once. The same on every
// process of a run (Transport::PrepareGroups).
std::vector<std::vector<int64_t>> SmallCollectiveGroups(const Module& module, int64_t replicas,
                                                        int64_t partitions, int64_t max_bytes);

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_COLLECTIVE_GROUPS_H_
