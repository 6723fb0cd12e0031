#include "eval/kernels/row_dots.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "eval/kernels/avx2_lanes.h"
#include "eval/kernels/avx512_lanes.h"

namespace hlo {
namespace gemm {
namespace {

using avx512::Fma;
using avx512::Load;
using avx512::LoadFirst;
using avx512::Zero;

// The lanes folded in halves: 16 -> 8 -> 4 -> 2 -> 1 (f64: 8 -> 4 -> 2 -> 1).
// (Halves by masked extracts: GCC 12's casts and plain extracts start from
// an undefined vector, which -Wuninitialized rejects.)
HLO_AVX512_INLINE float Sum512(__m512 v) {
  const __m256 lo = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xff, _mm512_castps_pd(v), 0));
  const __m256 hi = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xff, _mm512_castps_pd(v), 1));
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}
HLO_AVX512_INLINE double Sum512(__m512d v) {
  const __m256d s4 = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, v, 0),
                                   _mm512_maskz_extractf64x4_pd(0xff, v, 1));
  const __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)));
}

// Where a block of columns starts its rows' sums (from +0, or from the
// previous block's lanes in acc) and where it leaves them (in acc, or
// folded into y).
struct BlockEnds {
  bool first;
  bool last;
};

// One block of columns for `rows` rows: NV whole vectors of x held in
// registers, then `tail` columns (0 to a vector's lanes less one), the
// matrix read row after row, so that it streams from L2 in order. Eight
// rows at a time against one x vector from memory read the matrix as
// eight streams and loaded x once per eight products: 2.4 us for
// f32[256,256] from L2, this 1.65 us (a plain read of the 256 KiB: 1.6 us).
//
// Each lane sums its columns in order from +0 whatever the blocks, so the
// bits do not depend on them; columns past the tail are loaded as zeros,
// which add +0 to their lanes.
template <typename T, int NV>
__attribute__((target("avx512f"))) void Block512(int64_t rows, const T* mat, int64_t ld, const T* x,
                                                 int64_t tail, BlockEnds ends,
                                                 decltype(Zero(x))* acc, T* y, int64_t incy) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  decltype(Zero(x)) xv[NV + 1];
#pragma GCC unroll 16
  for (int j = 0; j < NV; ++j) xv[j] = Load(x + j * kLanes);
  xv[NV] = tail > 0 ? LoadFirst(x + NV * kLanes, tail) : Zero(x);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = mat + r * ld;
    auto a = ends.first ? Zero(x) : acc[r];
#pragma GCC unroll 16
    for (int j = 0; j < NV; ++j) a = Fma(Load(row + j * kLanes), xv[j], a);
    if (tail > 0) a = Fma(LoadFirst(row + NV * kLanes, tail), xv[NV], a);
    if (ends.last) {
      y[r * incy] = Sum512(a);
    } else {
      acc[r] = a;
    }
  }
}

// Block512 for `nv` whole vectors (at most kMostVectors).
constexpr int64_t kMostVectors = 16;
template <typename T>
void BlockAny(int64_t nv, int64_t rows, const T* mat, int64_t ld, const T* x, int64_t tail,
              BlockEnds ends, decltype(Zero(x))* acc, T* y, int64_t incy) {
  // One case per macro call, laid out by hand.
  // clang-format off
  switch (nv) {
#define HLO_BLOCK(n) \
  case n: return Block512<T, n>(rows, mat, ld, x, tail, ends, acc, y, incy);
    HLO_BLOCK(0) HLO_BLOCK(1) HLO_BLOCK(2) HLO_BLOCK(3) HLO_BLOCK(4) HLO_BLOCK(5) HLO_BLOCK(6)
    HLO_BLOCK(7) HLO_BLOCK(8) HLO_BLOCK(9) HLO_BLOCK(10) HLO_BLOCK(11) HLO_BLOCK(12)
    HLO_BLOCK(13) HLO_BLOCK(14) HLO_BLOCK(15) HLO_BLOCK(16)
#undef HLO_BLOCK
    default: return;
  }
}
// clang-format on

// Rows in chunks whose lanes stay in L1 between blocks (64 rows: 4 KiB),
// each chunk through the columns in blocks of kMostVectors vectors, the
// last with the columns past whole vectors.
template <typename T>
void AllRows(int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x, T* y, int64_t incy) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  constexpr int64_t kChunk = 64;
  alignas(64) decltype(Zero(x)) acc[kChunk];
  const int64_t whole = cols / kLanes, tail = cols % kLanes;
  for (int64_t r0 = 0; r0 < rows; r0 += kChunk) {
    const int64_t n = std::min(kChunk, rows - r0);
    const T* m = mat + r0 * ld;
    int64_t v = 0;
    for (; whole - v > kMostVectors; v += kMostVectors) {
      Block512<T, kMostVectors>(n, m + v * kLanes, ld, x + v * kLanes, 0, {v == 0, false}, acc,
                                nullptr, 0);
    }
    BlockAny<T>(whole - v, n, m + v * kLanes, ld, x + v * kLanes, tail, {v == 0, true}, acc,
                y + r0 * incy, incy);
  }
}

// The same sums without AVX-512, for any other machine: per row, lane l
// (of 64 bytes' worth) chains fma(row[c], x[c], acc) over the columns
// c = l mod lanes in order from +0, then the lanes fold in halves as
// Sum512 does. A fused multiply-add rounds once on every machine, so these
// are the AVX-512 kernel's bits (a row's lanes are never -0: each starts
// at +0, and x + (-x) and +0 + (-0) are +0, so the kernel's zero-filled
// tail columns change nothing that the plain tail loop here leaves out).
template <typename T>
__attribute__((always_inline)) inline void PortableRows(int64_t rows, int64_t cols, const T* mat,
                                                        int64_t ld, const T* x, T* y,
                                                        int64_t incy) {
  constexpr int kLanes = 64 / sizeof(T);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = mat + r * ld;
    T acc[kLanes] = {};
    int64_t c = 0;
    for (; c + kLanes <= cols; c += kLanes) {
      for (int l = 0; l < kLanes; ++l) acc[l] = std::fma(row[c + l], x[c + l], acc[l]);
    }
    for (int l = 0; c + l < cols; ++l) acc[l] = std::fma(row[c + l], x[c + l], acc[l]);
    for (int w = kLanes / 2; w >= 1; w /= 2) {
      for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
    }
    y[r * incy] = acc[0];
  }
}

// The same with AVX2 and FMA: a row's 64 bytes of lanes as two 32-byte
// registers (lanes 0.. and the upper half), four rows at a time sharing
// each load of x, the tail columns loaded under a mask as zeros (row and
// x, as the AVX-512 kernel's), the two halves added lane by lane and then
// folded as Sum512 folds its 32-byte halves' sum. (GCC vectorised
// PortableRows into 16-byte and scalar FMAs through the stack: a while
// loop's f32[256,256] gemv took 9.6 us on a Zen 3.)
#define HLO_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline
HLO_AVX2_INLINE __m256 Fma256(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
HLO_AVX2_INLINE __m256d Fma256(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); }
HLO_AVX2_INLINE float Fold256(__m256 lo, __m256 hi) {
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}
HLO_AVX2_INLINE double Fold256(__m256d lo, __m256d hi) {
  const __m256d s4 = _mm256_add_pd(lo, hi);
  const __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)));
}

template <typename T, int kRows>
HLO_AVX2_INLINE void RowsAvx2(const T* mat, int64_t ld, int64_t cols, const T* x, T* y,
                              int64_t incy) {
  constexpr int64_t kHalf = 32 / sizeof(T);
  decltype(avx2::Zero(x)) lo[kRows], hi[kRows];
  for (int r = 0; r < kRows; ++r) lo[r] = hi[r] = avx2::Zero(x);
  int64_t c = 0;
  for (; c + 2 * kHalf <= cols; c += 2 * kHalf) {
    const auto xl = avx2::Load(x + c), xh = avx2::Load(x + c + kHalf);
    for (int r = 0; r < kRows; ++r) {
      lo[r] = Fma256(avx2::Load(mat + r * ld + c), xl, lo[r]);
      hi[r] = Fma256(avx2::Load(mat + r * ld + c + kHalf), xh, hi[r]);
    }
  }
  if (const int64_t tail = cols - c; tail > 0) {
    const int64_t n_lo = std::min(tail, kHalf), n_hi = tail - n_lo;
    const auto xl = avx2::LoadFirst(x + c, n_lo);
    for (int r = 0; r < kRows; ++r)
      lo[r] = Fma256(avx2::LoadFirst(mat + r * ld + c, n_lo), xl, lo[r]);
    if (n_hi > 0) {
      const auto xh = avx2::LoadFirst(x + c + kHalf, n_hi);
      for (int r = 0; r < kRows; ++r) {
        hi[r] = Fma256(avx2::LoadFirst(mat + r * ld + c + kHalf, n_hi), xh, hi[r]);
      }
    }
  }
  for (int r = 0; r < kRows; ++r) y[r * incy] = Fold256(lo[r], hi[r]);
}

template <typename T>
__attribute__((target("avx2,fma"))) void PortableRowsFma(int64_t rows, int64_t cols, const T* mat,
                                                         int64_t ld, const T* x, T* y,
                                                         int64_t incy) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) RowsAvx2<T, 4>(mat + r * ld, ld, cols, x, y + r * incy, incy);
  for (; r < rows; ++r) RowsAvx2<T, 1>(mat + r * ld, ld, cols, x, y + r * incy, incy);
}
#undef HLO_AVX2_INLINE

// Without hardware FMA (the baseline: libm's fma).
template <typename T>
void PortableRowsBaseline(int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x, T* y,
                          int64_t incy) {
  PortableRows(rows, cols, mat, ld, x, y, incy);
}

enum class Kernel { kAvx512, kAvx2Fma, kBaseline };
Kernel KernelHere() {
  static const Kernel kernel = avx512::Available() ? Kernel::kAvx512
                               : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                                   ? Kernel::kAvx2Fma
                                   : Kernel::kBaseline;
  return kernel;
}

template <typename T>
void Dispatch(int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x, T* y,
              int64_t incy) {
  switch (KernelHere()) {
    case Kernel::kAvx512:
      return AllRows(rows, cols, mat, ld, x, y, incy);
    case Kernel::kAvx2Fma:
      return PortableRowsFma(rows, cols, mat, ld, x, y, incy);
    case Kernel::kBaseline:
      return PortableRowsBaseline(rows, cols, mat, ld, x, y, incy);
  }
}

}  // namespace

void RowDots(int64_t rows, int64_t cols, const float* mat, int64_t ld, const float* x, float* y,
             int64_t incy) {
  Dispatch(rows, cols, mat, ld, x, y, incy);
}

void RowDots(int64_t rows, int64_t cols, const double* mat, int64_t ld, const double* x, double* y,
             int64_t incy) {
  Dispatch(rows, cols, mat, ld, x, y, incy);
}

void PortableRowDots(int64_t rows, int64_t cols, const float* mat, int64_t ld, const float* x,
                     float* y, int64_t incy) {
  PortableRowsBaseline(rows, cols, mat, ld, x, y, incy);
}

void PortableRowDots(int64_t rows, int64_t cols, const double* mat, int64_t ld, const double* x,
                     double* y, int64_t incy) {
  PortableRowsBaseline(rows, cols, mat, ld, x, y, incy);
}

}  // namespace gemm
}  // namespace hlo
