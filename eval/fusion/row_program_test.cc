// Row programs (eval/fusion/row_program.h): a layer norm as JAX writes it,
// an RMS norm and a max-scaled exp matched as one group each, bit for bit
// the result of the same module run unfused (with and without
// --denormals=flush), and the layer norm's values as the definition gives
// them.
#include "eval/fusion/row_program.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// GPT-2's layer norm as JAX 0.11 writes it (../shared/xla-jax/models): the
// mean and the centred values through reshapes to [..., 1], identity
// broadcasts and reshapes back, the subtract written twice, then scale and
// shift by [cols] parameters. `ROWS`, `COLS` and `T` are substituted;
// `extra` adds outputs to the root tuple.
std::string LayerNorm(int64_t rows, int64_t cols, const std::string& t, const std::string& extra) {
  std::string text = R"(HloModule layer_norm

add_T {
  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT s = T[] add(a, b)
}

ENTRY main {
  x = T[2,ROWS,COLS] parameter(0)
  g = T[COLS] parameter(1)
  beta = T[COLS] parameter(2)
  zero = T[] constant(0)
  s1 = T[2,ROWS] reduce(x, zero), dimensions={2}, to_apply=add_T
  s1r = T[2,ROWS,1] reshape(s1)
  n = T[] constant(COLS)
  nb = T[2,ROWS,1] broadcast(n), dimensions={}
  mean = T[2,ROWS,1] divide(s1r, nb)
  m1 = T[2,ROWS,1] broadcast(mean), dimensions={0,1,2}
  m2 = T[2,ROWS] reshape(m1)
  m3 = T[2,ROWS,COLS] broadcast(m2), dimensions={0,1}
  d = T[2,ROWS,COLS] subtract(x, m3)
  m4 = T[2,ROWS,1] broadcast(mean), dimensions={0,1,2}
  m5 = T[2,ROWS] reshape(m4)
  m6 = T[2,ROWS,COLS] broadcast(m5), dimensions={0,1}
  d2 = T[2,ROWS,COLS] subtract(x, m6)
  sq = T[2,ROWS,COLS] multiply(d2, d2)
  s2 = T[2,ROWS] reduce(sq, zero), dimensions={2}, to_apply=add_T
  s2r = T[2,ROWS,1] reshape(s2)
  var = T[2,ROWS,1] divide(s2r, nb)
  eps = T[] constant(1e-05)
  epsb = T[2,ROWS,1] broadcast(eps), dimensions={}
  ve = T[2,ROWS,1] add(var, epsb)
  r = T[2,ROWS,1] rsqrt(ve)
  r1 = T[2,ROWS,1] broadcast(r), dimensions={0,1,2}
  r2 = T[2,ROWS] reshape(r1)
  r3 = T[2,ROWS,COLS] broadcast(r2), dimensions={0,1}
  y = T[2,ROWS,COLS] multiply(d, r3)
  gb = T[2,ROWS,COLS] broadcast(g), dimensions={2}
  yg = T[2,ROWS,COLS] multiply(y, gb)
  bb = T[2,ROWS,COLS] broadcast(beta), dimensions={2}
  out = T[2,ROWS,COLS] add(yg, bb)
  ROOT tuple = (T[2,ROWS,COLS]EXTRA_SHAPES) tuple(out EXTRA)
}
)";
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
  };
  replace("EXTRA_SHAPES", extra.empty() ? "" : StrCat(", T[2,", rows, "]"));
  replace("EXTRA", extra);
  replace("ROWS", std::to_string(rows));
  replace("COLS", std::to_string(cols));
  replace("T[", t + "[");
  replace("add_T", StrCat("add_", t));
  return text;
}

// The program at `root`, positions the entry's order (its instructions
// are listed in post order); `outputs` its other outputs' names.
std::unique_ptr<RowProgram> Match(const Module& m, std::string_view root,
                                  std::vector<const Instruction*>* members,
                                  std::vector<const Instruction*>* inputs,
                                  std::vector<std::string>* outputs = nullptr) {
  auto position = [&m](const Instruction& inst) {
    int64_t at = 0;
    for (const auto& i : m.entry()->instructions()) {
      if (&*i == &inst) return at;
      ++at;
    }
    return int64_t{-1};
  };
  std::vector<const Instruction*> others;
  auto p = MatchRowProgram(
      EntryInstruction(m, root), false, [](const Instruction&) { return true; }, position, members,
      inputs, &others);
  if (outputs != nullptr) {
    outputs->clear();
    for (const Instruction* o : others) outputs->push_back(std::string(o->name()));
  }
  return p;
}

// Values over [-3, 5) with every 97th a subnormal and every 101st a large
// one (1e3), f32 or f64.
Value Filled(PrimitiveType type, std::vector<int64_t> dims, uint64_t seed) {
  auto lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  uint64_t state = seed;
  const int64_t n = lit->element_count();
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double v = -3.0 + 8.0 * static_cast<double>(state >> 11) / 9007199254740992.0;
    if (i % 97 == 5) v = (i % 2 ? -1 : 1) * 1e-40;
    if (i % 101 == 7) v = 1e3;
    if (type == PrimitiveType::kF32) {
      lit->typed<float>()[i] = static_cast<float>(v);
    } else {
      lit->typed<double>()[i] = v;
    }
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("row program: JAX's layer norm is one program, only where it is whole",
          "[eval][row_program]") {
  auto whole = ParseModule(LayerNorm(64, 768, "f32", ""));
  auto leaky = ParseModule(LayerNorm(64, 768, "f32", ", s2"));  // the variance's sum read outside
  INFO((whole.ok() ? std::string() : std::string(whole.status().message())));
  REQUIRE(whole.ok());
  REQUIRE(leaky.ok());
  std::vector<const Instruction*> members, inputs;
  auto p = Match(**whole, "out", &members, &inputs);
  REQUIRE(p != nullptr);
  CHECK(p->rows == 128);
  CHECK(p->cols == 768);
  // Every instruction from s1 to out but the constants (inputs: x, zero,
  // n, eps, g, beta).
  CHECK(members.size() == 27);
  const absl::flat_hash_set<std::string> names = [&] {
    absl::flat_hash_set<std::string> s;
    for (const Instruction* i : inputs) s.insert(std::string(i->name()));
    return s;
  }();
  CHECK(names == absl::flat_hash_set<std::string>{"x", "zero", "n", "eps", "g", "beta"});
  int reduces = 0;
  for (const RowProgram::Node& node : p->nodes)
    reduces += node.kind == RowProgram::Node::Kind::kReduce;
  CHECK(reduces == 2);
  // s2 read outside: the program left is the output's side of it, which
  // holds no reduction of its own (the mean's is read by both sides).
  auto part = Match(**leaky, "out", &members, &inputs);
  if (part != nullptr) {
    for (const Instruction* m : members) CHECK(m->name() != "s2");
  }
  // Not from an intermediate whose users lie outside what it reaches.
  CHECK(Match(**whole, "d2", &members, &inputs) == nullptr);
  CHECK(Match(**whole, "mean", &members, &inputs) == nullptr);  // a per-row root
}

// Rows of 300 run one at a time; rows of 16 and 100 several to a block
// (74 rows: a short last block).
TEST_CASE("row program: the layer norm gives the unfused bits", "[eval][row_program]") {
  for (const int64_t cols : {300, 100, 16}) {
    for (const char* t : {"f32", "f64"}) {
      for (bool flush : {false, true}) {
        INFO(t << " cols " << cols << (flush ? " flushed" : ""));
        auto m = ParseModule(LayerNorm(37, cols, t, ""));
        REQUIRE(m.ok());
        const PrimitiveType type =
            std::string(t) == "f32" ? PrimitiveType::kF32 : PrimitiveType::kF64;
        std::vector<Value> args = {Filled(type, {2, 37, cols}, 1), Filled(type, {cols}, 2),
                                   Filled(type, {cols}, 3)};
        CheckFusionKeepsBytes(**m, args, flush);
      }
    }
  }
}

// A minor reduction of a row value's broadcast folds the spread row, as
// the unfused reduce does: sum(broadcast(s)) is s added cols times. (It
// read cols values from where the row values lay, past them.)
TEST_CASE("row program: a reduction of a broadcast row value folds the spread row",
          "[eval][row_program]") {
  auto m = ParseModule(R"(HloModule reduce_of_broadcast

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[37,16] parameter(0)
  zero = f32[] constant(0)
  s = f32[37] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[37,16] broadcast(s), dimensions={0}
  s2 = f32[37] reduce(sb, zero), dimensions={1}, to_apply=add_f32
  s2b = f32[37,16] broadcast(s2), dimensions={0}
  ROOT y = f32[37,16] add(x, s2b)
}
)");
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<const Instruction*> members, inputs;
  auto p = Match(**m, "y", &members, &inputs);
  REQUIRE(p != nullptr);
  CHECK(std::find_if(members.begin(), members.end(),
                     [](const Instruction* i) { return i->name() == "s2"; }) != members.end());
  // Small integers: every sum is exact, whatever the order.
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, {37, 16}));
  REQUIRE(lit.ok());
  for (int64_t i = 0; i < 37 * 16; ++i) lit->typed<float>()[i] = static_cast<float>(i % 7);
  const std::vector<Value> args = {Value::FromLiteral(*std::move(lit))};
  CheckFusionKeepsBytes(**m, args, false);
  Evaluator ev(**m, {});
  auto result = ev.Run(args);
  REQUIRE(result.ok());
  const float* x = args[0].array().typed<float>();
  const float* y = result->array().typed<float>();
  int64_t bad = 0;
  for (int64_t r = 0; r < 37; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < 16; ++c) sum += x[r * 16 + c];
    for (int64_t c = 0; c < 16; ++c) bad += y[r * 16 + c] != x[r * 16 + c] + 16 * sum;
  }
  CHECK(bad == 0);
}

TEST_CASE("row program: the layer norm's values are the definition's", "[eval][row_program]") {
  auto m = ParseModule(LayerNorm(8, 1000, "f32", ""));
  REQUIRE(m.ok());
  std::vector<Value> args = {Filled(PrimitiveType::kF32, {2, 8, 1000}, 4),
                             Filled(PrimitiveType::kF32, {1000}, 5),
                             Filled(PrimitiveType::kF32, {1000}, 6)};
  Evaluator ev(**m, {});
  auto result = ev.Run(args);
  REQUIRE(result.ok());
  const Literal out = result->ToLiteral();
  const float* y = out.elements()[0].typed<float>();
  const float* x = args[0].array().typed<float>();
  const float* g = args[1].array().typed<float>();
  const float* b = args[2].array().typed<float>();
  for (int64_t r = 0; r < 16; ++r) {
    const float* xr = x + r * 1000;
    long double mean = 0, var = 0;
    for (int64_t c = 0; c < 1000; ++c) mean += xr[c];
    mean /= 1000;
    for (int64_t c = 0; c < 1000; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= 1000;
    const long double scale = 1 / std::sqrt(var + 1e-5L);
    for (int64_t c = 0; c < 1000; ++c) {
      const long double want = (xr[c] - mean) * scale * g[c] + b[c];
      // f32 rounding of a few ops on values of magnitude up to ~30 (the
      // 1e3 outliers): a few ulp of the operands' size.
      CHECK(std::fabs(y[r * 1000 + c] - want) <= 1e-5L * (1 + std::fabs(want)) + 1e-4L);
    }
  }
}

// RMS norm with a per-row scale given as an input; a max-scaled exp (a
// maximum reduction, a row op on an input operand that flushes, a divide
// by a per-row value computed after it); a clip of x to its row max, which
// keeps x's subnormals (flushed under --denormals=flush); and an f64 exp
// whose results are subnormal where a row holds a 1e3 (exp(-720); f64 exp
// leaves the flush to its caller); and log |x| less its row max, whose
// log reads abs's kept subnormals (flushed first under
// --denormals=flush: log(0), not log(1e-40)).
constexpr char kOtherRows[] = R"(HloModule other_rows

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
max_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT m = f64[] maximum(a, b)
}

ENTRY main {
  x = f32[50,257] parameter(0)
  w = f32[50] parameter(1)
  zero = f32[] constant(0)
  sq = f32[50,257] multiply(x, x)
  ss = f32[50] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  n = f32[] constant(257)
  nb = f32[50] broadcast(n), dimensions={}
  ms = f32[50] divide(ss, nb)
  eps = f32[] constant(1e-06)
  epsb = f32[50] broadcast(eps), dimensions={}
  mse = f32[50] add(ms, epsb)
  r = f32[50] rsqrt(mse)
  rw = f32[50] multiply(r, w)
  rb = f32[50,257] broadcast(rw), dimensions={0}
  rms = f32[50,257] multiply(x, rb)
  ninf = f32[] constant(-inf)
  e = f32[50,257] exponential(x)
  mx = f32[50] reduce(e, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[50,257] broadcast(mx), dimensions={0}
  top = f32[50,257] maximum(x, mxb)
  scaled = f32[50,257] divide(e, top)
  mx2 = f32[50] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mx2b = f32[50,257] broadcast(mx2), dimensions={0}
  clip = f32[50,257] minimum(x, mx2b)
  xd = f64[20,64] parameter(2)
  dninf = f64[] constant(-inf)
  mxd = f64[20] reduce(xd, dninf), dimensions={1}, to_apply=max_f64
  mxdb = f64[20,64] broadcast(mxd), dimensions={0}
  sh = f64[20,64] subtract(xd, mxdb)
  k = f64[] constant(0.72)
  kb = f64[20,64] broadcast(k), dimensions={}
  shk = f64[20,64] multiply(sh, kb)
  ed = f64[20,64] exponential(shk)
  ax = f32[50,257] abs(x)
  lg = f32[50,257] log(ax)
  lmax = f32[50] reduce(lg, ninf), dimensions={1}, to_apply=max_f32
  lmaxb = f32[50,257] broadcast(lmax), dimensions={0}
  lrel = f32[50,257] subtract(lg, lmaxb)
  ROOT t = (f32[50,257], f32[50,257], f32[50,257], f64[20,64], f32[50,257]) tuple(rms, scaled, clip, ed, lrel)
}
)";

TEST_CASE("row program: RMS norm and a max-scaled exp give the unfused bits",
          "[eval][row_program]") {
  auto m = ParseModule(kOtherRows);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<const Instruction*> members, inputs;
  auto rms = Match(**m, "rms", &members, &inputs);
  REQUIRE(rms != nullptr);
  CHECK(rms->rows == 50);
  CHECK(std::find_if(inputs.begin(), inputs.end(),
                     [](const Instruction* i) { return i->name() == "w"; }) != inputs.end());
  for (const char* root : {"scaled", "clip", "ed", "lrel"}) {
    INFO(root);
    CHECK(Match(**m, root, &members, &inputs) != nullptr);
  }
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "kept"));
    std::vector<Value> args = {Filled(PrimitiveType::kF32, {50, 257}, 7),
                               Filled(PrimitiveType::kF32, {50}, 8),
                               Filled(PrimitiveType::kF64, {20, 64}, 9)};
    CheckFusionKeepsBytes(**m, args, flush);
  }
}

// A residual stream into a layer norm, as GPT-2's blocks have it: x =
// (stream + update) + bias feeds the norm and, after it, the next
// residual add: the program computes x and writes it as a second output.
// In `early`, an op before the norm's root reads x too (an exp, an output
// of the module): x stays an input.
std::string ResidualNorm(bool early) {
  return StrCat(R"(HloModule residual_norm

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  stream = f32[48,200] parameter(0)
  update = f32[48,200] parameter(1)
  bias = f32[200] parameter(2)
  r = f32[48,200] add(stream, update)
  bb = f32[48,200] broadcast(bias), dimensions={1}
  x = f32[48,200] add(r, bb)
  zero = f32[] constant(0)
  s1 = f32[48] reduce(x, zero), dimensions={1}, to_apply=add_f32
  n = f32[] constant(200)
  nb = f32[48] broadcast(n), dimensions={}
  mean = f32[48] divide(s1, nb)
  mb = f32[48,200] broadcast(mean), dimensions={0}
  d = f32[48,200] subtract(x, mb)
  sq = f32[48,200] multiply(d, d)
  s2 = f32[48] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  var = f32[48] divide(s2, nb)
  rs = f32[48] rsqrt(var)
  rb = f32[48,200] broadcast(rs), dimensions={0}
)",
                early ? "  e = f32[48,200] exponential(x)\n" : "",
                R"(  y = f32[48,200] multiply(d, rb)
  next = f32[48,200] add(x, y)
)",
                early ? "  ROOT t = (f32[48,200], f32[48,200], f32[48,200]) tuple(y, next, e)\n"
                      : "  ROOT t = (f32[48,200], f32[48,200]) tuple(y, next)\n",
                "}\n");
}

TEST_CASE("row program: the residual stream a norm reads is written as a second output",
          "[eval][row_program]") {
  auto late = ParseModule(ResidualNorm(false));
  auto early = ParseModule(ResidualNorm(true));
  INFO((late.ok() ? std::string() : std::string(late.status().message())));
  REQUIRE(late.ok());
  REQUIRE(early.ok());
  std::vector<const Instruction*> members, inputs;
  std::vector<std::string> outputs;
  auto p = Match(**late, "y", &members, &inputs, &outputs);
  REQUIRE(p != nullptr);
  CHECK(outputs == std::vector<std::string>{"x"});
  // r, the add before x, is read by x alone: computed in the program too.
  CHECK(std::find_if(members.begin(), members.end(),
                     [](const Instruction* m) { return m->name() == "r"; }) != members.end());
  auto q = Match(**early, "y", &members, &inputs, &outputs);
  REQUIRE(q != nullptr);
  CHECK(outputs.empty());
  CHECK(std::find_if(inputs.begin(), inputs.end(),
                     [](const Instruction* i) { return i->name() == "x"; }) != inputs.end());
  for (bool flush : {false, true}) {
    INFO((flush ? "flushed" : "kept"));
    std::vector<Value> args = {Filled(PrimitiveType::kF32, {48, 200}, 10),
                               Filled(PrimitiveType::kF32, {48, 200}, 11),
                               Filled(PrimitiveType::kF32, {200}, 12)};
    CheckFusionKeepsBytes(**late, args, flush);
    CheckFusionKeepsBytes(**early, args, flush);
  }
}

// XLA:CPU's layer norm defused: the mean scales the sum by a broadcast
// 1/cols whose scalar the program reads as a splat's input, while the
// loop group after the sum of squares (an XLA fusion) computes that same
// broadcast itself. The scalar is still made for the program: the plan
// skipped it as computed by "a" group, and the run failed with "a fused
// input has the wrong type".
TEST_CASE("row program: a scalar it reads is made where another group computes its broadcast",
          "[eval][row_program]") {
  auto m = ParseModule(R"(HloModule shared_scalar

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

squares {
  zero_f = f32[] parameter(0)
  d_f = f32[2,16,64] parameter(1)
  sq = f32[2,16,64] multiply(d_f, d_f)
  ROOT s2_f = f32[2,16] reduce(sq, zero_f), dimensions={2}, to_apply=add_f32
}

ENTRY main {
  x = f32[2,16,64] parameter(0)
  zero = f32[] constant(0)
  s1 = f32[2,16] reduce(x, zero), dimensions={2}, to_apply=add_f32
  inv = f32[] constant(0.015625)
  inv_b = f32[2,16] broadcast(inv), dimensions={}
  mean = f32[2,16] multiply(s1, inv_b)
  mean_b = f32[2,16,64] broadcast(mean), dimensions={0,1}
  d = f32[2,16,64] subtract(x, mean_b)
  s2 = f32[2,16] fusion(zero, d), kind=kLoop, calls=squares
  var = f32[2,16] multiply(s2, inv_b)
  eps = f32[] constant(1e-05)
  eps_b = f32[2,16] broadcast(eps), dimensions={}
  r = f32[2,16] rsqrt(f32[2,16] add(var, eps_b))
  r_b = f32[2,16,64] broadcast(r), dimensions={0,1}
  ROOT y = f32[2,16,64] multiply(d, r_b)
}
)");
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  std::vector<Value> args = {Filled(PrimitiveType::kF32, {2, 16, 64}, 5)};
  for (bool flush : {false, true}) CheckFusionKeepsBytes(**m, args, flush);
}

}  // namespace
}  // namespace hlo
