#include "eval/interp/float16_convert.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "eval/vector_clones.h"
#include "ir/float_formats.h"

namespace hlo {
namespace {

// dst[i] = Convert(src[i]), Convert inlined so that the loop vectorises.
template <auto Convert, typename From, typename To>
HLO_VECTOR_CLONES void ConvertEach(const From* __restrict src, int64_t n, To* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = Convert(src[i]);
}

// 2: AVX-512F, 1: AVX2 with F16C, 0: neither (F16C asked of CPUID: clang's
// __builtin_cpu_supports does not know it).
int F16Level() {
#if defined(__x86_64__)
  static const int level = [] {
    if (__builtin_cpu_supports("avx512f")) return 2;
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool f16c = __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
    return __builtin_cpu_supports("avx2") && f16c ? 1 : 0;
  }();
  return level;
#else
  return 0;
#endif
}

}  // namespace

// f16 <-> f32 by the hardware's conversions (vcvtph2ps, vcvtps2ph: IEEE,
// to nearest even), which move 8 or 16 values an instruction where the
// bit-by-bit codec took several (f16 exp: 0.6 ns an element against f32's
// 0.2, most of it the two conversions). A vector holding a value that
// MXCSR or the NaN rules could convert otherwise (NaNs, whose payload the
// codec keeps; f16 subnormals, which DAZ might read as zero; f32 values
// under f16's smallest normal, whose results FTZ might flush) takes the
// codec whole, so the bits are the codec's on every machine and MXCSR.
// (AVX-512's zero-masked forms with every lane set: GCC 12's unmasked ones
// start from an undefined vector, which -Wmaybe-uninitialized rejects.)
namespace float16_internal {

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void HalfsToFloatsAvx512(const uint16_t* src, int64_t n,
                                                            float* dst) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i magnitude = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    // a subnormal (1..0x3ff) or a NaN (over 0x7c00)
    const __m256i special =
        _mm256_or_si256(_mm256_and_si256(_mm256_cmpgt_epi16(magnitude, _mm256_setzero_si256()),
                                         _mm256_cmpgt_epi16(_mm256_set1_epi16(0x400), magnitude)),
                        _mm256_cmpgt_epi16(magnitude, _mm256_set1_epi16(0x7c00)));
    if (_mm256_movemask_epi8(special) != 0) {
      for (int64_t k = i; k < i + 16; ++k) dst[k] = HalfToFloat(src[k]);
      continue;
    }
    _mm512_storeu_ps(dst + i, _mm512_maskz_cvtph_ps(0xffff, h));
  }
  for (; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

__attribute__((target("avx512f"))) void FloatsToHalfsAvx512(const float* src, int64_t n,
                                                            uint16_t* dst) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 f = _mm512_loadu_ps(src + i);
    const __m512i magnitude =
        _mm512_and_si512(_mm512_castps_si512(f), _mm512_set1_epi32(0x7fffffff));
    // a NaN, or nonzero under 2^-14 (f16's smallest normal)
    const __mmask16 special = _mm512_cmpgt_epu32_mask(magnitude, _mm512_set1_epi32(0x7f800000)) |
                              (_mm512_cmplt_epu32_mask(magnitude, _mm512_set1_epi32(0x38800000)) &
                               _mm512_cmpneq_epi32_mask(magnitude, _mm512_setzero_si512()));
    if (special != 0) {
      for (int64_t k = i; k < i + 16; ++k) dst[k] = FloatToHalf(src[k]);
      continue;
    }
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(dst + i),
        _mm512_maskz_cvtps_ph(0xffff, f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

__attribute__((target("avx2,f16c"))) void HalfsToFloatsAvx2(const uint16_t* src, int64_t n,
                                                            float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i magnitude = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
    const __m128i special =
        _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi16(magnitude, _mm_setzero_si128()),
                                   _mm_cmpgt_epi16(_mm_set1_epi16(0x400), magnitude)),
                     _mm_cmpgt_epi16(magnitude, _mm_set1_epi16(0x7c00)));
    if (_mm_movemask_epi8(special) != 0) {
      for (int64_t k = i; k < i + 8; ++k) dst[k] = HalfToFloat(src[k]);
      continue;
    }
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

__attribute__((target("avx2,f16c"))) void FloatsToHalfsAvx2(const float* src, int64_t n,
                                                            uint16_t* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_loadu_ps(src + i);
    const __m256i magnitude =
        _mm256_and_si256(_mm256_castps_si256(f), _mm256_set1_epi32(0x7fffffff));
    // (signed compares: the magnitudes are not negative)
    const __m256i special = _mm256_or_si256(
        _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000)),
        _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x38800000), magnitude),
                         _mm256_cmpgt_epi32(magnitude, _mm256_setzero_si256())));
    if (_mm256_movemask_epi8(special) != 0) {
      for (int64_t k = i; k < i + 8; ++k) dst[k] = FloatToHalf(src[k]);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}
#endif

int HardwareLevel() { return F16Level(); }

}  // namespace float16_internal

void HalfsToFloats(const uint16_t* src, int64_t n, float* dst) {
#if defined(__x86_64__)
  if (F16Level() == 2) return float16_internal::HalfsToFloatsAvx512(src, n, dst);
  if (F16Level() == 1) return float16_internal::HalfsToFloatsAvx2(src, n, dst);
#endif
  ConvertEach<HalfToFloat>(src, n, dst);
}
void FloatsToHalfs(const float* src, int64_t n, uint16_t* dst) {
#if defined(__x86_64__)
  if (F16Level() == 2) return float16_internal::FloatsToHalfsAvx512(src, n, dst);
  if (F16Level() == 1) return float16_internal::FloatsToHalfsAvx2(src, n, dst);
#endif
  ConvertEach<FloatToHalf>(src, n, dst);
}
void BF16sToFloats(const uint16_t* src, int64_t n, float* dst) {
  ConvertEach<BF16ToFloat>(src, n, dst);
}
void FloatsToBF16s(const float* src, int64_t n, uint16_t* dst) {
  ConvertEach<FloatToBF16>(src, n, dst);
}

bool WidenFloat16s(PrimitiveType type, const void* src, int64_t n, float* dst) {
  const auto* bits = static_cast<const uint16_t*>(src);
  if (type == PrimitiveType::kF16) {
    HalfsToFloats(bits, n, dst);
  } else if (type == PrimitiveType::kBF16) {
    BF16sToFloats(bits, n, dst);
  } else {
    return false;
  }
  return true;
}

bool NarrowToFloat16s(PrimitiveType type, const float* src, int64_t n, void* dst) {
  auto* bits = static_cast<uint16_t*>(dst);
  if (type == PrimitiveType::kF16) {
    FloatsToHalfs(src, n, bits);
  } else if (type == PrimitiveType::kBF16) {
    FloatsToBF16s(src, n, bits);
  } else {
    return false;
  }
  return true;
}

}  // namespace hlo
