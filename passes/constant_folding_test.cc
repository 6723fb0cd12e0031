// constant-folding: what changes, what does not, and that the result still
// verifies and runs to the same values.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "eval/evaluator.h"
#include "ir/computation.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/passes.h"
#include "passes/verifier.h"

namespace hlo {
namespace {

std::unique_ptr<Module> Parse(std::string_view body) {
  auto m = ParseModule(StrCat("HloModule t\n\n", body));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *std::move(m);
}

int64_t Count(const Module& m, Opcode op) {
  int64_t n = 0;
  for (const auto& inst : m.entry()->instructions()) n += inst->opcode() == op;
  return n;
}

TEST_CASE("constant-folding: a chain folds in one run, then nothing changes",
          "[constant_folding]") {
  auto m = Parse(R"(
ENTRY main {
  a = s32[3] constant({1, 2, 3})
  b = s32[3] add(a, a)
  c = s32[3] multiply(b, b)
  d = s32[3] reverse(c), dimensions={0}
  ROOT e = s32[] reduce(d, z), dimensions={0}, to_apply=max
  z = s32[] constant(-2147483648)
}

max {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT m = s32[] maximum(x, y)
})");
  auto pass = CreateConstantFolding();
  auto changed = pass->Run(*m);
  REQUIRE(changed.ok());
  CHECK(*changed);
  // Everything collapsed into the root constant: max((2i)^2) = 36.
  REQUIRE(m->entry()->instruction_count() == 1);
  const Instruction* root = m->entry()->root();
  CHECK(root->opcode() == Opcode::kConstant);
  CHECK(root->name() == "e");
  CHECK(root->literal()->GetInt(0) == 36);
  CHECK(VerifyModule(*m).ok());
  auto again = pass->Run(*m);
  REQUIRE(again.ok());
  CHECK(!*again);
}

TEST_CASE("constant-folding: results keep their values and the module verifies",
          "[constant_folding]") {
  constexpr std::string_view kText = R"(
ENTRY main {
  p = f32[2] parameter(0)
  k = f32[] constant(0.5)
  bk = f32[2] broadcast(k), dimensions={}
  c = f32[2] constant({3, -1})
  d = f32[2] divide(c, bk)
  e = f32[2] exponential(d)
  i = s32[2] iota(), iota_dimension=0
  ci = f32[2] convert(i)
  s = f32[2] add(e, ci)
  ROOT r = f32[2] multiply(p, s)
})";
  auto before = Parse(kText);
  auto after = Parse(kText);
  auto changed = CreateConstantFolding()->Run(*after);
  REQUIRE(changed.ok());
  CHECK(*changed);
  REQUIRE(VerifyModule(*after).ok());
  // d and e fold, and bk, then unused, goes; i, ci (no constant operand)
  // and s (its operand ci is neither constant, broadcast of one, nor iota)
  // stay.
  CHECK(Count(*after, Opcode::kBroadcast) == 0);
  CHECK(Count(*after, Opcode::kIota) == 1);
  CHECK(Count(*after, Opcode::kDivide) == 0);
  CHECK(Count(*after, Opcode::kExp) == 0);
  CHECK(Count(*after, Opcode::kAdd) == 1);
  auto input = ParseLiteral("f32[2] {1, 2}");
  REQUIRE(input.ok());
  Evaluator e1(*before, {}), e2(*after, {});
  auto v1 = e1.Run({Value::FromLiteral(*input)});
  auto v2 = e2.Run({Value::FromLiteral(*input)});
  REQUIRE(v1.ok());
  REQUIRE(v2.ok());
  CHECK(v1->ToLiteral() == v2->ToLiteral());
}

TEST_CASE("constant-folding: rng and tuple-shaped results are not folded", "[constant_folding]") {
  auto m = Parse(R"(
ENTRY main {
  s = u64[2] constant({0, 0})
  g = (u64[2], u32[2]) rng-bit-generator(s), algorithm=rng_three_fry
  bits = u32[2] get-tuple-element(g), index=1
  a = f32[] constant(0)
  b = f32[] constant(1)
  r = f32[] rng(a, b), distribution=rng_uniform
  ROOT t = (u32[2], f32[]) tuple(bits, r)
})");
  auto changed = CreateConstantFolding()->Run(*m);
  REQUIRE(changed.ok());
  CHECK(!*changed);
  CHECK(Count(*m, Opcode::kRng) == 1);
  CHECK(Count(*m, Opcode::kRngBitGenerator) == 1);
}

}  // namespace
}  // namespace hlo
