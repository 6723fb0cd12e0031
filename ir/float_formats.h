// Exact conversions between double/float and XLA's small floating-point
// formats: f16, bf16, every f8 variant, f4e2m1fn and f8e8m0fnu.
//
// Rounding is to nearest, ties to even, done once from the double (never via
// float). Overflow, NaN, infinity and -0 follow ml_dtypes (which XLA uses):
//   * formats with infinity (f16, bf16, e5m2, e4m3, e3m4): IEEE rules;
//   * e4m3fn: overflow and inf give NaN (0x7F, sign kept);
//   * fnuz formats: overflow, inf and NaN give 0x80; -0 becomes +0;
//   * f4e2m1fn: no NaN/inf; overflow and inf saturate to +-6, and NaN gives
//     the -0 pattern (ml_dtypes' choice, 0x8; -NaN gives 0x0);
//   * f8e8m0fnu: powers of two 2^-127..2^127, 0xFF is NaN; zero, negatives,
//     overflow and inf give NaN; ties between powers round up (the implicit
//     bit is the round-to-even bit, as in ml_dtypes).
#ifndef HLO_IR_FLOAT_FORMATS_H_
#define HLO_IR_FLOAT_FORMATS_H_

#include <algorithm>
#include <bit>
#include <cstdint>

#include "ir/primitive_type.h"

namespace hlo {

// Encodes `value` in the small float format `type` (IsSmallFloat(type)).
// Returns the bits in the low BitWidth(type) bits.
uint32_t EncodeSmallFloat(PrimitiveType type, double value);
// Decodes bits of a small float format to double (exact). Bits above
// BitWidth(type) are ignored. NaN patterns decode to a quiet NaN carrying the
// pattern's sign bit.
double DecodeSmallFloat(PrimitiveType type, uint32_t bits);

// Fast paths for the evaluator's hot loops; they agree bit for bit with
// EncodeSmallFloat / DecodeSmallFloat (NaN input gives the canonical quiet
// NaN with its sign; decoding keeps a NaN's payload). The bf16 ones are
// inline: a dot's or convolution's operands convert an element at a time,
// and a call per element cost more than the shift (and vectorises once
// inlined).
inline uint16_t FloatToBF16(float v) {
  const uint32_t b = std::bit_cast<uint32_t>(v);
  // Adding 0x7FFF plus the kept LSB rounds to nearest even; a carry walks into
  // the exponent, and past the largest finite value into inf, as IEEE wants.
  const uint32_t rounded = (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = ((b >> 16) & 0x8000u) | 0x7FC0u;
  // (One conditional expression, not a branch: the loops vectorise.)
  return static_cast<uint16_t>((b & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan : rounded);
}
inline float BF16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
// The f16 ones compute every case and pick by masks, a min and at most
// one conditional expression (GCC 12 keeps a chain of them as branches), so
// that a conversion loop vectorises: a dot of f16 operands spent half its
// time in a call per element.
// `a` where `c`, else `b`.
inline uint32_t SelectBits(bool c, uint32_t a, uint32_t b) {
  return b ^ ((a ^ b) & (0u - static_cast<uint32_t>(c)));
}
inline uint16_t FloatToHalf(float v) {
  const uint32_t b = std::bit_cast<uint32_t>(v);
  const uint32_t a = b & 0x7FFFFFFFu;
  // Normal in f16: rebias, then round 13 bits away, ties to even (a carry
  // walks into the exponent); from 65520 = max + half an ulp (a tie going
  // to the even pattern) up, inf, as the min gives.
  const uint32_t normal =
      std::min((a - (112u << 23) + 0xFFFu + ((a >> 13) & 1u)) >> 13, uint32_t{0x7C00});
  // Denormal in f16: units of 2^-24, ties to even; rounding up to 0x400
  // gives the smallest normal, the right pattern. Below 2^-25 the shift
  // (clamped at 31) leaves 0, and 2^-25 itself is a tie going to 0.
  const uint32_t exponent = a >> 23;
  const uint32_t shift = std::min(126u - std::min(exponent, 125u), 31u);
  const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
  const uint32_t quotient = sig >> shift;
  const uint32_t rest = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
  const uint32_t denormal = quotient + ((rest + (quotient & 1u)) > half ? 1u : 0u);
  uint32_t h = a >= 0x38800000u ? normal : denormal;
  h |= static_cast<uint32_t>(a > 0x7F800000u) << 9;  // NaN: 0x7C00 | 0x200, the quiet one
  return static_cast<uint16_t>(((b & 0x80000000u) >> 16) | h);
}
inline float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  const uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);
  const uint32_t special = 0x7F800000u | (mantissa << 13);  // inf or NaN, payload kept
  // Zero or denormal: mantissa * 2^-24, exact in float.
  const uint32_t denormal = std::bit_cast<uint32_t>(static_cast<float>(mantissa) * 0x1p-24f);
  uint32_t magnitude = SelectBits(exponent == 0, denormal, normal);
  magnitude = SelectBits(exponent == 0x1Fu, special, magnitude);
  return std::bit_cast<float>(sign | magnitude);
}

// Properties of each format, for shape/type code and for printing.
struct SmallFloatInfo {
  int exponent_bits;
  int mantissa_bits;
  int exponent_bias;
  bool has_infinity;
  bool has_nan;
  bool has_negative_zero;
  bool nan_is_negative_zero_pattern;  // fnuz: 0x80 is the only NaN
  bool unsigned_only;                 // e8m0
};
const SmallFloatInfo& GetSmallFloatInfo(PrimitiveType type);

// Largest finite value and smallest positive normal, as double. For
// f8e8m0fnu, which has no zero or denormals, the smallest value 2^-127 (as
// numeric_limits::min() in ml_dtypes).
double SmallFloatMax(PrimitiveType type);
double SmallFloatMinNormal(PrimitiveType type);

}  // namespace hlo

#endif  // HLO_IR_FLOAT_FORMATS_H_
