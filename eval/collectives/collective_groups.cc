#include "eval/collectives/collective_groups.h"

#include <set>

#include "eval/value.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// Ops whose XLA class carries use_global_device_ids.
bool HasGlobalIdsFlag(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveReduce:
      return true;
    default:
      return false;
  }
}

std::string_view ModeIds(CollectiveMode mode) {
  switch (mode) {
    case CollectiveMode::kCrossPartition:
      return "partition";
    case CollectiveMode::kFlattenedId:
      return "device";
    default:
      return "replica";
  }
}

// The explicit groups; the iota and mesh forms are expanded only when they
// are small.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExplicitGroups(const Instruction& inst) {
  const ReplicaGroups* rg = inst.replica_groups();
  if (rg == nullptr) return std::vector<std::vector<int64_t>>();
  if (rg->mesh) return ExpandMeshReplicaGroups(*rg->mesh, int64_t{1} << 20);
  if (rg->iota) {
    int64_t n = 1;
    for (int64_t d : rg->iota->reshape_dims) {
      if (d < 1 || __builtin_mul_overflow(n, d, &n) || n > (int64_t{1} << 20)) {
        return absl::InvalidArgumentError("iota replica_groups name too many devices");
      }
    }
  }
  return rg->Groups();
}

}  // namespace

absl::StatusOr<CollectiveMode> CollectiveModeOf(const Instruction& inst, Opcode op) {
  bool channel = inst.HasAttr(AttrKind::kChannelId);
  bool global = inst.GetBool(AttrKind::kUseGlobalDeviceIds);
  if (!channel) {
    if (global) return absl::InvalidArgumentError("use_global_device_ids=true needs a channel_id");
    return CollectiveMode::kCrossReplica;
  }
  if (!HasGlobalIdsFlag(op)) return CollectiveMode::kCrossPartition;
  return global ? CollectiveMode::kFlattenedId : CollectiveMode::kCrossReplicaAndPartition;
}

absl::StatusOr<std::vector<int64_t>> GroupDevices(const Instruction& inst, Opcode op,
                                                  const DeviceContext& dev) {
  auto mode = CollectiveModeOf(inst, op);
  if (!mode.ok()) return mode.status();
  auto groups = ExplicitGroups(inst);
  if (!groups.ok()) return groups.status();
  const int64_t R = dev.replica_count, P = dev.partition_count;
  int64_t id_count = *mode == CollectiveMode::kCrossPartition ? P
                     : *mode == CollectiveMode::kFlattenedId  ? R * P
                                                              : R;
  int64_t my_id = *mode == CollectiveMode::kCrossPartition ? dev.partition_id
                  : *mode == CollectiveMode::kFlattenedId  ? dev.device()
                                                           : dev.replica_id;
  std::vector<int64_t> ids;
  if (groups->empty()) {
    if (*mode == CollectiveMode::kFlattenedId) {
      return absl::InvalidArgumentError("use_global_device_ids=true needs replica_groups");
    }
    for (int64_t i = 0; i < id_count; ++i) ids.push_back(i);
  } else {
    for (const std::vector<int64_t>& g : *groups) {
      for (int64_t id : g) {
        if (id < 0 || id >= id_count) {
          return absl::InvalidArgumentError(
              StrCat("replica_groups name ", ModeIds(*mode), " ", id, " but the run has ", id_count,
                     " ", ModeIds(*mode), id_count == 1 ? "" : "s", " (--replicas/--partitions)"));
        }
      }
      for (int64_t id : g) {
        if (id == my_id) ids = g;
      }
    }
    if (ids.empty()) {
      return absl::NotFoundError(StrCat(ModeIds(*mode), " ", my_id,
                                        " is in no group of replica_groups (the run has ", id_count,
                                        " ", ModeIds(*mode), id_count == 1 ? "" : "s", ")"));
    }
  }
  std::vector<int64_t> devices;
  for (int64_t id : ids) {
    switch (*mode) {
      case CollectiveMode::kCrossReplica:
        devices.push_back(id * P + dev.partition_id);
        break;
      case CollectiveMode::kCrossPartition:
        devices.push_back(dev.replica_id * P + id);
        break;
      case CollectiveMode::kFlattenedId:
        devices.push_back(id);
        break;
      case CollectiveMode::kCrossReplicaAndPartition:
        for (int64_t p = 0; p < P; ++p) devices.push_back(id * P + p);
        break;
    }
  }
  return devices;
}

int64_t PairId(CollectiveMode mode, const DeviceContext& dev) {
  switch (mode) {
    case CollectiveMode::kCrossPartition:
      return dev.partition_id;
    case CollectiveMode::kFlattenedId:
      return dev.device();
    default:
      return dev.replica_id;
  }
}

int64_t PairDevice(CollectiveMode mode, const DeviceContext& dev, int64_t id) {
  switch (mode) {
    case CollectiveMode::kCrossPartition:
      return dev.replica_id * dev.partition_count + id;
    case CollectiveMode::kFlattenedId:
      return id;
    default:
      return id * dev.partition_count + dev.partition_id;
  }
}

int64_t PairIdCount(CollectiveMode mode, const DeviceContext& dev) {
  switch (mode) {
    case CollectiveMode::kCrossPartition:
      return dev.partition_count;
    case CollectiveMode::kFlattenedId:
      return dev.devices();
    default:
      return dev.replica_count;
  }
}

std::vector<int64_t> PairGroup(CollectiveMode mode, const DeviceContext& device) {
  std::vector<int64_t> group;
  for (int64_t id = 0; id < PairIdCount(mode, device); ++id) {
    group.push_back(PairDevice(mode, device, id));
  }
  return group;
}

namespace {

// The collective `inst` runs as (the wrapped op of a -start), or kTuple
// (none) when it meets no group.
Opcode GroupOpOf(const Instruction& inst) {
  Opcode op = inst.opcode();
  if (op == Opcode::kAsyncStart && inst.has_wrapped_opcode()) op = inst.wrapped_opcode();
  switch (op) {
    case Opcode::kAllReduceStart:
      return Opcode::kAllReduce;
    case Opcode::kAllGatherStart:
      return Opcode::kAllGather;
    case Opcode::kCollectivePermuteStart:
      return Opcode::kCollectivePermute;
    default:
      return IsGroupCollective(op) ? op : Opcode::kTuple;
  }
}

}  // namespace

std::vector<std::vector<int64_t>> SmallCollectiveGroups(const Module& module, int64_t replicas,
                                                        int64_t partitions, int64_t max_bytes) {
  std::set<std::vector<int64_t>> groups;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      const Opcode op = GroupOpOf(*inst);
      if (op == Opcode::kTuple) continue;
      int64_t bytes = 0;
      for (const Instruction* o : inst->operands()) bytes += ShapeBytes(o->shape());
      for (int64_t d = 0; d < replicas * partitions; ++d) {
        DeviceContext device(d / partitions, d % partitions, replicas, partitions, nullptr);
        std::vector<int64_t> group;
        if (op == Opcode::kCollectivePermute) {
          auto mode = CollectiveModeOf(*inst, op);
          if (!mode.ok()) break;
          group = PairGroup(*mode, device);
        } else if (auto g = GroupDevices(*inst, op, device); g.ok()) {
          group = *std::move(g);
        }
        if (group.size() < 2 || bytes > max_bytes / static_cast<int64_t>(group.size())) continue;
        groups.insert(std::move(group));
      }
    }
  }
  return {groups.begin(), groups.end()};
}

}  // namespace hlo
