// Tests for the layout arithmetic (checked against a brute-force model of
// memory: an element's physical offset from minor_to_major) and for
// properties of the layout passes on whole modules.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "ir/hlo_printer.h"
#include "ir/strings.h"
#include "parser/parse_test_util.h"
#include "passes/layout_assignment_util.h"
#include "passes/passes.h"
#include "passes/verifier.h"

namespace hlo {
namespace {

using Dims = std::vector<int64_t>;

// Physical offset of the element at logical row-major index `k`.
int64_t PhysicalOffset(const Dims& dims, const MinorToMajor& m2m, int64_t k) {
  Dims index(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    index[d] = k % dims[d];
    k /= dims[d];
  }
  int64_t offset = 0, stride = 1;
  for (int64_t d : m2m) {
    offset += index[d] * stride;
    stride *= dims[d];
  }
  return offset;
}

int64_t Count(const Dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

// reshape(in -> out) reads memory in the same order under both layouts.
bool ReshapeIsBitcast(const Dims& in, const MinorToMajor& in_m2m, const Dims& out,
                      const MinorToMajor& out_m2m) {
  for (int64_t k = 0; k < Count(in); ++k) {
    if (PhysicalOffset(in, in_m2m, k) != PhysicalOffset(out, out_m2m, k)) return false;
  }
  return true;
}

std::vector<MinorToMajor> AllLayouts(int64_t rank) {
  MinorToMajor m2m;
  for (int64_t i = 0; i < rank; ++i) m2m.push_back(i);
  std::vector<MinorToMajor> out;
  do {
    out.push_back(m2m);
  } while (std::next_permutation(m2m.begin(), m2m.end()));
  return out;
}

TEST_CASE("ReshapeBitcastLayout finds a bitcast layout exactly when one exists", "[layout]") {
  ShapePool pool;
  const std::vector<Dims> shapes12 = {{12},    {2, 6},    {6, 2},    {3, 4},
                                      {4, 3},  {2, 2, 3}, {3, 2, 2}, {2, 3, 2},
                                      {1, 12}, {12, 1},   {2, 1, 6}, {3, 1, 4, 1}};
  int found = 0, none = 0;
  for (const Dims& in : shapes12) {
    for (const Dims& out : shapes12) {
      for (const MinorToMajor& in_m2m : AllLayouts(static_cast<int64_t>(in.size()))) {
        Shape from = Shape::Array(PrimitiveType::kF32, in);
        Layout layout;
        layout.minor_to_major = in_m2m;
        from = from.WithLayout(layout);
        auto got = ReshapeBitcastLayout(from, out);
        bool exists = false;
        for (const MinorToMajor& o : AllLayouts(static_cast<int64_t>(out.size()))) {
          exists = exists || ReshapeIsBitcast(in, in_m2m, out, o);
        }
        INFO(StrCat("[", StrJoin(in, ","), "]{", StrJoin(in_m2m, ","), "} -> [", StrJoin(out, ","),
                    "]"));
        REQUIRE(got.has_value() == exists);
        if (got) {
          REQUIRE(ReshapeIsBitcast(in, in_m2m, out, *got));
          ++found;
        } else {
          ++none;
        }
      }
    }
  }
  CHECK(found > 0);
  CHECK(none > 0);
}

TEST_CASE("ReshapeBitcastLayout maps default layouts to default layouts", "[layout]") {
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{2, 3}, {6}}, {{6}, {2, 1, 3}}, {{1, 2, 1, 3, 1}, {3, 2}}, {{4, 1}, {1, 2, 2}}};
  for (const auto& [in, out] : cases) {
    Shape from = Shape::Array(PrimitiveType::kF32, in).WithDefaultLayout();
    auto got = ReshapeBitcastLayout(from, out);
    REQUIRE(got.has_value());
    CHECK(IsDefaultMinorToMajor(*got));
  }
}

TEST_CASE("Transpose layouts make the transpose a bitcast", "[layout]") {
  const Dims in = {2, 3, 4};
  MinorToMajor perm_m = {0, 1, 2};
  do {
    Dims perm(perm_m.begin(), perm_m.end());
    Dims out = PermuteDims(in, perm);
    for (const MinorToMajor& in_m2m : AllLayouts(3)) {
      MinorToMajor out_m2m = TransposeResultLayout(in_m2m, perm);
      CHECK(TransposeOperandLayout(out_m2m, perm) == in_m2m);
      // Element at output index j is input element with index[perm[i]] = j[i].
      for (int64_t k = 0; k < Count(out); ++k) {
        Dims j(3);
        int64_t r = k;
        for (int d = 2; d >= 0; --d) {
          j[d] = r % out[d];
          r /= out[d];
        }
        Dims i(3);
        for (int d = 0; d < 3; ++d) i[perm[d]] = j[d];
        int64_t in_k = (i[0] * in[1] + i[1]) * in[2] + i[2];
        REQUIRE(PhysicalOffset(out, out_m2m, k) == PhysicalOffset(in, in_m2m, in_k));
      }
    }
  } while (std::next_permutation(perm_m.begin(), perm_m.end()));
}

// Every array shape in the module has a layout.
bool AllLaidOut(const Shape& s) {
  if (s.IsTuple()) {
    return std::all_of(s.tuple_shapes().begin(), s.tuple_shapes().end(),
                       [](const Shape* e) { return AllLaidOut(*e); });
  }
  return !s.IsArray() || s.has_layout();
}

const char* kLoopModule = R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1}, f32[2,3]{1,0})->(f32[3,2]{1,0}, f32[6]{0})}

body {
  bp = (s32[], f32[2,3]{0,1}) parameter(0)
  i = s32[] get-tuple-element(bp), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x = f32[2,3]{0,1} get-tuple-element(bp), index=1
  y = f32[2,3] exponential(x)
  ROOT r = (s32[], f32[2,3]) tuple(i1, y)
}

cond {
  cp = (s32[], f32[2,3]) parameter(0)
  c = s32[] get-tuple-element(cp), index=0
  lim = s32[] constant(3)
  ROOT lt = pred[] compare(c, lim), direction=LT
}

ENTRY e {
  p0 = f32[2,3]{0,1} parameter(0)
  p1 = f32[2,3] parameter(1)
  a = f32[2,3] add(p0, p1)
  z = s32[] constant(0)
  init = (s32[], f32[2,3]) tuple(z, a)
  w = (s32[], f32[2,3]) while(init), condition=cond, body=body
  g = f32[2,3] get-tuple-element(w), index=1
  t = f32[3,2] transpose(g), dimensions={1,0}
  b = f32[6] bitcast(a)
  ROOT o = (f32[3,2], f32[6]) tuple(t, b)
}
)";

TEST_CASE("layout-assignment: verifies, lays out everything, is idempotent", "[layout]") {
  auto m = ParseTestModule(kLoopModule);
  auto pass = CreateLayoutAssignment();
  auto changed = pass->Run(*m);
  REQUIRE(changed.ok());
  CHECK(*changed);
  CHECK(VerifyModule(*m).ok());
  for (const auto& c : m->computations()) {
    for (const auto& inst : c->instructions()) CHECK(AllLaidOut(inst->shape()));
  }
  // The entry result and parameters have the entry computation layout.
  CHECK(SameLayouts(m->entry()->root()->shape(), *m->entry_result_layout()));
  CHECK(MinorToMajorOf(m->entry()->parameter(0)->shape()) == MinorToMajor{0, 1});
  // The while's state follows the body parameter.
  std::string once = PrintModule(*m);
  auto again = pass->Run(*m);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
  CHECK(PrintModule(*m) == once);
}

TEST_CASE("layout-normalization leaves only default layouts", "[layout]") {
  auto m = ParseTestModule(kLoopModule);
  REQUIRE(CreateLayoutAssignment()->Run(*m).ok());
  auto changed = CreateLayoutNormalization()->Run(*m);
  REQUIRE(changed.ok());
  CHECK(*changed);
  CHECK(VerifyModule(*m).ok());
  for (const auto& c : m->computations()) {
    for (const auto& inst : c->instructions()) {
      INFO(inst->name());
      CHECK_FALSE(HasNonDefaultLayout(inst->shape()));
    }
  }
  for (const Shape* p : m->entry_parameter_layouts()) CHECK_FALSE(HasNonDefaultLayout(*p));
  auto again = CreateLayoutNormalization()->Run(*m);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
}

}  // namespace
}  // namespace hlo
