// f32 products of few terms per element on libxsmm's JIT kernels.
#ifndef HLO_EVAL_KERNELS_GEMM_LIBXSMM_H_
#define HLO_EVAL_KERNELS_GEMM_LIBXSMM_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// C (m x n, row-major, leading dimension ldc) = A (m x k) B (k x n), both
// untransposed and row-major, on libxsmm's kernels when libxsmm is built in
// and k is at most kLibxsmmMaxK: libxsmm sums each element as one fused
// multiply-add chain in k order, as OpenBLAS's kernels do within one of
// their k blocks (on whole tiles the bits were the same). Its kernels do not
// pack B, so C goes in panels of kLibxsmmPanelCols columns, whose B stays
// in the core's L2 (scripts/bench-gemm has the table). libxsmm's kernel
// registry makes about 10 MB resident at its first use, so products of
// fewer than kLibxsmmMinProduct multiply-adds stay on OpenBLAS: a small
// program never pays it. Returns false, touching nothing, otherwise.
bool LibxsmmGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t ldb, float* c, int64_t ldc);

inline constexpr int64_t kLibxsmmMaxK = 256;
inline constexpr int64_t kLibxsmmPanelCols = 256;
inline constexpr int64_t kLibxsmmMinProduct = int64_t{1} << 23;

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_LIBXSMM_H_
