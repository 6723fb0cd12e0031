// A 4x4 transpose of 4-byte elements in SSE registers, the tile of the
// blocked transposes (eval/kernels/data_copy.cc, and libxsmm's transposed
// operand panels in eval/kernels/gemm_libxsmm.cc).
#ifndef HLO_EVAL_KERNELS_TRANSPOSE_4X4_H_
#define HLO_EVAL_KERNELS_TRANSPOSE_4X4_H_

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>

namespace hlo {

// Rows of src (stride ss) become rows of dst (stride ds). kStream uses
// non-temporal stores (dst 16-byte aligned).
template <bool kStream>
inline void Transpose4x4(uint32_t* dst, int64_t ds, const uint32_t* src, int64_t ss) {
  __m128 r0 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
  __m128 r1 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + ss)));
  __m128 r2 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * ss)));
  __m128 r3 = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * ss)));
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  if constexpr (kStream) {
    _mm_stream_ps(reinterpret_cast<float*>(dst), r0);
    _mm_stream_ps(reinterpret_cast<float*>(dst + ds), r1);
    _mm_stream_ps(reinterpret_cast<float*>(dst + 2 * ds), r2);
    _mm_stream_ps(reinterpret_cast<float*>(dst + 3 * ds), r3);
  } else {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_castps_si128(r0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + ds), _mm_castps_si128(r1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * ds), _mm_castps_si128(r2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * ds), _mm_castps_si128(r3));
  }
}

}  // namespace hlo

#endif  // __SSE2__

#endif  // HLO_EVAL_KERNELS_TRANSPOSE_4X4_H_
