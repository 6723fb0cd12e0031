#include "ir/mesh.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ir/computation.h"
#include "ir/hlo_printer.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

Mesh Make(std::vector<std::string> names, std::vector<int64_t> sizes) {
  Mesh m;
  m.axis_names = std::move(names);
  m.axis_sizes = std::move(sizes);
  return m;
}

MeshAxisRef Axis(int64_t axis) { return {axis, 0, 0}; }
MeshAxisRef Sub(int64_t axis, int64_t pre, int64_t size) { return {axis, pre, size}; }

Groups Expand(const Mesh& mesh, std::vector<MeshAxisRef> axes) {
  auto g = ExpandMeshReplicaGroups({mesh, std::move(axes)});
  REQUIRE(g.ok());
  return *g;
}

// The expected groups below are worked out by hand from XLA's definition
// (MeshAxesReplicaGroupList::flattened_replica_groups): with the mesh's
// devices laid out row-major over its axes, a group is every device that
// differs only in the listed axes, ordered by those axes in the order
// listed; groups come in row-major order of the other axes. A sub-axis
// 'a':(p)s views axis a (size n) as [p, s, n/(p*s)] and takes the middle.
TEST_CASE("mesh replica groups over whole axes", "[mesh]") {
  Mesh m = Make({"x", "y"}, {2, 4});  // device = 4x + y
  CHECK(Expand(m, {Axis(1)}) == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(Expand(m, {Axis(0)}) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(Expand(m, {Axis(0), Axis(1)}) == Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
  // y varies slowest within the group when listed first.
  CHECK(Expand(m, {Axis(1), Axis(0)}) == Groups{{0, 4, 1, 5, 2, 6, 3, 7}});
  CHECK(Expand(m, {}) == Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
  // One axis, as in the JAX shard_map case: all four devices.
  CHECK(Expand(Make({"i"}, {4}), {Axis(0)}) == Groups{{0, 1, 2, 3}});
}

TEST_CASE("mesh replica groups over sub-axes", "[mesh]") {
  // a = 4*i0 + 2*i1 + i2 for a:(2)2 as [2, 2, 2]; groups vary i1.
  Mesh a8 = Make({"a"}, {8});
  CHECK(Expand(a8, {Sub(0, 2, 2)}) == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  // a:(1)2 is [1, 2, 4]: a = 4*s + r.
  CHECK(Expand(a8, {Sub(0, 1, 2)}) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // a:(4)2 is [4, 2, 1]: a = 2*p + s.
  CHECK(Expand(a8, {Sub(0, 4, 2)}) == Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  // Two sub-axes of one axis, listed major one last: a = 4*i0 + 2*i1 + i2
  // with a:(1)2 = i0, a:(4)2 = i2; the group runs over (i2, i0).
  CHECK(Expand(a8, {Sub(0, 4, 2), Sub(0, 1, 2)}) == Groups{{0, 4, 1, 5}, {2, 6, 3, 7}});
  CHECK(Expand(a8, {Sub(0, 1, 2), Sub(0, 4, 2)}) == Groups{{0, 1, 4, 5}, {2, 3, 6, 7}});
  // A 6x6 mesh (device = 6a + b), b:(1)2 views b as [1, 2, 3]: b = 3s + r.
  Mesh m66 = Make({"a", "b"}, {6, 6});
  Groups b12 = Expand(m66, {Sub(1, 1, 2)});
  REQUIRE(b12.size() == 18);
  CHECK(b12[0] == std::vector<int64_t>{0, 3});
  CHECK(b12[2] == std::vector<int64_t>{2, 5});
  CHECK(b12[3] == std::vector<int64_t>{6, 9});
  // a:(3)2 views a as [3, 2, 1]: a = 2p + s; device 6(2p + s) + b.
  Groups a32 = Expand(m66, {Sub(0, 3, 2)});
  REQUIRE(a32.size() == 18);
  CHECK(a32[0] == std::vector<int64_t>{0, 6});
  CHECK(a32[5] == std::vector<int64_t>{5, 11});
  CHECK(a32[6] == std::vector<int64_t>{12, 18});
}

TEST_CASE("mesh replica groups follow the mesh's device order", "[mesh]") {
  Mesh listed = Make({"x", "y"}, {2, 2});
  listed.device_ids = {3, 2, 1, 0};  // (x, y) -> 3 - 2x - y
  CHECK(Expand(listed, {Axis(0)}) == Groups{{3, 1}, {2, 0}});
  CHECK(Expand(listed, {Axis(1)}) == Groups{{3, 2}, {1, 0}});
  // device_ids=([2,2]T(1,0)): iota [[0,1],[2,3]] transposed, [[0,2],[1,3]].
  Mesh iota = Make({"x", "y"}, {2, 2});
  iota.iota_reshape_dims = {2, 2};
  iota.iota_perm = {1, 0};
  CHECK(iota.Devices() == std::vector<int64_t>{0, 2, 1, 3});
  CHECK(Expand(iota, {Axis(1)}) == Groups{{0, 2}, {1, 3}});
  CHECK(Expand(iota, {Axis(0)}) == Groups{{0, 1}, {2, 3}});
  Mesh maximal;
  maximal.maximal_device = 3;
  CHECK(Expand(maximal, {}) == Groups{{3}});
}

TEST_CASE("mesh replica groups refuse invalid axes", "[mesh]") {
  Mesh a8 = Make({"a"}, {8});
  CHECK(!ExpandMeshReplicaGroups({a8, {Axis(0), Sub(0, 1, 2)}}).ok());       // overlap
  CHECK(!ExpandMeshReplicaGroups({a8, {Sub(0, 1, 2), Sub(0, 2, 2)}}).ok());  // mergeable
  CHECK(!ExpandMeshReplicaGroups({a8, {Sub(0, 3, 2)}}).ok());                // 6 does not divide 8
  CHECK(!ExpandMeshReplicaGroups({a8, {Sub(0, 1, 8)}}).ok());                // the whole axis
  Mesh big = Make({"a", "b"}, {1 << 20, 1 << 20});
  CHECK(!ExpandMeshReplicaGroups({big, {Axis(0)}}).ok());  // too many devices
}

TEST_CASE("iota device lists are canonicalized as XLA does", "[mesh]") {
  auto canon = [](std::vector<int64_t> dims, std::vector<int64_t> perm) {
    CanonicalizeIota(&dims, &perm);
    return std::make_pair(dims, perm);
  };
  using P = std::pair<std::vector<int64_t>, std::vector<int64_t>>;
  CHECK(canon({4}, {0}) == P{{4}, {0}});
  CHECK(canon({2, 2}, {0, 1}) == P{{4}, {0}});
  CHECK(canon({2, 1, 2}, {2, 1, 0}) == P{{2, 2}, {1, 0}});
  CHECK(canon({3, 4, 5}, {1, 2, 0}) == P{{3, 20}, {1, 0}});
  CHECK(canon({3, 4, 5}, {2, 1, 0}) == P{{3, 4, 5}, {2, 1, 0}});
  CHECK(canon({1, 1}, {1, 0}) == P{{1}, {0}});
}

// Parses `text` and prints it back.
std::string RoundTrip(const std::string& text) {
  auto m = ParseModule(text, ParseOptions{"<test>"});
  REQUIRE(m.ok());
  return PrintModule(**m);
}

TEST_CASE("mesh replica groups print as XLA prints them", "[mesh]") {
  auto module = [](std::string_view groups) {
    return std::string(
               "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, "
               "replica_count=4\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
               "  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
               "  ROOT r = f32[4]{0} all-reduce(p), replica_groups=") +
           std::string(groups) + ", to_apply=add\n}\n\n";
  };
  for (std::string_view same :
       {"mesh['x'=2,'y'=2] {'x'}", "mesh['x'=4] {}",
        "mesh['x'=2,'y'=2], device_ids=([2,2]T(1,0)) {'y','x'}",
        "mesh['x'=2,'y'=2], device_ids=(3,1,0,2) {'y'}", "mesh['a'=4] {'a':(2)2}"}) {
    CHECK(RoundTrip(module(same)) == module(same));
  }
  // The plain order is not written; other iotas in XLA's canonical form.
  CHECK(RoundTrip(module("mesh['x'=4], device_ids=([4]) {'x'}")) == module("mesh['x'=4] {'x'}"));
  CHECK(RoundTrip(module("mesh['x'=2,'y'=2], device_ids=([2,2]T(0,1)) {'x'}")) ==
        module("mesh['x'=2,'y'=2] {'x'}"));
  // Axes by number print by name.
  CHECK(RoundTrip(module("mesh['x'=2,'y'=2] {'1'}")) == module("mesh['x'=2,'y'=2] {'y'}"));
}

}  // namespace
}  // namespace hlo
