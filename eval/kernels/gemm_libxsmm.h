// f32 products of few terms per element on libxsmm's JIT kernels.
#ifndef HLO_EVAL_KERNELS_GEMM_LIBXSMM_H_
#define HLO_EVAL_KERNELS_GEMM_LIBXSMM_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// C (m x n, row-major, leading dimension ldc) = A op(B), A (m x k)
// untransposed and row-major, op(B) B (k x n) or, with trans_b, B^T (B
// n x k), on libxsmm's kernels when libxsmm is built in and k is at most
// kLibxsmmMaxK: libxsmm sums each element as one fused multiply-add chain in
// k order, as OpenBLAS's kernels do within one of their k blocks (on whole
// tiles the bits were the same). Its kernels do not pack B, so C goes in
// panels of kLibxsmmPanelCols columns, whose B stays in the core's L2
// (scripts/bench-gemm has the table); a transposed B is copied a panel at a
// time (libxsmm 1.17 makes no kernel for it), so both forms give the same
// bits. libxsmm's first use costs a process about 3 ms (its start and
// the kernel's compilation) and 2 MB resident (10 MB while its registry
// was mapped locked, libxsmm_mmap.cc), so instructions of fewer than
// kLibxsmmMinProduct multiply-adds (`calls` products of this shape: a
// batched dot's batches) stay on OpenBLAS: a small program never pays it.
// Returns false, touching nothing, otherwise.
bool LibxsmmGemm(bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls = 1);

// The same for k past kLibxsmmMaxK, where libxsmm's kernels are AVX-512
// and OpenBLAS's narrower (its Haswell kernels on a Zen 4): k in blocks
// of nearly equal length, at most kLibxsmmBlockK terms each, each block's
// product one chain, the block sums added in order. At 128 terms a block
// every product measured came out more accurate than OpenBLAS's (mean
// error relative to the sum of |products| against f64: 256 x 128 x 512
// 11.1e-9 against 14.3e-9, 512 x 64 x 384 12.5 against 14.3); blocks of
// 256 were faster but less accurate (14.7, 14.9). Speed: with the
// operands in cache, as an instruction finds its producers' results,
// 1.1-1.9x OpenBLAS's Haswell kernels (GPT-2's [256,512] x [512,128] on
// both cores 0.20 -> 0.105 ms); in scripts/bench-gemm's interleaved calls,
// each library's evicting the others' data, 1.05-1.15x (xsmm-128: libxsmm
// reads A and B where they lie, OpenBLAS packs them). Products oneDNN
// takes (gemm_onednn.h) are tried there first. Returns false, touching
// nothing, where it does not run.
bool LibxsmmBlockedGemm(bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                        const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls = 1);

inline constexpr int64_t kLibxsmmMaxK = 256;
inline constexpr int64_t kLibxsmmBlockK = 128;
inline constexpr int64_t kLibxsmmPanelCols = 256;
inline constexpr int64_t kLibxsmmMinProduct = int64_t{1} << 23;

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_LIBXSMM_H_
