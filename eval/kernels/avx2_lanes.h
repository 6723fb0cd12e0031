// AVX2 loads, stores and zeros as overloads per element type (f32: 8 lanes
// a register, f64: 4), the 32-byte twin of avx512_lanes.h, for the
// hand-vectorised kernels' paths on machines without AVX-512 (row_dots.cc,
// tiny_gemm.cc). target("avx2") alone: callers with "avx2,fma" inline
// them too.
#ifndef HLO_EVAL_KERNELS_AVX2_LANES_H_
#define HLO_EVAL_KERNELS_AVX2_LANES_H_

#include <immintrin.h>

#include <cstdint>

namespace hlo {
namespace avx2 {

#define HLO_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline

// Whether this CPU runs AVX2 (asked once).
inline bool Available() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

HLO_AVX2_INLINE __m256 Zero(const float*) { return _mm256_setzero_ps(); }
HLO_AVX2_INLINE __m256d Zero(const double*) { return _mm256_setzero_pd(); }
HLO_AVX2_INLINE __m256 Load(const float* p) { return _mm256_loadu_ps(p); }
HLO_AVX2_INLINE __m256d Load(const double* p) { return _mm256_loadu_pd(p); }
// A mask of the first n lanes (0 to all).
HLO_AVX2_INLINE __m256i FirstLanes(int64_t n, const float*) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
HLO_AVX2_INLINE __m256i FirstLanes(int64_t n, const double*) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}
// The first n lanes at p, the others +0; nothing past them read.
HLO_AVX2_INLINE __m256 LoadFirst(const float* p, int64_t n) {
  return _mm256_maskload_ps(p, FirstLanes(n, p));
}
HLO_AVX2_INLINE __m256d LoadFirst(const double* p, int64_t n) {
  return _mm256_maskload_pd(p, FirstLanes(n, p));
}
// The first n lanes of v to p; memory past them is not written.
HLO_AVX2_INLINE void StoreFirst(float* p, __m256 v, int64_t n) {
  _mm256_maskstore_ps(p, FirstLanes(n, p), v);
}
HLO_AVX2_INLINE void StoreFirst(double* p, __m256d v, int64_t n) {
  _mm256_maskstore_pd(p, FirstLanes(n, p), v);
}
HLO_AVX2_INLINE __m256 Broadcast(float x) { return _mm256_set1_ps(x); }
HLO_AVX2_INLINE __m256d Broadcast(double x) { return _mm256_set1_pd(x); }

#undef HLO_AVX2_INLINE

}  // namespace avx2
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_AVX2_LANES_H_
