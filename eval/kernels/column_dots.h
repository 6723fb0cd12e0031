// RowDots' sums with the matrix the other way round: c[i][j] = the sum of
// a's row i times b's column j, where b is [k][n] row-major (a dot's
// right-hand side as it lies), each sum exactly as RowDots makes it (64
// bytes of lanes, lane l a chain of fused multiply-adds over p = l mod
// lanes in order from +0, the lanes folded in halves). The lanes of one
// vector are here sixteen (f32) or eight (f64) columns j, so b is read in
// place: the product of few results over a long contraction (a weight
// gradient's [27,4096] x [4096,16]) no longer copies b's columns into rows
// first.
#ifndef HLO_EVAL_KERNELS_COLUMN_DOTS_H_
#define HLO_EVAL_KERNELS_COLUMN_DOTS_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// c[i * ldc + j] for i < m, j < n, from a[i * lda + p] and b[p * ldb + j]
// (p < k), with AVX-512 or with AVX2 and FMA (a lane at a time, several rows
// of a sharing each row of b: up to 8 with AVX-512, 6 with AVX2; cnn_grad's
// weight gradient f32[3,3,3,16], a [27,4096] x [4096,16], no longer copies
// b's columns; the convolution took 0.21 ms, then 0.12 a row at a time,
// now 0.09); false (nothing written) on
// other CPUs, whose callers copy b's columns and call RowDots instead (the
// same bits).
bool ColumnDots(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc);
bool ColumnDots(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
                int64_t ldb, double* c, int64_t ldc);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_COLUMN_DOTS_H_
