#include "eval/interp/float16_convert.h"

#include "eval/vector_clones.h"
#include "ir/float_formats.h"

namespace hlo {
namespace {

// dst[i] = Convert(src[i]), Convert inlined so that the loop vectorises.
template <auto Convert, typename From, typename To>
HLO_VECTOR_CLONES void ConvertEach(const From* __restrict src, int64_t n, To* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = Convert(src[i]);
}

}  // namespace

void HalfsToFloats(const uint16_t* src, int64_t n, float* dst) {
  ConvertEach<HalfToFloat>(src, n, dst);
}
void FloatsToHalfs(const float* src, int64_t n, uint16_t* dst) {
  ConvertEach<FloatToHalf>(src, n, dst);
}
void BF16sToFloats(const uint16_t* src, int64_t n, float* dst) {
  ConvertEach<BF16ToFloat>(src, n, dst);
}
void FloatsToBF16s(const float* src, int64_t n, uint16_t* dst) {
  ConvertEach<FloatToBF16>(src, n, dst);
}

bool WidenFloat16s(PrimitiveType type, const void* src, int64_t n, float* dst) {
  const auto* bits = static_cast<const uint16_t*>(src);
  if (type == PrimitiveType::kF16) {
    HalfsToFloats(bits, n, dst);
  } else if (type == PrimitiveType::kBF16) {
    BF16sToFloats(bits, n, dst);
  } else {
    return false;
  }
  return true;
}

bool NarrowToFloat16s(PrimitiveType type, const float* src, int64_t n, void* dst) {
  auto* bits = static_cast<uint16_t*>(dst);
  if (type == PrimitiveType::kF16) {
    FloatsToHalfs(src, n, bits);
  } else if (type == PrimitiveType::kBF16) {
    FloatsToBF16s(src, n, bits);
  } else {
    return false;
  }
  return true;
}

}  // namespace hlo
