// Element codecs for the GPU calls' typed loops: each reads an element as
// Literal::GetDouble gives it and writes a value as Literal::SetDouble
// stores it, without their per-element type dispatch (and, for bf16 and
// f16, without DecodeSmallFloat's ldexp).
#ifndef HLO_EVAL_GPU_FLOAT_CODEC_H_
#define HLO_EVAL_GPU_FLOAT_CODEC_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/float_formats.h"
#include "ir/primitive_type.h"

namespace hlo::gpu {

// A bf16 or f16 element widened as DecodeSmallFloat widens it: the exact
// value, NaNs the quiet NaN of their sign whatever their payload.
inline float WidenHalf(PrimitiveType type, uint16_t bits) {
  const float v = type == PrimitiveType::kBF16 ? BF16ToFloat(bits) : HalfToFloat(bits);
  return v != v ? std::copysign(std::numeric_limits<float>::quiet_NaN(), v) : v;
}

struct F32Codec {
  using Storage = float;
  double Load(float v) const { return v; }
  float Store(double x) const { return static_cast<float>(x); }
};

struct F64Codec {
  using Storage = double;
  double Load(double v) const { return v; }
  double Store(double x) const { return x; }
};

// bf16 or f16 (`type`): written by EncodeSmallFloat, SetDouble's rounding.
struct HalfCodec {
  using Storage = uint16_t;
  PrimitiveType type;
  double Load(uint16_t bits) const { return WidenHalf(type, bits); }
  uint16_t Store(double x) const { return static_cast<uint16_t>(EncodeSmallFloat(type, x)); }
};

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_FLOAT_CODEC_H_
