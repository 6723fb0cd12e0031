// The 16-bit floats (f16, bf16) <-> f32 over whole arrays, for the operands
// and results of dots and convolutions computed in f32 and for convert and
// the elementwise ops on 16-bit floats (computed in f32): HalfToFloat,
// FloatToHalf, BF16ToFloat and FloatToBF16 (ir/float_formats.h) element by
// element, compiled per vector width so that the loops vectorise (one call
// per element took half an f16 dot's time; bf16's loops, inline but
// compiled for the baseline, a third of a bf16 convolution's).
#ifndef HLO_EVAL_INTERP_FLOAT16_CONVERT_H_
#define HLO_EVAL_INTERP_FLOAT16_CONVERT_H_

#include <cstdint>

#include "ir/primitive_type.h"

namespace hlo {

void HalfsToFloats(const uint16_t* src, int64_t n, float* dst);
void FloatsToHalfs(const float* src, int64_t n, uint16_t* dst);
void BF16sToFloats(const uint16_t* src, int64_t n, float* dst);
void FloatsToBF16s(const float* src, int64_t n, uint16_t* dst);

// The one of the above for `type`: src, n elements of f16 or bf16 bits,
// widened into dst (WidenFloat16s), or dst's f16 or bf16 bits from src
// (NarrowToFloat16s). False, and nothing read or written, for any other
// type.
bool WidenFloat16s(PrimitiveType type, const void* src, int64_t n, float* dst);
bool NarrowToFloat16s(PrimitiveType type, const float* src, int64_t n, void* dst);

// The hardware conversions behind HalfsToFloats and FloatsToHalfs, one per
// instruction set (for tests: each must give the codec's bits), and the
// level this CPU runs (2: AVX-512, 1: AVX2 with F16C, 0: the codec's loop).
namespace float16_internal {
#if defined(__x86_64__)
void HalfsToFloatsAvx512(const uint16_t* src, int64_t n, float* dst);
void FloatsToHalfsAvx512(const float* src, int64_t n, uint16_t* dst);
void HalfsToFloatsAvx2(const uint16_t* src, int64_t n, float* dst);
void FloatsToHalfsAvx2(const float* src, int64_t n, uint16_t* dst);
#endif
int HardwareLevel();
}  // namespace float16_internal

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_FLOAT16_CONVERT_H_
