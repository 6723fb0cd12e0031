#include "ir/float_formats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace hlo {
namespace {

// How a format spends its special encodings.
enum class Kind : uint8_t {
  kIeee,          // all-ones exponent: inf (mantissa 0) or NaN
  kFn,            // no inf; NaN is S.1111.111 (e4m3fn)
  kFnuz,          // no inf, no -0; 0x80 is the only NaN
  kNoNan,         // every pattern finite (f4e2m1fn)
  kExponentOnly,  // e8m0fnu: 2^(bits-127), 0xFF is NaN
};

struct Format {
  SmallFloatInfo info;
  Kind kind;
  int bits;
  uint32_t sign_bit;  // 0 for the unsigned e8m0
  uint32_t mag_mask;  // every bit but the sign
  uint32_t max_mag;   // magnitude bits of the largest finite value
  uint32_t inf_mag;   // kIeee only
};

constexpr Format MakeFormat(int e, int m, int bias, Kind kind) {
  Format f{};
  const bool is_unsigned = kind == Kind::kExponentOnly;
  f.info = SmallFloatInfo{
      e,
      m,
      bias,
      /*has_infinity=*/kind == Kind::kIeee,
      /*has_nan=*/kind != Kind::kNoNan,
      /*has_negative_zero=*/kind == Kind::kIeee || kind == Kind::kFn || kind == Kind::kNoNan,
      /*nan_is_negative_zero_pattern=*/kind == Kind::kFnuz,
      /*unsigned_only=*/is_unsigned};
  f.kind = kind;
  f.bits = e + m + (is_unsigned ? 0 : 1);
  f.sign_bit = is_unsigned ? 0 : 1u << (f.bits - 1);
  f.mag_mask = (1u << (f.bits - (is_unsigned ? 0 : 1))) - 1;
  f.inf_mag = ((1u << e) - 1) << m;
  switch (kind) {
    case Kind::kIeee:
      f.max_mag = f.inf_mag - 1;
      break;
    case Kind::kFn:
      f.max_mag = f.mag_mask - 1;
      break;
    case Kind::kFnuz:
      f.max_mag = f.mag_mask;
      break;
    case Kind::kNoNan:
      f.max_mag = f.mag_mask;
      break;
    case Kind::kExponentOnly:
      f.max_mag = f.mag_mask - 1;
      break;
  }
  return f;
}

constexpr Format kF16 = MakeFormat(5, 10, 15, Kind::kIeee);
constexpr Format kBF16 = MakeFormat(8, 7, 127, Kind::kIeee);
constexpr Format kF8E5M2 = MakeFormat(5, 2, 15, Kind::kIeee);
constexpr Format kF8E4M3 = MakeFormat(4, 3, 7, Kind::kIeee);
constexpr Format kF8E3M4 = MakeFormat(3, 4, 3, Kind::kIeee);
constexpr Format kF8E4M3FN = MakeFormat(4, 3, 7, Kind::kFn);
// fnuz biases are one more than IEEE's, since no exponent is kept for inf.
constexpr Format kF8E4M3B11FNUZ = MakeFormat(4, 3, 11, Kind::kFnuz);
constexpr Format kF8E5M2FNUZ = MakeFormat(5, 2, 16, Kind::kFnuz);
constexpr Format kF8E4M3FNUZ = MakeFormat(4, 3, 8, Kind::kFnuz);
constexpr Format kF4E2M1FN = MakeFormat(2, 1, 1, Kind::kNoNan);
constexpr Format kF8E8M0FNU = MakeFormat(8, 0, 127, Kind::kExponentOnly);
// The MX formats' 6-bit floats: finite only, no NaN (ml_dtypes' float6_*).
constexpr Format kF6E2M3FN = MakeFormat(2, 3, 1, Kind::kNoNan);
constexpr Format kF6E3M2FN = MakeFormat(3, 2, 3, Kind::kNoNan);

const Format& FormatOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16:
      return kF16;
    case PrimitiveType::kBF16:
      return kBF16;
    case PrimitiveType::kF8E5M2:
      return kF8E5M2;
    case PrimitiveType::kF8E4M3:
      return kF8E4M3;
    case PrimitiveType::kF8E4M3FN:
      return kF8E4M3FN;
    case PrimitiveType::kF8E4M3B11FNUZ:
      return kF8E4M3B11FNUZ;
    case PrimitiveType::kF8E5M2FNUZ:
      return kF8E5M2FNUZ;
    case PrimitiveType::kF8E4M3FNUZ:
      return kF8E4M3FNUZ;
    case PrimitiveType::kF8E3M4:
      return kF8E3M4;
    case PrimitiveType::kF4E2M1FN:
      return kF4E2M1FN;
    case PrimitiveType::kF8E8M0FNU:
      return kF8E8M0FNU;
    case PrimitiveType::kF6E2M3FN:
      return kF6E2M3FN;
    case PrimitiveType::kF6E3M2FN:
      return kF6E3M2FN;
    default:
      break;
  }
  // A caller bug, not a data error: there is no sensible format to use.
  std::fprintf(stderr, "float_formats: %s is not a small float type\n",
               std::string(PrimitiveTypeName(type)).c_str());
  std::abort();
}

// The NaN a conversion produces, as ml_dtypes makes it: the format's quiet NaN,
// negated when the input's sign is set.
uint32_t NanBits(const Format& f, bool negative) {
  const uint32_t sign = negative ? f.sign_bit : 0;
  switch (f.kind) {
    case Kind::kIeee:
      return sign | f.inf_mag | (1u << (f.info.mantissa_bits - 1));
    case Kind::kFn:
      return sign | f.mag_mask;
    case Kind::kFnuz:
      return f.sign_bit;
    // ml_dtypes' f4e2m1fn "quiet_NaN" is the -0 pattern, and negating it
    // flips the sign bit: NaN -> 0x8, -NaN -> 0x0.
    case Kind::kNoNan:
      return f.sign_bit ^ sign;
    case Kind::kExponentOnly:
      return f.mag_mask;
  }
  return 0;
}

// What a too-large finite value or an infinity becomes.
uint32_t OverflowBits(const Format& f, bool negative) {
  const uint32_t sign = negative ? f.sign_bit : 0;
  switch (f.kind) {
    case Kind::kIeee:
      return sign | f.inf_mag;
    case Kind::kNoNan:
      return sign | f.max_mag;  // saturates
    default:
      return NanBits(f, negative);  // no inf: NaN
  }
}

bool IsNanBits(const Format& f, uint32_t bits) {
  switch (f.kind) {
    case Kind::kIeee:
      return (bits & f.mag_mask) > f.inf_mag;
    case Kind::kFn:
      return (bits & f.mag_mask) == f.mag_mask;
    case Kind::kFnuz:
      return bits == f.sign_bit;
    case Kind::kNoNan:
      return false;
    case Kind::kExponentOnly:
      return bits == f.mag_mask;
  }
  return false;
}

// x >> shift, rounded to nearest with ties to even.
uint64_t ShiftRightRoundEven(uint64_t x, int shift) {
  if (shift <= 0) return x << -shift;
  if (shift >= 64) return 0;
  const uint64_t quotient = x >> shift;
  const uint64_t rest = x & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  return quotient + (rest > half || (rest == half && (quotient & 1)));
}

// Rounds a positive finite double to the format's magnitude bits, with an
// unbounded exponent: the result may exceed max_mag, which means overflow.
// The grid is the IEEE one (code 0 is zero, codes below 1 << m are
// denormals), ties going to the even significand; a carry out of the
// significand moves into the exponent field by plain addition. For e8m0 this
// is exactly ml_dtypes' rounding: 1.5 -> 2 (significand 1 is odd), values in
// (2^-127, 2^-126) -> 2^-126, smaller ones -> code 0 (read back as 2^-127).
uint32_t RoundMagnitude(const Format& f, double a) {
  const uint64_t b = std::bit_cast<uint64_t>(a);
  const int biased = static_cast<int>(b >> 52);
  const uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  // a = sig * 2^(e - 52); double denormals are far below every format's
  // normal range, so they need no normalising.
  const int e = biased == 0 ? -1022 : biased - 1023;
  const uint64_t sig = biased == 0 ? frac : frac | (uint64_t{1} << 52);

  const int m = f.info.mantissa_bits;
  const int emin = 1 - f.info.exponent_bias;
  const int binade = std::max(e, emin);
  // Quantum of the target grid is 2^(binade - m).
  const uint64_t n = ShiftRightRoundEven(sig, (binade - m) - (e - 52));
  return (static_cast<uint32_t>(binade - emin) << m) + static_cast<uint32_t>(n);
}

}  // namespace

uint32_t EncodeSmallFloat(PrimitiveType type, double value) {
  const Format& f = FormatOf(type);
  const bool negative = std::signbit(value);
  if (std::isnan(value)) return NanBits(f, negative);
  // e8m0 has neither zero nor negative numbers.
  if (f.info.unsigned_only && (negative || value == 0)) {
    return NanBits(f, negative);
  }
  if (std::isinf(value)) return OverflowBits(f, negative);
  const uint32_t mag = value == 0 ? 0 : RoundMagnitude(f, std::fabs(value));
  if (mag > f.max_mag) return OverflowBits(f, negative);
  if (!negative) return mag;
  if (mag == 0 && !f.info.has_negative_zero) return 0;  // fnuz: -0 is +0
  return f.sign_bit | mag;
}

double DecodeSmallFloat(PrimitiveType type, uint32_t bits) {
  const Format& f = FormatOf(type);
  bits &= (1u << f.bits) - 1;
  const bool negative = (bits & f.sign_bit) != 0;
  if (IsNanBits(f, bits)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return negative ? -nan : nan;
  }
  const uint32_t mag = bits & f.mag_mask;
  const int m = f.info.mantissa_bits;
  const int bias = f.info.exponent_bias;
  double v;
  if (f.kind == Kind::kIeee && mag == f.inf_mag) {
    v = std::numeric_limits<double>::infinity();
  } else if (f.kind == Kind::kExponentOnly) {
    v = std::ldexp(1.0, static_cast<int>(mag) - bias);
  } else {
    const int exponent = static_cast<int>(mag >> m);
    const uint32_t fraction = mag & ((1u << m) - 1);
    v = exponent == 0 ? std::ldexp(fraction, 1 - bias - m)
                      : std::ldexp(fraction | (1u << m), exponent - bias - m);
  }
  return negative ? -v : v;
}

const SmallFloatInfo& GetSmallFloatInfo(PrimitiveType type) { return FormatOf(type).info; }

double SmallFloatMax(PrimitiveType type) { return DecodeSmallFloat(type, FormatOf(type).max_mag); }

double SmallFloatMinNormal(PrimitiveType type) {
  const Format& f = FormatOf(type);
  if (f.kind == Kind::kExponentOnly) return DecodeSmallFloat(type, 0);
  return std::ldexp(1.0, 1 - f.info.exponent_bias);
}

}  // namespace hlo
