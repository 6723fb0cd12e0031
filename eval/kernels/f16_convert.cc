#include "eval/kernels/f16_convert.h"

#include "eval/vector_clones.h"
#include "ir/float_formats.h"

namespace hlo {

HLO_VECTOR_CLONES void HalfsToFloats(const uint16_t* __restrict src, int64_t n,
                                     float* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

HLO_VECTOR_CLONES void FloatsToHalfs(const float* __restrict src, int64_t n,
                                     uint16_t* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

}  // namespace hlo
