// Long f32 products on oneDNN's sgemm on CPUs with AVX-512.
#ifndef HLO_EVAL_KERNELS_GEMM_ONEDNN_H_
#define HLO_EVAL_KERNELS_GEMM_ONEDNN_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// C (m x n, row-major, leading dimension ldc) = op(A) op(B) as Gemm takes
// them, on oneDNN's sgemm when oneDNN is built in, the instruction has at
// least kOnednnMinProduct multiply-adds, and the CPU has AVX-512. Where
// OpenBLAS ran AVX2 kernels there (a Zen 5 with OPENBLAS_CORETYPE=Haswell)
// oneDNN's ran about 2x them (scripts/bench-gemm); where it runs its own
// AVX-512 ones (Cooperlake on an Emerald Rapids Xeon) oneDNN still ran
// hlo-run's long products faster on both cores (interleaved, mean of
// medians: f32 1024^3 9.9 -> 8.7 ms, the shared mlp 9.6 -> 7.8,
// transformer 58.6 -> 52.6, GPT-2 small's forward pass 457 -> 423, ResNet-50's
// 120 -> 109), though one thread of each ran about even. k is summed
// in blocks of at most kOnednnBlockK terms, each block's products one chain
// added to C, as OpenBLAS sums its k blocks: oneDNN's own longer blocks were
// less accurate (mean relative error 1.25e-8 against 1.06e-8 at k = 768).
// One thread: the caller's. oneDNN makes its kernels at its first call
// (about 25 ms), so instructions of fewer multiply-adds (`calls` products of
// this shape: a batched dot's batches, a split product's parts), which a
// short program runs, stay on OpenBLAS. Returns false, touching nothing,
// otherwise.
bool OnednnGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls = 1);

// Whether OnednnGemm runs a product of this shape here (else it returns
// false): oneDNN built in and loaded, AVX-512, and kOnednnMinProduct.
bool OnednnSgemmRuns(int64_t m, int64_t n, int64_t k, int64_t calls = 1);

// C (m x n, s32, row-major, leading dimension ldc) = op(A) op(B) for
// 8-bit integers, A s8 or (a_unsigned) u8 and B s8, on oneDNN's int8 gemm
// (one thread: the caller's), only where the CPU has AVX512-VNNI: its
// vpdpbusd sums four byte products into 32 bits, wrapping, where oneDNN's
// kernels for older CPUs sum pairs into 16 bits with saturation (dnnl.h's
// warning), so the caller's bound on k (no partial sum past 2^31, eval/
// kernels/gemm_int8.h) makes every element the exact sum. Dense operands
// (A not transposed, no padding past a row of A, B or C) go to oneDNN's
// matmul primitive instead where it runs AMX's tile instructions (tdpbssd
// and tdpbusd also sum byte products into 32 bits, wrapping): 2.8x the
// VNNI gemm on an s8 [512,1024] x [1024,512] product (scripts/bench-gemm's
// int8 table: 1.2-9x on the models' shapes). No minimum size here: the
// caller weighs oneDNN's first-call cost. Returns false, touching nothing,
// where oneDNN or VNNI is missing.
bool OnednnInt8Gemm(bool a_unsigned, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                    const void* a, int64_t lda, const int8_t* b, int64_t ldb, int32_t* c,
                    int64_t ldc);
// Whether OnednnInt8Gemm runs here (tests).
bool OnednnInt8Available();

inline constexpr int64_t kOnednnBlockK = 256;
inline constexpr int64_t kOnednnMinProduct = int64_t{1} << 25;

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_ONEDNN_H_
