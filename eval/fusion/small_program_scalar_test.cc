// Small programs' integer ops of an array and a broadcast scalar
// (elementwise::IntOperands kScalarA and kScalarB): the op reads the scalar
// once instead of a filled array, and gives, bit for bit, what the
// evaluator's kernels give on the broadcast (fusion off): every integer
// binary op with the scalar on either side, shift amounts past the width,
// zero divisors, in u32, s32, s8, u64 and s64, the scalar sliced out of an
// array as threefry's rounds take their rotations.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "eval/fusion/small_program_test_util.h"
#include "ir/strings.h"
#include "parser/parse_test_util.h"

namespace hlo {
namespace {

constexpr auto& kOps = kIntegerBinaryOps;

// A fusion `f` over x: T[37] and k: T[4]: r = k[1] % 40 (shift amounts
// past T's width among them; a zero now and then), then every op of x and
// broadcast(r) both ways, and x + broadcast(k[0]) unreduced; the root the
// tuple of them.
std::string ScalarOpsModule(const std::string& t) {
  std::string body = StrCat(
      "  x = ", t, "[37]{0} parameter(0)\n  k = ", t, "[4]{0} parameter(1)\n  k0 = ", t,
      "[1]{0} slice(k), slice={[0:1]}\n  s0 = ", t, "[] bitcast(k0)\n  k1 = ", t,
      "[1]{0} slice(k), slice={[1:2]}\n  s1 = ", t, "[] bitcast(k1)\n  forty = ", t,
      "[] constant(40)\n  r = ", t, "[] remainder(s1, forty)\n  b = ", t,
      "[37]{0} broadcast(r), dimensions={}\n  b0 = ", t, "[37]{0} broadcast(s0), dimensions={}\n");
  std::vector<std::string> names;
  for (int i = 0; i < static_cast<int>(std::size(kOps)); ++i) {
    body += StrCat("  xb", i, " = ", t, "[37]{0} ", kOps[i], "(x, b)\n");
    body += StrCat("  bx", i, " = ", t, "[37]{0} ", kOps[i], "(b, x)\n");
    names.push_back(StrCat("xb", i));
    names.push_back(StrCat("bx", i));
  }
  body += StrCat("  plain = ", t, "[37]{0} add(x, b0)\n");
  names.push_back("plain");
  std::string shapes;
  for (size_t i = 0; i < names.size(); ++i) shapes += StrCat(i ? ", " : "", t, "[37]{0}");
  body += StrCat("  ROOT out = (", shapes, ") tuple(", StrJoin(names, ", "), ")\n");
  return StrCat("HloModule scalar_ops\n\nops {\n", body, "}\n\nENTRY main {\n  x = ", t,
                "[37]{0} parameter(0)\n  k = ", t, "[4]{0} parameter(1)\n  ROOT f = (", shapes,
                ") fusion(x, k), kind=kLoop, calls=ops\n}\n");
}

TEST_CASE("small programs' integer ops read a broadcast scalar as it is", "[small_program]") {
  for (const char* t : {"u32", "s32", "s8", "u64", "s64"}) {
    std::unique_ptr<Module> m = ParseTestModule(ScalarOpsModule(t));
    const Instruction& f = EntryInstruction(*m, "f");
    std::unique_ptr<SmallProgram> program = CompileSmallFusion(f, false);
    REQUIRE(program != nullptr);
    // A step per op both ways, the plain add, the two slices and the
    // remainder (the bitcasts are aliases); no fill.
    INFO(t);
    CHECK(program->step_count() == 2 * static_cast<int64_t>(std::size(kOps)) + 4);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      INFO("seed " << seed);
      AgreeWithKernels(*m, f, RandomArguments(*m, seed), false);
    }
  }
}

// A float op's broadcast operand is still filled (one step more).
TEST_CASE("small programs fill a float op's broadcast scalar", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(R"(HloModule floats

ops {
  x = f32[37]{0} parameter(0)
  s = f32[] parameter(1)
  b = f32[37]{0} broadcast(s), dimensions={}
  ROOT y = f32[37]{0} add(x, b)
}

ENTRY main {
  x = f32[37]{0} parameter(0)
  s = f32[] parameter(1)
  ROOT f = f32[37]{0} fusion(x, s), kind=kLoop, calls=ops
}
)");
  const Instruction& f = EntryInstruction(*m, "f");
  std::unique_ptr<SmallProgram> program = CompileSmallFusion(f, false);
  REQUIRE(program != nullptr);
  CHECK(program->step_count() == 2);
  AgreeWithKernels(*m, f, RandomArguments(*m, 1), false);
}

}  // namespace
}  // namespace hlo
