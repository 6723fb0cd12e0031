// The whole-array 16-bit float conversions (eval/interp/float16_convert.h)
// against the generic format codec (ir/float_formats.h: DecodeSmallFloat,
// EncodeSmallFloat, one rounding from the exact value): every f16 and bf16
// pattern widened, and a sweep of f32 patterns (every 4099th, so every
// exponent, both signs, NaNs with payloads, infinities, denormals) plus
// each format's rounding boundaries narrowed, at lengths and offsets that
// leave vector tails.
#include "eval/interp/float16_convert.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "ir/float_formats.h"
#include "ir/primitive_type.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

bool SameWidened(float got, double want) {
  return std::isnan(want)
             ? std::isnan(got)
             : std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(static_cast<float>(want));
}

std::vector<float> FloatsToNarrow() {
  std::vector<float> out;
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099)
    out.push_back(std::bit_cast<float>(uint32_t(b)));
  // Halfway and adjacent cases of both formats around 1, the largest finite
  // values, the smallest normals and denormals.
  for (uint32_t base : {0x3F800000u, 0x477FE000u, 0x7F7F0000u, 0x38800000u, 0x33800000u,
                        0x00010000u, 0x7F800000u, 0x7F800001u, 0xFFC00001u}) {
    for (uint32_t d = 0; d < 0x4000; d += 0x3FF) {
      out.push_back(std::bit_cast<float>(base + d));
      out.push_back(std::bit_cast<float>((base ^ 0x80000000u) + d));
    }
  }
  return out;
}

TEST_CASE("16-bit floats widen to f32 as the codec decodes them", "[float16_convert]") {
  std::vector<uint16_t> all(0x10000 + 1);
  for (uint32_t b = 0; b < 0x10000; ++b) all[b] = static_cast<uint16_t>(b);
  std::vector<float> out(all.size());
  // From the second element, so that no run starts at a vector boundary.
  const int64_t n = 0x10000 - 1;
  for (PT type : {PT::kF16, PT::kBF16}) {
    INFO(PrimitiveTypeName(type));
    if (type == PT::kF16) {
      HalfsToFloats(all.data() + 1, n, out.data());
    } else {
      BF16sToFloats(all.data() + 1, n, out.data());
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += !SameWidened(out[i], DecodeSmallFloat(type, all[i + 1]));
    CHECK(bad == 0);
  }
}

TEST_CASE("f32 narrows to 16-bit floats as the codec encodes it", "[float16_convert]") {
  const std::vector<float> in = FloatsToNarrow();
  std::vector<uint16_t> out(in.size());
  for (PT type : {PT::kF16, PT::kBF16}) {
    INFO(PrimitiveTypeName(type));
    for (int64_t first : {0, 1, 7}) {
      const int64_t n = static_cast<int64_t>(in.size()) - first - 3;
      if (type == PT::kF16) {
        FloatsToHalfs(in.data() + first, n, out.data());
      } else {
        FloatsToBF16s(in.data() + first, n, out.data());
      }
      int64_t bad = 0;
      for (int64_t i = 0; i < n; ++i) {
        bad += out[i] != EncodeSmallFloat(type, static_cast<double>(in[first + i]));
      }
      INFO("first " << first << ", " << n << " values");
      CHECK(bad == 0);
    }
  }
}

#if defined(__x86_64__)
// The hardware conversions give the codec's bits (HalfToFloat, FloatToHalf:
// NaN payloads, subnormals, rounding) at every level this CPU runs, with
// MXCSR's DAZ and FTZ clear and set (set, they must not change a bit).
TEST_CASE("f16 converts by the hardware with the codec's bits", "[float16_convert]") {
  using Widen = void (*)(const uint16_t*, int64_t, float*);
  using Narrow = void (*)(const float*, int64_t, uint16_t*);
  struct Level {
    int level;
    Widen widen;
    Narrow narrow;
  };
  const Level levels[] = {
      {2, float16_internal::HalfsToFloatsAvx512, float16_internal::FloatsToHalfsAvx512},
      {1, float16_internal::HalfsToFloatsAvx2, float16_internal::FloatsToHalfsAvx2}};
  std::vector<uint16_t> halfs(0x10000);
  for (uint32_t b = 0; b < 0x10000; ++b) halfs[b] = static_cast<uint16_t>(b);
  const std::vector<float> floats = FloatsToNarrow();
  for (const Level& l : levels) {
    if (float16_internal::HardwareLevel() < l.level) continue;
    for (bool flush : {false, true}) {
      INFO("level " << l.level << " flush " << flush);
      const unsigned saved = _mm_getcsr();
      if (flush) _mm_setcsr(saved | 0x8040);  // FTZ and DAZ
      std::vector<float> wide(halfs.size());
      l.widen(halfs.data() + 1, static_cast<int64_t>(halfs.size()) - 1, wide.data());
      std::vector<uint16_t> narrow(floats.size());
      l.narrow(floats.data() + 3, static_cast<int64_t>(floats.size()) - 3, narrow.data());
      _mm_setcsr(saved);
      int64_t bad = 0;
      for (size_t i = 0; i + 1 < halfs.size(); ++i) {
        bad +=
            std::bit_cast<uint32_t>(wide[i]) != std::bit_cast<uint32_t>(HalfToFloat(halfs[i + 1]));
      }
      for (size_t i = 0; i + 3 < floats.size(); ++i) bad += narrow[i] != FloatToHalf(floats[i + 3]);
      CHECK(bad == 0);
    }
  }
}
#endif

}  // namespace
}  // namespace hlo
