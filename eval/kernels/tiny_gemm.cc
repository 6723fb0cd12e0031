#include "eval/kernels/tiny_gemm.h"

#include <immintrin.h>

#include <algorithm>

#include "eval/kernels/avx512_lanes.h"

namespace hlo {
namespace gemm {
namespace {

using avx512::Broadcast;
using avx512::LoadFirst;
using avx512::StoreFirst;
using avx512::Zero;

// The multiplies and adds through the rounding-mode intrinsics (at the
// current mode, as the plain instructions round): builtins the compiler
// never contracts into a fused multiply-add, which it may do to a plain
// vector a * b + c.
// (The zero-masked forms with every lane set: GCC 12's unmasked ones start
// from an undefined vector, which -Wmaybe-uninitialized rejects.)
HLO_AVX512_INLINE __m512 MulAdd(__m512 acc, __m512 x, __m512 y) {
  constexpr __mmask16 kAll = 0xffff;
  const __m512 product = _mm512_maskz_mul_round_ps(kAll, x, y, _MM_FROUND_CUR_DIRECTION);
  return _mm512_maskz_add_round_ps(kAll, acc, product, _MM_FROUND_CUR_DIRECTION);
}
HLO_AVX512_INLINE __m512d MulAdd(__m512d acc, __m512d x, __m512d y) {
  constexpr __mmask8 kAll = 0xff;
  const __m512d product = _mm512_maskz_mul_round_pd(kAll, x, y, _MM_FROUND_CUR_DIRECTION);
  return _mm512_maskz_add_round_pd(kAll, acc, product, _MM_FROUND_CUR_DIRECTION);
}

constexpr int kMostVectors = 8;

// Columns [0, (NV - 1) * lanes + last) of C for every row: NV vectors of
// sums held across k, the last one `last` lanes wide. (Lanes past `last`
// read zeros and are never stored.)
template <typename T, int NV>
__attribute__((target("avx512f"))) void ColumnBlock(bool ta, int64_t m, int64_t k, const T* a,
                                                    int64_t lda, const T* b, int64_t ldb, T* c,
                                                    int64_t ldc, int64_t last) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  using V = decltype(Zero(b));
  for (int64_t i = 0; i < m; ++i) {
    V acc[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[v] = Zero(b);
    for (int64_t p = 0; p < k; ++p) {
      const V x = Broadcast(ta ? a[p * lda + i] : a[i * lda + p]);
      const T* row = b + p * ldb;
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        acc[v] = MulAdd(acc[v], x, LoadFirst(row + v * kLanes, v + 1 < NV ? kLanes : last));
      }
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      StoreFirst(c + i * ldc + v * kLanes, acc[v], v + 1 < NV ? kLanes : last);
    }
  }
}

// ColumnBlock for `nv` vectors (1 to kMostVectors).
template <typename T>
void AnyBlock(int nv, bool ta, int64_t m, int64_t k, const T* a, int64_t lda, const T* b,
              int64_t ldb, T* c, int64_t ldc, int64_t last) {
  // One case per macro call, laid out by hand.
  // clang-format off
  switch (nv) {
#define HLO_BLOCK(n) \
  case n: return ColumnBlock<T, n>(ta, m, k, a, lda, b, ldb, c, ldc, last);
    HLO_BLOCK(1) HLO_BLOCK(2) HLO_BLOCK(3) HLO_BLOCK(4)
    HLO_BLOCK(5) HLO_BLOCK(6) HLO_BLOCK(7) HLO_BLOCK(8)
#undef HLO_BLOCK
    default: return;
  }
  // clang-format on
}

template <typename T>
bool Rows(bool ta, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc) {
  if (!avx512::Available()) return false;
  constexpr int64_t kLanes = 64 / sizeof(T);
  constexpr int64_t kBlockCols = kMostVectors * kLanes;
  for (int64_t j = 0; j < n; j += kBlockCols) {
    const int64_t cols = std::min(kBlockCols, n - j);
    const int nv = static_cast<int>((cols + kLanes - 1) / kLanes);
    AnyBlock<T>(nv, ta, m, k, a, lda, b + j, ldb, c + j, ldc, cols - (nv - 1) * kLanes);
  }
  return true;
}

}  // namespace

bool TinyGemmRows(bool ta, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc) {
  return Rows(ta, m, n, k, a, lda, b, ldb, c, ldc);
}

bool TinyGemmRows(bool ta, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double* c, int64_t ldc) {
  return Rows(ta, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace gemm
}  // namespace hlo
