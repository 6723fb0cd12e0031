#include "eval/kernels/column_dots.h"

#include <immintrin.h>

#include <algorithm>

#include "eval/kernels/avx2_lanes.h"
#include "eval/kernels/avx512_lanes.h"

namespace hlo {
namespace gemm {
namespace {

using namespace avx512;  // NOLINT: the lanes' vocabulary

#define HLO_AVX2_FMA_INLINE __attribute__((target("avx2,fma"), always_inline)) inline
HLO_AVX2_FMA_INLINE __m256 Fma256(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
HLO_AVX2_FMA_INLINE __m256d Fma256(__m256d a, __m256d b, __m256d c) {
  return _mm256_fmadd_pd(a, b, c);
}
HLO_AVX2_FMA_INLINE __m256i Bits(__m256 v) { return _mm256_castps_si256(v); }
HLO_AVX2_FMA_INLINE __m256i Bits(__m256d v) { return _mm256_castpd_si256(v); }
#undef HLO_AVX2_FMA_INLINE

// Row p of b's `cols` columns (the others read as +0).
template <typename T>
HLO_AVX512_INLINE auto RowOfB(const T* b, int64_t p, int64_t ldb, int64_t cols)
    -> decltype(Zero(b)) {
  return cols == 64 / static_cast<int64_t>(sizeof(T)) ? Load(b + p * ldb)
                                                      : LoadFirst(b + p * ldb, cols);
}

// ---- AVX2 and FMA: the same sums, a lane at a time ----------------------------

// RowDots' lane l of row i and column j chains fma(b[p][j], a[i][p], acc)
// over p = l, l + L, l + 2L, ... (L: 64 bytes of lanes) from +0. Here the
// registers hold columns (eight f32, four f64), two per row of b, and a
// lane's chain runs for R rows of a at once (2R accumulators), each row of
// b loaded once for the R rows. So that a and b stay in L1 over the L lane
// passes, p goes in chunks of kChunkLines lanes' worth; each lane's
// accumulators wait in `lanes` between chunks. The lanes then fold in
// halves, lane l + w into lane l, as RowDots' Fold256 folds them.
constexpr int64_t kChunkLines = 16;  // 256 f32 (128 f64) values of p a chunk
constexpr int kMostRows = 6;         // 12 accumulators, 2 loads of b, a broadcast

template <typename T, int R>
__attribute__((target("avx2,fma"))) void LanesAvx2(int64_t k, const T* a, int64_t lda, const T* b,
                                                   int64_t ldb, int64_t cols, T* c, int64_t ldc) {
  constexpr int64_t kLanes = 64 / sizeof(T), kWidth = 32 / sizeof(T);
  using V = decltype(avx2::Zero(a));
  alignas(32) T lanes[R][kLanes][2 * kWidth] = {};
  const int64_t lo = std::min(cols, kWidth), hi = cols - lo;
  const int64_t chunk = kChunkLines * kLanes;
  for (int64_t p0 = 0; p0 < k; p0 += chunk) {
    const int64_t p1 = std::min(k, p0 + chunk);
    for (int64_t l = 0; l < kLanes && p0 + l < p1; ++l) {
      V acc[R][2];
      for (int r = 0; r < R; ++r) {
        acc[r][0] = avx2::Load(lanes[r][l]);
        acc[r][1] = avx2::Load(lanes[r][l] + kWidth);
      }
      for (int64_t p = p0 + l; p < p1; p += kLanes) {
        const T* row = b + p * ldb;
        const V b0 = lo == kWidth ? avx2::Load(row) : avx2::LoadFirst(row, lo);
        const V b1 = hi == kWidth ? avx2::Load(row + kWidth)
                     : hi > 0     ? avx2::LoadFirst(row + kWidth, hi)
                                  : avx2::Zero(a);
        for (int r = 0; r < R; ++r) {
          const V av = avx2::Broadcast(a[r * lda + p]);
          acc[r][0] = Fma256(b0, av, acc[r][0]);
          acc[r][1] = Fma256(b1, av, acc[r][1]);
        }
      }
      for (int r = 0; r < R; ++r) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes[r][l]), Bits(acc[r][0]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes[r][l] + kWidth), Bits(acc[r][1]));
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int64_t w = kLanes / 2; w >= 1; w /= 2) {
      for (int64_t l = 0; l < w; ++l) {
        for (int64_t q = 0; q < cols; ++q) lanes[r][l][q] = lanes[r][l][q] + lanes[r][l + w][q];
      }
    }
    for (int64_t q = 0; q < cols; ++q) c[r * ldc + q] = lanes[r][0][q];
  }
}

// LanesAvx2 for 1 to kMostRows rows.
template <typename T>
using LanesKernel = void (*)(int64_t, const T*, int64_t, const T*, int64_t, int64_t, T*, int64_t);
template <typename T>
constexpr LanesKernel<T> kLanesByRows[kMostRows] = {LanesAvx2<T, 1>, LanesAvx2<T, 2>,
                                                    LanesAvx2<T, 3>, LanesAvx2<T, 4>,
                                                    LanesAvx2<T, 5>, LanesAvx2<T, 6>};

template <typename T>
void ColumnsAvx2(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                 T* c, int64_t ldc) {
  constexpr int64_t kCols = 64 / sizeof(T);  // two registers of columns
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    const int64_t cols = std::min(kCols, n - j0);
    for (int64_t i = 0; i < m; i += kMostRows) {
      const T* ai = a + i * lda;
      T* ci = c + i * ldc + j0;
      kLanesByRows<T>[std::min<int64_t>(kMostRows, m - i) - 1](k, ai, lda, b + j0, ldb, cols, ci,
                                                               ldc);
    }
  }
}

bool HasAvx2Fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// Rows i..i+R-1's sums for `cols` (at most a vector's lanes) columns of
// b: lane l's chain for a row holds every column at once (a register,
// vector element j - j0) and runs over p = l, l + L, ..., L the lanes;
// the lanes then fold in halves, lane l + w into lane l, as RowDots'
// halves add lane l and lane l + w. The chains run a chunk of p at a time
// for the R rows together, each row of b loaded once for all of them, the
// lanes waiting in memory between chunks. (One row at a time read all of
// b again per row from L2: a small CNN's weight gradient, 27 rows against
// 4096 x 16, spent 70 us there, 35 now.)
constexpr int kMostRows512 = 8;

template <typename T, int R>
__attribute__((target("avx512f"))) void Lanes512(int64_t k, const T* a, int64_t lda, const T* b,
                                                 int64_t ldb, int64_t cols, T* c, int64_t ldc) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  using V = decltype(Zero(a));
  alignas(64) T lanes[R][kLanes][kLanes] = {};
  const int64_t chunk = kChunkLines * kLanes;
  for (int64_t p0 = 0; p0 < k; p0 += chunk) {
    const int64_t p1 = std::min(k, p0 + chunk);
    for (int64_t l = 0; l < kLanes && p0 + l < p1; ++l) {
      V acc[R];
      for (int r = 0; r < R; ++r) acc[r] = Load(lanes[r][l]);
      for (int64_t p = p0 + l; p < p1; p += kLanes) {
        const V row = RowOfB(b, p, ldb, cols);
        for (int r = 0; r < R; ++r) acc[r] = Fma(row, Broadcast(a[r * lda + p]), acc[r]);
      }
      for (int r = 0; r < R; ++r) StoreFirst(lanes[r][l], acc[r], kLanes);
    }
  }
  for (int r = 0; r < R; ++r) {
    V v[kLanes];
    for (int64_t l = 0; l < kLanes; ++l) v[l] = Load(lanes[r][l]);
    for (int64_t w = kLanes / 2; w >= 1; w /= 2) {
      for (int64_t l = 0; l < w; ++l) v[l] = Add(v[l], v[l + w]);
    }
    StoreFirst(c + r * ldc, v[0], cols);
  }
}

template <typename T>
constexpr LanesKernel<T> kLanes512ByRows[kMostRows512] = {
    Lanes512<T, 1>, Lanes512<T, 2>, Lanes512<T, 3>, Lanes512<T, 4>,
    Lanes512<T, 5>, Lanes512<T, 6>, Lanes512<T, 7>, Lanes512<T, 8>};

template <typename T>
bool Columns(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
             T* c, int64_t ldc) {
  if (!avx512::Available()) {
    if (!HasAvx2Fma()) return false;
    ColumnsAvx2(m, n, k, a, lda, b, ldb, c, ldc);
    return true;
  }
  constexpr int64_t kLanes = 64 / sizeof(T);
  for (int64_t j0 = 0; j0 < n; j0 += kLanes) {
    const int64_t cols = std::min(kLanes, n - j0);
    for (int64_t i = 0; i < m; i += kMostRows512) {
      kLanes512ByRows<T>[std::min<int64_t>(kMostRows512, m - i) - 1](
          k, a + i * lda, lda, b + j0, ldb, cols, c + i * ldc + j0, ldc);
    }
  }
  return true;
}

}  // namespace

bool ColumnDots(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc) {
  return Columns(m, n, k, a, lda, b, ldb, c, ldc);
}

bool ColumnDots(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
                int64_t ldb, double* c, int64_t ldc) {
  return Columns(m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace gemm
}  // namespace hlo
