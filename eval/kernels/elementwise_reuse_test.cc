// Elementwise results that take over a dying operand's buffer (see
// ReusableOperand in eval/kernels/elementwise.cc), and reshapes that keep
// theirs (eval/kernels/data.cc): the values are right, and buffers someone
// else still sees (parameters, operands used twice or by another
// instruction) are never overwritten or reshaped.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::vector<double> Doubles(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

Value F32(const std::vector<double>& values) {
  auto lit =
      Literal::Create(Shape::Array(PrimitiveType::kF32, {static_cast<int64_t>(values.size())}));
  REQUIRE(lit.ok());
  for (size_t i = 0; i < values.size(); ++i) lit->SetDouble(static_cast<int64_t>(i), values[i]);
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("elementwise reuse: chains give the values of fresh buffers", "[eval][reuse]") {
  // p0 = {1, 2, 3}, p1 = {4, 5, 6}: a = {5, 7, 9} (used by b, e, side, t:
  // never reused); b = a * a = {25, 49, 81} (same operand twice); c = b - p0
  // = {24, 47, 78} (b dies: reused); e = a - p1 = {1, 2, 3}; r = c + e =
  // {25, 49, 81}; s = sqrt(r) = {5, 7, 9} (r dies: reused); side = a + e =
  // {6, 9, 12}. All exact in f32.
  auto m = ParseModule(R"(HloModule t

ENTRY main {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  a = f32[3] add(p0, p1)
  b = f32[3] multiply(a, a)
  c = f32[3] subtract(b, p0)
  e = f32[3] subtract(a, p1)
  r = f32[3] add(c, e)
  s = f32[3] sqrt(r)
  side = f32[3] add(a, e)
  ROOT t = (f32[3], f32[3], f32[3]) tuple(s, side, a)
})");
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  std::vector<Value> args = {F32({1, 2, 3}), F32({4, 5, 6})};
  for (int run = 0; run < 2; ++run) {
    auto v = ev.Run(args);
    INFO((v.ok() ? std::string() : std::string(v.status().message())));
    REQUIRE(v.ok());
    Literal out = v->ToLiteral();
    CHECK(Doubles(out.elements()[0]) == std::vector<double>{5, 7, 9});
    CHECK(Doubles(out.elements()[1]) == std::vector<double>{6, 9, 12});
    CHECK(Doubles(out.elements()[2]) == std::vector<double>{5, 7, 9});
    // The parameters' buffers are the caller's: untouched.
    CHECK(Doubles(args[0].array()) == std::vector<double>{1, 2, 3});
    CHECK(Doubles(args[1].array()) == std::vector<double>{4, 5, 6});
  }
}

TEST_CASE("elementwise reuse: the second operand and unary ops", "[eval][reuse]") {
  // p0 = {1, 2, 3}, p1 = {4, 16, 64}: y = p1 - p0 = {3, 14, 61}; z = p0 + y
  // = {4, 16, 64} (y, operand 1, dies: reused); f = k * z = {16, 64, 64} (z,
  // operand 1, reused; k is a constant); q = rsqrt(f) = {1/4, 1/8, 1/8}.
  auto m = ParseModule(R"(HloModule t

ENTRY main {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  y = f32[3] subtract(p1, p0)
  z = f32[3] add(p0, y)
  k = f32[3] constant({4, 4, 1})
  f = f32[3] multiply(k, z)
  ROOT q = f32[3] rsqrt(f)
})");
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  std::vector<Value> args = {F32({1, 2, 3}), F32({4, 16, 64})};
  auto v = ev.Run(args);
  REQUIRE(v.ok());
  Literal out = v->ToLiteral();
  CHECK(Doubles(out) == std::vector<double>{0.25, 0.125, 0.125});
  // The constant's buffer was not consumed: a second run gives the same.
  auto again = ev.Run(args);
  REQUIRE(again.ok());
  CHECK(again->ToLiteral() == out);
}

TEST_CASE("reshape reuse: a dying operand keeps its buffer, a seen one is copied",
          "[eval][reuse]") {
  // a = p0 + p1 = {5, 7, 9, 11, 13, 15}; r1 = a as [2,3] (a dies: its
  // buffer); n = -p0 read beside r2 = reshape(n) as [3,2] (n read twice:
  // copied); r3 = reshape(p1) (a parameter: copied, p1 keeps its shape);
  // r4 = reshape(r1) as [6] (r1 dies); s = r4 * r4 (r4 dies into s).
  auto m = ParseModule(R"(HloModule t

ENTRY main {
  p0 = f32[6] parameter(0)
  p1 = f32[6] parameter(1)
  a = f32[6] add(p0, p1)
  r1 = f32[2,3] reshape(a)
  n = f32[6] negate(p0)
  r2 = f32[3,2] reshape(n)
  r3 = f32[3,2] reshape(p1)
  r4 = f32[6] reshape(r1)
  s = f32[6] multiply(r4, r4)
  ROOT t = (f32[3,2], f32[6], f32[3,2], f32[6]) tuple(r2, n, r3, s)
})");
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  std::vector<Value> args = {F32({1, 2, 3, 4, 5, 6}), F32({4, 5, 6, 7, 8, 9})};
  for (int run = 0; run < 2; ++run) {
    auto v = ev.Run(args);
    INFO((v.ok() ? std::string() : std::string(v.status().message())));
    REQUIRE(v.ok());
    Literal out = v->ToLiteral();
    CHECK(out.elements()[0].shape().dims() == std::vector<int64_t>{3, 2});
    CHECK(Doubles(out.elements()[0]) == std::vector<double>{-1, -2, -3, -4, -5, -6});
    CHECK(out.elements()[1].shape().dims() == std::vector<int64_t>{6});
    CHECK(Doubles(out.elements()[1]) == std::vector<double>{-1, -2, -3, -4, -5, -6});
    CHECK(Doubles(out.elements()[2]) == std::vector<double>{4, 5, 6, 7, 8, 9});
    CHECK(Doubles(out.elements()[3]) == std::vector<double>{25, 49, 81, 121, 169, 225});
    // The parameters are the caller's: untouched, shapes included.
    CHECK(args[1].array().shape().dims() == std::vector<int64_t>{6});
    CHECK(Doubles(args[1].array()) == std::vector<double>{4, 5, 6, 7, 8, 9});
  }
}

}  // namespace
}  // namespace hlo
