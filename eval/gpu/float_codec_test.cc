// The GPU calls' element codecs (eval/gpu/float_codec.h): EncodeHalf gives
// EncodeSmallFloat's bits for bf16 and f16 on random doubles of every
// exponent and on the edges (ties at every binade, the subnormal grid and
// below it, the largest finite values and the overflow threshold, zeros,
// infinities, NaNs), and WidenHalf gives DecodeSmallFloat's value on every
// 16-bit pattern.
#include "eval/gpu/float_codec.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ir/float_formats.h"

namespace hlo::gpu {
namespace {

std::vector<double> EdgeDoubles() {
  std::vector<double> xs = {0.0,
                            -0.0,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN(),
                            -std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::max()};
  // Every 16-bit pattern's value, and the midpoints between neighbours (the
  // ties) and values just beside them.
  for (PrimitiveType t : {PrimitiveType::kBF16, PrimitiveType::kF16}) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      const double v = DecodeSmallFloat(t, bits);
      const double next = DecodeSmallFloat(t, bits + 1);
      if (std::isnan(v)) continue;
      xs.push_back(v);
      if (!std::isnan(next) && !std::isinf(next) && (bits & 0x7FFF) != 0x7FFF) {
        const double mid = v + (next - v) / 2;
        xs.push_back(mid);
        xs.push_back(std::nextafter(mid, 0.0));
        xs.push_back(std::nextafter(mid, 2 * mid));
      }
    }
  }
  return xs;
}

TEST_CASE("float codec: EncodeHalf is EncodeSmallFloat for bf16 and f16", "[float_codec]") {
  std::vector<double> xs = EdgeDoubles();
  uint64_t seed = 1;
  for (int i = 0; i < 200000; ++i) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    xs.push_back(std::bit_cast<double>(seed));
  }
  for (PrimitiveType t : {PrimitiveType::kBF16, PrimitiveType::kF16}) {
    int64_t differ = 0;
    for (double x : xs) {
      if (EncodeHalf(t, x) != EncodeSmallFloat(t, x)) {
        if (differ++ < 5) FAIL_CHECK("type " << static_cast<int>(t) << " x " << x);
      }
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("float codec: WidenHalf is DecodeSmallFloat on every pattern", "[float_codec]") {
  for (PrimitiveType t : {PrimitiveType::kBF16, PrimitiveType::kF16}) {
    int64_t differ = 0;
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      const double want = DecodeSmallFloat(t, bits);
      const double got = WidenHalf(t, static_cast<uint16_t>(bits));
      differ += std::bit_cast<uint64_t>(want) != std::bit_cast<uint64_t>(got);
    }
    CHECK(differ == 0);
  }
}

}  // namespace
}  // namespace hlo::gpu
