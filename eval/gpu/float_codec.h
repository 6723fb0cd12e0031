// Element codecs for the GPU calls' typed loops: each reads an element as
// Literal::GetDouble gives it and writes a value as Literal::SetDouble
// stores it, without their per-element type dispatch (and, for bf16 and
// f16, without DecodeSmallFloat's ldexp).
#ifndef HLO_EVAL_GPU_FLOAT_CODEC_H_
#define HLO_EVAL_GPU_FLOAT_CODEC_H_

#include <bit>
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

// EncodeSmallFloat(type, x) for an IEEE 16-bit format of kMantissa
// fraction bits and exponent bias kBias, inline: the same rounding of the
// double's significand to the format's grid (ties to even, subnormals on
// the fixed grid below the smallest normal, a carry into the exponent),
// inf past the largest finite value, NaNs the quiet NaN of their sign.
template <int kMantissa, int kBias>
inline uint16_t EncodeIeee16(double x) {
  constexpr uint32_t kInf = ((uint32_t{1} << (15 - kMantissa)) - 1) << kMantissa;
  constexpr uint32_t kMaxFinite = kInf - 1;
  constexpr int kMinExponent = 1 - kBias;
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const uint32_t sign = static_cast<uint32_t>(b >> 63) << 15;
  const uint64_t magnitude = b & ~(uint64_t{1} << 63);
  constexpr uint64_t kDoubleInf = uint64_t{0x7FF} << 52;
  if (magnitude > kDoubleInf) return static_cast<uint16_t>(sign | kInf | (1u << (kMantissa - 1)));
  if (magnitude == kDoubleInf) return static_cast<uint16_t>(sign | kInf);
  if (magnitude == 0) return static_cast<uint16_t>(sign);
  const int biased = static_cast<int>(magnitude >> 52);
  const uint64_t fraction = magnitude & ((uint64_t{1} << 52) - 1);
  const int e = biased == 0 ? -1022 : biased - 1023;
  const uint64_t significand = biased == 0 ? fraction : fraction | (uint64_t{1} << 52);
  const int binade = e > kMinExponent ? e : kMinExponent;
  const int shift = (binade - kMantissa) - (e - 52);  // > 0 for every finite double
  uint64_t n = 0;
  if (shift < 64) {
    const uint64_t quotient = significand >> shift;
    const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    n = quotient + (rest > half || (rest == half && (quotient & 1)));
  }
  const uint64_t mag = (static_cast<uint64_t>(binade - kMinExponent) << kMantissa) + n;
  return static_cast<uint16_t>(sign | (mag > kMaxFinite ? kInf : static_cast<uint32_t>(mag)));
}

// EncodeSmallFloat for bf16 or f16.
inline uint16_t EncodeHalf(PrimitiveType type, double x) {
  return type == PrimitiveType::kBF16 ? EncodeIeee16<7, 127>(x) : EncodeIeee16<10, 15>(x);
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

// bf16 or f16 (`type`): written as EncodeSmallFloat, SetDouble's rounding,
// writes it.
struct HalfCodec {
  using Storage = uint16_t;
  PrimitiveType type;
  double Load(uint16_t bits) const { return WidenHalf(type, bits); }
  uint16_t Store(double x) const { return EncodeHalf(type, x); }
};

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_FLOAT_CODEC_H_
