// The batched interpreter (eval/interp/batch_program.cc) against the general evaluator:
// for each scalar computation, random bit patterns (NaNs, denormals, zero
// divisors and out-of-range shifts included) run through BatchProgram::Run
// over many positions must give, bit for bit, what Evaluator::Call gives
// position by position. Also what it refuses to compile.
#include "eval/interp/batch_program.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/interp/elementwise_ops.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// Whether f32 exp, tanh, log, ... are chain links here (vector math for
// this CPU, elementwise::UnaryFloatKernelFor).
const bool kVectorMathLinks =
    elementwise::UnaryFloatKernelFor(Opcode::kExp, PrimitiveType::kF32) != nullptr;

// Runs computation `name` of `text` both ways over `n` positions with
// random inputs (seeded) and compares the raw bits of every result.
// `chained_steps`: how many steps must run in float chains (-1: any).
void CheckAgainstEvaluator(std::string_view text, std::string_view name, int64_t n,
                           bool flush = false, int64_t chained_steps = -1) {
  auto m = ParseModule(StrCat("HloModule test\n\n", text));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  const Computation* comp = (*m)->FindComputation(std::string(name));
  REQUIRE(comp != nullptr);
  auto program = BatchProgram::Compile(*comp, flush);
  INFO((program.ok() ? std::string() : std::string(program.status().message())));
  REQUIRE(program.ok());
  BatchProgram& p = **program;
  if (chained_steps >= 0) CHECK(p.chained_step_count() == chained_steps);

  std::vector<Literal> inputs;
  std::vector<const void*> in_ptrs;
  uint64_t seed = 12345;
  for (int64_t i = 0; i < p.parameter_count(); ++i) {
    // Random bit patterns: NaNs, infinities, denormals and zeros of floats
    // all occur; every eighth value is zero or one (zero divisors, ties).
    const PrimitiveType t = p.parameter_type(i);
    auto lit = Literal::Create(Shape::Array(t, {n}));
    REQUIRE(lit.ok());
    const int bits = 8 * ByteWidth(t);
    for (int64_t k = 0; k < n; ++k) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      uint64_t v = seed >> 11;
      if (k % 8 == 3) v = (seed >> 40) & 1;
      if (bits < 64) v &= (uint64_t{1} << bits) - 1;
      if (t == PrimitiveType::kPred) v &= 1;
      lit->SetBits(k, v);
    }
    inputs.push_back(*std::move(lit));
  }
  for (const Literal& l : inputs) in_ptrs.push_back(l.data());
  std::vector<Literal> outputs;
  std::vector<void*> out_ptrs;
  for (int64_t r = 0; r < p.result_count(); ++r) {
    auto lit = Literal::Create(Shape::Array(p.result_type(r), {n}));
    REQUIRE(lit.ok());
    outputs.push_back(*std::move(lit));
  }
  for (Literal& l : outputs) out_ptrs.push_back(l.data());
  REQUIRE(p.Run(in_ptrs, out_ptrs, n).ok());
  // Streamed outputs (non-temporal stores: from the registers, or a
  // chain's own where the output is 64-byte aligned) hold the same bits,
  // at a 64-byte boundary and one element past it (an unaligned head).
  for (const bool shifted : {false, true}) {
    std::vector<std::vector<uint8_t>> streamed;
    std::vector<uint8_t*> starts;
    for (int64_t r = 0; r < p.result_count(); ++r) {
      const int64_t width = ByteWidth(p.result_type(r));
      streamed.emplace_back((n + 1) * width + 64, uint8_t{0xA5});
      uint8_t* at = streamed.back().data();
      at += (64 - reinterpret_cast<uintptr_t>(at) % 64) % 64 + (shifted ? width : 0);
      starts.push_back(at);
    }
    std::vector<void*> streamed_ptrs(starts.begin(), starts.end());
    REQUIRE(p.Run(in_ptrs, streamed_ptrs, n, 0, /*stream_outputs=*/true).ok());
    for (int64_t r = 0; r < p.result_count(); ++r) {
      const int64_t width = ByteWidth(p.result_type(r));
      INFO("streamed result " << r << (shifted ? ", one element past a line" : ""));
      CHECK(std::memcmp(starts[r], outputs[r].data(), n * width) == 0);
    }
  }

  EvalOptions options;
  options.flush_denormals = flush;
  Evaluator ev(**m, options);
  for (int64_t pos = 0; pos < n; ++pos) {
    std::vector<Value> args;
    std::vector<const Value*> arg_ptrs;
    for (const Literal& l : inputs) {
      auto s = Literal::Create(Shape::Array(l.element_type(), {}));
      REQUIRE(s.ok());
      s->SetBits(0, l.GetBits(pos));
      args.push_back(Value::FromLiteral(*std::move(s)));
    }
    for (const Value& v : args) arg_ptrs.push_back(&v);
    auto want = ev.Call(*comp, arg_ptrs);
    REQUIRE(want.ok());
    for (int64_t r = 0; r < p.result_count(); ++r) {
      const Literal& w = want->is_tuple() ? want->element(r).array() : want->array();
      INFO("position " << pos << " result " << r);
      REQUIRE(outputs[r].GetBits(pos) == w.GetBits(0));
    }
  }
}

TEST_CASE("batch program: float arithmetic, compare, select, constants", "[batch_program]") {
  CheckAgainstEvaluator(R"(
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  e = f32[] exponential(a)
  two = f32[] constant(2)
  m = f32[] multiply(e, two)
  g = pred[] compare(m, b), direction=GT
  s = f32[] select(g, m, b)
  d = f32[] divide(s, a)
  ROOT r = f32[] maximum(d, b)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 3000);
}

// Steps that read the step before them, and nothing else the value between,
// run as one float chain (eval/interp/float_chain.h): every op, the value
// on either side, NaNs, zeros and denormals, and a tail past the last tile.
TEST_CASE("batch program: chains of float steps", "[batch_program]") {
  CheckAgainstEvaluator(R"(
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  s = f32[] subtract(a, b)
  m = f32[] multiply(c, s)
  x = f32[] maximum(m, d)
  y = f32[] divide(d, x)
  n = f32[] minimum(y, a)
  ROOT r = f32[] add(b, n)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 3000 + 37, false, 6);
  CheckAgainstEvaluator(R"(
f {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  s = f64[] subtract(b, a)
  x = f64[] minimum(a, s)
  y = f64[] maximum(x, b)
  ROOT r = f64[] divide(y, a)
}
ENTRY e { ROOT c = f64[] constant(0) })",
                        "f", 1000 + 5, false, 4);
  // t reads s on both sides, u's value is a result too (a tuple element:
  // a tap), and an f64 step ends the f32 chain.
  CheckAgainstEvaluator(R"(
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  t = f32[] multiply(s, s)
  u = f32[] subtract(t, a)
  v = f32[] maximum(u, b)
  w = f64[] convert(v)
  z = f64[] multiply(w, w)
  ROOT r = (f32[], f64[], f32[]) tuple(u, z, v)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 700, false, 4);
}

// A float compare read only by the select after it is one chain link
// (select(compare(a, b), c, d), any of them the value): every direction on
// NaNs, zeros and denormals, the value in each place, f64, and the shared
// eltwise benchmark's chain, whose values e and a are read again later
// (taps). Compares a chain must not take stay steps: a total order, a pred
// read twice.
TEST_CASE("batch program: chains with compare-select links", "[batch_program]") {
  for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    INFO(dir);
    CheckAgainstEvaluator(StrCat(R"(
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  p = pred[] compare(a, b), direction=)",
                                 dir, R"(
  s = f32[] select(p, a, c)
  m = f32[] multiply(s, s)
  q = pred[] compare(b, m), direction=)",
                                 dir, R"(
  t = f32[] select(q, c, m)
  ROOT r = f32[] subtract(t, a)
}
ENTRY e { ROOT c = f32[] constant(0) })"),
                          "f", 1000 + 21, false, 6);
  }
  CheckAgainstEvaluator(R"(
f {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  e = f32[] exponential(x)
  m = f32[] multiply(e, y)
  a = f32[] add(m, x)
  t = f32[] tanh(a)
  zero = f32[] constant(0)
  positive = pred[] compare(t, zero), direction=GT
  s = f32[] select(positive, t, a)
  ROOT out = f32[] divide(s, e)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 4096 + 3, false, kVectorMathLinks ? 7 : 5);
  CheckAgainstEvaluator(R"(
f {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  d = f64[] add(a, b)
  p = pred[] compare(a, d), direction=LE
  s = f64[] select(p, b, d)
  ROOT r = f64[] maximum(s, a)
}
ENTRY e { ROOT c = f64[] constant(0) })",
                        "f", 1000 + 7, false, 4);
  // A total-order compare, and a pred two selects read: steps, not links
  // (the binary steps after them still chain).
  CheckAgainstEvaluator(R"(
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  p = pred[] compare(a, b), direction=LT, type=TOTALORDER
  s = f32[] select(p, a, b)
  u = f32[] add(s, b)
  v = f32[] multiply(u, a)
  q = pred[] compare(u, v), direction=GT
  w = f32[] select(q, u, v)
  x = f32[] select(q, v, u)
  ROOT r = f32[] subtract(w, x)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 1000 + 9, false, 2);
}

TEST_CASE("batch program: a variadic argmax reducer (tuple result)", "[batch_program]") {
  CheckAgainstEvaluator(R"(
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  nan = pred[] compare(av, av), direction=NE
  lt_i = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt_i)
  pick_a = pred[] or(gt, tie)
  pick = pred[] or(pick_a, nan)
  v = f32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "argmax", 2500);
}

// f32 vector math as chain links (a tile's value through the step's own
// loop): first and later links, each op on the value and on an array, a
// tap the link reads back, the tail (n not whole tiles: link by link over
// the rest, alone when n is under one tile), with and without flushing. Random bit patterns give
// NaNs, infinities, denormals and arguments past every range.
TEST_CASE("batch program: chains with vector-math links", "[batch_program]") {
  const char* kText = R"(
f {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  e = f32[] exponential(x)
  m = f32[] multiply(e, y)
  t = f32[] tanh(m)
  l = f32[] log(t)
  a = f32[] add(l, e)
  p = f32[] log-plus-one(a)
  s = f32[] sine(p)
  c = f32[] cosine(y)
  q = f32[] subtract(s, c)
  ROOT r = f32[] erf(q)
}
ENTRY e { ROOT c = f32[] constant(0) })";
  for (const bool flush : {false, true}) {
    INFO("flush " << flush);
    // e .. s are one chain; c = cosine(y), a link on an array, starts another.
    CheckAgainstEvaluator(kText, "f", 2 * 128 + 37, flush, flush ? -1 : kVectorMathLinks ? 10 : 0);
    CheckAgainstEvaluator(kText, "f", 45, flush);
  }
  // A unary link is no chain's only step; f64 math stays steps.
  CheckAgainstEvaluator(R"(
f {
  x = f64[] parameter(0)
  e = f64[] exponential(x)
  m = f64[] multiply(e, x)
  ROOT r = f64[] tanh(m)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 300, false, 0);
}

TEST_CASE("batch program: integer division, shifts, converts", "[batch_program]") {
  CheckAgainstEvaluator(R"(
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  q = s32[] divide(a, b)
  r = s32[] remainder(a, b)
  l = s32[] shift-left(q, b)
  u = u32[] bitcast-convert(r)
  sh = u32[] shift-right-logical(u, u)
  f = f32[] convert(sh)
  h = bf16[] convert(f)
  back = s32[] convert(h)
  ROOT x = s32[] xor(back, l)
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "f", 5000);
}

// Every integer op the raw integer steps take, on every whole-byte integer
// type, with shift amounts around the width, each result converted to every
// other integer type and bitcast to its unsigned (or signed) twin.
TEST_CASE("batch program: integer ops, converts and bitcasts of every width on raw arrays",
          "[batch_program]") {
  const std::vector<std::string> types = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};
  const std::vector<std::string> ops(std::begin(kIntegerBinaryOps), std::end(kIntegerBinaryOps));
  for (const std::string& t : types) {
    const int bits = std::stoi(t.substr(1));
    const std::string twin = StrCat(t[0] == 's' ? "u" : "s", t.substr(1));
    std::string text =
        StrCat("f {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  mask = ", t,
               "[] constant(", 2 * bits - 1, ")\n  k = ", t, "[] and(b, mask)\n");
    std::vector<std::string> results;
    for (size_t i = 0; i < ops.size(); ++i) {
      const bool shift = ops[i].rfind("shift", 0) == 0;
      StrAppend(&text, "  r", i, " = ", t, "[] ", ops[i], "(a, ", shift ? "k" : "b", ")\n");
      results.push_back(StrCat("r", i));
    }
    for (const std::string& to : types) {
      StrAppend(&text, "  c_", to, " = ", to, "[] convert(r0)\n");
      results.push_back(StrCat("c_", to));
    }
    StrAppend(&text, "  w = ", twin, "[] bitcast-convert(r2)\n");
    results.push_back("w");
    std::string shapes;
    for (const std::string& r : results) {
      const std::string type = r[0] == 'c' ? r.substr(2) : (r == "w" ? twin : t);
      StrAppend(&shapes, shapes.empty() ? "" : ", ", type, "[]");
    }
    StrAppend(&text, "  ROOT t = (", shapes, ") tuple(", StrJoin(results, ", "),
              ")\n}\nENTRY e { ROOT c = f32[] constant(0) }");
    INFO(t);
    CheckAgainstEvaluator(text, "f", 1200);
  }
}

TEST_CASE("batch program: integer and pred compares and pred ops on raw arrays",
          "[batch_program]") {
  const std::vector<std::string> types = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};
  const std::vector<std::string> dirs = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  for (const std::string& t : types) {
    std::string text = StrCat("f {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n");
    std::vector<std::string> results;
    for (size_t i = 0; i < dirs.size(); ++i) {
      // The element type's own view, and the other one by the type attribute.
      const std::string other = t[0] == 's' ? "UNSIGNED" : "SIGNED";
      StrAppend(&text, "  c", i, " = pred[] compare(a, b), direction=", dirs[i], "\n");
      StrAppend(&text, "  x", i, " = pred[] compare(a, b), direction=", dirs[i], ", type=", other,
                "\n");
      results.push_back(StrCat("c", i));
      results.push_back(StrCat("x", i));
    }
    // pred's binary ops on the compares.
    for (const char* op :
         {"and", "or", "xor", "add", "multiply", "maximum", "minimum", "subtract"}) {
      StrAppend(&text, "  p_", op, " = pred[] ", op, "(c2, x3)\n");
      results.push_back(StrCat("p_", op));
    }
    StrAppend(&text, "  q = pred[] compare(c2, x3), direction=LT\n");
    results.push_back("q");
    std::string shapes;
    for (size_t i = 0; i < results.size(); ++i) StrAppend(&shapes, i ? ", " : "", "pred[]");
    StrAppend(&text, "  ROOT t = (", shapes, ") tuple(", StrJoin(results, ", "),
              ")\n}\nENTRY e { ROOT c = f32[] constant(0) }");
    INFO(t);
    CheckAgainstEvaluator(text, "f", 1200);
  }
}

TEST_CASE("batch program: XLA's total-order comparator with scalar bitcasts", "[batch_program]") {
  CheckAgainstEvaluator(R"(
lt_total {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  zero = s32[] constant(0)
  max = s32[] constant(2147483647)
  ia = s32[] bitcast(a)
  ib = s32[] bitcast(b)
  xa = s32[] xor(max, ia)
  xb = s32[] xor(max, ib)
  na = pred[] compare(ia, zero), direction=LT
  nb = pred[] compare(ib, zero), direction=LT
  ka = s32[] select(na, xa, ia)
  kb = s32[] select(nb, xb, ib)
  ROOT lt = pred[] compare(ka, kb), direction=LT
}
ENTRY e { ROOT c = f32[] constant(0) })",
                        "lt_total", 3000);
}

TEST_CASE("batch program: calls inline; flush-to-zero as the evaluator applies it",
          "[batch_program]") {
  const char* text = R"(
inner {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] multiply(x, y)
}
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] call(a, b), to_apply=inner
  n = f32[] negate(c)
  ROOT s = f32[] add(n, a)
}
ENTRY e { ROOT c = f32[] constant(0) })";
  CheckAgainstEvaluator(text, "f", 1500, /*flush=*/false);
  CheckAgainstEvaluator(text, "f", 1500, /*flush=*/true);
}

TEST_CASE("batch program: refuses what is not scalar and elementwise", "[batch_program]") {
  auto m = ParseModule(R"(HloModule test
vec {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
rng {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] rng(a, b), distribution=rng_uniform
}
ENTRY e { ROOT c = f32[] constant(0) })");
  REQUIRE(m.ok());
  CHECK_FALSE(BatchProgram::Compile(*(*m)->FindComputation("vec")).ok());
  CHECK_FALSE(BatchProgram::Compile(*(*m)->FindComputation("rng")).ok());
}

}  // namespace
}  // namespace hlo
