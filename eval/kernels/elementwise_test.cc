// Elementwise kernels (eval/kernels/elementwise*.cc), one instruction at a time:
// the instruction comes from a small parsed module, the operands from parsed
// literals (or raw bits).
//
// Expected values come from the specification in ../shared/spec (the
// examples of stablehlo-spec.en.md, "StableHLO:", and operation-semantics,
// "XLA:"), from XLA's documented edge-case behaviour (division by zero,
// shifts past the width, saturating conversion, NaN-propagating max/min,
// reduce-precision), or are worked by hand from IEEE-754 and two's
// complement (stated next to each case). Transcendental functions are
// checked against double-precision libm within a few ulp.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/elementwise_test_util.h"
#include "eval/kernels/kernels.h"
#include "ir/float_formats.h"

namespace hlo {
namespace {

using namespace ew_test;  // NOLINT

// ============================================================================
// unary: integers
// ============================================================================

TEST_CASE("elementwise: abs/negate/sign of signed integers wrap at INT_MIN", "[eval]") {
  // StableHLO abs example.
  CHECK_LIT(MustEval("s32[3]", "abs", {L("s32[3] {-2, 0, 2}")}), "s32[3] {2, 0, 2}");
  // Two's complement: -INT_MIN is INT_MIN again.
  CHECK_LIT(MustEval("s32[2]", "abs", {L("s32[2] {-2147483648, -7}")}), "s32[2] {-2147483648, 7}");
  CHECK_LIT(MustEval("s8[2]", "abs", {L("s8[2] {-128, -1}")}), "s8[2] {-128, 1}");
  CHECK_LIT(MustEval("s4[3]", "abs", {L("s4[3] {-8, -7, 7}")}), "s4[3] {-8, 7, 7}");
  CHECK_LIT(MustEval("s64[2]", "negate", {L("s64[2] {-9223372036854775808, 5}")}),
            "s64[2] {-9223372036854775808, -5}");
  CHECK_LIT(MustEval("s4[3]", "negate", {L("s4[3] {-8, 1, 0}")}), "s4[3] {-8, -1, 0}");
  CHECK_LIT(MustEval("s2[4]", "negate", {L("s2[4] {-2, -1, 0, 1}")}), "s2[4] {-2, 1, 0, -1}");
  // Unsigned negation wraps modulo 2^n.
  CHECK_LIT(MustEval("u8[2]", "negate", {L("u8[2] {1, 0}")}), "u8[2] {255, 0}");
  CHECK_LIT(MustEval("u4[2]", "negate", {L("u4[2] {1, 8}")}), "u4[2] {15, 8}");
  CHECK_LIT(MustEval("u32[1]", "negate", {L("u32[1] {1}")}), "u32[1] {4294967295}");
  CHECK_LIT(MustEval("s32[3]", "sign", {L("s32[3] {-5, 0, 7}")}), "s32[3] {-1, 0, 1}");
  CHECK_LIT(MustEval("s4[3]", "sign", {L("s4[3] {-8, 0, 7}")}), "s4[3] {-1, 0, 1}");
  CHECK_LIT(MustEval("s64[2]", "sign", {L("s64[2] {-9223372036854775808, 9}")}), "s64[2] {-1, 1}");
}

TEST_CASE("elementwise: not of pred and integers", "[eval]") {
  CHECK_LIT(MustEval("pred[2]", "not", {L("pred[2] {true, false}")}), "pred[2] {false, true}");
  CHECK_LIT(MustEval("s32[2]", "not", {L("s32[2] {0, 5}")}), "s32[2] {-1, -6}");
  CHECK_LIT(MustEval("u8[2]", "not", {L("u8[2] {0, 5}")}), "u8[2] {255, 250}");
  // 4-bit: ~0101 = 1010 (s4: -6, u4: 10).
  CHECK_LIT(MustEval("s4[2]", "not", {L("s4[2] {5, -8}")}), "s4[2] {-6, 7}");
  CHECK_LIT(MustEval("u4[2]", "not", {L("u4[2] {5, 0}")}), "u4[2] {10, 15}");
  CHECK_LIT(MustEval("u2[2]", "not", {L("u2[2] {1, 3}")}), "u2[2] {2, 0}");
  CHECK_LIT(MustEval("u64[1]", "not", {L("u64[1] {0}")}), "u64[1] {18446744073709551615}");
}

TEST_CASE("elementwise: popcnt and count-leading-zeros use the type's width", "[eval]") {
  // StableHLO popcnt example.
  CHECK_LIT(MustEval("s64[4]", "popcnt", {L("s64[4] {0, 1, 2, 127}")}), "s64[4] {0, 1, 1, 7}");
  CHECK_LIT(MustEval("s64[2]", "popcnt", {L("s64[2] {-1, -9223372036854775808}")}),
            "s64[2] {64, 1}");
  CHECK_LIT(MustEval("s8[2]", "popcnt", {L("s8[2] {-1, -128}")}), "s8[2] {8, 1}");
  CHECK_LIT(MustEval("s4[3]", "popcnt", {L("s4[3] {-1, -8, 5}")}), "s4[3] {4, 1, 2}");
  CHECK_LIT(MustEval("u4[2]", "popcnt", {L("u4[2] {15, 6}")}), "u4[2] {4, 2}");
  CHECK_LIT(MustEval("u2[2]", "popcnt", {L("u2[2] {3, 2}")}), "u2[2] {2, 1}");
  CHECK_LIT(MustEval("u32[1]", "popcnt", {L("u32[1] {4294967295}")}), "u32[1] {32}");
  // StableHLO count_leading_zeros example.
  CHECK_LIT(MustEval("s64[2,2]", "count-leading-zeros", {L("s64[2,2] {{0, 1}, {128, -1}}")}),
            "s64[2,2] {{64, 63}, {56, 0}}");
  CHECK_LIT(MustEval("s32[3]", "count-leading-zeros", {L("s32[3] {0, 1, -1}")}),
            "s32[3] {32, 31, 0}");
  CHECK_LIT(MustEval("u16[2]", "count-leading-zeros", {L("u16[2] {0, 256}")}), "u16[2] {16, 7}");
  // 4-bit: 0000 -> 4, 0001 -> 3, 1111 -> 0, 0100 -> 1.
  CHECK_LIT(MustEval("s4[4]", "count-leading-zeros", {L("s4[4] {0, 1, -1, 4}")}),
            "s4[4] {4, 3, 0, 1}");
  CHECK_LIT(MustEval("u4[2]", "count-leading-zeros", {L("u4[2] {8, 2}")}), "u4[2] {0, 2}");
  CHECK_LIT(MustEval("u1[2]", "count-leading-zeros", {L("u1[2] {0, 1}")}), "u1[2] {1, 0}");
  // Counts that do not fit the type wrap: s2 holds -2..1, so 2 is -2; s1
  // holds -1..0, so 1 is -1.
  CHECK_LIT(MustEval("s2[2]", "popcnt", {L("s2[2] {-1, 1}")}), "s2[2] {-2, 1}");
  CHECK_LIT(MustEval("s2[2]", "count-leading-zeros", {L("s2[2] {0, -1}")}), "s2[2] {-2, 0}");
  CHECK_LIT(MustEval("s1[2]", "count-leading-zeros", {L("s1[2] {0, -1}")}), "s1[2] {-1, 0}");
}

// The full-width types' vectorised loops (bit tricks, not POPCNT or LZCNT)
// against std::popcount and std::countl_zero: every u8 and u16 value, and
// for 32 and 64 bits every single bit, its neighbours and random values.
TEST_CASE("elementwise: popcnt and count-leading-zeros of every width's bit patterns", "[eval]") {
  const std::pair<PT, std::string_view> types[] = {
      {PT::kU8, "u8"},   {PT::kS8, "s8"},   {PT::kU16, "u16"}, {PT::kS16, "s16"},
      {PT::kU32, "u32"}, {PT::kS32, "s32"}, {PT::kU64, "u64"}, {PT::kS64, "s64"}};
  for (auto [pt, type] : types) {
    const int bits = std::stoi(std::string(type.substr(1)));
    std::vector<uint64_t> values;
    if (bits <= 16) {
      for (uint64_t v = 0; v < (uint64_t{1} << bits); ++v) values.push_back(v);
    } else {
      for (int b = 0; b < bits; ++b) {
        const uint64_t one = uint64_t{1} << b;
        for (uint64_t v : {one, one - 1, one + 1, ~one, ~(one - 1)}) values.push_back(v);
      }
      uint64_t seed = 7;
      for (int k = 0; k < 2000; ++k) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        values.push_back(seed >> (k % 64));
      }
    }
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (uint64_t& v : values) v &= mask;
    const std::string shape = StrCat(type, "[", values.size(), "]");
    const Literal pop = MustEval(shape, "popcnt", {Bits(pt, values)});
    const Literal clz = MustEval(shape, "count-leading-zeros", {Bits(pt, values)});
    int64_t wrong = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t v = values[i];
      const uint64_t want_pop = static_cast<uint64_t>(std::popcount(v));
      const uint64_t want_clz = static_cast<uint64_t>(std::countl_zero(v) - (64 - bits));
      if ((pop.GetBits(static_cast<int64_t>(i)) != want_pop ||
           clz.GetBits(static_cast<int64_t>(i)) != want_clz) &&
          ++wrong <= 5) {
        UNSCOPED_INFO(type << " " << v << ": popcnt " << pop.GetBits(static_cast<int64_t>(i))
                           << " clz " << clz.GetBits(static_cast<int64_t>(i)));
      }
    }
    CHECK(wrong == 0);
  }
}

// ============================================================================
// unary: floats
// ============================================================================

TEST_CASE("elementwise: abs/negate/sign keep IEEE signs and NaN", "[eval]") {
  CHECK_LIT(MustEval("f32[5]", "abs", {L("f32[5] {-0, -inf, -2.5, nan, 3}")}),
            "f32[5] {0, inf, 2.5, nan, 3}");
  CHECK_LIT(MustEval("f32[3]", "negate", {L("f32[3] {0, -0, inf}")}), "f32[3] {-0, 0, -inf}");
  // StableHLO sign example (f64), and f32.
  CHECK_LIT(MustEval("f64[5]", "sign", {L("f64[5] {nan, -1, -0, 0, 1}")}),
            "f64[5] {nan, -1, -0, 0, 1}");
  CHECK_LIT(MustEval("f32[6]", "sign", {L("f32[6] {-inf, -1e-40, 1e-40, 7, -0, nan}")}),
            "f32[6] {-1, -1, 1, 1, -0, nan}");
  CHECK_LIT(MustEval("bf16[4]", "sign", {L("bf16[4] {-3, -0, 0, 2}")}), "bf16[4] {-1, -0, 0, 1}");
  CHECK_LIT(MustEval("f16[3]", "abs", {L("f16[3] {-65504, -0, 1}")}), "f16[3] {65504, 0, 1}");
  CHECK_LIT(MustEval("f8e4m3fn[2]", "negate", {L("f8e4m3fn[2] {448, -0.5}")}),
            "f8e4m3fn[2] {-448, 0.5}");
}

TEST_CASE("elementwise: rounding ops", "[eval]") {
  // StableHLO round_nearest_afz / round_nearest_even examples.
  CHECK_LIT(MustEval("f64[5]", "round-nearest-afz", {L("f64[5] {-2.5, 0.4, 0.5, 0.6, 2.5}")}),
            "f64[5] {-3, 0, 1, 1, 3}");
  CHECK_LIT(MustEval("f64[5]", "round-nearest-even", {L("f64[5] {-2.5, 0.4, 0.5, 0.6, 2.5}")}),
            "f64[5] {-2, 0, 0, 1, 2}");
  CHECK_LIT(
      MustEval("f32[6]", "round-nearest-even", {L("f32[6] {-0.5, 1.5, 3.5, -0.4, inf, nan}")}),
      "f32[6] {-0, 2, 4, -0, inf, nan}");
  CHECK_LIT(MustEval("f32[4]", "round-nearest-afz", {L("f32[4] {-0.5, 1.5, -0.4, 8388609}")}),
            "f32[4] {-1, 2, -0, 8388609}");
  // Ties away from zero, the largest values below a tie, the last f32 with
  // a fraction (2^23 - 0.5), the signed zeros, subnormals and the
  // non-finite values, in every lane.
  const std::vector<std::pair<std::string, std::string>> afz = {{"0.5", "1"},
                                                                {"-0.5", "-1"},
                                                                {"2.5", "3"},
                                                                {"-2.5", "-3"},
                                                                {"0.49999997", "0"},
                                                                {"-0.49999997", "-0"},
                                                                {"8388607.5", "8388608"},
                                                                {"-8388607.5", "-8388608"},
                                                                {"8388607", "8388607"},
                                                                {"1e30", "1e30"},
                                                                {"-0", "-0"},
                                                                {"-0.3", "-0"},
                                                                {"1e-45", "0"},
                                                                {"-1e-45", "-0"},
                                                                {"inf", "inf"},
                                                                {"-inf", "-inf"},
                                                                {"nan", "nan"},
                                                                {"1.5", "2"}};
  CheckEveryLane("f32", "round-nearest-afz", afz, "3.25", "3");
  CheckEveryLane("f64", "round-nearest-afz",
                 {{"0.5", "1"},
                  {"-0.5", "-1"},
                  {"4503599627370495.5", "4503599627370496"},  // 2^52 - 0.5
                  {"0.49999999999999994", "0"},
                  {"-0.49999999999999994", "-0"},
                  {"-2.5", "-3"},
                  {"-0", "-0"},
                  {"5e-324", "0"},
                  {"-inf", "-inf"},
                  {"nan", "nan"}},
                 "-7.75", "-8");
  CHECK_LIT(MustEval("f32[5]", "floor", {L("f32[5] {-1.5, 1.5, -0, -0.1, -inf}")}),
            "f32[5] {-2, 1, -0, -1, -inf}");
  CHECK_LIT(MustEval("f32[5]", "ceil", {L("f32[5] {-1.5, 1.5, -0.5, 0.1, nan}")}),
            "f32[5] {-1, 2, -0, 1, nan}");
  CHECK_LIT(MustEval("bf16[3]", "floor", {L("bf16[3] {-1.5, 2.5, 0.75}")}), "bf16[3] {-2, 2, 0}");
  CHECK_LIT(MustEval("f16[3]", "round-nearest-even", {L("f16[3] {2.5, 3.5, -2.5}")}),
            "f16[3] {2, 4, -2}");
  // In f8e5m2 (2 mantissa bits) 2.5 is exact and rounds to even 2.
  CHECK_LIT(MustEval("f8e5m2[2]", "round-nearest-even", {L("f8e5m2[2] {2.5, 3.5}")}),
            "f8e5m2[2] {2, 4}");
}

TEST_CASE("elementwise: sqrt, rsqrt, cbrt special values", "[eval]") {
  CHECK_LIT(MustEval("f32[6]", "sqrt", {L("f32[6] {4, 2.25, -0, 0, inf, -1}")}),
            "f32[6] {2, 1.5, -0, 0, inf, nan}");
  // sqrt(2) rounds correctly (IEEE): 1.41421353816986083984375.
  CHECK_LIT(MustEval("f32[1]", "sqrt", {L("f32[1] {2}")}), "f32[1] {1.4142135}");
  // sqrt of the smallest f64 denormal 2^-1074 is exactly 2^-537.
  CHECK_LIT(MustEval("f64[2]", "sqrt", {L("f64[2] {2, 4.9406564584124654e-324}")}),
            "f64[2] {1.4142135623730951, 2.2227587494850775e-162}");
  CHECK_LIT(MustEval("f32[5]", "rsqrt", {L("f32[5] {4, 0.25, 0, -0, inf}")}),
            "f32[5] {0.5, 2, inf, -inf, 0}");
  CHECK_LIT(MustEval("f32[1]", "rsqrt", {L("f32[1] {-4}")}), "f32[1] {nan}");
  Literal c = MustEval("f64[4]", "cbrt", {L("f64[4] {-8, 27, -0, inf}")});
  CHECK(c.GetDouble(0) == Approx(-2).epsilon(1e-15));
  CHECK(c.GetDouble(1) == Approx(3).epsilon(1e-15));
  CHECK(std::signbit(c.GetDouble(2)));
  CHECK(c.GetDouble(3) == kInf);
  CHECK_LIT(MustEval("f16[2]", "sqrt", {L("f16[2] {4, 0.0625}")}), "f16[2] {2, 0.25}");
  // f16: 2^-24 (the smallest denormal) has sqrt 2^-12, no flush to zero.
  CHECK_SAME(MustEval("f16[1]", "sqrt", {Bits(PT::kF16, {0x0001})}), Bits(PT::kF16, {0x0C00}));
}

TEST_CASE("elementwise: exp/log family special values", "[eval]") {
  // Each case has more elements than a vector, so that both the vector body
  // and its tail run.
  CHECK_LIT(
      MustEval("f32[18]", "exponential",
               {L("f32[18] {0, -0, -inf, inf, nan, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -inf}")}),
      "f32[18] {1, 1, 0, inf, nan, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}");
  // exp overflows past ln(FLT_MAX) = 88.72 and underflows into denormals.
  Literal e = MustEval("f32[3]", "exponential", {L("f32[3] {89, -100, -104}")});
  CHECK(std::isinf(e.GetDouble(0)));
  CHECK(UlpError(e.GetDouble(1), std::exp(-100.0), PT::kF32) <= 1);  // 3.7e-44, denormal
  CHECK(e.GetDouble(2) == 0);
  CHECK_LIT(MustEval("f32[5]", "log", {L("f32[5] {1, 0, -0, inf, -1}")}),
            "f32[5] {0, -inf, -inf, inf, nan}");
  CHECK_LIT(MustEval("f32[5]", "log-plus-one", {L("f32[5] {0, -0, -1, inf, -2}")}),
            "f32[5] {0, -0, -inf, inf, nan}");
  CHECK_LIT(MustEval("f32[5]", "exponential-minus-one", {L("f32[5] {0, -0, -inf, inf, nan}")}),
            "f32[5] {0, -0, -1, inf, nan}");
  // expm1 and log1p keep tiny arguments exact where exp-1 / log(1+x) lose them.
  Literal m = MustEval("f64[2]", "exponential-minus-one", {L("f64[2] {1e-10, -1e-300}")});
  CHECK(m.GetDouble(0) == Approx(1.00000000005e-10).epsilon(1e-15));
  CHECK(m.GetDouble(1) == Approx(-1e-300).epsilon(1e-15));
  Literal p = MustEval("f32[1]", "log-plus-one", {L("f32[1] {1e-10}")});
  CHECK(p.GetDouble(0) == Approx(1e-10).epsilon(1e-6));
}

// NaNs through exp, log, log1p and libmvec's functions: the vector paths
// answer them in the vector (x + x) where they called the scalar function
// a lane at a time; each result must be the NaN quietened, its sign and
// payload kept (the scalar functions' answer), in a vector of NaNs, beside
// ordinary lanes (whose results must not change), and in the tail; on both
// paths. `xs` holds the NaNs as values of T; U is T's bits.
template <typename T, typename U>
void CheckNanBits(PT type, const std::vector<double>& xs) {
  constexpr U kQuiet = U{1} << (std::numeric_limits<T>::digits - 2);
  const int64_t n = static_cast<int64_t>(xs.size());
  // Ordinary lanes alone, for what their results must stay beside NaNs.
  std::vector<double> ordinary;
  for (double x : xs) ordinary.push_back(std::isnan(x) ? 0.5 : x);
  const std::string shape = StrCat(PrimitiveTypeName(type), "[", n, "]");
  for (const char* op :
       {"exponential", "log", "log-plus-one", "exponential-minus-one", "sine", "cosine", "tan",
        "tanh", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "cbrt"}) {
    for (bool vec : {true, false}) {
      elementwise::SetVecMathEnabled(vec);
      Literal out = MustEval(shape, op, {Doubles(type, xs)});
      Literal alone = MustEval(shape, op, {Doubles(type, ordinary)});
      for (int64_t i = 0; i < n; ++i) {
        const T x = static_cast<T>(xs[i]);
        const U got = std::bit_cast<U>(out.typed<T>()[i]);
        INFO((vec ? "vector " : "scalar ")
             << op << " lane " << i << " input bits " << std::hex << std::bit_cast<U>(x));
        if (std::isnan(x)) {
          CHECK(got == (std::bit_cast<U>(x) | kQuiet));
        } else {
          CHECK(got == std::bit_cast<U>(alone.typed<T>()[i]));
        }
      }
    }
  }
  elementwise::SetVecMathEnabled(true);
}

TEST_CASE("elementwise: f32 transcendental functions keep a NaN's bits as libm does", "[eval]") {
  std::vector<double> xs;
  for (uint32_t i = 0; i < 16; ++i) xs.push_back(std::bit_cast<float>(0x7fc00000u + 977 * i));
  for (int i = 0; i < 16; ++i) {
    xs.push_back(i % 3 == 0 ? std::bit_cast<float>(0xffc00000u + 31u * i) : 0.0625 * i);
  }
  for (uint32_t bits : {0x7fc12345u, 0xffd54321u, 0x7fffffffu})
    xs.push_back(std::bit_cast<float>(bits));
  CheckNanBits<float, uint32_t>(PT::kF32, xs);
}

// f64's libmvec functions all take NaN lanes in the vector.
TEST_CASE("elementwise: f64 transcendental functions keep a NaN's bits as libm does", "[eval]") {
  std::vector<double> xs;
  for (uint64_t i = 0; i < 8; ++i)
    xs.push_back(std::bit_cast<double>(0x7ff8000000000000u + 977 * i));
  for (int i = 0; i < 16; ++i) {
    xs.push_back(i % 3 == 0 ? std::bit_cast<double>(0xfff8000000000000u + 31u * i) : 0.0625 * i);
  }
  for (uint64_t bits : {0x7ff8123456789abcu, 0xfffd543210fedcbau, 0x7fffffffffffffffu})
    xs.push_back(std::bit_cast<double>(bits));
  CheckNanBits<double, uint64_t>(PT::kF64, xs);
}

TEST_CASE("elementwise: logistic is accurate at both ends", "[eval]") {
  Literal r = MustEval("f32[8]", "logistic", {L("f32[8] {0, 100, -100, inf, -inf, nan, 1, -20}")});
  CHECK(r.GetDouble(0) == 0.5);
  CHECK(r.GetDouble(1) == 1);
  // 1/(1+e^100) = e^-100 / (1 + e^-100), a float denormal, not 0.
  CHECK(UlpError(r.GetDouble(2), std::exp(-100.0), PT::kF32) <= 1);
  CHECK(r.GetDouble(3) == 1);
  CHECK(r.GetDouble(4) == 0);
  CHECK(std::isnan(r.GetDouble(5)));
  CHECK(UlpError(r.GetDouble(6), 1 / (1 + std::exp(-1.0)), PT::kF32) <= 4);
  CHECK(UlpError(r.GetDouble(7), 1 / (1 + std::exp(20.0)), PT::kF32) <= 4);
  Literal h = MustEval("bf16[2]", "logistic", {L("bf16[2] {0, 2}")});
  CHECK(h.GetDouble(0) == 0.5);
  // 1/(1+e^-2) = 0.8808; bf16 neighbours 0.87890625 and 0.8828125.
  CHECK(h.GetDouble(1) == 0.87890625);
}

TEST_CASE("elementwise: trigonometric and hyperbolic special values", "[eval]") {
  CHECK_LIT(MustEval("f32[4]", "sine", {L("f32[4] {0, -0, inf, nan}")}),
            "f32[4] {0, -0, nan, nan}");
  CHECK_LIT(MustEval("f32[3]", "cosine", {L("f32[3] {0, -inf, nan}")}), "f32[3] {1, nan, nan}");
  CHECK_LIT(MustEval("f32[2]", "tan", {L("f32[2] {0, -0}")}), "f32[2] {0, -0}");
  CHECK_LIT(MustEval("f32[5]", "tanh", {L("f32[5] {0, -0, inf, -inf, nan}")}),
            "f32[5] {0, -0, 1, -1, nan}");
  CHECK_LIT(MustEval("f32[2]", "tanh", {L("f32[2] {20, -20}")}), "f32[2] {1, -1}");
  CHECK_LIT(MustEval("f64[4]", "acos", {L("f64[4] {1, -1, 2, nan}")}),
            "f64[4] {0, 3.141592653589793, nan, nan}");
  CHECK_LIT(MustEval("f64[3]", "asin", {L("f64[3] {0, -0, 1.5}")}), "f64[3] {0, -0, nan}");
  CHECK_LIT(MustEval("f32[3]", "acosh", {L("f32[3] {1, 0.5, inf}")}), "f32[3] {0, nan, inf}");
  CHECK_LIT(MustEval("f32[3]", "asinh", {L("f32[3] {0, -0, -inf}")}), "f32[3] {0, -0, -inf}");
  CHECK_LIT(MustEval("f32[4]", "atanh", {L("f32[4] {0, 1, -1, 2}")}), "f32[4] {0, inf, -inf, nan}");
  CHECK_LIT(MustEval("f32[3]", "cosh", {L("f32[3] {0, inf, -inf}")}), "f32[3] {1, inf, inf}");
  CHECK_LIT(MustEval("f32[3]", "sinh", {L("f32[3] {-0, inf, -inf}")}), "f32[3] {-0, inf, -inf}");
  CHECK_LIT(MustEval("f32[4]", "erf", {L("f32[4] {0, -0, inf, -inf}")}), "f32[4] {0, -0, 1, -1}");
  Literal a = MustEval("f64[2]", "atan", {L("f64[2] {inf, -inf}")});
  CHECK(a.GetDouble(0) == Approx(kPi / 2).epsilon(1e-15));
  CHECK(a.GetDouble(1) == Approx(-kPi / 2).epsilon(1e-15));
  // erf(1) = 0.8427007929497149 (Abramowitz & Stegun table 7.1).
  Literal r = MustEval("f64[1]", "erf", {L("f64[1] {1}")});
  CHECK(r.GetDouble(0) == Approx(0.8427007929497149).epsilon(1e-14));
}

// Every transcendental op on a spread of f32 and f64 arguments, against
// double libm, on the vector (libmvec) path and on the scalar path.
TEST_CASE("elementwise: transcendental functions within 4 ulp of libm", "[eval]") {
  struct Fn {
    const char* op;
    double (*ref)(double);
    double lo, hi;
  };
  const Fn fns[] = {
      {"exponential", [](double x) { return std::exp(x); }, -100, 88},
      {"exponential-minus-one", [](double x) { return std::expm1(x); }, -20, 20},
      {"log", [](double x) { return std::log(x); }, 1e-30, 1e30},
      {"log-plus-one", [](double x) { return std::log1p(x); }, -0.99, 1e6},
      {"logistic", [](double x) { return 1 / (1 + std::exp(-x)); }, -80, 80},
      {"sine", [](double x) { return std::sin(x); }, -100, 100},
      {"cosine", [](double x) { return std::cos(x); }, -100, 100},
      {"tan", [](double x) { return std::tan(x); }, -1.5, 1.5},
      {"tanh", [](double x) { return std::tanh(x); }, -12, 12},
      {"asin", [](double x) { return std::asin(x); }, -1, 1},
      {"acos", [](double x) { return std::acos(x); }, -1, 1},
      {"atan", [](double x) { return std::atan(x); }, -1e4, 1e4},
      {"sinh", [](double x) { return std::sinh(x); }, -80, 80},
      {"cosh", [](double x) { return std::cosh(x); }, -80, 80},
      {"asinh", [](double x) { return std::asinh(x); }, -1e6, 1e6},
      {"acosh", [](double x) { return std::acosh(x); }, 1, 1e6},
      {"atanh", [](double x) { return std::atanh(x); }, -0.999, 0.999},
      {"erf", [](double x) { return std::erf(x); }, -5, 5},
      {"cbrt", [](double x) { return std::cbrt(x); }, -1e6, 1e6},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0, 1e30},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 1e-30, 1e30},
  };
  const int n = 1003;  // not a multiple of any vector width
  for (bool vec : {true, false}) {
    elementwise::SetVecMathEnabled(vec);
    for (const Fn& fn : fns) {
      for (PT type : {PT::kF32, PT::kF64}) {
        std::vector<double> xs;
        for (int i = 0; i < n; ++i) {
          double t = static_cast<double>(i) / (n - 1);
          double x = fn.lo > 0 ? fn.lo * std::pow(fn.hi / fn.lo, t) : fn.lo + (fn.hi - fn.lo) * t;
          xs.push_back(type == PT::kF32 ? static_cast<float>(x) : x);
        }
        Literal in = Doubles(type, xs);
        std::string shape = StrCat(PrimitiveTypeName(type), "[", n, "]");
        Literal out = MustEval(shape, fn.op, {std::move(in)});
        double worst = 0, at = 0;
        for (int i = 0; i < n; ++i) {
          double err = UlpError(out.GetDouble(i), fn.ref(xs[i]), type);
          if (err > worst) worst = err, at = xs[i];
        }
        INFO(fn.op << " " << PrimitiveTypeName(type) << (vec ? " vector" : " scalar") << ": worst "
                   << worst << " ulp at " << at);
        CHECK(worst <= 4.0);
      }
    }
  }
  elementwise::SetVecMathEnabled(true);
}

// f32 exp past libmvec's range (|x| > 0x1.5d589ep+6, NaN): the vector path
// answers those lanes itself, as +0, +inf, its own subnormal results or
// scalar expf (libmvec would send the whole vector down its slow path);
// each must be what scalar expf gives, beside ordinary lanes in one vector
// or not, except the vector path's subnormal results (x in (edge_lo,
// -range)), which must be within 1 ulp of exp in double.
TEST_CASE("elementwise: f32 exp saturates to +0 and +inf as scalar expf does", "[eval]") {
  // edge_lo/edge_hi: expf's +0 and +inf; range: libmvec's vector range.
  const float edge_lo = -0x1.9fe36ap+6f, edge_hi = 0x1.62e43p+6f, range = 0x1.5d589ep+6f;
  const float specials[] = {-std::numeric_limits<float>::infinity(),
                            -1e30f,
                            -1000.0f,
                            std::nextafter(edge_lo, -200.0f),
                            edge_lo,
                            std::nextafter(edge_lo, 0.0f),
                            -95.0f,
                            -87.5f,
                            std::nextafter(-range, -200.0f),
                            -range,
                            -1.0f,
                            0.0f,
                            1.0f,
                            range,
                            std::nextafter(range, 200.0f),
                            88.0f,
                            std::nextafter(edge_hi, 0.0f),
                            edge_hi,
                            std::nextafter(edge_hi, 200.0f),
                            1000.0f,
                            std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(uint32_t{0x7fc12345}),
                            std::bit_cast<float>(uint32_t{0xffd54321})};
  std::vector<double> xs;
  for (int rep = 0; rep < 5; ++rep) {
    for (float v : specials) xs.push_back(v);
    // A vector of NaNs but one, and one NaN among ordinary lanes.
    for (int i = 0; i < 15; ++i) xs.push_back(std::bit_cast<float>(uint32_t{0x7fc00000u + i}));
    xs.push_back(0.5 + rep);
    for (int i = 0; i < 7; ++i) xs.push_back(-600.0 + 37.0 * i + rep);  // mostly saturated runs
  }
  for (bool vec : {true, false}) {
    elementwise::SetVecMathEnabled(vec);
    const int64_t n = static_cast<int64_t>(xs.size());
    Literal out = MustEval(StrCat("f32[", n, "]"), "exponential", {Doubles(PT::kF32, xs)});
    for (int64_t i = 0; i < n; ++i) {
      // (Lanes in libmvec's range are its own, within 4 ulp: the test above.)
      if (std::fabs(xs[i]) <= range) continue;
      const float want = std::exp(static_cast<float>(xs[i]));
      INFO((vec ? "vector" : "scalar") << " exp(" << xs[i] << ")");
      if (vec && xs[i] > edge_lo && xs[i] < -range) {
        CHECK(UlpError(out.typed<float>()[i], std::exp(xs[i]), PT::kF32) <= 1);
        continue;
      }
      CHECK(std::memcmp(&out.typed<float>()[i], &want, sizeof(float)) == 0);
    }
  }
  elementwise::SetVecMathEnabled(true);
}

TEST_CASE("elementwise: narrow floats compute in f32 and round once", "[eval]") {
  // e = 2.718281828...: f16 (ulp 2^-9 in [2,4)) and bf16 (ulp 2^-6) both
  // round it to 2.71875.
  CHECK_LIT(MustEval("f16[1]", "exponential", {L("f16[1] {1}")}), "f16[1] {2.71875}");
  CHECK_LIT(MustEval("bf16[1]", "exponential", {L("bf16[1] {1}")}), "bf16[1] {2.71875}");
  // f8e4m3fn: e lies between 2.5 and 2.75 (ulp 0.25), nearer 2.75.
  CHECK_LIT(MustEval("f8e4m3fn[1]", "exponential", {L("f8e4m3fn[1] {1}")}), "f8e4m3fn[1] {2.75}");
  CHECK_LIT(MustEval("f16[2]", "tanh", {L("f16[2] {-inf, 0}")}), "f16[2] {-1, 0}");
  CHECK_LIT(MustEval("bf16[2]", "log", {L("bf16[2] {0, -1}")}), "bf16[2] {-inf, nan}");
  // f16 exp(12) = 162754.8 overflows f16 (max 65504) to inf.
  CHECK_LIT(MustEval("f16[1]", "exponential", {L("f16[1] {12}")}), "f16[1] {inf}");
  // e4m3fn has no inf: exp(7) = 1096.6 overflows to NaN (ml_dtypes).
  Literal r = MustEval("f8e4m3fn[1]", "exponential", {L("f8e4m3fn[1] {7}")});
  CHECK(std::isnan(r.GetDouble(0)));
}

TEST_CASE("elementwise: is-finite, real, imag of floats", "[eval]") {
  CHECK_LIT(MustEval("pred[5]", "is-finite", {L("f32[5] {1, inf, -inf, nan, -0}")}),
            "pred[5] {true, false, false, false, true}");
  CHECK_LIT(MustEval("pred[3]", "is-finite", {L("f64[3] {1e308, -inf, nan}")}),
            "pred[3] {true, false, false}");
  CHECK_LIT(MustEval("pred[3]", "is-finite", {L("bf16[3] {1, inf, nan}")}),
            "pred[3] {true, false, false}");
  CHECK_LIT(MustEval("pred[2]", "is-finite", {L("f8e4m3fn[2] {448, nan}")}),
            "pred[2] {true, false}");
  CHECK_LIT(MustEval("f32[2]", "real", {L("f32[2] {1.5, -0}")}), "f32[2] {1.5, -0}");
  CHECK_LIT(MustEval("f32[2]", "imag", {L("f32[2] {1.5, nan}")}), "f32[2] {0, 0}");
  CHECK_LIT(MustEval("f16[1]", "imag", {L("f16[1] {3}")}), "f16[1] {0}");
}

// ============================================================================
// unary: complex
// ============================================================================

TEST_CASE("elementwise: complex unary ops", "[eval]") {
  CHECK_LIT(MustEval("f32[2]", "abs", {L("c64[2] {(3, 4), (-5, 12)}")}), "f32[2] {5, 13}");
  CHECK_LIT(MustEval("f64[1]", "real", {L("c128[1] {(1.5, -2)}")}), "f64[1] {1.5}");
  CHECK_LIT(MustEval("f64[1]", "imag", {L("c128[1] {(1.5, -2)}")}), "f64[1] {-2}");
  CHECK_LIT(MustEval("c64[1]", "negate", {L("c64[1] {(1, -2)}")}), "c64[1] {(-1, 2)}");
  // StableHLO sign: x / |x|; (0, 0) -> (0, 0); NaN parts -> (NaN, NaN).
  CHECK_LIT(MustEval("c128[3]", "sign", {L("c128[3] {(3, 4), (0, 0), (nan, 1)}")}),
            "c128[3] {(0.6, 0.8), (0, 0), (nan, nan)}");
  // sqrt(-4) = 2i; exp(0) = 1; log(-1) = i pi.
  CHECK_LIT(MustEval("c128[2]", "sqrt", {L("c128[2] {(-4, 0), (0, 0)}")}),
            "c128[2] {(0, 2), (0, 0)}");
  CHECK_LIT(MustEval("c128[1]", "exponential", {L("c128[1] {(0, 0)}")}), "c128[1] {(1, 0)}");
  Literal lg = MustEval("c128[1]", "log", {L("c128[1] {(-1, 0)}")});
  CHECK(lg.GetComplex(0).real() == 0);
  CHECK(lg.GetComplex(0).imag() == Approx(kPi).epsilon(1e-15));
  // exp(i pi) = -1 (+ 1.2e-16 i from pi's rounding).
  Literal e = MustEval("c128[1]", "exponential", {L("c128[1] {(0, 3.141592653589793)}")});
  CHECK(e.GetComplex(0).real() == Approx(-1).epsilon(1e-15));
  CHECK(std::fabs(e.GetComplex(0).imag()) < 1e-15);
  // rsqrt(4) = 0.5; cbrt(-8) is the principal root 2 e^(i pi/3) = 1 + 1.732i.
  Literal rs = MustEval("c64[1]", "rsqrt", {L("c64[1] {(4, 0)}")});
  CHECK(rs.GetComplex(0).real() == Approx(0.5));
  Literal cb = MustEval("c128[1]", "cbrt", {L("c128[1] {(-8, 0)}")});
  CHECK(cb.GetComplex(0).real() == Approx(1).epsilon(1e-12));
  CHECK(cb.GetComplex(0).imag() == Approx(std::sqrt(3.0)).epsilon(1e-12));
  // expm1 and log1p keep tiny arguments: expm1(1e-10 + 1e-10 i) ~ 1e-10 (1 + i).
  Literal m1 = MustEval("c128[1]", "exponential-minus-one", {L("c128[1] {(1e-10, 1e-10)}")});
  CHECK(m1.GetComplex(0).real() == Approx(1e-10).epsilon(1e-9));
  CHECK(m1.GetComplex(0).imag() == Approx(1e-10).epsilon(1e-9));
  Literal l1 = MustEval("c128[1]", "log-plus-one", {L("c128[1] {(1e-10, 0)}")});
  CHECK(l1.GetComplex(0).real() == Approx(1e-10).epsilon(1e-9));
  CHECK(l1.GetComplex(0).imag() == 0);
  // tanh, sin, cos, logistic agree with the real functions on the real axis.
  Literal th = MustEval("c128[1]", "tanh", {L("c128[1] {(0.5, 0)}")});
  CHECK(th.GetComplex(0).real() == Approx(std::tanh(0.5)).epsilon(1e-15));
  Literal lo = MustEval("c128[1]", "logistic", {L("c128[1] {(0, 0)}")});
  CHECK(lo.GetComplex(0).real() == Approx(0.5));
  for (const char* op : {"sine", "cosine", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
                         "acosh", "atanh"}) {
    Literal r = MustEval("c64[1]", op, {L("c64[1] {(0.5, 0)}")});
    INFO(op);
    CHECK(std::isfinite(r.GetComplex(0).real()));
  }
}

// ============================================================================
// binary: integers
// ============================================================================

TEST_CASE("elementwise: integer add/subtract/multiply wrap in the type's width", "[eval]") {
  // StableHLO add example.
  CHECK_LIT(
      MustEval("s32[2,2]", "add", {L("s32[2,2] {{1, 2}, {3, 4}}"), L("s32[2,2] {{5, 6}, {7, 8}}")}),
      "s32[2,2] {{6, 8}, {10, 12}}");
  CHECK_LIT(MustEval("s32[2]", "add", {L("s32[2] {2147483647, -2147483648}"), L("s32[2] {1, -1}")}),
            "s32[2] {-2147483648, 2147483647}");
  CHECK_LIT(MustEval("s8[1]", "add", {L("s8[1] {127}"), L("s8[1] {1}")}), "s8[1] {-128}");
  CHECK_LIT(MustEval("u8[1]", "add", {L("u8[1] {255}"), L("u8[1] {1}")}), "u8[1] {0}");
  CHECK_LIT(MustEval("s4[2]", "add", {L("s4[2] {7, -8}"), L("s4[2] {1, -1}")}), "s4[2] {-8, 7}");
  CHECK_LIT(MustEval("u4[2]", "add", {L("u4[2] {15, 9}"), L("u4[2] {1, 9}")}), "u4[2] {0, 2}");
  CHECK_LIT(MustEval("s2[2]", "add", {L("s2[2] {1, -2}"), L("s2[2] {1, -1}")}), "s2[2] {-2, 1}");
  CHECK_LIT(MustEval("u2[1]", "add", {L("u2[1] {3}"), L("u2[1] {2}")}), "u2[1] {1}");
  CHECK_LIT(MustEval("u64[1]", "add", {L("u64[1] {18446744073709551615}"), L("u64[1] {2}")}),
            "u64[1] {1}");
  CHECK_LIT(MustEval("u32[1]", "subtract", {L("u32[1] {0}"), L("u32[1] {1}")}),
            "u32[1] {4294967295}");
  CHECK_LIT(MustEval("s64[1]", "subtract", {L("s64[1] {-9223372036854775808}"), L("s64[1] {1}")}),
            "s64[1] {9223372036854775807}");
  CHECK_LIT(MustEval("s4[1]", "subtract", {L("s4[1] {-8}"), L("s4[1] {1}")}), "s4[1] {7}");
  // 4*4 = 16 = 0 (mod 16); 3*3 = 9 = -7 in s4; 65535^2 = 1 (mod 2^16).
  CHECK_LIT(MustEval("s4[2]", "multiply", {L("s4[2] {4, 3}"), L("s4[2] {4, 3}")}), "s4[2] {0, -7}");
  CHECK_LIT(MustEval("u16[1]", "multiply", {L("u16[1] {65535}"), L("u16[1] {65535}")}),
            "u16[1] {1}");
  CHECK_LIT(MustEval("s32[1]", "multiply", {L("s32[1] {65536}"), L("s32[1] {65536}")}),
            "s32[1] {0}");
  CHECK_LIT(MustEval("s64[1]", "multiply", {L("s64[1] {-9223372036854775808}"), L("s64[1] {-1}")}),
            "s64[1] {-9223372036854775808}");
}

TEST_CASE("elementwise: integer divide and remainder edge cases (XLA)", "[eval]") {
  // Truncating division; x / 0 = -1; INT_MIN / -1 = INT_MIN.
  CHECK_LIT(MustEval("s32[7]", "divide",
                     {L("s32[7] {7, -7, 7, -7, 5, -2147483648, -2147483648}"),
                      L("s32[7] {2, 2, -2, -2, 0, -1, 1}")}),
            "s32[7] {3, -3, -3, 3, -1, -2147483648, -2147483648}");
  CHECK_LIT(
      MustEval("s64[2]", "divide", {L("s64[2] {-9223372036854775808, 0}"), L("s64[2] {-1, 0}")}),
      "s64[2] {-9223372036854775808, -1}");
  // Unsigned x / 0 is all ones.
  CHECK_LIT(MustEval("u32[2]", "divide", {L("u32[2] {5, 4294967295}"), L("u32[2] {0, 2}")}),
            "u32[2] {4294967295, 2147483647}");
  CHECK_LIT(MustEval("u8[1]", "divide", {L("u8[1] {5}"), L("u8[1] {0}")}), "u8[1] {255}");
  CHECK_LIT(MustEval("s4[3]", "divide", {L("s4[3] {-8, 5, 7}"), L("s4[3] {-1, 0, -2}")}),
            "s4[3] {-8, -1, -3}");
  CHECK_LIT(MustEval("u4[1]", "divide", {L("u4[1] {5}"), L("u4[1] {0}")}), "u4[1] {15}");
  // StableHLO remainder example; x % 0 = x; INT_MIN % -1 = 0.
  CHECK_LIT(
      MustEval("s64[4]", "remainder", {L("s64[4] {17, -17, 17, -17}"), L("s64[4] {3, 3, -3, -3}")}),
      "s64[4] {2, -2, 2, -2}");
  CHECK_LIT(MustEval("s32[2]", "remainder", {L("s32[2] {5, -2147483648}"), L("s32[2] {0, -1}")}),
            "s32[2] {5, 0}");
  CHECK_LIT(MustEval("u16[2]", "remainder", {L("u16[2] {5, 65535}"), L("u16[2] {0, 256}")}),
            "u16[2] {5, 255}");
  CHECK_LIT(MustEval("s4[2]", "remainder", {L("s4[2] {-8, -7}"), L("s4[2] {-1, 0}")}),
            "s4[2] {0, -7}");
}

TEST_CASE("elementwise: integer power", "[eval]") {
  // x^0 = 1 (0^0 too); 1^negative = 1; other negative exponents give 0.
  CHECK_LIT(MustEval("s32[10]", "power",
                     {L("s32[10] {2, -2, 3, 1, -1, 2, 0, 0, 5, -1}"),
                      L("s32[10] {10, 3, 0, -5, -1, -1, 0, 5, 1, 3}")}),
            "s32[10] {1024, -8, 1, 1, 0, 0, 1, 0, 5, -1}");
  // Wrapping: 3^40 = 12157665459056928801 = 689956897 (mod 2^32); 2^31
  // wraps to INT_MIN; 2^32 to 0; 3^21 = 10460353203 = 1870418611 (mod 2^32).
  CHECK_LIT(MustEval("s32[4]", "power", {L("s32[4] {3, 2, 2, 3}"), L("s32[4] {40, 31, 32, 21}")}),
            "s32[4] {689956897, -2147483648, 0, 1870418611}");
  CHECK_LIT(MustEval("u8[3]", "power", {L("u8[3] {2, 3, 255}"), L("u8[3] {8, 5, 2}")}),
            "u8[3] {0, 243, 1}");
  // 3^5 = 243 = -13 (mod 256) as s8; 2^3 = 8 = -8 in s4.
  CHECK_LIT(MustEval("s8[1]", "power", {L("s8[1] {3}"), L("s8[1] {5}")}), "s8[1] {-13}");
  CHECK_LIT(MustEval("s4[2]", "power", {L("s4[2] {2, -2}"), L("s4[2] {3, -1}")}), "s4[2] {-8, 0}");
  // Exponents past 63 are used in full: 3^64 = 3433683820292512484657849089281
  // = 8733086111712066817 (mod 2^64).
  CHECK_LIT(MustEval("u64[1]", "power", {L("u64[1] {3}"), L("u64[1] {64}")}),
            "u64[1] {8733086111712066817}");
}

TEST_CASE("elementwise: maximum/minimum/and/or/xor on integers and pred", "[eval]") {
  // StableHLO maximum / minimum examples.
  CHECK_LIT(MustEval("s32[2,2]", "maximum",
                     {L("s32[2,2] {{1, 2}, {7, 8}}"), L("s32[2,2] {{5, 6}, {3, 4}}")}),
            "s32[2,2] {{5, 6}, {7, 8}}");
  CHECK_LIT(MustEval("s32[2,2]", "minimum",
                     {L("s32[2,2] {{1, 2}, {7, 8}}"), L("s32[2,2] {{5, 6}, {3, 4}}")}),
            "s32[2,2] {{1, 2}, {3, 4}}");
  CHECK_LIT(MustEval("u32[1]", "maximum", {L("u32[1] {4294967295}"), L("u32[1] {1}")}),
            "u32[1] {4294967295}");
  CHECK_LIT(MustEval("s4[2]", "minimum", {L("s4[2] {-8, 7}"), L("s4[2] {7, -1}")}),
            "s4[2] {-8, -1}");
  CHECK_LIT(MustEval("pred[4]", "maximum", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 1, 1, 1}");
  CHECK_LIT(MustEval("pred[4]", "minimum", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 0, 0, 1}");
  // pred: add is or, multiply is and (StableHLO add/multiply on booleans).
  CHECK_LIT(MustEval("pred[4]", "add", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 1, 1, 1}");
  CHECK_LIT(MustEval("pred[4]", "multiply", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 0, 0, 1}");
  CHECK_LIT(MustEval("pred[4]", "xor", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 1, 1, 0}");
  CHECK_LIT(MustEval("pred[4]", "and", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 0, 0, 1}");
  CHECK_LIT(MustEval("pred[4]", "or", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")}),
            "pred[4] {0, 1, 1, 1}");
  CHECK_LIT(MustEval("s32[2]", "and", {L("s32[2] {12, -1}"), L("s32[2] {10, 5}")}),
            "s32[2] {8, 5}");
  CHECK_LIT(MustEval("u8[2]", "or", {L("u8[2] {12, 128}"), L("u8[2] {3, 1}")}), "u8[2] {15, 129}");
  CHECK_LIT(MustEval("s4[2]", "xor", {L("s4[2] {-1, 5}"), L("s4[2] {7, 3}")}), "s4[2] {-8, 6}");
  CHECK_LIT(MustEval("u4[1]", "xor", {L("u4[1] {15}"), L("u4[1] {9}")}), "u4[1] {6}");
}

TEST_CASE("elementwise: shifts, including amounts past the bit width", "[eval]") {
  // StableHLO examples.
  CHECK_LIT(MustEval("s64[3]", "shift-left", {L("s64[3] {-1, 0, 1}"), L("s64[3] {1, 2, 3}")}),
            "s64[3] {-2, 0, 8}");
  CHECK_LIT(
      MustEval("s64[3]", "shift-right-arithmetic", {L("s64[3] {-1, 0, 8}"), L("s64[3] {1, 2, 3}")}),
      "s64[3] {-1, 0, 1}");
  CHECK_LIT(
      MustEval("s64[3]", "shift-right-logical", {L("s64[3] {-1, 0, 8}"), L("s64[3] {1, 2, 3}")}),
      "s64[3] {9223372036854775807, 0, 1}");
  // Amounts >= 32 (and negative ones, read as unsigned): 0 for left and
  // logical right shifts, the sign fill for arithmetic right shifts.
  CHECK_LIT(
      MustEval("s32[4]", "shift-left", {L("s32[4] {1, 1, 1, 3}"), L("s32[4] {31, 32, -1, 100}")}),
      "s32[4] {-2147483648, 0, 0, 0}");
  CHECK_LIT(MustEval("s32[4]", "shift-right-arithmetic",
                     {L("s32[4] {-8, 5, -1, -2147483648}"), L("s32[4] {32, 100, -1, 31}")}),
            "s32[4] {-1, 0, -1, -1}");
  CHECK_LIT(MustEval("s32[3]", "shift-right-logical",
                     {L("s32[3] {-1, -1, -1}"), L("s32[3] {32, 31, -5}")}),
            "s32[3] {0, 1, 0}");
  CHECK_LIT(MustEval("u8[3]", "shift-left", {L("u8[3] {1, 1, 255}"), L("u8[3] {7, 8, 4}")}),
            "u8[3] {128, 0, 240}");
  // Unsigned arithmetic shift copies the top bit: 200 = 11001000 -> 11100100.
  CHECK_LIT(MustEval("u8[3]", "shift-right-arithmetic",
                     {L("u8[3] {200, 100, 200}"), L("u8[3] {1, 1, 9}")}),
            "u8[3] {228, 50, 255}");
  CHECK_LIT(MustEval("u32[1]", "shift-right-logical",
                     {L("u32[1] {4294967295}"), L("u32[1] {4294967295}")}),
            "u32[1] {0}");
  // 4-bit: 1 << 3 = 1000 = -8; -8 >>a 1 = 1100 = -4; -8 >>l 1 = 0100 = 4;
  // an amount of -1 is 1111 = 15 >= 4.
  CHECK_LIT(MustEval("s4[4]", "shift-left", {L("s4[4] {1, 1, 1, 7}"), L("s4[4] {3, 4, -1, 1}")}),
            "s4[4] {-8, 0, 0, -2}");
  CHECK_LIT(
      MustEval("s4[3]", "shift-right-arithmetic", {L("s4[3] {-8, -8, 7}"), L("s4[3] {1, -1, 4}")}),
      "s4[3] {-4, -1, 0}");
  CHECK_LIT(MustEval("s4[2]", "shift-right-logical", {L("s4[2] {-8, -1}"), L("s4[2] {1, 3}")}),
            "s4[2] {4, 1}");
  CHECK_LIT(
      MustEval("u4[3]", "shift-right-arithmetic", {L("u4[3] {8, 7, 9}"), L("u4[3] {1, 1, 15}")}),
      "u4[3] {12, 3, 15}");
  CHECK_LIT(MustEval("u4[2]", "shift-left", {L("u4[2] {3, 1}"), L("u4[2] {2, 4}")}),
            "u4[2] {12, 0}");
  CHECK_LIT(MustEval("u2[2]", "shift-right-logical", {L("u2[2] {3, 3}"), L("u2[2] {1, 2}")}),
            "u2[2] {1, 0}");
}

TEST_CASE("elementwise: mulhi gives the high half of the full product", "[eval]") {
  // 2^30 * 4 = 2^32 -> 1; -1 * 1 = -1 -> high word all ones; INT_MIN^2 =
  // 2^62 -> 2^30; 3 * 5 -> 0.
  CHECK_LIT(
      MustEval("s32[4]", "mulhi",
               {L("s32[4] {1073741824, -1, -2147483648, 3}"), L("s32[4] {4, 1, -2147483648, 5}")}),
      "s32[4] {1, -1, 1073741824, 0}");
  // (2^32-1)^2 = 0xFFFFFFFE_00000001.
  CHECK_LIT(MustEval("u32[1]", "mulhi", {L("u32[1] {4294967295}"), L("u32[1] {4294967295}")}),
            "u32[1] {4294967294}");
  // INT64_MIN * 2 = -2^64 -> high word -1; (2^64-1)^2 high word 2^64-2.
  CHECK_LIT(MustEval("s64[2]", "mulhi",
                     {L("s64[2] {-9223372036854775808, 4611686018427387904}"), L("s64[2] {2, 4}")}),
            "s64[2] {-1, 1}");
  CHECK_LIT(MustEval("u64[1]", "mulhi",
                     {L("u64[1] {18446744073709551615}"), L("u64[1] {18446744073709551615}")}),
            "u64[1] {18446744073709551614}");
  // s8: -128 * -128 = 16384 = 0x4000 -> 0x40; s4: -8 * -8 = 64 = 0x40 -> 4;
  // u4: 15 * 15 = 225 = 0xE1 -> 14; s4: -8 * 7 = -56 = 0xC8 (8 bits) -> -4.
  CHECK_LIT(MustEval("s8[1]", "mulhi", {L("s8[1] {-128}"), L("s8[1] {-128}")}), "s8[1] {64}");
  CHECK_LIT(MustEval("s4[2]", "mulhi", {L("s4[2] {-8, -8}"), L("s4[2] {-8, 7}")}), "s4[2] {4, -4}");
  CHECK_LIT(MustEval("u4[1]", "mulhi", {L("u4[1] {15}"), L("u4[1] {15}")}), "u4[1] {14}");
}

// ============================================================================
// binary: floats
// ============================================================================

TEST_CASE("elementwise: float arithmetic follows IEEE", "[eval]") {
  // The StableHLO divide example's quotients 5.66666651 are those of 17 / 3
  // (17.1 / 3 is 5.7): the nearest f32 to 17/3 is 5.666666507720947.
  CHECK_LIT(
      MustEval("f32[4]", "divide", {L("f32[4] {17, -17, 17, -17}"), L("f32[4] {3, 3, -3, -3}")}),
      "f32[4] {5.66666651, -5.66666651, -5.66666651, 5.66666651}");
  // 17.1f = 17.10000038146972656; / 3 = 5.7000001271..., which is nearer
  // the f32 5.70000028610229492 than 5.69999980926513672.
  CHECK_LIT(MustEval("f32[1]", "divide", {L("f32[1] {17.1}"), L("f32[1] {3}")}),
            "f32[1] {5.70000029}");
  CHECK_LIT(MustEval("f32[5]", "divide",
                     {L("f32[5] {1, -1, 0, 1, inf}"), L("f32[5] {0, 0, 0, -0, inf}")}),
            "f32[5] {inf, -inf, nan, -inf, nan}");
  CHECK_LIT(MustEval("f32[4]", "add",
                     {L("f32[4] {inf, -0, 1e38, 0.1}"), L("f32[4] {-inf, -0, 1e38, 0.2}")}),
            "f32[4] {nan, -0, 2e38, 0.3}");
  CHECK_LIT(MustEval("f32[2]", "add", {L("f32[2] {3e38, -3e38}"), L("f32[2] {3e38, -3e38}")}),
            "f32[2] {inf, -inf}");
  CHECK_LIT(MustEval("f32[3]", "subtract", {L("f32[3] {0, 1, inf}"), L("f32[3] {0, 1, inf}")}),
            "f32[3] {0, 0, nan}");
  CHECK_LIT(
      MustEval("f32[3]", "multiply", {L("f32[3] {0, -2, 1e-30}"), L("f32[3] {inf, 0, 1e-30}")}),
      "f32[3] {nan, -0, 0}");
  // Denormals are kept (no flush): 2^-126 / 2 = 2^-127.
  CHECK_LIT(MustEval("f32[1]", "divide", {L("f32[1] {1.17549435e-38}"), L("f32[1] {2}")}),
            "f32[1] {5.87747175e-39}");
  CHECK_LIT(MustEval("f64[2]", "multiply", {L("f64[2] {1e-300, 0.1}"), L("f64[2] {1e-10, 3}")}),
            "f64[2] {1e-310, 0.30000000000000004}");
  // StableHLO remainder semantics: sign of the dividend (C fmod).
  CHECK_LIT(MustEval("f32[6]", "remainder",
                     {L("f32[6] {5.5, -5.5, 5.5, 1, inf, 2}"), L("f32[6] {2, 2, -2, 0, 2, inf}")}),
            "f32[6] {1.5, -1.5, 1.5, nan, nan, 2}");
  CHECK_LIT(MustEval("f32[2]", "remainder", {L("f32[2] {-0, -4}"), L("f32[2] {3, 2}")}),
            "f32[2] {-0, -0}");
  // StableHLO power example (f64): -36^1.1 is NaN.
  CHECK_LIT(MustEval("f64[6]", "power",
                     {L("f64[6] {-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0}"),
                      L("f64[6] {2.0, 2.0, 1.1, 2.0, -1.0, 10.0}")}),
            "f64[6] {4.0, 0.0, nan, 25.0, 0.3333333333333333, 1e40}");
  CHECK_LIT(MustEval("f32[3]", "power", {L("f32[3] {1, nan, 10000}"), L("f32[3] {nan, 0, 10}")}),
            "f32[3] {1, 1, inf}");
  CHECK_LIT(MustEval("f32[3]", "atan2", {L("f32[3] {0, -0, 1}"), L("f32[3] {-1, -1, 0}")}),
            "f32[3] {3.14159274, -3.14159274, 1.57079637}");
}

TEST_CASE("elementwise: float maximum/minimum propagate NaN and order -0 < +0", "[eval]") {
  // The cases repeat so that the vectorised loop body runs, not only its tail.
  std::string a =
      "f32[18] {nan, 1, -0, 0, 2, -inf, nan, 1, -0, 0, 2, -inf, nan, 1, -0, 0, 2, -inf}";
  std::string b =
      "f32[18] {1, nan, 0, -0, -3, inf, 1, nan, 0, -0, -3, inf, 1, nan, 0, -0, -3, inf}";
  CHECK_LIT(MustEval("f32[18]", "maximum", {L(a), L(b)}),
            "f32[18] {nan, nan, 0, 0, 2, inf, nan, nan, 0, 0, 2, inf, nan, nan, 0, 0, 2, inf}");
  CHECK_LIT(MustEval("f32[18]", "minimum", {L(a), L(b)}),
            "f32[18] {nan, nan, -0, -0, -3, -inf, nan, nan, -0, -0, -3, -inf, nan, nan, -0, -0, "
            "-3, -inf}");
  CHECK_LIT(MustEval("f64[3]", "maximum", {L("f64[3] {nan, -0, 1}"), L("f64[3] {2, 0, nan}")}),
            "f64[3] {nan, 0, nan}");
  CHECK_LIT(MustEval("bf16[3]", "minimum", {L("bf16[3] {nan, 0, 1}"), L("bf16[3] {2, -0, -1}")}),
            "bf16[3] {nan, -0, -1}");
  CHECK_LIT(
      MustEval("f8e4m3fn[2]", "maximum", {L("f8e4m3fn[2] {nan, 448}"), L("f8e4m3fn[2] {1, -448}")}),
      "f8e4m3fn[2] {nan, 448}");
}

// maximum and minimum of a and b (bit patterns of `type`) against the
// expected bits, each list twice so that the vector loop runs.
void CheckMaxMinBits(PT type, std::vector<uint64_t> a, std::vector<uint64_t> b,
                     std::vector<uint64_t> max, std::vector<uint64_t> min) {
  for (std::vector<uint64_t>* v : {&a, &b, &max, &min}) v->insert(v->end(), v->begin(), v->end());
  const std::string shape = StrCat(PrimitiveTypeName(type), "[", a.size(), "]");
  const Literal x = Bits(type, a), y = Bits(type, b);
  CHECK_SAME(MustEval(shape, "maximum", {x, y}), Bits(type, max));
  CHECK_SAME(MustEval(shape, "minimum", {x, y}), Bits(type, min));
}

TEST_CASE("elementwise: float maximum/minimum keep the operands' bits", "[eval]") {
  // Of two NaNs the lhs, payload and sign kept; a NaN rhs is returned as it
  // is; equal zeros keep their sign; ±denormals are ordered.
  CheckMaxMinBits(PT::kF32,
                  {0x7fc00001, 0xffc12345, 0x3f800000, 0x80000000, 0x00000000, 0x80000000,
                   0x00000001, 0x7f800000, 0x3f800000, 0xff800000, 0x7fc00002, 0x80000001,
                   0x00000000, 0x40000000, 0xbf800000, 0x7fc00000},
                  {0x7fc00009, 0x3f800000, 0xffc00007, 0x80000000, 0x00000000, 0x00000000,
                   0x80000001, 0x7f800000, 0x3f800000, 0x7fc0000b, 0x7fc00002, 0x00000001,
                   0x80000000, 0x40000000, 0xbf800000, 0xff800000},
                  {0x7fc00001, 0xffc12345, 0xffc00007, 0x80000000, 0x00000000, 0x00000000,
                   0x00000001, 0x7f800000, 0x3f800000, 0x7fc0000b, 0x7fc00002, 0x00000001,
                   0x00000000, 0x40000000, 0xbf800000, 0x7fc00000},
                  {0x7fc00001, 0xffc12345, 0xffc00007, 0x80000000, 0x00000000, 0x80000000,
                   0x80000001, 0x7f800000, 0x3f800000, 0x7fc0000b, 0x7fc00002, 0x80000001,
                   0x80000000, 0x40000000, 0xbf800000, 0x7fc00000});
  CheckMaxMinBits(PT::kF64,
                  {0x7ff8000000000001, 0x8000000000000000, 0x8000000000000000, 0x3ff0000000000000,
                   0xfff8000000000003, 0x0000000000000000, 0x4000000000000000, 0x7ff0000000000000},
                  {0xfff8000000000002, 0x8000000000000000, 0x0000000000000000, 0x7ff8000000000005,
                   0x3ff0000000000000, 0x8000000000000000, 0xc000000000000000, 0x7ff0000000000000},
                  {0x7ff8000000000001, 0x8000000000000000, 0x0000000000000000, 0x7ff8000000000005,
                   0xfff8000000000003, 0x0000000000000000, 0x4000000000000000, 0x7ff0000000000000},
                  {0x7ff8000000000001, 0x8000000000000000, 0x8000000000000000, 0x7ff8000000000005,
                   0xfff8000000000003, 0x8000000000000000, 0xc000000000000000, 0x7ff0000000000000});
}

TEST_CASE("elementwise: f16/bf16/f8 arithmetic rounds to nearest even once", "[eval]") {
  // f16 (11 significant bits): 2048 + 1 is a tie -> even 2048; 2050 + 1 ->
  // 2052; 65504 + 16 = 65520 is the tie with 65536 -> inf.
  CHECK_LIT(MustEval("f16[3]", "add", {L("f16[3] {2048, 2050, 65504}"), L("f16[3] {1, 1, 16}")}),
            "f16[3] {2048, 2052, inf}");
  CHECK_LIT(MustEval("f16[1]", "multiply", {L("f16[1] {300}"), L("f16[1] {300}")}), "f16[1] {inf}");
  // bf16 (8 significant bits): 256 + 1 -> 256; 258 + 1 -> 260.
  CHECK_LIT(MustEval("bf16[2]", "add", {L("bf16[2] {256, 258}"), L("bf16[2] {1, 1}")}),
            "bf16[2] {256, 260}");
  // f16 denormals: 2^-24 + 2^-24 = 2^-23; 2^-24 * 0.5 is the tie with 0 -> 0.
  CHECK_SAME(MustEval("f16[2]", "add",
                      {Bits(PT::kF16, {0x0001, 0x0001}), Bits(PT::kF16, {0x0001, 0x8001})}),
             Bits(PT::kF16, {0x0002, 0x0000}));
  CHECK_SAME(MustEval("f16[2]", "multiply",
                      {Bits(PT::kF16, {0x0001, 0x0003}), Bits(PT::kF16, {0x3800, 0x3800})}),
             Bits(PT::kF16, {0x0000, 0x0002}));
  // 1/3 in f16: 0x3555 = 0.333251953125.
  CHECK_SAME(MustEval("f16[1]", "divide", {L("f16[1] {1}"), L("f16[1] {3}")}),
             Bits(PT::kF16, {0x3555}));
  // e4m3fn: 448 + 16 = 464 ties 448 (even) and 480 (NaN) -> 448; 448 + 32
  // = 480 overflows -> NaN (no inf in fn formats).
  Literal fn =
      MustEval("f8e4m3fn[2]", "add", {L("f8e4m3fn[2] {448, 448}"), L("f8e4m3fn[2] {16, 32}")});
  CHECK(fn.GetDouble(0) == 448);
  CHECK(std::isnan(fn.GetDouble(1)));
  // e5m2 (3 significant bits): 1 + 0.125 ties 1 and 1.25 -> 1; 1.25 + 0.125 -> 1.5.
  CHECK_LIT(MustEval("f8e5m2[2]", "add", {L("f8e5m2[2] {1, 1.25}"), L("f8e5m2[2] {0.125, 0.125}")}),
            "f8e5m2[2] {1, 1.5}");
  // f4e2m1fn: values 0, 0.5, 1, 1.5, 2, 3, 4, 6; 4 + 4 saturates to 6;
  // 1.5 + 1 = 2.5 ties 2 (even) and 3.
  CHECK_LIT(MustEval("f4e2m1fn[2]", "add", {L("f4e2m1fn[2] {4, 1.5}"), L("f4e2m1fn[2] {4, 1}")}),
            "f4e2m1fn[2] {6, 2}");
  // fnuz: -0 does not exist; 1 - 1 = +0.
  CHECK_LIT(MustEval("f8e4m3fnuz[1]", "subtract", {L("f8e4m3fnuz[1] {1}"), L("f8e4m3fnuz[1] {1}")}),
            "f8e4m3fnuz[1] {0}");
  // e8m0fnu holds powers of two: 2 * 4 = 8.
  CHECK_LIT(MustEval("f8e8m0fnu[1]", "multiply", {L("f8e8m0fnu[1] {2}"), L("f8e8m0fnu[1] {4}")}),
            "f8e8m0fnu[1] {8}");
  // Long f16 arrays go through several chunks.
  std::vector<double> xs(5000);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i % 1000);
  Literal sum = MustEval("f16[5000]", "add", {Doubles(PT::kF16, xs), Doubles(PT::kF16, xs)});
  for (size_t i = 0; i < xs.size(); ++i) CHECK(sum.GetDouble(static_cast<int64_t>(i)) == 2 * xs[i]);
}

// ============================================================================
// binary: complex
// ============================================================================

TEST_CASE("elementwise: complex binary ops", "[eval]") {
  // StableHLO complex example.
  CHECK_LIT(MustEval("c128[2]", "complex", {L("f64[2] {1, 3}"), L("f64[2] {2, 4}")}),
            "c128[2] {(1, 2), (3, 4)}");
  CHECK_LIT(MustEval("c64[1]", "complex", {L("f32[1] {-0}"), L("f32[1] {nan}")}),
            "c64[1] {(-0, nan)}");
  // (1+2i)(3+4i) = -5+10i; (1+2i)/(3+4i) = (11+2i)/25.
  CHECK_LIT(
      MustEval("c64[2]", "multiply", {L("c64[2] {(1, 2), (0, 1)}"), L("c64[2] {(3, 4), (0, 1)}")}),
      "c64[2] {(-5, 10), (-1, 0)}");
  CHECK_LIT(MustEval("c128[1]", "divide", {L("c128[1] {(1, 2)}"), L("c128[1] {(3, 4)}")}),
            "c128[1] {(0.44, 0.08)}");
  CHECK_LIT(MustEval("c64[1]", "add", {L("c64[1] {(1, 2)}"), L("c64[1] {(3, -4)}")}),
            "c64[1] {(4, -2)}");
  CHECK_LIT(MustEval("c64[1]", "subtract", {L("c64[1] {(1, 2)}"), L("c64[1] {(3, -4)}")}),
            "c64[1] {(-2, 6)}");
  // Powers: x^0 = 1, 1^y = 1, 2^3 = 8, 0^(2+0i) = 0, i^2 = -1.
  Literal p = MustEval("c128[5]", "power",
                       {L("c128[5] {(nan, 1), (1, 0), (2, 0), (0, 0), (0, 1)}"),
                        L("c128[5] {(0, 0), (nan, nan), (3, 0), (2, 0), (2, 0)}")});
  CHECK(p.GetComplex(0) == std::complex<double>(1, 0));
  CHECK(p.GetComplex(1) == std::complex<double>(1, 0));
  CHECK(p.GetComplex(2).real() == Approx(8).epsilon(1e-14));
  CHECK(p.GetComplex(3) == std::complex<double>(0, 0));
  CHECK(p.GetComplex(4).real() == Approx(-1).epsilon(1e-14));
  CHECK(std::fabs(p.GetComplex(4).imag()) < 1e-14);
  // atan2 on the real axis agrees with the real atan2: atan2(1, -1) = 3pi/4.
  Literal at = MustEval("c128[1]", "atan2", {L("c128[1] {(1, 0)}"), L("c128[1] {(-1, 0)}")});
  CHECK(at.GetComplex(0).real() == Approx(3 * kPi / 4).epsilon(1e-14));
  CHECK(std::fabs(at.GetComplex(0).imag()) < 1e-14);
  // maximum/minimum: lexicographic on (real, imag) (StableHLO).
  CHECK_LIT(
      MustEval("c64[2]", "maximum", {L("c64[2] {(1, 5), (2, 1)}"), L("c64[2] {(1, 6), (1, 9)}")}),
      "c64[2] {(1, 6), (2, 1)}");
  CHECK_LIT(
      MustEval("c64[2]", "minimum", {L("c64[2] {(1, 5), (2, 1)}"), L("c64[2] {(1, 6), (1, 9)}")}),
      "c64[2] {(1, 5), (1, 9)}");
}

// ============================================================================
// compare, select, clamp
// ============================================================================

TEST_CASE("elementwise: compare FLOAT directions follow IEEE quiet comparisons", "[eval]") {
  // StableHLO compare example.
  CHECK_LIT(MustEval("pred[2]", "compare", {L("f32[2] {1.0, 3.0}"), L("f32[2] {1.1, 2.9}")},
                     "direction=LT, type=FLOAT"),
            "pred[2] {true, false}");
  // lhs: NaN, 1, -0, 1, 2, -inf ; rhs: 1, NaN, +0, 1, 1, inf
  const std::string a = "f32[6] {nan, 1, -0, 1, 2, -inf}";
  const std::string b = "f32[6] {1, nan, 0, 1, 1, inf}";
  struct Case {
    const char* dir;
    const char* expected;
  };
  const Case cases[] = {
      {"EQ", "pred[6] {0, 0, 1, 1, 0, 0}"}, {"NE", "pred[6] {1, 1, 0, 0, 1, 1}"},
      {"LT", "pred[6] {0, 0, 0, 0, 0, 1}"}, {"LE", "pred[6] {0, 0, 1, 1, 0, 1}"},
      {"GT", "pred[6] {0, 0, 0, 0, 1, 0}"}, {"GE", "pred[6] {0, 0, 1, 1, 1, 0}"},
  };
  for (const Case& c : cases) {
    INFO(c.dir);
    CHECK_LIT(MustEval("pred[6]", "compare", {L(a), L(b)}, StrCat("direction=", c.dir)),
              c.expected);
    CHECK_LIT(MustEval("pred[6]", "compare",
                       {L("f64[6] {nan, 1, -0, 1, 2, -inf}"), L("f64[6] {1, nan, 0, 1, 1, inf}")},
                       StrCat("direction=", c.dir)),
              c.expected);
    CHECK_LIT(MustEval("pred[6]", "compare",
                       {L("bf16[6] {nan, 1, -0, 1, 2, -inf}"), L("bf16[6] {1, nan, 0, 1, 1, inf}")},
                       StrCat("direction=", c.dir, ", type=FLOAT")),
              c.expected);
    CHECK_LIT(MustEval("pred[6]", "compare",
                       {L("f16[6] {nan, 1, -0, 1, 2, -inf}"), L("f16[6] {1, nan, 0, 1, 1, inf}")},
                       StrCat("direction=", c.dir)),
              c.expected);
  }
}

TEST_CASE("elementwise: compare TOTALORDER orders -NaN < -inf < -0 < +0 < inf < NaN", "[eval]") {
  // Sorted by totalOrder: -nan, -inf, -1, -0, +0, 1, inf, nan.
  const char* order = "{-nan, -inf, -1, -0, 0, 1, inf, nan}";
  for (const char* type : {"f32", "f64", "bf16", "f16"}) {
    std::vector<std::string> lhs_vals, rhs_vals;
    // All pairs (i, j) of the 8 values, 64 elements.
    Literal ordered = L(StrCat(type, "[8] ", order));
    Literal lhs = Make(ordered.element_type(), {64}), rhs = Make(ordered.element_type(), {64});
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) {
        lhs.SetBits(i * 8 + j, ordered.GetBits(i));
        rhs.SetBits(i * 8 + j, ordered.GetBits(j));
      }
    }
    for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      Literal r = MustEval("pred[64]", "compare", {Literal(lhs), Literal(rhs)},
                           StrCat("direction=", dir, ", type=TOTALORDER"));
      for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j) {
          std::string d = dir;
          bool expected = d == "EQ"   ? i == j
                          : d == "NE" ? i != j
                          : d == "LT" ? i < j
                          : d == "LE" ? i <= j
                          : d == "GT" ? i > j
                                      : i >= j;
          INFO(type << " " << dir << " " << i << " " << j);
          CHECK(r.GetInt(i * 8 + j) == expected);
        }
      }
    }
  }
  // NaN payloads are ordered too: nan(0x1) < nan (quiet, 0x400000).
  CHECK_LIT(
      MustEval("pred[2]", "compare", {L("f32[2] {nan(0x1), -nan}"), L("f32[2] {nan, -nan(0x1)}")},
               "direction=LT, type=TOTALORDER"),
      "pred[2] {true, true}");
}

TEST_CASE("elementwise: compare integers, pred and complex", "[eval]") {
  CHECK_LIT(MustEval("pred[3]", "compare",
                     {L("s32[3] {-1, 5, -2147483648}"), L("s32[3] {1, 5, 2147483647}")},
                     "direction=LT, type=SIGNED"),
            "pred[3] {true, false, true}");
  CHECK_LIT(MustEval("pred[3]", "compare", {L("u32[3] {4294967295, 5, 0}"), L("u32[3] {1, 5, 1}")},
                     "direction=GT, type=UNSIGNED"),
            "pred[3] {true, false, false}");
  CHECK_LIT(MustEval("pred[3]", "compare", {L("s4[3] {-8, 7, -1}"), L("s4[3] {7, -8, -1}")},
                     "direction=LE"),
            "pred[3] {true, false, true}");
  CHECK_LIT(
      MustEval("pred[2]", "compare", {L("u4[2] {15, 0}"), L("u4[2] {0, 15}")}, "direction=GE"),
      "pred[2] {true, false}");
  CHECK_LIT(MustEval("pred[2]", "compare",
                     {L("s64[2] {-9223372036854775808, 1}"), L("s64[2] {9223372036854775807, 1}")},
                     "direction=NE"),
            "pred[2] {true, false}");
  CHECK_LIT(MustEval("pred[2]", "compare",
                     {L("u64[2] {18446744073709551615, 1}"), L("u64[2] {1, 1}")}, "direction=GT"),
            "pred[2] {true, false}");
  // pred: false < true.
  CHECK_LIT(MustEval("pred[4]", "compare", {L("pred[4] {0, 0, 1, 1}"), L("pred[4] {0, 1, 0, 1}")},
                     "direction=LT, type=UNSIGNED"),
            "pred[4] {false, true, false, false}");
  CHECK_LIT(
      MustEval("pred[3]", "compare",
               {L("c64[3] {(1, 2), (1, 2), (nan, 0)}"), L("c64[3] {(1, 2), (1, -2), (nan, 0)}")},
               "direction=EQ"),
      "pred[3] {true, false, false}");
  CHECK_LIT(
      MustEval("pred[3]", "compare",
               {L("c128[3] {(1, 2), (1, 2), (nan, 0)}"), L("c128[3] {(1, 2), (1, -2), (nan, 0)}")},
               "direction=NE"),
      "pred[3] {false, true, true}");
  // Other directions: lexicographic (StableHLO).
  CHECK_LIT(MustEval("pred[3]", "compare",
                     {L("c64[3] {(1, 2), (1, 2), (0, 9)}"), L("c64[3] {(1, 3), (1, 2), (1, 0)}")},
                     "direction=LT"),
            "pred[3] {true, false, true}");
  CHECK(ErrorOf("pred[2]", "compare", {L("f32[2] {1, 2}"), L("f32[2] {1, 2}")},
                "direction=LT, type=SIGNED")
            .find("SIGNED") != std::string::npos);
}

TEST_CASE("elementwise: select with array and scalar pred", "[eval]") {
  // StableHLO select example.
  CHECK_LIT(MustEval("s32[2,2]", "select",
                     {L("pred[2,2] {{false, true}, {true, false}}"), L("s32[2,2] {{1, 2}, {3, 4}}"),
                      L("s32[2,2] {{5, 6}, {7, 8}}")}),
            "s32[2,2] {{5, 2}, {3, 8}}");
  CHECK_LIT(MustEval("f32[3]", "select",
                     {L("pred[] true"), L("f32[3] {1, 2, 3}"), L("f32[3] {4, 5, 6}")}),
            "f32[3] {1, 2, 3}");
  CHECK_LIT(MustEval("f32[3]", "select",
                     {L("pred[] false"), L("f32[3] {1, 2, 3}"), L("f32[3] {4, 5, 6}")}),
            "f32[3] {4, 5, 6}");
  CHECK_LIT(MustEval("f32[]", "select", {L("pred[] false"), L("f32[] 1"), L("f32[] -0")}),
            "f32[] -0");
  CHECK_LIT(
      MustEval("c128[2]", "select",
               {L("pred[2] {1, 0}"), L("c128[2] {(1, 2), (3, 4)}"), L("c128[2] {(5, 6), (7, 8)}")}),
      "c128[2] {(1, 2), (7, 8)}");
  CHECK_LIT(
      MustEval("s4[2]", "select", {L("pred[2] {0, 1}"), L("s4[2] {-8, -8}"), L("s4[2] {7, 7}")}),
      "s4[2] {7, -8}");
  CHECK_LIT(MustEval("bf16[2]", "select",
                     {L("pred[2] {0, 1}"), L("bf16[2] {1, nan}"), L("bf16[2] {-0, 3}")}),
            "bf16[2] {-0, nan}");
  CHECK_LIT(MustEval("pred[2]", "select",
                     {L("pred[2] {0, 1}"), L("pred[2] {1, 1}"), L("pred[2] {0, 0}")}),
            "pred[2] {0, 1}");
  CHECK_LIT(
      MustEval("f64[2]", "select", {L("pred[2] {0, 1}"), L("f64[2] {1, 2}"), L("f64[2] {3, 4}")}),
      "f64[2] {3, 2}");
}

// abs of signed integers without a branch: INT_MIN wraps to itself.
TEST_CASE("elementwise: integer abs in every lane", "[eval]") {
  CheckEveryLane("s64", "abs",
                 {{"-9223372036854775808", "-9223372036854775808"},
                  {"-9223372036854775807", "9223372036854775807"},
                  {"-1", "1"},
                  {"0", "0"},
                  {"12345678901", "12345678901"}},
                 "-3", "3");
  CheckEveryLane("s8", "abs", {{"-128", "-128"}, {"-127", "127"}, {"5", "5"}}, "-3", "3");
  CheckEveryLane("s4", "abs", {{"-8", "-8"}, {"-7", "7"}, {"7", "7"}}, "-3", "3");
}

TEST_CASE("elementwise: clamp with scalar or array bounds", "[eval]") {
  // XLA clamp example (scalar bounds) and StableHLO clamp example (arrays).
  CHECK_LIT(MustEval("s32[3]", "clamp", {L("s32[] 0"), L("s32[3] {-1, 5, 9}"), L("s32[] 6")}),
            "s32[3] {0, 5, 6}");
  CHECK_LIT(MustEval("s32[3]", "clamp",
                     {L("s32[3] {5, 10, 15}"), L("s32[3] {3, 13, 23}"), L("s32[3] {10, 15, 20}")}),
            "s32[3] {5, 13, 20}");
  CHECK_LIT(MustEval("s32[3]", "clamp",
                     {L("s32[3] {5, 10, 15}"), L("s32[3] {3, 13, 23}"), L("s32[] 12")}),
            "s32[3] {5, 12, 12}");
  CHECK_LIT(MustEval("s32[3]", "clamp",
                     {L("s32[] 4"), L("s32[3] {3, 13, 23}"), L("s32[3] {10, 15, 20}")}),
            "s32[3] {4, 13, 20}");
  // min(max(x, lo), hi) with NaN-propagating max/min.
  CHECK_LIT(
      MustEval("f32[4]", "clamp", {L("f32[] -1"), L("f32[4] {nan, -5, 0.5, 5}"), L("f32[] 1")}),
      "f32[4] {nan, -1, 0.5, 1}");
  CHECK_LIT(MustEval("f32[2]", "clamp", {L("f32[] nan"), L("f32[2] {1, 2}"), L("f32[] 1")}),
            "f32[2] {nan, nan}");
  CHECK_LIT(MustEval("f32[2]", "clamp", {L("f32[] 0"), L("f32[2] {-0, -1}"), L("f32[] 1")}),
            "f32[2] {0, 0}");
  CHECK_LIT(MustEval("bf16[3]", "clamp", {L("bf16[] 0"), L("bf16[3] {-2, 0.5, 3}"), L("bf16[] 1")}),
            "bf16[3] {0, 0.5, 1}");
  CHECK_LIT(MustEval("u4[3]", "clamp", {L("u4[] 2"), L("u4[3] {0, 9, 15}"), L("u4[] 12")}),
            "u4[3] {2, 9, 12}");
  CHECK_LIT(MustEval("s4[2]", "clamp", {L("s4[] -3"), L("s4[2] {-8, 7}"), L("s4[] 3")}),
            "s4[2] {-3, 3}");
  CHECK_LIT(
      MustEval("f64[2]", "clamp", {L("f64[2] {0, 0}"), L("f64[2] {-1, 2}"), L("f64[2] {1, 1}")}),
      "f64[2] {0, 1}");
  CHECK_LIT(MustEval("pred[2]", "clamp", {L("pred[] true"), L("pred[2] {0, 1}"), L("pred[] true")}),
            "pred[2] {1, 1}");
}

// ============================================================================
// errors
// ============================================================================

TEST_CASE("elementwise: ops reject element types they do not take", "[eval]") {
  CHECK(ErrorOf("s32[2]", "floor", {L("s32[2] {1, 2}")})
            .find("'floor' does not take element type s32") != std::string::npos);
  CHECK(ErrorOf("f32[2]", "popcnt", {L("f32[2] {1, 2}")}).find("popcnt") != std::string::npos);
  CHECK(ErrorOf("f32[2]", "and", {L("f32[2] {1, 2}"), L("f32[2] {1, 2}")}).find("and") !=
        std::string::npos);
  CHECK(ErrorOf("pred[2]", "divide", {L("pred[2] {1, 0}"), L("pred[2] {1, 1}")}).find("pred") !=
        std::string::npos);
  CHECK(ErrorOf("c64[1]", "remainder", {L("c64[1] {(1, 1)}"), L("c64[1] {(1, 1)}")}).find("c64") !=
        std::string::npos);
  CHECK(ErrorOf("s32[1]", "atan2", {L("s32[1] {1}"), L("s32[1] {1}")}).find("atan2") !=
        std::string::npos);
  CHECK(ErrorOf("c64[1]", "erf", {L("c64[1] {(1, 1)}")}).find("erf") != std::string::npos);
  // Operands that do not fit the instruction.
  CHECK(ErrorOf("f32[3]", "add", {L("f32[2] {1, 2}"), L("f32[2] {1, 2}")}).find("does not match") !=
        std::string::npos);
  CHECK(ErrorOf("f32[2]", "add", {L("f32[2] {1, 2}"), L("s32[2] {1, 2}")}).find("element type") !=
        std::string::npos);
  CHECK(ErrorOf("s32[2]", "add", {L("f32[2] {1, 2}"), L("f32[2] {1, 2}")}).find("cannot produce") !=
        std::string::npos);
}

TEST_CASE("elementwise: copy of an array; tuples are refused", "[eval]") {
  CHECK_LIT(MustEval("f32[2,2]", "copy", {L("f32[2,2] {{1, -0}, {nan, 4}}")}),
            "f32[2,2] {{1, -0}, {nan, 4}}");
  CHECK_LIT(MustEval("s4[3]", "copy", {L("s4[3] {-8, 0, 7}")}), "s4[3] {-8, 0, 7}");
  std::string text =
      "HloModule t\n\nENTRY e {\n  p0 = (f32[2], s32[]) parameter(0)\n"
      "  ROOT r = (f32[2], s32[]) copy(p0)\n}\n";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  REQUIRE(m.ok());
  Value tuple = Value::FromLiteral(L("(f32[2] {1, 2}, s32[] 3)"));
  std::vector<const Value*> ops = {&tuple};
  absl::StatusOr<Value> r = EvalElementwise(*(*m)->entry()->root(), ops);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("not an array") != std::string::npos);
}

}  // namespace
}  // namespace hlo
