// reduce-precision's array loop (eval/interp/reduce_precision.h) against
// its one-element statement of XLA's algorithm, bit for bit: every 8- and
// 16-bit pattern (f8, f16, bf16 formats), f32 and f64 special values at
// every vector lane, random patterns, every kind of target format (mantissa
// rounded, exponent range narrowed, both, neither), in place too; and the
// rounding itself against an independent computation (nearbyint of the
// scaled value, to nearest even) for f32 targets that keep f32's exponent.
#include "eval/interp/reduce_precision.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace hlo {
namespace {

struct Format {
  int nbits, mant;
};
struct Target {
  int64_t exp, mant;
};

template <typename UInt>
void CheckAgainstElements(const std::vector<UInt>& in, Format f, Target t) {
  std::vector<UInt> out(in.size());
  ReducePrecisionArray(out.data(), in.data(), static_cast<int64_t>(in.size()), f.nbits, f.mant,
                       t.exp, t.mant);
  std::vector<UInt> same = in;
  ReducePrecisionArray(same.data(), same.data(), static_cast<int64_t>(same.size()), f.nbits, f.mant,
                       t.exp, t.mant);
  int64_t wrong = 0, first = -1;
  for (size_t i = 0; i < in.size(); ++i) {
    const UInt want = ReducePrecisionBits<UInt>(in[i], f.nbits, f.mant, t.exp, t.mant);
    if (out[i] != want || same[i] != want) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++wrong;
    }
  }
  INFO("format " << f.nbits << " bits, " << f.mant << " mantissa; target e" << t.exp << " m"
                 << t.mant << "; first wrong index " << first);
  CHECK(wrong == 0);
}

// Each value at every position of a 64-element block (every lane of any
// vector width), the block's other places random, and a short tail.
template <typename UInt>
std::vector<UInt> AtEveryLane(const std::vector<UInt>& values, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<UInt> out;
  for (UInt v : values) {
    for (int lane = 0; lane < 64; ++lane) {
      for (int k = 0; k < 64; ++k) out.push_back(k == lane ? v : static_cast<UInt>(rng()));
    }
  }
  for (int k = 0; k < 13; ++k) out.push_back(values[k % values.size()]);
  return out;
}

TEST_CASE("reduce-precision array: every 8- and 16-bit pattern", "[eval]") {
  std::vector<uint16_t> all16(65536 + 7);
  for (size_t i = 0; i < all16.size(); ++i) all16[i] = static_cast<uint16_t>(i * 40503u + 1);
  for (Format f : {Format{16, 10}, Format{16, 7}}) {  // f16, bf16
    for (Target t : {Target{1, 0}, Target{2, 1}, Target{3, 10}, Target{4, 3}, Target{5, 2},
                     Target{5, 10}, Target{8, 7}, Target{8, 0}, Target{6, 12}, Target{9, 30}}) {
      CheckAgainstElements<uint16_t>(all16, f, t);
    }
  }
  std::vector<uint8_t> all8(256 * 3 + 5);
  for (size_t i = 0; i < all8.size(); ++i) all8[i] = static_cast<uint8_t>(i * 77 + 3);
  for (Format f : {Format{8, 2}, Format{8, 3}, Format{8, 4}}) {  // e5m2, e4m3, e3m4
    for (Target t : {Target{1, 0}, Target{2, 1}, Target{3, 2}, Target{4, 1}, Target{5, 3}}) {
      CheckAgainstElements<uint8_t>(all8, f, t);
    }
  }
}

TEST_CASE("reduce-precision array: f32 and f64 special values at every lane", "[eval]") {
  const std::vector<uint32_t> f32_specials = {
      0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff,
      0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fbfffff,
      0x3f801000, 0x3f803000, 0x3f800fff, 0x3f801001, 0x3f808000, 0x3f818000, 0x477ff000,
      0x477fefff, 0x38800000, 0x387fffff, 0x33800000, 0x4b7fffff, 0x3fffffff};
  std::vector<uint32_t> f32 = AtEveryLane(f32_specials, 1);
  std::mt19937_64 rng(2);
  for (int i = 0; i < 50000; ++i) f32.push_back(static_cast<uint32_t>(rng()));
  for (Target t : {Target{8, 10}, Target{8, 7}, Target{5, 10}, Target{8, 23}, Target{4, 3},
                   Target{1, 0}, Target{11, 52}, Target{6, 30}, Target{3, 0}}) {
    CheckAgainstElements<uint32_t>(f32, Format{32, 23}, t);
  }
  const std::vector<uint64_t> f64_specials = {0,
                                              uint64_t{1} << 63,
                                              1,
                                              0x000fffffffffffff,
                                              0x0010000000000000,
                                              0x7fefffffffffffff,
                                              0x7ff0000000000000,
                                              0xfff0000000000000,
                                              0x7ff8000000000000,
                                              0xfff0000000000001,
                                              0x3ff0000010000000,
                                              0x3ff0000030000000,
                                              0x3ff000000fffffff,
                                              0x47efffffe0000000,
                                              0x380fffffffffffff,
                                              0x3810000000000000,
                                              0x3fffffffffffffff};
  std::vector<uint64_t> f64 = AtEveryLane(f64_specials, 3);
  for (int i = 0; i < 50000; ++i) f64.push_back(rng());
  for (Target t : {Target{8, 23}, Target{5, 10}, Target{11, 10}, Target{8, 7}, Target{11, 52},
                   Target{2, 0}, Target{15, 60}}) {
    CheckAgainstElements<uint64_t>(f64, Format{64, 52}, t);
  }
}

// Rounding f32 to `mant` mantissa bits keeping the exponent range:
// nearbyint (to nearest even, the default mode) of the value scaled so
// that the kept bits are its integer part.
float RoundToMantissa(float x, int mant) {
  int e = 0;
  std::frexp(x, &e);      // x = f * 2^e, 0.5 <= |f| < 1
  e = std::max(e, -125);  // subnormals keep the bits above 2^-149
  const int scale = mant + 1 - e;
  return static_cast<float>(std::ldexp(std::nearbyint(std::ldexp(double{x}, scale)), -scale));
}

TEST_CASE("reduce-precision array: f32 to TF32 and bf16 rounds to nearest even", "[eval]") {
  std::mt19937_64 rng(4);
  std::vector<uint32_t> bits;
  for (int i = 0; i < 100000; ++i) {
    const uint32_t b = static_cast<uint32_t>(rng());
    if (((b >> 23) & 0xff) != 0xff) bits.push_back(b);  // finite
  }
  for (uint32_t b : {0x3f801000u, 0x3f803000u, 0x3f808000u, 0x3f818000u}) bits.push_back(b);
  for (int mant : {10, 7}) {
    std::vector<uint32_t> out(bits.size());
    ReducePrecisionArray(out.data(), bits.data(), static_cast<int64_t>(bits.size()), 32, 23, 8,
                         mant);
    int64_t wrong = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      const float x = std::bit_cast<float>(bits[i]);
      const float want = RoundToMantissa(x, mant);
      // (Past the largest finite value of the narrower mantissa: inf.)
      const float expect =
          std::isfinite(want) && std::fabs(want) <= std::numeric_limits<float>::max()
              ? want
              : std::copysign(std::numeric_limits<float>::infinity(), x);
      if (std::bit_cast<uint32_t>(expect) != out[i]) ++wrong;
    }
    INFO("mantissa bits " << mant);
    CHECK(wrong == 0);
  }
}

}  // namespace
}  // namespace hlo
