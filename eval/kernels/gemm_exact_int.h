// Integer products on the float BLAS, exactly. An integer dot's result is
// its sum of products modulo 2^bits (Gemm<uint64_t> sums modulo 2^64, the
// operands sign-extended). When every product and every partial sum, in any
// order, is an integer of magnitude at most 2^24 (f32) or 2^53 (f64), a
// float GEMM computes each of them without rounding: the bound is k times
// the largest magnitudes of the two operands, taken as two's-complement
// int64. So an s8 x s8 -> s32 product with k < 1024 (|a b| <= 2^14) runs on
// sgemm, and most other integer products of narrow types on dgemm, giving
// the wrapping loop's bits at BLAS speed (a 1024^3 s8 dot: 0.74 s in the
// loop).
#ifndef HLO_EVAL_KERNELS_GEMM_EXACT_INT_H_
#define HLO_EVAL_KERNELS_GEMM_EXACT_INT_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// The float type an integer product of `k` terms over operands of largest
// magnitudes `max_a` and `max_b` can run in exactly: 32 (f32), 64 (f64), or
// 0 for neither.
int ExactFloatBits(int64_t k, uint64_t max_a, uint64_t max_b);

// Gemm<uint64_t>'s product (same arguments) on Gemm<float> or
// Gemm<double> when ExactFloatBits allows and the product is large enough
// for the conversions to pay; false, touching nothing, otherwise (or when
// its buffers cannot be had).
bool ExactIntegerGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const uint64_t* a,
                      int64_t lda, const uint64_t* b, int64_t ldb, uint64_t* c, int64_t ldc,
                      int64_t calls);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_EXACT_INT_H_
