// GELU's tanh form (eval/fusion/gelu_tanh.h): matched as JAX writes it,
// with a bias add or without, operands in either order; bit for bit the
// module run unfused (with and without --denormals=flush); and GELU's
// values as its definition gives them.
#include "eval/fusion/gelu_tanh.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/fusion/fusion_plan.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// GPT-2's MLP activation as JAX 0.11 writes it (../shared/xla-jax/models):
// h = dot + bias, then h * 0.5 * (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3))).
// `g` is the same without a bias, every commutative op's operands swapped
// and one broadcast serving as c3 and c4 (0.7 and 0.7: any scalars will
// do, and 0.5 and 1 multiply exactly, so only these show a wrong order).
// `extra` adds an output to the root tuple.
std::string Gelu(const std::string& extra) {
  return StrCat(R"(HloModule gelu

ENTRY main {
  x = f32[3,77,300] parameter(0)
  b = f32[300] parameter(1)
  bb = f32[3,77,300] broadcast(b), dimensions={2}
  h = f32[3,77,300] add(x, bb)
  sq = f32[3,77,300] multiply(h, h)
  cube = f32[3,77,300] multiply(sq, h)
  c1 = f32[] constant(0.044715)
  c1b = f32[3,77,300] broadcast(c1), dimensions={}
  m = f32[3,77,300] multiply(cube, c1b)
  a = f32[3,77,300] add(h, m)
  c2 = f32[] constant(0.797884583)
  c2b = f32[3,77,300] broadcast(c2), dimensions={}
  s = f32[3,77,300] multiply(a, c2b)
  t = f32[3,77,300] tanh(s)
  one = f32[] constant(1)
  oneb = f32[3,77,300] broadcast(one), dimensions={}
  u = f32[3,77,300] add(t, oneb)
  half = f32[] constant(0.5)
  halfb = f32[3,77,300] broadcast(half), dimensions={}
  w = f32[3,77,300] multiply(u, halfb)
  out = f32[3,77,300] multiply(h, w)
  y = f32[40,16] parameter(2)
  ysq = f32[40,16] multiply(y, y)
  ycube = f32[40,16] multiply(y, ysq)
  yc1b = f32[40,16] broadcast(c1), dimensions={}
  ym = f32[40,16] multiply(yc1b, ycube)
  ya = f32[40,16] add(ym, y)
  yc2b = f32[40,16] broadcast(c2), dimensions={}
  ys = f32[40,16] multiply(yc2b, ya)
  yt = f32[40,16] tanh(ys)
  seven = f32[] constant(0.7)
  yoneb = f32[40,16] broadcast(seven), dimensions={}
  yu = f32[40,16] add(yoneb, yt)
  yw = f32[40,16] multiply(yoneb, yu)
  g = f32[40,16] multiply(yw, y)
  ROOT tuple = (f32[3,77,300], f32[40,16])",
                extra.empty() ? "" : ", f32[3,77,300]", ") tuple(out, g", extra, ")\n}\n");
}

// Values over [-6, 6) with subnormals, infinities and NaNs among them.
Value Filled(std::vector<int64_t> dims, uint64_t seed) {
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, dims));
  REQUIRE(lit.ok());
  uint64_t state = seed;
  const int64_t n = lit->element_count();
  float* v = lit->typed<float>();
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = static_cast<float>(-6.0 + 12.0 * static_cast<double>(state >> 11) / 9007199254740992.0);
    if (i % 89 == 3) v[i] = (i % 2 ? -1 : 1) * 3e-39f;
    if (i % 211 == 5) v[i] = (i % 2 ? -1 : 1) * std::numeric_limits<float>::infinity();
    if (i % 307 == 9) v[i] = std::numeric_limits<float>::quiet_NaN();
    if (i % 97 == 11) v[i] = 1e13f;  // its cube overflows
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("gelu tanh: JAX's form is matched, with or without a bias, in any operand order",
          "[eval][gelu]") {
  auto whole = ParseModule(Gelu(""));
  auto leaky = ParseModule(Gelu(", s"));  // tanh's argument read outside
  INFO((whole.ok() ? std::string() : std::string(whole.status().message())));
  REQUIRE(whole.ok());
  REQUIRE(leaky.ok());
  std::vector<const Instruction*> members, inputs;
  auto op = MatchGeluTanh(EntryInstruction(**whole, "out"), &members, &inputs);
  REQUIRE(op.has_value());
  CHECK(op->bias);
  CHECK(op->rows == 231);
  CHECK(op->cols == 300);
  CHECK(members.size() == 15);  // out ... sq, the four scalars' broadcasts, h, bb
  REQUIRE(inputs.size() == 6);
  CHECK(inputs[0]->name() == "x");
  CHECK(inputs[1]->name() == "b");
  CHECK(inputs[2]->name() == "c1");
  CHECK(inputs[5]->name() == "half");
  auto swapped = MatchGeluTanh(EntryInstruction(**whole, "g"), &members, &inputs);
  REQUIRE(swapped.has_value());
  CHECK_FALSE(swapped->bias);
  CHECK(members.size() == 12);  // yoneb serves as c3 and c4
  REQUIRE(inputs.size() == 5);
  CHECK(inputs[0]->name() == "y");
  CHECK_FALSE(MatchGeluTanh(EntryInstruction(**leaky, "out"), &members, &inputs));
  CHECK_FALSE(MatchGeluTanh(EntryInstruction(**whole, "w"), &members, &inputs));
}

TEST_CASE("gelu tanh: the fused form gives the unfused bits", "[eval][gelu]") {
  auto m = ParseModule(Gelu(""));
  REQUIRE(m.ok());
  std::vector<Value> args = {Filled({3, 77, 300}, 1), Filled({300}, 2), Filled({40, 16}, 3)};
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "kept"));
    CheckFusionKeepsBytes(**m, args, flush);
  }
}

TEST_CASE("gelu tanh: the values are GELU's", "[eval][gelu]") {
  auto m = ParseModule(Gelu(""));
  REQUIRE(m.ok());
  std::vector<Value> args = {Filled({3, 77, 300}, 4), Filled({300}, 5), Filled({40, 16}, 6)};
  Evaluator ev(**m, {});
  auto result = ev.Run(args);
  REQUIRE(result.ok());
  const Literal out = result->ToLiteral();
  const float* y = out.elements()[0].typed<float>();
  const float* x = args[0].array().typed<float>();
  const float* b = args[1].array().typed<float>();
  int64_t checked = 0;
  for (int64_t i = 0; i < 3 * 77 * 300; ++i) {
    const float h = x[i] + b[i % 300];
    if (!std::isfinite(h) || std::fabs(h) > 10) continue;
    const long double hl = h;
    const long double want =
        0.5L * hl * (1 + std::tanh(0.797884583L * (hl + 0.044715L * hl * hl * hl)));
    // f32's rounding of a few ops and tanh's (about 1 ulp): relative 1e-6,
    // and absolute 1e-6 where the result cancels to near 0 (h < -3).
    CHECK(std::fabs(y[i] - want) <= 1e-6L * std::fabs(want) + 1e-6L);
    ++checked;
  }
  CHECK(checked > 30000);
}

// XLA:CPU's GELU fusion (../shared/xla-jax/models' after.hlo): the form
// between bitcasts, the bias add inside. hlo-run defuses fusions that hold
// it (HoldsPatternKernel), so that the executor's group runs it.
constexpr char kXlaGeluFusion[] = R"(HloModule xla_gelu

fused_gelu {
  p1 = f32[256,300] parameter(1)
  x = f32[2,128,300] bitcast(p1)
  p0 = f32[300] parameter(0)
  bb = f32[2,128,300] broadcast(p0), dimensions={2}
  h = f32[2,128,300] add(x, bb)
  sq = f32[2,128,300] multiply(h, h)
  cube = f32[2,128,300] multiply(sq, h)
  c1 = f32[] constant(0.044715)
  c1b = f32[2,128,300] broadcast(c1), dimensions={}
  m = f32[2,128,300] multiply(cube, c1b)
  a = f32[2,128,300] add(h, m)
  c2 = f32[] constant(0.797884583)
  c2b = f32[2,128,300] broadcast(c2), dimensions={}
  s = f32[2,128,300] multiply(a, c2b)
  t = f32[2,128,300] tanh(s)
  one = f32[] constant(1)
  oneb = f32[2,128,300] broadcast(one), dimensions={}
  u = f32[2,128,300] add(t, oneb)
  half = f32[] constant(0.5)
  halfb = f32[2,128,300] broadcast(half), dimensions={}
  w = f32[2,128,300] multiply(u, halfb)
  out = f32[2,128,300] multiply(h, w)
  ROOT r = f32[256,300] bitcast(out)
}

fused_other {
  q0 = f32[256,300] parameter(0)
  q1 = f32[256,300] parameter(1)
  ROOT e = f32[256,300] multiply(q0, q1)
}

ENTRY main {
  b = f32[300] parameter(0)
  y = f32[256,300] parameter(1)
  g = f32[256,300] fusion(b, y), kind=kLoop, calls=fused_gelu
  ROOT o = f32[256,300] fusion(g, y), kind=kLoop, calls=fused_other
}
)";

TEST_CASE("gelu tanh: XLA's GELU fusion holds the form", "[eval][gelu]") {
  auto m = ParseModule(kXlaGeluFusion);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  CHECK(HoldsPatternKernel(*EntryInstruction(**m, "g").to_apply()));
  CHECK_FALSE(HoldsPatternKernel(*EntryInstruction(**m, "o").to_apply()));
}

}  // namespace
}  // namespace hlo
