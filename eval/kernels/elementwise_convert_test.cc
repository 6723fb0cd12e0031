// convert, bitcast-convert, reduce-precision and stochastic-convert
// (eval/interp/elementwise_convert.cc), an evaluator run of an elementwise
// chain, and (hidden, [.][eval-bench]) the f32 kernel timings.
//
// Expected values: the StableHLO examples ("StableHLO:"), XLA's documented
// behaviour (saturating float -> int with NaN -> 0, round to nearest even,
// reduce-precision's algorithm), and hand rounding from the formats' bit
// layouts, stated next to each case.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/elementwise_test_util.h"
#include "eval/kernels/kernels.h"

namespace hlo {
namespace {

using namespace ew_test;  // NOLINT

// ============================================================================
// convert
// ============================================================================

TEST_CASE("convert: float to integer truncates and saturates, NaN gives 0", "[eval]") {
  CHECK_LIT(MustEval("s32[9]", "convert",
                     {L("f32[9] {1.9, -1.9, 3e9, -3e9, nan, inf, -inf, -0.5, 2147483520}")}),
            "s32[9] {1, -1, 2147483647, -2147483648, 0, 2147483647, -2147483648, 0, 2147483520}");
  CHECK_LIT(MustEval("u8[7]", "convert", {L("f32[7] {-1, 255.9, 256, 1e10, nan, 3.7, -0.9}")}),
            "u8[7] {0, 255, 255, 255, 0, 3, 0}");
  // Sub-byte targets saturate at their own range.
  CHECK_LIT(MustEval("s4[6]", "convert", {L("f32[6] {7.9, 8, -8.9, -9, nan, -0.5}")}),
            "s4[6] {7, 7, -8, -8, 0, 0}");
  CHECK_LIT(MustEval("u4[3]", "convert", {L("f32[3] {15.5, 16, -3}")}), "u4[3] {15, 15, 0}");
  CHECK_LIT(MustEval("s2[3]", "convert", {L("f32[3] {1.5, 2, -3}")}), "s2[3] {1, 1, -2}");
  // 2^62 is exact; 9.3e18 > 2^63 - 1.
  CHECK_LIT(MustEval("s64[3]", "convert", {L("f32[3] {9.3e18, -9.3e18, 4611686018427387904}")}),
            "s64[3] {9223372036854775807, -9223372036854775808, 4611686018427387904}");
  // f32(1.8e19) = 18000000404716257280 < 2^64; 2e19 > 2^64 - 1.
  CHECK_LIT(MustEval("u64[3]", "convert", {L("f32[3] {1.8e19, 2e19, -1}")}),
            "u64[3] {18000000404716257280, 18446744073709551615, 0}");
  // 2^63 - 1 is 2^63 as a double: saturates.
  CHECK_LIT(
      MustEval("s64[2]", "convert", {L("f64[2] {9223372036854775807, -9223372036854775808}")}),
      "s64[2] {9223372036854775807, -9223372036854775808}");
  CHECK_LIT(MustEval("u32[2]", "convert", {L("f64[2] {4294967295.9, 4294967296}")}),
            "u32[2] {4294967295, 4294967295}");
  CHECK_LIT(MustEval("s8[2]", "convert", {L("bf16[2] {200, -200}")}), "s8[2] {127, -128}");
  CHECK_LIT(MustEval("u16[3]", "convert", {L("f16[3] {65504, -1, inf}")}),
            "u16[3] {65504, 0, 65535}");
  CHECK_LIT(MustEval("s32[2]", "convert", {L("f8e4m3fn[2] {-448, nan}")}), "s32[2] {-448, 0}");
}

// f32 and f64 to s32, and f32 to the 8-, 16- and 32-bit integers, run
// loops of their own over vector lanes: each case at every lane of a
// 16-lane vector and in the scalar tail (40 elements: the case at position
// p, 0.5 elsewhere).
TEST_CASE("convert: float to integers saturates in every lane", "[eval]") {
  struct Case {
    const char* from;
    const char* to;
    const char* value;
    int64_t want;
  };
  const Case cases[] = {
      {"f32", "s32", "nan", 0},
      {"f32", "s32", "-nan", 0},
      {"f32", "s32", "inf", 2147483647},
      {"f32", "s32", "-inf", -2147483648LL},
      {"f32", "s32", "2147483648", 2147483647},  // 2^31
      {"f32", "s32", "2147483520", 2147483520},  // the largest f32 below 2^31
      {"f32", "s32", "-2147483648", -2147483648LL},
      {"f32", "s32", "-2147483904", -2147483648LL},  // the next f32 below -2^31
      {"f32", "s32", "-0", 0},
      {"f32", "s32", "1e-45", 0},
      {"f32", "s32", "-7.99", -7},
      {"f64", "s32", "2147483647.9", 2147483647},
      {"f64", "s32", "2147483648", 2147483647},
      {"f64", "s32", "-2147483648.5", -2147483648LL},
      {"f64", "s32", "-2147483647.5", -2147483647},
      {"f64", "s32", "1e300", 2147483647},
      {"f64", "s32", "-1e300", -2147483648LL},
      {"f64", "s32", "nan", 0},
      {"f64", "s32", "-0.999", 0},
      {"f32", "u8", "255.9", 255},
      {"f32", "u8", "256", 255},
      {"f32", "u8", "-0.9", 0},
      {"f32", "u8", "-1", 0},
      {"f32", "u8", "nan", 0},
      {"f32", "u8", "-inf", 0},
      {"f32", "u8", "1e30", 255},
      {"f32", "s8", "127.9", 127},
      {"f32", "s8", "128", 127},
      {"f32", "s8", "-128", -128},
      {"f32", "s8", "-128.5", -128},
      {"f32", "s8", "-nan", 0},
      {"f32", "u16", "65535.5", 65535},
      {"f32", "u16", "65536", 65535},
      {"f32", "s16", "-32768.9", -32768},
      {"f32", "s16", "32767.5", 32767},
      {"f32", "u32", "4294967040", 4294967040},  // the largest f32 below 2^32
      {"f32", "u32", "4294967296", 4294967295},
      {"f32", "u32", "-0.5", 0},
      {"f32", "u32", "3000000000", 3000000000},
      {"f32", "u32", "nan", 0},
  };
  for (const Case& c : cases) {
    CheckEveryLane(c.from, "convert", {{c.value, std::to_string(c.want)}}, "0.5", "0", c.to);
  }
}

TEST_CASE("convert: integer to integer wraps into the target width", "[eval]") {
  // 300 = 0x12C -> 0x2C = 44; -129 = 0x...F7F -> 0x7F = 127.
  CHECK_LIT(MustEval("s8[3]", "convert", {L("s32[3] {300, -129, 127}")}), "s8[3] {44, 127, 127}");
  CHECK_LIT(MustEval("u4[2]", "convert", {L("s32[2] {17, -1}")}), "u4[2] {1, 15}");
  // 9 = 1001 -> -7; -9 = ...10111 -> 0111 = 7; 2 = 10 -> -2 in s2.
  CHECK_LIT(MustEval("s4[2]", "convert", {L("s32[2] {9, -9}")}), "s4[2] {-7, 7}");
  CHECK_LIT(MustEval("s2[2]", "convert", {L("s32[2] {2, 3}")}), "s2[2] {-2, -1}");
  CHECK_LIT(MustEval("s8[1]", "convert", {L("u8[1] {200}")}), "s8[1] {-56}");
  CHECK_LIT(MustEval("u32[1]", "convert", {L("s8[1] {-1}")}), "u32[1] {4294967295}");
  CHECK_LIT(MustEval("s32[1]", "convert", {L("s64[1] {4294967301}")}), "s32[1] {5}");
  CHECK_LIT(MustEval("s64[1]", "convert", {L("u64[1] {18446744073709551615}")}), "s64[1] {-1}");
  CHECK_LIT(MustEval("u8[2]", "convert", {L("s4[2] {-1, 7}")}), "u8[2] {255, 7}");
  CHECK_LIT(MustEval("s8[1]", "convert", {L("u4[1] {15}")}), "s8[1] {15}");
  CHECK_LIT(MustEval("s1[2]", "convert", {L("s4[2] {3, 2}")}), "s1[2] {-1, 0}");
  CHECK_LIT(MustEval("u1[2]", "convert", {L("s32[2] {3, 2}")}), "u1[2] {1, 0}");
  CHECK_LIT(MustEval("s4[2]", "convert", {L("pred[2] {true, false}")}), "s4[2] {1, 0}");
}

TEST_CASE("convert: integer to float rounds to nearest even, once", "[eval]") {
  // 2^24 + 1 ties 2^24 and 2^24 + 2 -> even 2^24; 2^24 + 3 -> 2^24 + 4.
  CHECK_LIT(
      MustEval("f32[4]", "convert", {L("s32[4] {16777217, 16777219, -16777217, 2147483647}")}),
      "f32[4] {16777216, 16777220, -16777216, 2147483648}");
  CHECK_LIT(MustEval("f32[1]", "convert", {L("s64[1] {1152921504606846977}")}),
            "f32[1] {1152921504606846976}");
  CHECK_LIT(MustEval("f32[1]", "convert", {L("u64[1] {18446744073709551615}")}),
            "f32[1] {18446744073709551616}");
  CHECK_LIT(MustEval("f32[1]", "convert", {L("u32[1] {4294967295}")}), "f32[1] {4294967296}");
  CHECK_LIT(MustEval("f64[2]", "convert", {L("s64[2] {9007199254740993, 9007199254740995}")}),
            "f64[2] {9007199254740992, 9007199254740996}");
  // f16: 2049 ties -> 2048; 2051 -> 2052; 65519 -> 65504; 65520 ties 65504
  // and 65536 (even, past the max) -> inf.
  CHECK_LIT(MustEval("f16[6]", "convert", {L("s32[6] {2049, 2051, 65519, 65520, -65520, 100000}")}),
            "f16[6] {2048, 2052, 65504, inf, -inf, inf}");
  // 2^60 + 2^52 + 1 is just above the bf16 tie 2^60 + 2^52 (half an ulp of
  // 2^53): it rounds up to 2^60 + 2^53. Through a double it would round to
  // the tie first and then to even 2^60.
  CHECK_LIT(MustEval("bf16[1]", "convert", {L("s64[1] {1157425104234217473}")}),
            "bf16[1] {1161928703861587968}");
  // e4m3fn steps by 16 in [128, 256): 255 -> 256; e5m2 steps by 16 in
  // [64, 128): 100 -> 96.
  CHECK_LIT(MustEval("f8e4m3fn[1]", "convert", {L("u8[1] {255}")}), "f8e4m3fn[1] {256}");
  CHECK_LIT(MustEval("f8e5m2[1]", "convert", {L("s32[1] {100}")}), "f8e5m2[1] {96}");
  // f4e2m1fn: 5 ties 4 and 6 -> 4 (even); 7 and -100 saturate to +-6.
  CHECK_LIT(MustEval("f4e2m1fn[3]", "convert", {L("s32[3] {5, 7, -100}")}),
            "f4e2m1fn[3] {4, 6, -6}");
  CHECK_LIT(MustEval("f32[2]", "convert", {L("pred[2] {true, false}")}), "f32[2] {1, 0}");
  CHECK_LIT(MustEval("bf16[2]", "convert", {L("u4[2] {15, 0}")}), "bf16[2] {15, 0}");
}

TEST_CASE("convert: float to float rounds to nearest even from the source value", "[eval]") {
  // f64 -> f32: overflow to inf, underflow to (signed) zero or denormals;
  // 1 + 2^-24 ties -> 1; 1 + 3*2^-24 ties -> 1 + 2^-22 (even).
  CHECK_LIT(MustEval("f32[7]", "convert",
                     {L("f64[7] {1e300, -1e300, -1e-50, 1.0000000596046448, 1.0000001788139343, "
                        "1e-45, nan}")}),
            "f32[7] {inf, -inf, -0, 1, 1.00000024, 1.4e-45, nan}");
  CHECK_LIT(MustEval("f64[2]", "convert", {L("f32[2] {0.1, -inf}")}),
            "f64[2] {0.10000000149011612, -inf}");
  // f32 -> bf16: 1 + 2^-8 ties -> 1; 1 + 3*2^-8 -> 1 + 2^-6; FLT_MAX is past
  // bf16's max + half an ulp -> inf; denormals stay (1e-40 -> 2^-133).
  CHECK_LIT(MustEval("bf16[7]", "convert",
                     {L("f32[7] {1.00390625, 1.01171875, 3.40282347e38, nan, -0, -inf, 1e-40}")}),
            "bf16[7] {1, 1.015625, inf, nan, -0, -inf, 9.18354962e-41}");
  // f32 -> f16: 1e-7 -> 2 * 2^-24; 2^-25 ties 0 and 2^-24 -> 0.
  CHECK_LIT(
      MustEval("f16[6]", "convert",
               {L("f32[6] {1e-7, 65519, 65520, 6.10351562e-05, 5.96046448e-08, 2.98023224e-08}")}),
      "f16[6] {1.1920929e-07, 65504, inf, 6.10351562e-05, 5.96046448e-08, 0}");
  // f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is above the tie, -> 1 + 2^-10
  // (via f32 it would become the tie 1 + 2^-11 and then 1).
  CHECK_LIT(MustEval("f16[1]", "convert", {L("f64[1] {1.0004882812509095}")}),
            "f16[1] {1.0009765625}");
  CHECK_SAME(
      MustEval("f32[5]", "convert", {Bits(PT::kF16, {0x0001, 0x7C00, 0xFC00, 0x8000, 0x3C00})}),
      Doubles(PT::kF32, {5.9604644775390625e-08, kInf, -kInf, -0.0, 1}));
  // bf16 1e-6 is 9.98377799987793e-07, an f16 denormal: 17 * 2^-24.
  CHECK_LIT(MustEval("f16[3]", "convert", {L("bf16[3] {1e10, 1.5, 1e-6}")}),
            "f16[3] {inf, 1.5, 1.0132789611816406e-06}");
  CHECK_SAME(MustEval("f32[3]", "convert", {Bits(PT::kF8E4M3FN, {0x7E, 0x01, 0xFE})}),
             Doubles(PT::kF32, {448, 0.001953125, -448}));
  Literal nan = MustEval("f32[1]", "convert", {Bits(PT::kF8E4M3FN, {0x7F})});
  CHECK(std::isnan(nan.GetDouble(0)));
  // f32 -> e4m3fn: 500 overflows to NaN; 464 ties 448 (even) and 480 (NaN).
  Literal fn = MustEval("f8e4m3fn[6]", "convert", {L("f32[6] {500, 448, 464, -0, nan, 1e-4}")});
  CHECK(std::isnan(fn.GetDouble(0)));
  CHECK(fn.GetDouble(1) == 448);
  CHECK(fn.GetDouble(2) == 448);
  CHECK(fn.GetBits(3) == 0x80);  // -0
  CHECK(std::isnan(fn.GetDouble(4)));
  CHECK(fn.GetBits(5) == 0);
  // fnuz: -0 becomes +0, inf becomes the NaN 0x80.
  CHECK_SAME(MustEval("f8e5m2fnuz[2]", "convert", {L("f32[2] {-0, inf}")}),
             Bits(PT::kF8E5M2FNUZ, {0x00, 0x80}));
  Literal e5 = MustEval("f8e4m3fn[2]", "convert", {L("f8e5m2[2] {57344, 0.5}")});
  CHECK(std::isnan(e5.GetDouble(0)));
  CHECK(e5.GetDouble(1) == 0.5);
  // Long arrays (several chunks) on the generic path.
  std::vector<double> xs(5000);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i) - 2500;
  Literal big = MustEval("s16[5000]", "convert", {Doubles(PT::kF8E5M2, xs)});
  Literal back = Doubles(PT::kF8E5M2, xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    CHECK(big.GetInt(static_cast<int64_t>(i)) ==
          static_cast<int64_t>(back.GetDouble(static_cast<int64_t>(i))));
  }
}

TEST_CASE("convert: pred and complex", "[eval]") {
  // StableHLO convert example.
  CHECK_LIT(MustEval("c128[3]", "convert", {L("s64[3] {-1, 0, 1}")}),
            "c128[3] {(-1, 0), (0, 0), (1, 0)}");
  CHECK_LIT(MustEval("pred[5]", "convert", {L("f32[5] {0, -0, 0.5, nan, inf}")}),
            "pred[5] {false, false, true, true, true}");
  CHECK_LIT(MustEval("pred[3]", "convert", {L("s32[3] {0, 2, -1}")}),
            "pred[3] {false, true, true}");
  CHECK_LIT(MustEval("pred[2]", "convert", {L("u4[2] {0, 8}")}), "pred[2] {false, true}");
  CHECK_LIT(MustEval("pred[3]", "convert", {L("c64[3] {(0, 0), (0, 1), (-0, -0)}")}),
            "pred[3] {false, true, false}");
  CHECK_LIT(MustEval("c64[2]", "convert", {L("f32[2] {1.5, nan}")}), "c64[2] {(1.5, 0), (nan, 0)}");
  // complex -> real keeps the real part (StableHLO).
  CHECK_LIT(MustEval("f32[1]", "convert", {L("c64[1] {(1.5, 2)}")}), "f32[1] {1.5}");
  CHECK_LIT(MustEval("s32[1]", "convert", {L("c64[1] {(2.7, 9)}")}), "s32[1] {2}");
  CHECK_LIT(MustEval("c128[1]", "convert", {L("c64[1] {(0.1, -2)}")}),
            "c128[1] {(0.10000000149011612, -2)}");
  CHECK_LIT(MustEval("c64[1]", "convert", {L("c128[1] {(1e300, 1e-50)}")}), "c64[1] {(inf, 0)}");
  CHECK_LIT(MustEval("c64[1]", "convert", {L("bf16[1] {3}")}), "c64[1] {(3, 0)}");
  CHECK_LIT(MustEval("f16[1]", "convert", {L("c128[1] {(65520, 1)}")}), "f16[1] {inf}");
}

TEST_CASE("convert: pred to every number type is 1 or 0 in every lane", "[eval]") {
  // 70 elements (past an AVX-512 vector of bytes and a tail), true where
  // i % 3 == 1: 1 of the target's type there (StableHLO: true converts to
  // one), 0 elsewhere.
  std::string preds = "pred[70] {", want_tail;
  for (int i = 0; i < 70; ++i) {
    preds.append(i ? ", " : "").append(i % 3 == 1 ? "true" : "false");
    want_tail.append(i ? ", " : "").append(i % 3 == 1 ? "1" : "0");
  }
  preds.append("}");
  for (const char* type :
       {"f32", "f64", "bf16", "f16", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"}) {
    INFO(type);
    std::string shape = StrCat(type, "[70]");
    CHECK_LIT(MustEval(shape, "convert", {L(preds)}), StrCat(shape, " {", want_tail, "}"));
  }
}

// ============================================================================
// bitcast-convert
// ============================================================================

TEST_CASE("bitcast-convert: same width reinterprets the bits", "[eval]") {
  // f32 1.0 = 0x3F800000 = 1065353216; -0 = 0x80000000.
  CHECK_LIT(MustEval("s32[2]", "bitcast-convert", {L("f32[2] {1, -0}")}),
            "s32[2] {1065353216, -2147483648}");
  CHECK_LIT(MustEval("f32[1]", "bitcast-convert", {L("u32[1] {1078530011}")}),
            "f32[1] {3.14159274}");
  CHECK_LIT(MustEval("u4[2]", "bitcast-convert", {L("s4[2] {-1, -8}")}), "u4[2] {15, 8}");
  CHECK_LIT(MustEval("s4[2]", "bitcast-convert", {L("u4[2] {15, 7}")}), "s4[2] {-1, 7}");
  CHECK_LIT(MustEval("s16[1]", "bitcast-convert", {L("f16[1] {-2}")}),
            "s16[1] {-16384}");  // 0xC000
  CHECK_LIT(MustEval("u8[1]", "bitcast-convert", {L("f8e4m3fn[1] {448}")}), "u8[1] {126}");  // 0x7E
  // A pred byte holds 0 or 1: nonzero bytes read as true.
  CHECK_LIT(MustEval("pred[3]", "bitcast-convert", {L("s8[3] {0, -1, 2}")}),
            "pred[3] {false, true, true}");
  CHECK_LIT(MustEval("u8[2]", "bitcast-convert", {L("pred[2] {true, false}")}), "u8[2] {1, 0}");
  CHECK_LIT(MustEval("s64[1]", "bitcast-convert", {L("f64[1] {-1}")}),
            "s64[1] {-4616189618054758400}");
}

TEST_CASE("bitcast-convert: between widths, little-endian element order", "[eval]") {
  // StableHLO example: f64 0x0123456789ABCDEF -> f16[4] {0xCDEF, 0x89AB,
  // 0x4567, 0x0123}.
  Literal word = Make(PT::kF64, {});
  word.SetBits(0, 0x0123456789ABCDEFull);
  CHECK_SAME(MustEval("f16[4]", "bitcast-convert", {std::move(word)}),
             Bits(PT::kF16, {0xCDEF, 0x89AB, 0x4567, 0x0123}));
  // XLA: f16[10,2] from f32[10] adds a minor dimension: 1.0f = 0x3F800000
  // -> {0x0000, 0x3F80} = {0, 1.875}.
  CHECK_LIT(MustEval("f16[2,2]", "bitcast-convert", {L("f32[2] {1, -2}")}),
            "f16[2,2] {{0, 1.875}, {0, -2}}");
  CHECK_LIT(MustEval("f32[2]", "bitcast-convert", {L("f16[2,2] {{0, 1.875}, {0, -2}}")}),
            "f32[2] {1, -2}");
  CHECK_LIT(MustEval("u32[]", "bitcast-convert", {L("u8[4] {1, 2, 3, 4}")}),
            "u32[] 67305985");  // 0x04030201
  CHECK_LIT(MustEval("u8[2,4]", "bitcast-convert", {L("s32[2] {-1, 258}")}),
            "u8[2,4] {{255, 255, 255, 255}, {2, 1, 0, 0}}");
  // Sub-byte: u8 0xAB -> u4 {0xB, 0xA}; as s4 {-5, -6}.
  CHECK_LIT(MustEval("u4[1,2]", "bitcast-convert", {L("u8[1] {171}")}), "u4[1,2] {{11, 10}}");
  CHECK_LIT(MustEval("s4[2]", "bitcast-convert", {L("u8[] 171")}), "s4[2] {-5, -6}");
  CHECK_LIT(MustEval("u8[]", "bitcast-convert", {L("u4[2] {11, 10}")}), "u8[] 171");
  CHECK_LIT(MustEval("s8[]", "bitcast-convert", {L("s4[2] {-5, -6}")}), "s8[] -85");
  // u32 0x12345678 -> 8 nibbles, least significant first.
  CHECK_LIT(MustEval("u4[8]", "bitcast-convert", {L("u32[] 305419896")}),
            "u4[8] {8, 7, 6, 5, 4, 3, 2, 1}");
  // s2 {1, -1, 0, -2} = bits 01, 11, 00, 10 -> 0b10001101 = 141.
  CHECK_LIT(MustEval("u8[]", "bitcast-convert", {L("s2[4] {1, -1, 0, -2}")}), "u8[] 141");
  CHECK_LIT(MustEval("s2[4]", "bitcast-convert", {L("u8[] 141")}), "s2[4] {1, -1, 0, -2}");
  CHECK_LIT(MustEval("u1[8]", "bitcast-convert", {L("u8[] 5")}), "u1[8] {1, 0, 1, 0, 0, 0, 0, 0}");
  CHECK_LIT(MustEval("u8[]", "bitcast-convert", {L("u1[8] {1, 0, 1, 0, 0, 0, 0, 1}")}), "u8[] 133");
  // f4e2m1fn 1.0 = 0b0010, 6 = 0b0111 -> 0x72 = 114.
  CHECK_LIT(MustEval("u8[]", "bitcast-convert", {L("f4e2m1fn[2] {1, 6}")}), "u8[] 114");
  CHECK_LIT(MustEval("u4[2]", "bitcast-convert", {L("f8e4m3fn[] 448")}), "u4[2] {14, 7}");
  // c128 (1, 2): the re double 0x3FF0000000000000 is the c64 (0, 1.875),
  // the im double 0x4000000000000000 is (0, 2).
  CHECK_LIT(MustEval("c64[2]", "bitcast-convert", {L("c128[] (1, 2)")}),
            "c64[2] {(0, 1.875), (0, 2)}");
  CHECK_LIT(MustEval("c128[]", "bitcast-convert", {L("c64[2] {(0, 1.875), (0, 2)}")}),
            "c128[] (1, 2)");
}

// ============================================================================
// reduce-precision
// ============================================================================

TEST_CASE("reduce-precision: XLA's rounding, overflow, flushing and NaN rules", "[eval]") {
  // StableHLO example: {+inf, NaN, +denormal, 0, 65519, 65520} with 5
  // exponent and 10 mantissa bits -> {+inf, NaN, 0, 0, 65504, +inf}.
  Literal in = Make(PT::kF64, {6});
  const uint64_t in_bits[] = {0x7FF0000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0x1ull, 0, 0, 0};
  for (int i = 0; i < 3; ++i) in.SetBits(i, in_bits[i]);
  in.SetDouble(3, 0);
  in.SetDouble(4, 65519);
  in.SetDouble(5, 65520);
  Literal out =
      MustEval("f64[6]", "reduce-precision", {std::move(in)}, "exponent_bits=5, mantissa_bits=10");
  CHECK(out.GetBits(0) == 0x7FF0000000000000ull);
  CHECK(out.GetBits(1) == 0x7FFFFFFFFFFFFFFFull);  // NaN kept as it is
  CHECK(out.GetBits(2) == 0);
  CHECK(out.GetBits(3) == 0);
  CHECK(out.GetDouble(4) == 65504);
  CHECK(out.GetBits(5) == 0x7FF0000000000000ull);
  // bf16's layout (8, 7): 1 + 2^-8 ties -> 1; 1 + 3*2^-8 -> 1 + 2^-6;
  // -65520 -> -65536 (bf16 can hold it); denormals are not flushed (8
  // exponent bits is f32's own range) but their bits round the same way:
  // 1e-40 (bits 0x000116C2) -> 0x00010000 = 2^-133, as converting to bf16.
  CHECK_LIT(MustEval("f32[5]", "reduce-precision",
                     {L("f32[5] {1.00390625, 1.01171875, -65520, 1e-40, -0}")},
                     "exponent_bits=8, mantissa_bits=7"),
            "f32[5] {1, 1.015625, -65536, 9.18354962e-41, -0}");
  // f16's layout (5, 10): values below f16's smallest normal are flushed
  // to signed zero; past its max they become signed infinity.
  CHECK_LIT(MustEval("f32[5]", "reduce-precision",
                     {L("f32[5] {1e-5, -1e-5, 65520, -1e6, 6.10351562e-05}")},
                     "exponent_bits=5, mantissa_bits=10"),
            "f32[5] {0, -0, inf, -inf, 6.10351562e-05}");
  // No mantissa bits: NaN becomes +inf (XLA); 1.5 ties 1 and 2 -> 2; 1.25 -> 1.
  CHECK_LIT(MustEval("f32[4]", "reduce-precision", {L("f32[4] {nan, -nan, 1.5, 1.25}")},
                     "exponent_bits=8, mantissa_bits=0"),
            "f32[4] {inf, inf, 2, 1}");
  // More bits than the type has: no change.
  CHECK_LIT(MustEval("f32[3]", "reduce-precision", {L("f32[3] {0.1, 1e-45, 3e38}")},
                     "exponent_bits=11, mantissa_bits=52"),
            "f32[3] {0.1, 1e-45, 3e38}");
  // Rounding carries into the exponent: 1.9999999 with 1 mantissa bit -> 2.
  CHECK_LIT(MustEval("f32[1]", "reduce-precision", {L("f32[1] {1.99999988}")},
                     "exponent_bits=8, mantissa_bits=1"),
            "f32[1] {2}");
  // NaN whose payload would round into the exponent stays NaN.
  Literal q = MustEval("f32[1]", "reduce-precision", {L("f32[1] {nan(0x7fffff)}")},
                       "exponent_bits=5, mantissa_bits=2");
  CHECK(std::isnan(q.GetDouble(0)));
  // On f16 itself (5, 10): to e4m3-like (4, 3) bits: 0.1 -> 0.1015625;
  // 300 overflows (max of 4 exponent bits is 2^7 * 1.875 = 240) -> inf.
  CHECK_LIT(MustEval("f16[2]", "reduce-precision", {L("f16[2] {0.1, 300}")},
                     "exponent_bits=4, mantissa_bits=3"),
            "f16[2] {0.1015625, inf}");
  CHECK_LIT(MustEval("bf16[1]", "reduce-precision", {L("bf16[1] {1.0078125}")},
                     "exponent_bits=8, mantissa_bits=6"),
            "bf16[1] {1}");
  CHECK_LIT(MustEval("f8e5m2[2]", "reduce-precision", {L("f8e5m2[2] {1.25, 1.75}")},
                     "exponent_bits=5, mantissa_bits=1"),
            "f8e5m2[2] {1, 2}");
  CHECK_LIT(MustEval("f8e4m3fn[1]", "reduce-precision", {L("f8e4m3fn[1] {1.125}")},
                     "exponent_bits=4, mantissa_bits=2"),
            "f8e4m3fn[1] {1}");
  CHECK_LIT(MustEval("f64[1]", "reduce-precision", {L("f64[1] {0.1}")},
                     "exponent_bits=8, mantissa_bits=23"),
            "f64[1] {0.10000000149011612}");
}

// ============================================================================
// stochastic-convert
// ============================================================================

TEST_CASE("stochastic-convert: rounds up when random < fraction * 2^bits", "[eval]") {
  // 2.25: fraction 0.25 -> threshold 0.25 * 2^32 = 0x40000000. Negative
  // values round their magnitude the same way.
  CHECK_LIT(
      MustEval("s32[10]", "stochastic-convert",
               {L("f32[10] {2.25, 2.25, -2.25, -2.25, 3, nan, inf, -inf, 1e10, -1e10}"),
                L("u32[10] {1073741823, 1073741824, 1073741823, 1073741824, 0, 5, 5, 5, 5, 5}")}),
      "s32[10] {3, 2, -3, -2, 3, 0, 2147483647, -2147483648, 2147483647, -2147483648}");
  // f16 with u16 bits: 1.5 -> threshold 0x8000; 200 >= 127 saturates.
  CHECK_LIT(MustEval("s8[4]", "stochastic-convert",
                     {L("f16[4] {1.5, 1.5, 200, -200}"), L("u16[4] {32767, 32768, 0, 0}")}),
            "s8[4] {2, 1, 127, -128}");
  CHECK_LIT(
      MustEval("s16[2]", "stochastic-convert", {L("bf16[2] {-2.5, -2.5}"), L("u16[2] {0, 65535}")}),
      "s16[2] {-3, -2}");
  CHECK_LIT(
      MustEval("s64[2]", "stochastic-convert",
               {L("f64[2] {0.5, 0.5}"), L("u64[2] {9223372036854775807, 9223372036854775808}")}),
      "s64[2] {1, 0}");
  // Sub-byte targets saturate at their own range; 0.75 rounds down only
  // when random >= 0xC0000000.
  CHECK_LIT(MustEval("s4[3]", "stochastic-convert",
                     {L("f32[3] {7.5, -8.5, 0.75}"), L("u32[3] {0, 0, 3221225472}")}),
            "s4[3] {7, -8, 0}");
  CHECK(
      ErrorOf("f32[1]", "stochastic-convert", {L("f32[1] {1}"), L("u32[1] {1}")}).find("integer") !=
      std::string::npos);
  CHECK(
      ErrorOf("s32[1]", "stochastic-convert", {L("f32[1] {1}"), L("u16[1] {1}")}).find("as wide") !=
      std::string::npos);
}

// ============================================================================
// through the evaluator
// ============================================================================

TEST_CASE("elementwise: a chain of elementwise ops through the evaluator", "[eval]") {
  // The bench/eltwise.hlo chain on 2x3 inputs, with its scalar formula.
  const char* text = R"(HloModule chain
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[2,3]{1,0} parameter(1)
  e = f32[2,3]{1,0} exponential(x)
  m = f32[2,3]{1,0} multiply(e, y)
  a = f32[2,3]{1,0} add(m, x)
  t = f32[2,3]{1,0} tanh(a)
  positive = pred[2,3]{1,0} compare(t, y), direction=GT
  s = f32[2,3]{1,0} select(positive, t, a)
  ROOT out = f32[2,3]{1,0} divide(s, e)
}
)";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  REQUIRE(m.ok());
  Evaluator ev(**m, EvalOptions{});
  std::vector<float> xs = {-2, -0.5, 0, 0.25, 1, 3};
  std::vector<float> ys = {1, -1, 0.5, -0.25, 0.1, -3};
  Literal x = L("f32[2,3] {{-2, -0.5, 0}, {0.25, 1, 3}}");
  Literal y = L("f32[2,3] {{1, -1, 0.5}, {-0.25, 0.1, -3}}");
  absl::StatusOr<Value> r =
      ev.Run({Value::FromLiteral(std::move(x)), Value::FromLiteral(std::move(y))});
  INFO((r.ok() ? std::string() : std::string(r.status().message())));
  REQUIRE(r.ok());
  Literal out = r->ToLiteral();
  for (int i = 0; i < 6; ++i) {
    double e = std::exp(static_cast<double>(xs[i]));
    double a = e * ys[i] + xs[i];
    double t = std::tanh(a);
    double s = t > ys[i] ? t : a;
    CHECK(out.GetDouble(i) == Approx(s / e).epsilon(1e-5));
  }
}

// ============================================================================
// timing (hidden: run with "[eval-bench]")
// ============================================================================

TEST_CASE("elementwise: f32 kernel timings over 16M elements", "[.][eval-bench]") {
  const int64_t n = int64_t{1} << 24;
  Literal x = Make(PT::kF32, {n}), y = Make(PT::kF32, {n});
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < n; ++i) {
    x.typed<float>()[i] = normal(rng);
    y.typed<float>()[i] = normal(rng);
  }
  std::vector<float> out(n);
  using Clock = std::chrono::steady_clock;
  auto time = [&](const char* what, auto&& f) {
    f();
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = Clock::now();
      f();
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::printf("%-40s %.3f ns/element (%.1f ms)\n", what, best / n * 1e9, best * 1e3);
  };
  const float* a = x.typed<float>();
  const float* b = y.typed<float>();
  time("add kernel (warm output)",
       [&] { elementwise::BinaryFloatKernel<float>(Opcode::kAdd, a, b, out.data(), n); });
  time("exponential kernel (warm output)",
       [&] { elementwise::UnaryFloatKernel<float>(Opcode::kExp, a, out.data(), n); });
  time("tanh kernel (warm output)",
       [&] { elementwise::UnaryFloatKernel<float>(Opcode::kTanh, a, out.data(), n); });
  time("divide kernel (warm output)",
       [&] { elementwise::BinaryFloatKernel<float>(Opcode::kDivide, a, b, out.data(), n); });
  time("multiply kernel (warm output)",
       [&] { elementwise::BinaryFloatKernel<float>(Opcode::kMultiply, a, b, out.data(), n); });

  // What a fresh result costs before any kernel runs (NewArray zero-fills).
  time("NewArray f32[16M] alone", [&] {
    absl::StatusOr<Value> r = NewArray(Shape::Array(PT::kF32, {n}));
    REQUIRE(r.ok());
  });
  std::string shape = StrCat("f32[", n, "]");
  std::string text =
      StrCat("HloModule b\nENTRY e {\n  p0 = ", shape, " parameter(0)\n  p1 = ", shape,
             " parameter(1)\n  add = ", shape, " add(p0, p1)\n  exp = ", shape,
             " exponential(p0)\n  tanh = ", shape, " tanh(p0)\n  cmp = pred[", n,
             "] compare(p0, p1), direction=GT\n  ROOT sel = ", shape, " select(cmp, p0, p1)\n}\n");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  REQUIRE(m.ok());
  Value vx = Value::FromLiteral(std::move(x)), vy = Value::FromLiteral(std::move(y));
  for (const auto& inst : (*m)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kParameter) continue;
    std::vector<const Value*> ops;
    Value cmp;
    if (inst->opcode() == Opcode::kSelect) {
      std::vector<const Value*> cops = {&vx, &vy};
      const Instruction* compare = inst->operand(0);
      cmp = *EvalElementwise(*compare, cops);
      ops = {&cmp, &vx, &vy};
    } else if (inst->operand_count() == 2) {
      ops = {&vx, &vy};
    } else {
      ops = {&vx};
    }
    time(StrCat("EvalElementwise ", inst->name(), " (new result)").c_str(), [&] {
      absl::StatusOr<Value> r = EvalElementwise(*inst, ops);
      REQUIRE(r.ok());
    });
  }
}

}  // namespace
}  // namespace hlo
