#include "eval/kernels/column_dots.h"

#include <immintrin.h>

#include <algorithm>

#include "eval/kernels/avx512_lanes.h"

namespace hlo {
namespace gemm {
namespace {

using namespace avx512;  // NOLINT: the lanes' vocabulary

// Row p of b's `cols` columns (the others read as +0).
template <typename T>
HLO_AVX512_INLINE auto RowOfB(const T* b, int64_t p, int64_t ldb, int64_t cols)
    -> decltype(Zero(b)) {
  return cols == 64 / static_cast<int64_t>(sizeof(T)) ? Load(b + p * ldb)
                                                      : LoadFirst(b + p * ldb, cols);
}

// Row i's sums for `cols` (at most a vector's lanes) columns of b from j0:
// lanes[l] holds lane l's chain for every column at once (vector element
// j - j0), and the fold adds lanes[l] and lanes[l + w] as RowDots' halves
// add lane l and lane l + w.
template <typename T>
__attribute__((target("avx512f"))) void RowOfColumns(int64_t k, const T* a, const T* b, int64_t ldb,
                                                     int64_t cols, T* c) {
  constexpr int kLanes = 64 / sizeof(T);
  using V = decltype(Zero(a));
  V lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = Zero(a);
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes) {
#pragma GCC unroll 16
    for (int l = 0; l < kLanes; ++l)
      lanes[l] = Fma(RowOfB(b, p + l, ldb, cols), Broadcast(a[p + l]), lanes[l]);
  }
  for (int l = 0; p + l < k; ++l)
    lanes[l] = Fma(RowOfB(b, p + l, ldb, cols), Broadcast(a[p + l]), lanes[l]);
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) lanes[l] = Add(lanes[l], lanes[l + w]);
  }
  StoreFirst(c, lanes[0], cols);
}

template <typename T>
bool Columns(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
             T* c, int64_t ldc) {
  if (!avx512::Available()) return false;
  constexpr int64_t kLanes = 64 / sizeof(T);
  for (int64_t j0 = 0; j0 < n; j0 += kLanes) {
    const int64_t cols = std::min(kLanes, n - j0);
    for (int64_t i = 0; i < m; ++i)
      RowOfColumns(k, a + i * lda, b + j0, ldb, cols, c + i * ldc + j0);
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
