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
#include <type_traits>

#include "ir/float_formats.h"
#include "ir/literal.h"
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

// Element i of `lit` as GetDouble gives it, typed for f32, f64, bf16 and
// f16 (without GetDouble's general decoding).
inline double LoadLikeGetDouble(const Literal& lit, int64_t i) {
  switch (lit.element_type()) {
    case PrimitiveType::kF32:
      return lit.typed<float>()[i];
    case PrimitiveType::kF64:
      return lit.typed<double>()[i];
    case PrimitiveType::kBF16:
    case PrimitiveType::kF16:
      return WidenHalf(lit.element_type(), reinterpret_cast<const uint16_t*>(lit.data())[i]);
    default:
      return lit.GetDouble(i);
  }
}

// Elements [at, at + n) of `lit` set to v[0..n) as SetDouble sets them,
// the type dispatched once (f32 values narrow to bf16/f16 by the inline
// FloatToBF16/FloatToHalf, which round as EncodeSmallFloat does).
template <typename V>
void StoreRowLikeSetDouble(Literal& lit, int64_t at, const V* v, int64_t n) {
  const PrimitiveType t = lit.element_type();
  if (t == PrimitiveType::kF32) {
    float* out = lit.typed<float>() + at;
    for (int64_t k = 0; k < n; ++k) out[k] = static_cast<float>(v[k]);
  } else if (t == PrimitiveType::kF64) {
    double* out = lit.typed<double>() + at;
    for (int64_t k = 0; k < n; ++k) out[k] = static_cast<double>(v[k]);
  } else if (t == PrimitiveType::kBF16 || t == PrimitiveType::kF16) {
    uint16_t* out = reinterpret_cast<uint16_t*>(lit.data()) + at;
    for (int64_t k = 0; k < n; ++k) {
      if constexpr (std::is_same_v<V, float>) {
        out[k] = t == PrimitiveType::kBF16 ? FloatToBF16(v[k]) : FloatToHalf(v[k]);
      } else {
        out[k] = EncodeHalf(t, static_cast<double>(v[k]));
      }
    }
  } else {
    for (int64_t k = 0; k < n; ++k) lit.SetDouble(at + k, v[k]);
  }
}

// Element i of `lit` set to v as SetDouble sets it.
inline void StoreLikeSetDouble(Literal& lit, int64_t i, double v) {
  StoreRowLikeSetDouble(lit, i, &v, 1);
}

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_FLOAT_CODEC_H_
