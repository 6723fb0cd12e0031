#include "eval/kernels/row_dots.h"

#include <immintrin.h>

namespace hlo {
namespace gemm {
namespace {

#define HLO_AVX512 __attribute__((target("avx512f"), always_inline)) inline


// Overloads per element type, so that one kernel template serves f32 (16
// lanes) and f64 (8 lanes).
HLO_AVX512 __m512 Zero512(const float*) { return _mm512_setzero_ps(); }
HLO_AVX512 __m512d Zero512(const double*) { return _mm512_setzero_pd(); }
HLO_AVX512 __m512 Load512(const float* p) { return _mm512_loadu_ps(p); }
HLO_AVX512 __m512d Load512(const double* p) { return _mm512_loadu_pd(p); }
HLO_AVX512 __m512 LoadFirst512(const float* p, int64_t n) {
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p);
}
HLO_AVX512 __m512d LoadFirst512(const double* p, int64_t n) {
  return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1), p);
}
HLO_AVX512 __m512 Fma512(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
HLO_AVX512 __m512d Fma512(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }

// The lanes folded in halves: 16 -> 8 -> 4 -> 2 -> 1 (f64: 8 -> 4 -> 2 -> 1).
// (Halves by masked extracts: GCC 12's casts and plain extracts start from
// an undefined vector, which -Wuninitialized rejects.)
HLO_AVX512 float Sum512(__m512 v) {
  const __m256 lo = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xff, _mm512_castps_pd(v), 0));
  const __m256 hi = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xff, _mm512_castps_pd(v), 1));
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}
HLO_AVX512 double Sum512(__m512d v) {
  const __m256d s4 = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, v, 0),
                                     _mm512_maskz_extractf64x4_pd(0xff, v, 1));
  const __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)));
}

// R rows from `mat`: one accumulator per row, each lane summing its
// columns in order from +0; a partial last vector is loaded as zeros past
// the end, which add +0 to their lanes.
template <typename T, int R>
__attribute__((target("avx512f"))) void Rows512(int64_t cols, const T* mat, int64_t ld,
                                                 const T* x, T* y, int64_t incy) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  decltype(Zero512(x)) acc[R];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) acc[i] = Zero512(x);
  int64_t c = 0;
  for (; c + kLanes <= cols; c += kLanes) {
    const auto xv = Load512(x + c);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) acc[i] = Fma512(Load512(mat + i * ld + c), xv, acc[i]);
  }
  if (c < cols) {
    const auto xv = LoadFirst512(x + c, cols - c);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) acc[i] = Fma512(LoadFirst512(mat + i * ld + c, cols - c), xv, acc[i]);
  }
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) y[i * incy] = Sum512(acc[i]);
}

#undef HLO_AVX512

// Eight rows at a time (eight accumulators and x's vector), then the
// rest one by one with the same per-row code.
template <typename T>
void AllRows(int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x, T* y,
             int64_t incy) {
  constexpr int kGroup = 8;
  int64_t r = 0;
  for (; r + kGroup <= rows; r += kGroup) {
    Rows512<T, kGroup>(cols, mat + r * ld, ld, x, y + r * incy, incy);
  }
  for (; r < rows; ++r) Rows512<T, 1>(cols, mat + r * ld, ld, x, y + r * incy, incy);
}

}  // namespace

bool HasRowDots() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

void RowDots(int64_t rows, int64_t cols, const float* mat, int64_t ld, const float* x, float* y,
             int64_t incy) {
  AllRows(rows, cols, mat, ld, x, y, incy);
}

void RowDots(int64_t rows, int64_t cols, const double* mat, int64_t ld, const double* x,
             double* y, int64_t incy) {
  AllRows(rows, cols, mat, ld, x, y, incy);
}

}  // namespace gemm
}  // namespace hlo
