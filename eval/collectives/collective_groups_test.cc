// Group resolution of collectives (eval/collectives/collective_groups.cc) per XLA's
// CollectiveOpGroupMode and the StableHLO spec's process groups, worked by
// hand: device = replica * partitions + partition.
#include "eval/collectives/collective_groups.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ir/computation.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// The ROOT of `ENTRY { x = f32[4] parameter(0); ROOT r = f32[4] <op> }`.
struct OneOp {
  std::unique_ptr<Module> module;
  const Instruction* root = nullptr;
};

OneOp Parse(const std::string& op) {
  std::string text = StrCat(R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] )",
                            op, "\n}\n");
  auto m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  OneOp out;
  out.module = *std::move(m);
  out.root = out.module->entry()->root();
  return out;
}

std::vector<int64_t> Group(const OneOp& op, int64_t replica, int64_t partition, int64_t replicas,
                           int64_t partitions) {
  DeviceContext dev(replica, partition, replicas, partitions, nullptr);
  auto g = GroupDevices(*op.root, op.root->opcode(), dev);
  INFO((g.ok() ? std::string() : std::string(g.status().message())));
  REQUIRE(g.ok());
  return *g;
}

using V = std::vector<int64_t>;

TEST_CASE("groups: cross-replica, empty and explicit", "[collective_groups]") {
  OneOp all = Parse("all-reduce(x), to_apply=add");
  // 2 replicas x 2 partitions: the replicas of the device's own partition.
  CHECK(Group(all, 1, 1, 2, 2) == V{1, 3});
  CHECK(Group(all, 0, 0, 2, 2) == V{0, 2});
  OneOp two = Parse("all-reduce(x), replica_groups={{1,0},{2,3}}, to_apply=add");
  CHECK(Group(two, 0, 0, 4, 1) == V{1, 0});  // group order kept
  CHECK(Group(two, 3, 0, 4, 1) == V{2, 3});
}

TEST_CASE("groups: the iota form", "[collective_groups]") {
  // [2,2]<=[2,2]T(1,0): ids 0..3 as [[0,1],[2,3]] transposed: {0,2},{1,3}.
  OneOp iota = Parse("all-reduce(x), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add");
  CHECK(Group(iota, 2, 0, 4, 1) == V{0, 2});
  CHECK(Group(iota, 1, 0, 4, 1) == V{1, 3});
}

TEST_CASE("groups: cross-partition, cross-replica-and-partition, flattened",
          "[collective_groups]") {
  // all-to-all with a channel_id: partitions of the device's replica.
  OneOp a2a = Parse("all-to-all(x), dimensions={0}, channel_id=1");
  CHECK(Group(a2a, 1, 0, 2, 2) == V{2, 3});
  // all-reduce, channel_id, no use_global_device_ids: each replica group
  // spans every partition, replica-major.
  OneOp crp = Parse("all-reduce(x), channel_id=1, replica_groups={{0,1}}, to_apply=add");
  CHECK(Group(crp, 1, 1, 2, 2) == V{0, 1, 2, 3});
  // Flattened ids name devices.
  OneOp flat = Parse(
      "all-reduce(x), channel_id=1, replica_groups={{0,3},{1,2}}, "
      "use_global_device_ids=true, to_apply=add");
  CHECK(Group(flat, 1, 0, 2, 2) == V{1, 2});  // device 2
  CHECK(Group(flat, 1, 1, 2, 2) == V{0, 3});  // device 3
}

TEST_CASE("groups: a device in no group, an id out of range", "[collective_groups]") {
  OneOp op = Parse("all-reduce(x), replica_groups={{0,1}}, to_apply=add");
  DeviceContext dev(2, 0, 4, 1, nullptr);
  auto g = GroupDevices(*op.root, op.root->opcode(), dev);
  REQUIRE(!g.ok());
  CHECK(absl::IsNotFound(g.status()));
  CHECK(std::string(g.status().message()) ==
        "replica 2 is in no group of replica_groups (the run has 4 replicas)");
  DeviceContext small(0, 0, 1, 1, nullptr);
  auto h = GroupDevices(*op.root, op.root->opcode(), small);
  REQUIRE(!h.ok());
  CHECK(std::string(h.status().message()).find("replica_groups name replica 1") == 0);
}

TEST_CASE("groups: every small collective's groups of a module", "[collective_groups]") {
  auto m = ParseModule(R"(HloModule m, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

body {
  p = f32[4] parameter(0)
  ROOT c = f32[4] collective-permute(p), channel_id=2, source_target_pairs={{0,1}}
}

ENTRY main {
  x = f32[4] parameter(0)
  big = f32[8192] parameter(1)
  r = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  g = f32[16384] all-gather(big), channel_id=1, dimensions={0}
  ROOT k = f32[4] call(r), to_apply=body
}
)");
  REQUIRE(m.ok());
  // all-reduce without channel: the replicas of each partition ({0,2},
  // {1,3}); collective-permute with a channel: the partitions of each
  // replica ({0,1}, {2,3}); the all-gather's 2 x 32 KB is over 32 KB.
  CHECK(SmallCollectiveGroups(**m, 2, 2, 32 << 10) ==
        std::vector<V>{{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  // With room for it, the all-gather's too: channel_id without
  // use_global_device_ids, no replica_groups: every replica of every
  // partition.
  CHECK(SmallCollectiveGroups(**m, 2, 2, 1 << 20) ==
        std::vector<V>{{0, 1}, {0, 1, 2, 3}, {0, 2}, {1, 3}, {2, 3}});
  // One device: no group.
  CHECK(SmallCollectiveGroups(**m, 1, 1, 1 << 20).empty());
}

}  // namespace
}  // namespace hlo
