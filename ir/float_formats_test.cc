#include "ir/float_formats.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace hlo {
namespace {

using PT = PrimitiveType;

constexpr PT kNarrowTypes[] = {PT::kF8E5M2,        PT::kF8E4M3,     PT::kF8E4M3FN,
                               PT::kF8E4M3B11FNUZ, PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ,
                               PT::kF8E3M4,        PT::kF4E2M1FN,   PT::kF8E8M0FNU};
constexpr PT kAllTypes[] = {PT::kF16,      PT::kBF16,          PT::kF8E5M2,     PT::kF8E4M3,
                            PT::kF8E4M3FN, PT::kF8E4M3B11FNUZ, PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ,
                            PT::kF8E3M4,   PT::kF4E2M1FN,      PT::kF8E8M0FNU};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string Name(PT t) { return std::string(PrimitiveTypeName(t)); }
uint32_t SignBit(PT t) { return GetSmallFloatInfo(t).unsigned_only ? 0 : 1u << (BitWidth(t) - 1); }
bool SameDouble(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}
bool SameFloat(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

// Decode then encode gives the same bits; decoding rises strictly over the
// non-negative patterns; negative patterns mirror positive ones.
void CheckEveryPattern(PT type) {
  INFO(Name(type));
  const uint32_t count = 1u << BitWidth(type);
  const uint32_t sign = SignBit(type);
  int nans = 0, infs = 0;
  for (uint32_t b = 0; b < count; ++b) {
    const double v = DecodeSmallFloat(type, b);
    INFO("bits " << b << " value " << v);
    const uint32_t back = EncodeSmallFloat(type, v);
    if (std::isnan(v)) {
      ++nans;
      REQUIRE(std::isnan(DecodeSmallFloat(type, back)));
    } else {
      infs += std::isinf(v);
      REQUIRE(back == b);
    }
  }
  double prev = -kInf;
  const uint32_t positive_end = sign ? sign : count;
  for (uint32_t b = 0; b < positive_end; ++b) {
    const double v = DecodeSmallFloat(type, b);
    if (std::isnan(v)) continue;
    INFO("bits " << b);
    REQUIRE(v > prev);
    prev = v;
    if (sign == 0) continue;
    const double n = DecodeSmallFloat(type, b | sign);
    if (!std::isnan(n)) REQUIRE(SameDouble(n, -v));
  }
  // The number of NaN and inf patterns follows from each format's definition.
  const SmallFloatInfo& info = GetSmallFloatInfo(type);
  int expected_nans = 0;
  if (info.has_infinity) {
    expected_nans = 2 * ((1 << info.mantissa_bits) - 1);
  } else if (info.has_nan) {
    expected_nans = (info.has_negative_zero) ? 2 : 1;
  }
  CHECK(nans == expected_nans);
  CHECK(infs == (info.has_infinity ? 2 : 0));
}

TEST_CASE("every 8-bit and 4-bit pattern round-trips", "[float_formats]") {
  for (PT type : kNarrowTypes) CheckEveryPattern(type);
}

TEST_CASE("every f16 and bf16 pattern round-trips", "[float_formats]") {
  CheckEveryPattern(PT::kF16);
  CheckEveryPattern(PT::kBF16);
}

TEST_CASE("format properties", "[float_formats]") {
  struct Row {
    PT type;
    int e, m, bias;
    double max, min_normal, smallest;  // smallest = value of pattern 1
  };
  const Row rows[] = {
      {PT::kF16, 5, 10, 15, 65504, 0x1p-14, 0x1p-24},
      {PT::kBF16, 8, 7, 127, 0x1.FEp127, 0x1p-126, 0x1p-133},
      {PT::kF8E5M2, 5, 2, 15, 57344, 0x1p-14, 0x1p-16},
      {PT::kF8E4M3, 4, 3, 7, 240, 0x1p-6, 0x1p-9},
      {PT::kF8E4M3FN, 4, 3, 7, 448, 0x1p-6, 0x1p-9},
      {PT::kF8E4M3B11FNUZ, 4, 3, 11, 30, 0x1p-10, 0x1p-13},
      {PT::kF8E5M2FNUZ, 5, 2, 16, 57344, 0x1p-15, 0x1p-17},
      {PT::kF8E4M3FNUZ, 4, 3, 8, 240, 0x1p-7, 0x1p-10},
      {PT::kF8E3M4, 3, 4, 3, 15.5, 0x1p-2, 0x1p-6},
      {PT::kF4E2M1FN, 2, 1, 1, 6, 1, 0.5},
      // e8m0: no zero, so pattern 0 is 2^-127 and pattern 1 is 2^-126.
      {PT::kF8E8M0FNU, 8, 0, 127, 0x1p127, 0x1p-127, 0x1p-126},
  };
  for (const Row& r : rows) {
    INFO(Name(r.type));
    const SmallFloatInfo& info = GetSmallFloatInfo(r.type);
    CHECK(info.exponent_bits == r.e);
    CHECK(info.mantissa_bits == r.m);
    CHECK(info.exponent_bias == r.bias);
    CHECK(SmallFloatMax(r.type) == r.max);
    CHECK(SmallFloatMinNormal(r.type) == r.min_normal);
    CHECK(DecodeSmallFloat(r.type, 1) == r.smallest);
    CHECK(info.exponent_bits + info.mantissa_bits + !info.unsigned_only == BitWidth(r.type));
  }
  const SmallFloatInfo& fnuz = GetSmallFloatInfo(PT::kF8E4M3FNUZ);
  CHECK(fnuz.nan_is_negative_zero_pattern);
  CHECK_FALSE(fnuz.has_negative_zero);
  CHECK_FALSE(fnuz.has_infinity);
  const SmallFloatInfo& fn = GetSmallFloatInfo(PT::kF8E4M3FN);
  CHECK(fn.has_nan);
  CHECK(fn.has_negative_zero);
  CHECK_FALSE(fn.has_infinity);
  CHECK_FALSE(GetSmallFloatInfo(PT::kF4E2M1FN).has_nan);
  CHECK(GetSmallFloatInfo(PT::kF8E8M0FNU).unsigned_only);
  CHECK(GetSmallFloatInfo(PT::kF8E3M4).has_infinity);
  CHECK(GetSmallFloatInfo(PT::kF8E4M3).has_infinity);
}

TEST_CASE("special inputs follow ml_dtypes", "[float_formats]") {
  struct Row {
    PT type;
    uint32_t inf, ninf, nan, nnan, nzero, overflow, noverflow;
  };
  const Row rows[] = {
      {PT::kF16, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x8000, 0x7C00, 0xFC00},
      {PT::kBF16, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x8000, 0x7F80, 0xFF80},
      {PT::kF8E5M2, 0x7C, 0xFC, 0x7E, 0xFE, 0x80, 0x7C, 0xFC},
      {PT::kF8E4M3, 0x78, 0xF8, 0x7C, 0xFC, 0x80, 0x78, 0xF8},
      {PT::kF8E3M4, 0x70, 0xF0, 0x78, 0xF8, 0x80, 0x70, 0xF0},
      // No inf: inf and overflow give NaN, sign kept.
      {PT::kF8E4M3FN, 0x7F, 0xFF, 0x7F, 0xFF, 0x80, 0x7F, 0xFF},
      // fnuz: one NaN (0x80) for everything; -0 becomes +0.
      {PT::kF8E4M3B11FNUZ, 0x80, 0x80, 0x80, 0x80, 0x00, 0x80, 0x80},
      {PT::kF8E5M2FNUZ, 0x80, 0x80, 0x80, 0x80, 0x00, 0x80, 0x80},
      {PT::kF8E4M3FNUZ, 0x80, 0x80, 0x80, 0x80, 0x00, 0x80, 0x80},
      // No NaN, no inf: saturate; NaN maps to the -0 pattern as in ml_dtypes.
      {PT::kF4E2M1FN, 0x7, 0xF, 0x8, 0x0, 0x8, 0x7, 0xF},
      // Unsigned, no zero: zero and negatives are NaN too.
      {PT::kF8E8M0FNU, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
  };
  for (const Row& r : rows) {
    INFO(Name(r.type));
    const double big = SmallFloatMax(r.type) * 4;
    CHECK(EncodeSmallFloat(r.type, kInf) == r.inf);
    CHECK(EncodeSmallFloat(r.type, -kInf) == r.ninf);
    CHECK(EncodeSmallFloat(r.type, kNaN) == r.nan);
    CHECK(EncodeSmallFloat(r.type, -kNaN) == r.nnan);
    CHECK(EncodeSmallFloat(r.type, -0.0) == r.nzero);
    CHECK(EncodeSmallFloat(r.type, big) == r.overflow);
    CHECK(EncodeSmallFloat(r.type, -big) == r.noverflow);
    CHECK(EncodeSmallFloat(r.type, 1e300) == r.overflow);
  }
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 0.0) == 0xFF);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, -1.0) == 0xFF);
  CHECK(std::isnan(DecodeSmallFloat(PT::kF8E4M3FNUZ, 0x80)));
  CHECK(std::isnan(DecodeSmallFloat(PT::kF8E4M3FN, 0xFF)));
  CHECK(DecodeSmallFloat(PT::kF8E4M3FN, 0x7E) == 448);
  // Negative values that round to zero: -0 where it exists, +0 for fnuz.
  CHECK(EncodeSmallFloat(PT::kF8E4M3FN, -0x1p-11) == 0x80);
  CHECK(EncodeSmallFloat(PT::kF8E4M3FNUZ, -0x1p-12) == 0x00);
  CHECK(EncodeSmallFloat(PT::kF4E2M1FN, -0.1) == 0x8);
}

TEST_CASE("overflow happens after rounding", "[float_formats]") {
  // Ties at max + half an ulp go to the even pattern. For IEEE formats that
  // is inf; for e4m3fn it is max itself (0x7E is even, 0x7F is NaN); for
  // fnuz the even neighbour is 0x80, i.e. NaN.
  struct Row {
    PT type;
    double tie;
    uint32_t at_tie, below, above;
  };
  const Row rows[] = {
      {PT::kF16, 65520, 0x7C00, 0x7BFF, 0x7C00},
      {PT::kBF16, 0x1.FFp127, 0x7F80, 0x7F7F, 0x7F80},
      {PT::kF8E5M2, 61440, 0x7C, 0x7B, 0x7C},
      {PT::kF8E4M3, 248, 0x78, 0x77, 0x78},
      {PT::kF8E3M4, 15.75, 0x70, 0x6F, 0x70},
      {PT::kF8E4M3FN, 464, 0x7E, 0x7E, 0x7F},
      {PT::kF8E4M3B11FNUZ, 31, 0x80, 0x7F, 0x80},
      {PT::kF8E5M2FNUZ, 61440, 0x80, 0x7F, 0x80},
      {PT::kF8E4M3FNUZ, 248, 0x80, 0x7F, 0x80},
      {PT::kF4E2M1FN, 7, 0x7, 0x7, 0x7},
      {PT::kF8E8M0FNU, 0x1.8p127, 0xFF, 0xFE, 0xFF},
  };
  for (const Row& r : rows) {
    INFO(Name(r.type));
    CHECK(EncodeSmallFloat(r.type, r.tie) == r.at_tie);
    CHECK(EncodeSmallFloat(r.type, std::nextafter(r.tie, 0.0)) == r.below);
    CHECK(EncodeSmallFloat(r.type, std::nextafter(r.tie, kInf)) == r.above);
    if (SignBit(r.type) != 0) {
      CHECK(EncodeSmallFloat(r.type, -std::nextafter(r.tie, 0.0)) == (r.below | SignBit(r.type)));
    }
  }
}

// For every pair of neighbouring finite values: the midpoint goes to the even
// pattern, and one double either side of it goes to the nearer value.
void CheckRoundingBetweenNeighbours(PT type) {
  INFO(Name(type));
  const bool e8m0 = type == PT::kF8E8M0FNU;
  const uint32_t max_bits = EncodeSmallFloat(type, SmallFloatMax(type));
  for (uint32_t c = 0; c < max_bits; ++c) {
    const double lo = DecodeSmallFloat(type, c);
    const double hi = DecodeSmallFloat(type, c + 1);
    const double mid = lo + (hi - lo) / 2;
    INFO("between " << lo << " and " << hi);
    // e8m0: the significand is always 1 (odd), so ties go up; pattern 0 is
    // rounded as if it were zero, so anything above 2^-127 gives pattern 1.
    const uint32_t at_mid = e8m0 ? c + 1 : (c % 2 == 0 ? c : c + 1);
    const uint32_t below = e8m0 && c == 0 ? 1 : c;
    REQUIRE(EncodeSmallFloat(type, mid) == at_mid);
    REQUIRE(EncodeSmallFloat(type, std::nextafter(mid, -kInf)) == below);
    REQUIRE(EncodeSmallFloat(type, std::nextafter(mid, kInf)) == c + 1);
    REQUIRE(EncodeSmallFloat(type, std::nextafter(lo, kInf)) == below);
    if (SignBit(type) != 0 && c > 0) {
      REQUIRE(EncodeSmallFloat(type, -mid) == (at_mid | SignBit(type)));
    }
  }
}

TEST_CASE("round to nearest, ties to even, everywhere", "[float_formats]") {
  for (PT type : kAllTypes) CheckRoundingBetweenNeighbours(type);
}

TEST_CASE("spot values from the format definitions", "[float_formats]") {
  // bf16 has 7 mantissa bits: the ulp at 1 is 2^-7.
  CHECK(EncodeSmallFloat(PT::kBF16, 1 + 0x1p-8) == 0x3F80);      // tie, even
  CHECK(EncodeSmallFloat(PT::kBF16, 1 + 3 * 0x1p-8) == 0x3F82);  // 1 + 2^-6
  CHECK(DecodeSmallFloat(PT::kBF16, 0x3F82) == 1 + 0x1p-6);
  CHECK(EncodeSmallFloat(PT::kF16, 1 + 0x1p-11) == 0x3C00);
  CHECK(EncodeSmallFloat(PT::kF16, 0x1p-24) == 0x0001);
  CHECK(EncodeSmallFloat(PT::kF16, 0x1p-25) == 0x0000);
  CHECK(EncodeSmallFloat(PT::kF16, std::nextafter(0x1p-25, 1.0)) == 0x0001);
  CHECK(EncodeSmallFloat(PT::kF8E4M3FN, 0x1p-10) == 0x00);
  CHECK(EncodeSmallFloat(PT::kF8E4M3FN, 3 * 0x1p-10) == 0x02);
  CHECK(EncodeSmallFloat(PT::kF8E4M3FN, -448) == 0xFE);
  CHECK(EncodeSmallFloat(PT::kF8E4M3FNUZ, 240) == 0x7F);
  CHECK(EncodeSmallFloat(PT::kF8E5M2, 57344) == 0x7B);
  CHECK(EncodeSmallFloat(PT::kF8E4M3B11FNUZ, 1.0) == 11 << 3);
  CHECK(EncodeSmallFloat(PT::kF8E3M4, 1.0) == 3 << 4);
  // f4e2m1fn values: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  CHECK(EncodeSmallFloat(PT::kF4E2M1FN, 0.25) == 0x0);
  CHECK(EncodeSmallFloat(PT::kF4E2M1FN, 0.75) == 0x2);
  CHECK(EncodeSmallFloat(PT::kF4E2M1FN, 2.5) == 0x4);
  CHECK(EncodeSmallFloat(PT::kF4E2M1FN, 5.0) == 0x6);
  CHECK(EncodeSmallFloat(PT::kF4E2M1FN, -3.0) == 0xD);
  CHECK(DecodeSmallFloat(PT::kF4E2M1FN, 0x7) == 6.0);
  CHECK(DecodeSmallFloat(PT::kF4E2M1FN, 0xF0 | 0x1) == 0.5);  // high bits
  // e8m0: 2^(bits - 127).
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 1.0) == 0x7F);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 1.5) == 0x80);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, std::nextafter(1.5, 0.0)) == 0x7F);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 3.0) == 0x81);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 0.75) == 0x7F);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 0x1p-127) == 0x00);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 0x1.4p-127) == 0x01);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 0x1p-140) == 0x00);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 5e-324) == 0x00);
  CHECK(EncodeSmallFloat(PT::kF8E8M0FNU, 0x1p127) == 0xFE);
  CHECK(DecodeSmallFloat(PT::kF8E8M0FNU, 0x00) == 0x1p-127);
  CHECK(std::isnan(DecodeSmallFloat(PT::kF8E8M0FNU, 0xFF)));
}

TEST_CASE("one rounding from double, never through float", "[float_formats]") {
  for (PT type : kAllTypes) {
    INFO(Name(type));
    const int m = GetSmallFloatInfo(type).mantissa_bits;
    const double ulp = std::ldexp(1.0, -m);
    // Just above a tie: float would land on the tie, then go to even (1).
    CHECK(DecodeSmallFloat(type, EncodeSmallFloat(type, 1 + ulp / 2 + 0x1p-30)) == 1 + ulp);
    // ml_dtypes' case: 2^-24 is half a float ulp at 1, a tie in float.
    CHECK(DecodeSmallFloat(type, EncodeSmallFloat(type, 1 + ulp / 2 + 0x1p-24)) == 1 + ulp);
    if (m == 0) continue;
    // Just below a tie whose even side is above: float would round up to it.
    CHECK(DecodeSmallFloat(type, EncodeSmallFloat(type, 1 + 3 * ulp / 2 - 0x1p-30)) == 1 + ulp);
  }
  CHECK(EncodeSmallFloat(PT::kBF16, 1 + 0x1p-8 + 0x1p-30) == 0x3F81);
  CHECK(EncodeSmallFloat(PT::kF16, 1 + 0x1p-11 + 0x1p-40) == 0x3C01);
  CHECK(EncodeSmallFloat(PT::kF8E4M3FN, 0x1p-10 + 0x1p-40) == 0x01);
  // Overflow decided on the double: 464 + tiny is above e4m3fn's tie.
  CHECK(EncodeSmallFloat(PT::kF8E4M3FN, 464 + 0x1p-30) == 0x7F);
}

// Floats that probe every rounding boundary of a 16-bit format: each value,
// the midpoint to its successor, and one float either side of both.
std::vector<float> BoundaryFloats(PT type) {
  std::vector<float> out;
  for (uint32_t b = 0; b < 0x7FFF; ++b) {
    const double lo = DecodeSmallFloat(type, b);
    const double hi = DecodeSmallFloat(type, b + 1);
    if (!std::isfinite(lo) || std::isnan(hi)) continue;
    const double hi_or_next = std::isinf(hi) ? lo + (lo - DecodeSmallFloat(type, b - 1)) : hi;
    const float points[] = {static_cast<float>(lo), static_cast<float>((lo + hi_or_next) / 2)};
    for (float p : points) {
      for (float q : {std::nextafter(p, -1.0f), p, std::nextafter(p, 1e30f)}) {
        out.push_back(q);
        out.push_back(-q);
      }
    }
  }
  return out;
}

std::vector<float> SpecialFloats() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> out = {0.0f,
                            -0.0f,
                            inf,
                            -inf,
                            std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::signaling_NaN(),
                            std::numeric_limits<float>::min(),
                            -std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max()};
  for (uint32_t bits : {0x7F800001u, 0xFF800001u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu,
                        0x7F7F7FFFu, 0x7F7F8000u, 0x007FFFFFu, 0x00008000u, 0x00018000u}) {
    out.push_back(std::bit_cast<float>(bits));
  }
  return out;
}

std::vector<float> RandomFloats() {
  std::mt19937 rng(12345);
  std::vector<float> out;
  // Any bit pattern, then patterns with exponents near the f16 range.
  for (int i = 0; i < 2'000'000; ++i) {
    out.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  }
  std::uniform_int_distribution<uint32_t> exponent(95, 145);
  for (int i = 0; i < 2'000'000; ++i) {
    const uint32_t bits = (static_cast<uint32_t>(rng()) & 0x807FFFFFu) | (exponent(rng) << 23);
    out.push_back(std::bit_cast<float>(bits));
  }
  return out;
}

TEST_CASE("fast f32 paths agree with the generic ones", "[float_formats]") {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = static_cast<uint16_t>(b);
    const double half = DecodeSmallFloat(PT::kF16, b);
    const double bf16 = DecodeSmallFloat(PT::kBF16, b);
    INFO("bits " << b);
    if (std::isnan(half)) {
      REQUIRE(std::isnan(HalfToFloat(h)));
    } else {
      REQUIRE(SameFloat(HalfToFloat(h), static_cast<float>(half)));
    }
    if (std::isnan(bf16)) {
      REQUIRE(std::isnan(BF16ToFloat(h)));
    } else {
      REQUIRE(SameFloat(BF16ToFloat(h), static_cast<float>(bf16)));
    }
  }

  std::vector<float> inputs = SpecialFloats();
  for (PT t : {PT::kF16, PT::kBF16}) {
    const std::vector<float> more = BoundaryFloats(t);
    inputs.insert(inputs.end(), more.begin(), more.end());
  }
  const std::vector<float> random = RandomFloats();
  inputs.insert(inputs.end(), random.begin(), random.end());

  size_t half_mismatches = 0, bf16_mismatches = 0;
  float first_half_bad = 0, first_bf16_bad = 0;
  for (float f : inputs) {
    if (FloatToHalf(f) != EncodeSmallFloat(PT::kF16, f)) {
      if (half_mismatches++ == 0) first_half_bad = f;
    }
    if (FloatToBF16(f) != EncodeSmallFloat(PT::kBF16, f)) {
      if (bf16_mismatches++ == 0) first_bf16_bad = f;
    }
  }
  INFO("inputs " << inputs.size());
  INFO("first f16 mismatch bits " << std::bit_cast<uint32_t>(first_half_bad));
  INFO("first bf16 mismatch bits " << std::bit_cast<uint32_t>(first_bf16_bad));
  CHECK(half_mismatches == 0);
  CHECK(bf16_mismatches == 0);
}

}  // namespace
}  // namespace hlo
