// f16 <-> f32 over whole arrays, for the operands and results of dots and
// convolutions computed in f32: FloatToHalf and HalfToFloat
// (ir/float_formats.h) element by element, compiled per vector width so
// the loops vectorise (one call per element took half an f16 dot's time).
#ifndef HLO_EVAL_KERNELS_F16_CONVERT_H_
#define HLO_EVAL_KERNELS_F16_CONVERT_H_

#include <cstdint>

namespace hlo {

void HalfsToFloats(const uint16_t* src, int64_t n, float* dst);
void FloatsToHalfs(const float* src, int64_t n, uint16_t* dst);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_F16_CONVERT_H_
