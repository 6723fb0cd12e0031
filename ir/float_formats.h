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
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) {
    return static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7FC0u);
  }
  // Adding 0x7FFF plus the kept LSB rounds to nearest even; a carry walks into
  // the exponent, and past the largest finite value into inf, as IEEE wants.
  return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
inline float BF16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
uint16_t FloatToHalf(float v);
float HalfToFloat(uint16_t bits);

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
