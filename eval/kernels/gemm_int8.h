// Products of 8-bit integer matrices (s8 and u8 operands: quantized
// models' dots, `preferred_element_type=int32`) on oneDNN's VNNI int8 gemm,
// or its AMX matmul where the CPU has AMX (gemm_onednn.h).
//
// An integer dot's result is its sum of products modulo 2^bits of the
// result type. vpdpbusd sums byte products into 32-bit lanes exactly, so
// while no partial sum can pass 2^31 in magnitude the s32 sums are the
// exact sums, in any order and however the product is split: k at most
// kInt8MaxK, where 255 x 128 x k stays under 2^31 (oneDNN adds 128 to an
// s8 A to make it unsigned and subtracts it again), and for results wider
// than 32 bits also k |a|max |b|max under 2^31 (the s32 sum is then the
// true one, sign-extended). A u8 B, which oneDNN takes only as s8, is
// shifted to s8 (b - 128) and 128 times each row's sum of A added back,
// modulo 2^32. So results are the exact wrapping loop's bits, as
// Gemm<uint64_t> gives them, at 7-15x the speed of the operands widened to
// f32 for sgemm (gemm_exact_int.h) on a Zen 4: about 700 GOPS a thread
// against 85-95, or 35-45 where k past 1024 needs dgemm (scripts/
// bench-gemm's int8 table); s8 [512,1024] x [1024,512] -> s32 in hlo-run
// 3.5 -> 0.36 ms on both cores.
#ifndef HLO_EVAL_KERNELS_GEMM_INT8_H_
#define HLO_EVAL_KERNELS_GEMM_INT8_H_

#include <cstdint>

#include "ir/primitive_type.h"

namespace hlo {
namespace gemm {

// C (m x n, row-major, leading dimension ldc, elements of `result`: s8 to
// s64 or u8 to u64) = op(A) op(B) for A of type a_type and B of b_type
// (each s8 or u8, row-major; op transposes where ta / tb), split across
// the cores. False where the types, k or the CPU do not allow it (above),
// or for fewer than kOnednnMinProduct multiply-adds over `calls` products
// of this shape (oneDNN makes its kernels at its first call, ~10-15 ms);
// C is then untouched, unless oneDNN itself failed (it fails only on
// arguments this never passes), when C is to be computed anew.
bool Int8Gemm(PrimitiveType a_type, PrimitiveType b_type, PrimitiveType result, bool ta, bool tb,
              int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
              int64_t ldb, void* c, int64_t ldc, int64_t calls = 1);

inline constexpr int64_t kInt8MaxK = 65793;  // 255 * 128 * k < 2^31

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_INT8_H_
