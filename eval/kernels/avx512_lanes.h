// AVX-512 loads, stores and zeros as overloads per element type, so that one
// kernel template serves f32 (16 lanes a vector) and f64 (8 lanes). For the
// hand-vectorised kernels (row_dots.cc, tiny_gemm.cc), whose functions carry
// target("avx512f") and run only where the CPU has it.
#ifndef HLO_EVAL_KERNELS_AVX512_LANES_H_
#define HLO_EVAL_KERNELS_AVX512_LANES_H_

#include <immintrin.h>

#include <cstdint>

namespace hlo {
namespace avx512 {

#define HLO_AVX512_INLINE __attribute__((target("avx512f"), always_inline)) inline

// Whether this CPU runs AVX-512F (asked once).
inline bool Available() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

HLO_AVX512_INLINE __m512 Zero(const float*) { return _mm512_setzero_ps(); }
HLO_AVX512_INLINE __m512d Zero(const double*) { return _mm512_setzero_pd(); }
HLO_AVX512_INLINE __m512 Load(const float* p) { return _mm512_loadu_ps(p); }
HLO_AVX512_INLINE __m512d Load(const double* p) { return _mm512_loadu_pd(p); }
// The first n lanes (0 to all) at p; the others read as +0.
HLO_AVX512_INLINE __m512 LoadFirst(const float* p, int64_t n) {
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p);
}
HLO_AVX512_INLINE __m512d LoadFirst(const double* p, int64_t n) {
  return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1), p);
}
// The first n lanes (0 to all) of v to p; memory past them is not written.
HLO_AVX512_INLINE void StoreFirst(float* p, __m512 v, int64_t n) {
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v);
}
HLO_AVX512_INLINE void StoreFirst(double* p, __m512d v, int64_t n) {
  _mm512_mask_storeu_pd(p, static_cast<__mmask8>((1u << n) - 1), v);
}
HLO_AVX512_INLINE __m512 Broadcast(float x) { return _mm512_set1_ps(x); }
HLO_AVX512_INLINE __m512d Broadcast(double x) { return _mm512_set1_pd(x); }
// a * b + c, rounded once.
HLO_AVX512_INLINE __m512 Fma(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
HLO_AVX512_INLINE __m512d Fma(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
HLO_AVX512_INLINE __m512 Add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
HLO_AVX512_INLINE __m512d Add(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
// b where b > a (GT, as C++'s b > a ? b : a: a where equal or either is
// NaN), and its LT twin. (The zero-masked forms with every lane set: GCC
// 12's unmasked max and min start from an undefined vector, which
// -Wmaybe-uninitialized rejects.)
HLO_AVX512_INLINE __m512 Greater(__m512 a, __m512 b) { return _mm512_maskz_max_ps(0xffff, b, a); }
HLO_AVX512_INLINE __m512d Greater(__m512d a, __m512d b) { return _mm512_maskz_max_pd(0xff, b, a); }
HLO_AVX512_INLINE __m512 Lesser(__m512 a, __m512 b) { return _mm512_maskz_min_ps(0xffff, b, a); }
HLO_AVX512_INLINE __m512d Lesser(__m512d a, __m512d b) { return _mm512_maskz_min_pd(0xff, b, a); }
// The lanes where a == b (ordered: C++'s ==), and where a or b is NaN.
HLO_AVX512_INLINE uint32_t EqualLanes(__m512 a, __m512 b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
}
HLO_AVX512_INLINE uint32_t EqualLanes(__m512d a, __m512d b) {
  return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ);
}
HLO_AVX512_INLINE uint32_t UnorderedLanes(__m512 a, __m512 b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
}
HLO_AVX512_INLINE uint32_t UnorderedLanes(__m512d a, __m512d b) {
  return _mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q);
}
// The first n lanes (0 to all) at p; the others are `rest`'s.
HLO_AVX512_INLINE __m512 LoadFirstOr(const float* p, int64_t n, __m512 rest) {
  return _mm512_mask_loadu_ps(rest, static_cast<__mmask16>((1u << n) - 1), p);
}
HLO_AVX512_INLINE __m512d LoadFirstOr(const double* p, int64_t n, __m512d rest) {
  return _mm512_mask_loadu_pd(rest, static_cast<__mmask8>((1u << n) - 1), p);
}

}  // namespace avx512
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_AVX512_LANES_H_
