// Small real products in plain k order on AVX-512 or AVX2 (gemm.h's small products,
// which sum as XLA's reference evaluator does): C[i][j] starts at +0 and
// adds op(A)[i][p] * B[p][j] for p = 0, 1, ..., k - 1, each product and
// each sum rounded on its own (never a fused multiply-add). A row of C stays
// in registers across k, 16 f32 (8 f64) columns a vector and up to 8
// vectors at a time, B read by rows. The plain loop added into C in memory,
// so every k step waited on a store and its reload: scan_rnn's [4,32] x
// [32,32] took about 0.6 us a call.
#ifndef HLO_EVAL_KERNELS_TINY_GEMM_H_
#define HLO_EVAL_KERNELS_TINY_GEMM_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// C (m x n, leading dimension ldc) = op(A) B in plain k order, B untransposed
// (B[p * ldb + j]), A as `ta` says (A[p * lda + i] or A[i * lda + p]).
// AVX2's 32-byte registers where AVX-512 is missing; false, with nothing
// written, where the machine has neither.
bool TinyGemmRows(bool ta, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc);
bool TinyGemmRows(bool ta, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double* c, int64_t ldc);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_TINY_GEMM_H_
