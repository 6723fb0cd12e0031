#include "eval/kernels/tiny_gemm.h"

#include <immintrin.h>

#include <algorithm>

#include "eval/kernels/avx2_lanes.h"
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
// read zeros and are never stored.) Then Any##Name, the block for `nv`
// vectors (1 to kMostVectors). One text for both ISAs, which differ in the
// target, the register width and the lane helpers' names.
// Macro bodies laid out by hand: clang-format reflows the statement macros.
// clang-format off
#define HLO_COLUMN_BLOCK(Name, Target, kBytes, Zero, Broadcast, LoadFirst, StoreFirst, MulAdd)   \
  template <typename T, int NV>                                                                   \
  __attribute__((target(Target))) void Name(bool ta, int64_t m, int64_t k, const T* a,           \
                                            int64_t lda, const T* b, int64_t ldb, T* c,          \
                                            int64_t ldc, int64_t last) {                         \
    constexpr int64_t kLanes = (kBytes) / sizeof(T);                                              \
    using V = decltype(Zero(b));                                                                  \
    for (int64_t i = 0; i < m; ++i) {                                                             \
      V acc[NV];                                                                                  \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) acc[v] = Zero(b);                      \
      for (int64_t p = 0; p < k; ++p) {                                                           \
        const V x = Broadcast(ta ? a[p * lda + i] : a[i * lda + p]);                              \
        const T* row = b + p * ldb;                                                               \
        _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) {                                    \
          acc[v] = MulAdd(acc[v], x, LoadFirst(row + v * kLanes, v + 1 < NV ? kLanes : last));    \
        }                                                                                         \
      }                                                                                           \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) {                                      \
        StoreFirst(c + i * ldc + v * kLanes, acc[v], v + 1 < NV ? kLanes : last);                 \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  template <typename T>                                                                           \
  void Any##Name(int nv, bool ta, int64_t m, int64_t k, const T* a, int64_t lda, const T* b,     \
                 int64_t ldb, T* c, int64_t ldc, int64_t last) {                                  \
    switch (nv) {                                                                                 \
      case 1: return Name<T, 1>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 2: return Name<T, 2>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 3: return Name<T, 3>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 4: return Name<T, 4>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 5: return Name<T, 5>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 6: return Name<T, 6>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 7: return Name<T, 7>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      case 8: return Name<T, 8>(ta, m, k, a, lda, b, ldb, c, ldc, last);                          \
      default: return;                                                                            \
    }                                                                                             \
  }
// clang-format on
HLO_COLUMN_BLOCK(ColumnBlock, "avx512f", 64, Zero, Broadcast, LoadFirst, StoreFirst, MulAdd)
// The same with AVX2's 32-byte registers, for machines without AVX-512.
// target("avx2") without "fma": no fused multiply-add can be formed, so
// every product and sum rounds on its own as above.
#define HLO_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline
HLO_AVX2_INLINE __m256 MulAdd8(__m256 acc, __m256 x, __m256 y) {
  return _mm256_add_ps(acc, _mm256_mul_ps(x, y));
}
HLO_AVX2_INLINE __m256d MulAdd8(__m256d acc, __m256d x, __m256d y) {
  return _mm256_add_pd(acc, _mm256_mul_pd(x, y));
}

HLO_COLUMN_BLOCK(ColumnBlockAvx2, "avx2", 32, avx2::Zero, avx2::Broadcast, avx2::LoadFirst,
                 avx2::StoreFirst, MulAdd8)
#undef HLO_COLUMN_BLOCK
#undef HLO_AVX2_INLINE

template <typename T>
bool Rows(bool ta, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc) {
  const bool wide = avx512::Available();
  if (!wide && !avx2::Available()) return false;
  const int64_t lanes = (wide ? 64 : 32) / static_cast<int64_t>(sizeof(T));
  const int64_t block_cols = kMostVectors * lanes;
  for (int64_t j = 0; j < n; j += block_cols) {
    const int64_t cols = std::min(block_cols, n - j);
    const int nv = static_cast<int>((cols + lanes - 1) / lanes);
    const int64_t last = cols - (nv - 1) * lanes;
    if (wide) {
      AnyColumnBlock<T>(nv, ta, m, k, a, lda, b + j, ldb, c + j, ldc, last);
    } else {
      AnyColumnBlockAvx2<T>(nv, ta, m, k, a, lda, b + j, ldb, c + j, ldc, last);
    }
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
