// Tests for algsimp beyond the golden files: the exact value tests on every
// float encoding, one-sweep collapse of long chains with the dead removed,
// a second run changing nothing, and control edges left alone.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "parser/parse_test_util.h"
#include "passes/algebraic_simplifier_internal.h"
#include "passes/passes.h"
#include "passes/verifier.h"

namespace hlo {
namespace {

using algsimp::Splat;

Literal Scalar(PrimitiveType t, double v) {
  Literal lit = *Literal::Create(Shape::Array(t, {}));
  lit.SetDouble(0, v);
  return lit;
}

bool RunAlgsimp(Module& m) {
  auto changed = CreateAlgebraicSimplifier()->Run(m);
  REQUIRE(changed.ok());
  REQUIRE(VerifyModule(m).ok());
  return *changed;
}

TEST_CASE("algsimp value tests tell -0.0 from +0.0 in every float type", "[algsimp]") {
  for (PrimitiveType t : {PrimitiveType::kF16, PrimitiveType::kBF16, PrimitiveType::kF32,
                          PrimitiveType::kF64, PrimitiveType::kF8E4M3FN, PrimitiveType::kF8E5M2}) {
    Literal neg = Scalar(t, -0.0), pos = Scalar(t, 0.0), one = Scalar(t, 1.0);
    CHECK(algsimp::IsFloatNegZero(Splat{&neg, 0}));
    CHECK_FALSE(algsimp::IsFloatPosZero(Splat{&neg, 0}));
    CHECK(algsimp::IsFloatPosZero(Splat{&pos, 0}));
    CHECK_FALSE(algsimp::IsFloatNegZero(Splat{&pos, 0}));
    CHECK(algsimp::IsFloatOne(Splat{&one, 0}));
    CHECK_FALSE(algsimp::IsIntZero(Splat{&pos, 0}));  // a float zero is not an integer zero
  }
  // The fnuz formats have no -0.0: bits 0x80 are NaN and must not count.
  Literal fnuz = *Literal::Create(Shape::Array(PrimitiveType::kF8E4M3FNUZ, {}));
  fnuz.SetBits(0, 0x80);
  CHECK_FALSE(algsimp::IsFloatNegZero(Splat{&fnuz, 0}));
  CHECK_FALSE(algsimp::IsFloatPosZero(Splat{&fnuz, 0}));
}

TEST_CASE("algsimp integer bounds per width and signedness", "[algsimp]") {
  auto lit = [](PrimitiveType t, int64_t v) {
    Literal l = *Literal::Create(Shape::Array(t, {}));
    l.SetInt(0, v);
    return l;
  };
  Literal s8min = lit(PrimitiveType::kS8, -128), s8max = lit(PrimitiveType::kS8, 127);
  Literal u8max = lit(PrimitiveType::kU8, 255), s4m1 = lit(PrimitiveType::kS4, -1);
  Literal u64max = lit(PrimitiveType::kU64, -1), s32m1 = lit(PrimitiveType::kS32, -1);
  CHECK(algsimp::IsIntMin(Splat{&s8min, 0}));
  CHECK(algsimp::IsIntMax(Splat{&s8max, 0}));
  CHECK_FALSE(algsimp::IsIntMax(Splat{&s8min, 0}));
  CHECK(algsimp::IsIntMax(Splat{&u8max, 0}));
  CHECK(algsimp::IsAllOnes(Splat{&u8max, 0}));
  CHECK(algsimp::IsAllOnes(Splat{&s4m1, 0}));
  CHECK(algsimp::IsAllOnes(Splat{&u64max, 0}));
  CHECK(algsimp::IsIntMax(Splat{&u64max, 0}));
  CHECK_FALSE(algsimp::IsIntMax(Splat{&s32m1, 0}));
}

TEST_CASE("algsimp collapses a long chain in one run and removes the dead", "[algsimp]") {
  // 200 double negations of x and a reshape chain: one run leaves x only.
  std::string text =
      "HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  n0 = f32[2,3] negate(x)\n";
  for (int i = 1; i < 400; ++i) {
    text += "  n" + std::to_string(i) + " = f32[2,3] negate(n" + std::to_string(i - 1) + ")\n";
  }
  text +=
      "  r0 = f32[6] reshape(n399)\n  r1 = f32[3,2] reshape(r0)\n"
      "  ROOT r2 = f32[2,3] reshape(r1)\n}\n";
  auto m = ParseTestModule(text);
  CHECK(RunAlgsimp(*m));
  const Computation& c = *m->entry();
  CHECK(c.instruction_count() == 1);
  CHECK(c.root()->opcode() == Opcode::kParameter);
  CHECK_FALSE(RunAlgsimp(*m));  // nothing left to do
}

TEST_CASE("algsimp keeps unrelated dead code and instructions with control edges", "[algsimp]") {
  auto m = ParseTestModule(R"(HloModule m
ENTRY e {
  x = s32[4] parameter(0)
  zc = s32[] constant(0)
  z = s32[4] broadcast(zc), dimensions={}
  unused = s32[4] negate(x)
  a = s32[4] add(x, z)
  b = s32[4] add(a, z), control-predecessors={a}
  ROOT r = s32[4] add(b, z)
})");
  CHECK(RunAlgsimp(*m));
  const Computation& c = *m->entry();
  // r folds to b; a and b are bound by their control edge; unused stays for dce.
  CHECK(c.root()->name() == "b");
  CHECK(c.instruction_count() == 6);
}

TEST_CASE("algsimp removes operands it orphans, but not calls with side effects", "[algsimp]") {
  auto m = ParseTestModule(R"(HloModule m
effect {
  p = s32[4] parameter(0)
  ROOT c = s32[4] custom-call(p), custom_call_target="log"
}

pure {
  p = s32[4] parameter(0)
  ROOT n = s32[4] negate(p)
}

ENTRY e {
  x = s32[4] parameter(0)
  zc = s32[] constant(0)
  z = s32[4] broadcast(zc), dimensions={}
  a = s32[4] call(x), to_apply=effect
  b = s32[4] call(x), to_apply=pure
  ma = s32[4] multiply(a, z)
  mb = s32[4] multiply(b, z)
  ROOT t = (s32[4], s32[4]) tuple(ma, mb)
})");
  CHECK(RunAlgsimp(*m));
  std::vector<std::string> names;
  for (const auto& inst : m->entry()->instructions()) names.push_back(std::string(inst->name()));
  // ma and mb become z; the pure call b goes with them, the logging call a stays.
  CHECK(std::find(names.begin(), names.end(), "a") != names.end());
  CHECK(std::find(names.begin(), names.end(), "b") == names.end());
  CHECK(std::find(names.begin(), names.end(), "ma") == names.end());
  CHECK(m->entry()->instruction_count() == 5);  // x, zc, z, a, t
}

TEST_CASE("algsimp keeps a replacement whose layout differs", "[algsimp]") {
  auto m = ParseTestModule(R"(HloModule m
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT c = f32[2,3]{1,0} copy(x)
})");
  CHECK_FALSE(RunAlgsimp(*m));
  CHECK(m->entry()->root()->opcode() == Opcode::kCopy);
}

}  // namespace
}  // namespace hlo
