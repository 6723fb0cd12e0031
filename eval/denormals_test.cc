// --denormals=flush where the hardware does part of the flush (MXCSR's DAZ
// and FTZ): IEEE-order compares, maximum and minimum must give what they
// give on operands flushed beforehand, with the result flushed after, on
// every pair of denormals, signed zeros, NaN and normal numbers, whether
// the evaluator runs them one by one or fused (total-order compares, which
// flush in software, beside them).
#include "eval/denormals.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/interp/elementwise_ops.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// Each op on (a, b) in the entry, and again inside a loop fusion.
std::string ModuleText(std::string_view t, int n) {
  std::string s = StrCat("HloModule m\n\nfused {\n  a = ", t, "[", n, "] parameter(0)\n  b = ", t,
                         "[", n, "] parameter(1)\n");
  const char* dirs[] = {"LT", "LE", "GT", "GE", "EQ", "NE"};
  std::string root = "  ROOT r = (";
  std::string elems;
  for (const char* d : dirs) {
    s += StrCat("  c", d, " = pred[", n, "] compare(a, b), direction=", d, "\n");
    root += StrCat("pred[", n, "], ");
    elems += StrCat("c", d, ", ");
  }
  // In total order the operands are flushed in software (integer keys).
  s += StrCat("  cT = pred[", n, "] compare(a, b), direction=LT, type=TOTALORDER\n");
  root += StrCat("pred[", n, "], ");
  elems += "cT, ";
  s += StrCat("  mx = ", t, "[", n, "] maximum(a, b)\n  mn = ", t, "[", n, "] minimum(a, b)\n");
  s += StrCat(root, t, "[", n, "], ", t, "[", n, "]) tuple(", elems, "mx, mn)\n}\n\n");
  std::string tuple_shape = "(";
  for (int i = 0; i < 7; ++i) tuple_shape += StrCat("pred[", n, "], ");
  tuple_shape += StrCat(t, "[", n, "], ", t, "[", n, "])");
  s += StrCat("ENTRY e {\n  a = ", t, "[", n, "] parameter(0)\n  b = ", t, "[", n,
              "] parameter(1)\n  plain = ", tuple_shape,
              " call(a, b), to_apply=fused\n  f = ", tuple_shape,
              " fusion(a, b), kind=kLoop, calls=fused\n  ROOT t = (", tuple_shape, ", ",
              tuple_shape, ") tuple(plain, f)\n}\n");
  return s;
}

template <typename T>
Value ArrayOf(PrimitiveType type, const std::vector<T>& v) {
  absl::StatusOr<Literal> lit =
      Literal::Create(Shape::Array(type, {static_cast<int64_t>(v.size())}));
  REQUIRE(lit.ok());
  for (size_t i = 0; i < v.size(); ++i) lit->typed<T>()[i] = v[i];
  return Value::FromLiteral(*std::move(lit));
}

Value FlushedCopy(const Value& v) {
  Value copy = Value::FromLiteral(Literal(v.array()));
  FlushDenormalsInPlace(copy.mutable_array());
  return copy;
}

template <typename T>
void CheckFlushedPairs(PrimitiveType type, std::string_view name) {
  const T d = std::numeric_limits<T>::denorm_min() * 1000;
  const std::vector<T> specials = {d,
                                   -d,
                                   2 * d,
                                   T(0),
                                   -T(0),
                                   T(1),
                                   T(-1),
                                   std::numeric_limits<T>::quiet_NaN(),
                                   std::numeric_limits<T>::min()};
  std::vector<T> a, b;
  for (T x : specials) {
    for (T y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const int n = static_cast<int>(a.size());
  std::unique_ptr<Module> m = ParseTestModule(ModuleText(name, n));
  EvalOptions flushing;
  flushing.flush_denormals = true;
  Evaluator ev(*m, flushing);
  absl::StatusOr<Value> got = ev.Run({ArrayOf(type, a), ArrayOf(type, b)});
  INFO((got.ok() ? std::string() : std::string(got.status().message())));
  REQUIRE(got.ok());
  // The oracle: operands flushed first, evaluated without flushing, the
  // float results flushed after.
  EvalOptions keeping;
  keeping.flush_denormals = false;
  Evaluator plain(*m, keeping);
  absl::StatusOr<Value> want =
      plain.Run({FlushedCopy(ArrayOf(type, a)), FlushedCopy(ArrayOf(type, b))});
  REQUIRE(want.ok());
  for (size_t path = 0; path < 2; ++path) {
    const Value& w = want->elements()[path];
    const Value& g = got->elements()[path];
    for (size_t k = 0; k < w.elements().size(); ++k) {
      INFO("path " << path << ", output " << k);
      Value flushed = FlushedCopy(w.elements()[k]);
      CheckSameBytes(g.elements()[k], flushed);
    }
  }
}

// The scalar definition: exponent bits all zero, mantissa bits not.
template <typename U>
U FlushedBits(U bits, U exponent_mask, U mantissa_mask) {
  const bool denormal = (bits & exponent_mask) == 0 && (bits & mantissa_mask) != 0;
  return denormal ? static_cast<U>(bits & ~(exponent_mask | mantissa_mask)) : bits;
}

// Every edge of the denormal range (and NaN, inf, zeros, normals) at
// positions across the scan's blocks, flushed in place and found.
template <typename U>
void CheckFlushBits(PrimitiveType type, int64_t n, U exponent_mask, U mantissa_mask) {
  const U sign = static_cast<U>(~(exponent_mask | mantissa_mask));
  const std::vector<U> edges = {
      U{1},                                           // smallest denormal
      mantissa_mask,                                  // largest denormal
      static_cast<U>(mantissa_mask + 1),              // smallest normal
      U{0},                                           // +0
      exponent_mask,                                  // inf
      static_cast<U>(exponent_mask | 1),              // NaN
      static_cast<U>(exponent_mask | mantissa_mask),  // NaN
      static_cast<U>(sign | 1),                       // -smallest denormal
      static_cast<U>(sign | mantissa_mask),           // -largest denormal
      sign,                                           // -0
      static_cast<U>(sign | (mantissa_mask + 1)),     // -smallest normal
  };
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, {n}));
  REQUIRE(lit.ok());
  U* bits = reinterpret_cast<U*>(lit->data());
  const int64_t values = static_cast<int64_t>(lit->size_bytes() / sizeof(U));
  std::vector<U> want(values);
  for (size_t e = 0; e < edges.size(); ++e) {
    // One edge alone in a normal array, at the start, a block boundary and the end.
    for (int64_t at : {int64_t{0}, int64_t{511}, int64_t{512}, values - 1}) {
      for (int64_t i = 0; i < values; ++i) bits[i] = static_cast<U>(mantissa_mask + 7);
      bits[at] = edges[e];
      for (int64_t i = 0; i < values; ++i)
        want[i] = FlushedBits(bits[i], exponent_mask, mantissa_mask);
      const bool has = want[at] != bits[at];
      INFO("edge " << e << " at " << at);
      CHECK(ContainsDenormals(*lit) == has);
      CHECK(FlushDenormalsInPlace(*lit) == has);
      CHECK(std::equal(want.begin(), want.end(), bits));
    }
  }
}

TEST_CASE("denormals: the flush scan finds and flushes exactly the denormals", "[denormals]") {
  CheckFlushBits<uint32_t>(PrimitiveType::kF32, 1500, 0x7f800000u, 0x007fffffu);
  CheckFlushBits<uint32_t>(PrimitiveType::kC64, 700, 0x7f800000u, 0x007fffffu);
  CheckFlushBits<uint64_t>(PrimitiveType::kF64, 1500, 0x7ff0000000000000u, 0x000fffffffffffffu);
  CheckFlushBits<uint16_t>(PrimitiveType::kBF16, 1500, 0x7f80u, 0x007fu);
}

TEST_CASE("denormals: flushed compares, maximum and minimum equal the ops on flushed operands",
          "[denormals]") {
  CheckFlushedPairs<float>(PrimitiveType::kF32, "f32");
  CheckFlushedPairs<double>(PrimitiveType::kF64, "f64");
}

// f32 tanh under FTZ and DAZ flushes its own results (TanhFlushesItself),
// so the evaluator skips both flushes: its result must be what the
// unflushed kernel gives on the operand flushed beforehand, flushed after.
// Every 7th subnormal of each sign, the normals next to the smallest one,
// and a spread of magnitudes up to saturation; through the vector loop and
// through libm's scalar one.
TEST_CASE("denormals: f32 tanh flushes its own results as flushing around it would",
          "[denormals]") {
  std::vector<float> x;
  for (uint32_t bits = 1; bits < 0x00800000u; bits += 7) {
    for (uint32_t sign : {0u, 0x80000000u}) {
      float f;
      const uint32_t b = bits | sign;
      std::memcpy(&f, &b, sizeof f);
      x.push_back(f);
    }
  }
  for (float f = std::numeric_limits<float>::min(); f < 20.0f; f *= 1.37f) {
    for (float g : {f, std::nextafter(f, 0.0f), std::nextafter(f, 1e9f)}) {
      x.push_back(g);
      x.push_back(-g);
    }
  }
  x.push_back(0.0f);
  x.push_back(-0.0f);
  const int64_t n = static_cast<int64_t>(x.size());
  auto flushed = [](float f) {
    return std::fabs(f) < std::numeric_limits<float>::min() ? std::copysign(0.0f, f) : f;
  };
  // vector math at AVX-512's level, at AVX2's, and off
  for (int level : {2, 1, -1}) {
    const bool vector_math = level >= 0;
    elementwise::SetVecMathEnabled(vector_math);
    elementwise::SetVecLevelCap(std::max(level, 0));
    std::vector<float> expected(n), got(n);
    for (int64_t i = 0; i < n; ++i) expected[i] = flushed(x[i]);
    REQUIRE(
        elementwise::UnaryFloatKernel<float>(Opcode::kTanh, expected.data(), expected.data(), n));
    for (float& e : expected) e = flushed(e);
    {
      ScopedFlushDenormals ftz(true);
      REQUIRE(TanhFlushesItself(PrimitiveType::kF32));
      REQUIRE(elementwise::UnaryFloatKernel<float>(Opcode::kTanh, x.data(), got.data(), n));
    }
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0 && ++wrong <= 5) {
        UNSCOPED_INFO("vector math level " << level << ": tanh(" << x[i] << ") = " << got[i]
                                           << ", want " << expected[i]);
      }
    }
    CHECK(wrong == 0);
  }
  elementwise::SetVecMathEnabled(true);
  elementwise::SetVecLevelCap(2);
  CHECK_FALSE(TanhFlushesItself(PrimitiveType::kF32));  // (FTZ off again)
}

}  // namespace
}  // namespace hlo
