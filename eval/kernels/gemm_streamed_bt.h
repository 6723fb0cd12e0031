// f32 products against a long transposed B that streams from memory (a
// language model's head: [256,768] x [50257,768]^T), summed as oneDNN's
// k-blocked sgemm sums them.
#ifndef HLO_EVAL_KERNELS_GEMM_STREAMED_BT_H_
#define HLO_EVAL_KERNELS_GEMM_STREAMED_BT_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// C (m x n, row-major, leading dimension ldc) = A B^T, A m x k (lda), B^T
// n x k (ldb), on the calling thread, where the CPU has AVX-512 and the
// shape is one this kernel runs faster than oneDNN's sgemm: few rows (m
// from kStreamedBtLeastRows to kStreamedBtMostRows) against a B^T of at
// least kStreamedBtLeastBytes, which no cache holds, and k at most
// kStreamedBtMostK. Returns false, touching nothing, otherwise.
//
// The arithmetic is OnednnGemm's: k in blocks of nearly equal length (at
// most kOnednnBlockK terms), each element of a block one fused
// multiply-add chain in k order from +0, the blocks' sums added to the
// element in order (the first stored). oneDNN's sgemm (2.6, on the
// Sapphire Rapids Xeon this was measured on) sums A B^T so from 16 rows up
// (under 16 it sums otherwise), so there the bits are oneDNN's, whichever
// of the two runs a product (gemm_streamed_bt_test checks the kernel
// against that definition, and warns where oneDNN's blocking differs).
//
// Why: oneDNN packs B's panels on its first pass over A, reading B^T's rows
// as the pass needs them; from memory those reads stall it (the LM head
// half, 256 x 25128 x 768 on one core: 50-53 ms with B^T streamed, 46-48
// with it in the shared cache). Here the vectors run along m (A packed
// once, transposed, 32 rows a tile), each tile broadcasts 12 rows of B^T
// where they lie, all three k blocks run a tile before the next, and the
// next 12 rows are prefetched while these are used: 46-47 ms either way.
bool StreamedBtGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                    int64_t ldb, float* c, int64_t ldc);

// The kernel without the shape test (for tests): false only where the CPU
// lacks AVX-512 or scratch memory could not be had.
bool StreamedBtKernel(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                      int64_t ldb, float* c, int64_t ldc);

inline constexpr int64_t kStreamedBtLeastRows = 16;
inline constexpr int64_t kStreamedBtMostRows = 256;
inline constexpr int64_t kStreamedBtLeastBytes = int64_t{16} << 20;
// Short k only: each tile reads its 32 packed rows of A over all of k for
// every 12 rows of B^T, which stays in the core's cache only while k is
// short. A training step's LM-head backward (dX = dY W^T: m 256, n 768,
// k 50304, A 51 MB) ran 125-206 ms here against 73-141 on oneDNN's
// k-blocked sgemm, the same bits; k 4096 (n 2048) 20-29 against 16-19,
// k 1536 even to slower; the LM head's own k 768 64-68 against 73-75.
inline constexpr int64_t kStreamedBtMostK = 1024;

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_STREAMED_BT_H_
