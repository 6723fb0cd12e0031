#include "eval/interp/reduce_precision.h"

#include "eval/vector_clones.h"

namespace hlo {
namespace {

// ReducePrecisionBits' constants for one (format, dest_exp, dest_mant).
template <typename UInt>
struct ReduceMasks {
  UInt abs_mask = 0;  // all bits of the format but the sign
  UInt sign_mask = 0;
  UInt exp_mask = 0;
  UInt width_mask = 0;  // the format's bits
  int round_shift = 0;  // the kept mantissa's last bit, as a shift
  UInt round_bias = 0;
  UInt truncation_mask = 0;
  UInt max_exp = 0;  // exponent fields above this overflow ...
  UInt min_exp = 0;  // ... and at or below this flush to zero
  bool keep_nan = false;
  bool round = false;            // fewer mantissa bits
  bool reduce_exponent = false;  // fewer exponent bits
};

template <typename UInt>
ReduceMasks<UInt> MasksOf(int nbits, int src_mant, int64_t dest_exp, int64_t dest_mant) {
  const int src_exp = nbits - 1 - src_mant;
  const UInt one = 1;
  const bool whole = nbits == 8 * static_cast<int>(sizeof(UInt));
  ReduceMasks<UInt> m;
  m.sign_mask = one << (nbits - 1);
  m.exp_mask = ((one << src_exp) - 1) << src_mant;
  m.width_mask = whole ? static_cast<UInt>(~UInt{0}) : static_cast<UInt>((one << nbits) - 1);
  m.abs_mask = static_cast<UInt>(~m.sign_mask & m.width_mask);
  m.round = dest_mant < src_mant;
  m.reduce_exponent = dest_exp < src_exp;
  if (m.round) {
    m.round_shift = src_mant - static_cast<int>(dest_mant);
    const UInt last_mantissa_bit = one << m.round_shift;
    m.round_bias = (last_mantissa_bit >> 1) - 1;
    m.truncation_mask = ~(last_mantissa_bit - 1);
  }
  if (m.reduce_exponent) {
    const UInt exponent_bias = (one << (src_exp - 1)) - 1;
    const UInt reduced_bias = (one << (dest_exp - 1)) - 1;
    m.max_exp = static_cast<UInt>((exponent_bias + reduced_bias) << src_mant);
    m.min_exp = static_cast<UInt>((exponent_bias - reduced_bias) << src_mant);
  }
  m.keep_nan = dest_mant > 0;
  return m;
}

// The element of ReducePrecisionBits with its constants loaded and its
// branches made selects, which the compiler vectorises.
template <typename UInt, bool kRound, bool kReduceExponent>
HLO_VECTOR_CLONES void ReduceLoop(UInt* out, const UInt* in, int64_t n,
                                  const ReduceMasks<UInt>& masks) {
  const ReduceMasks<UInt> m = masks;
  for (int64_t i = 0; i < n; ++i) {
    const UInt original = in[i];
    UInt x = original;
    const bool is_nan = static_cast<UInt>(x & m.abs_mask) > m.exp_mask;
    if constexpr (kRound) {
      const UInt last = static_cast<UInt>((x >> m.round_shift) & 1);
      x = static_cast<UInt>(static_cast<UInt>(x + last + m.round_bias) & m.truncation_mask);
    }
    if constexpr (kReduceExponent) {
      const UInt exponent = static_cast<UInt>(x & m.exp_mask);
      const UInt signed_zero = static_cast<UInt>(x & m.sign_mask);
      const UInt signed_inf = static_cast<UInt>(signed_zero | m.exp_mask);
      x = exponent > m.max_exp ? signed_inf : x;
      x = exponent <= m.min_exp ? signed_zero : x;
    }
    const UInt nan = m.keep_nan ? original : m.exp_mask;
    x = is_nan ? nan : x;
    out[i] = static_cast<UInt>(x & m.width_mask);
  }
}

}  // namespace

template <typename UInt>
void ReducePrecisionArray(UInt* out, const UInt* in, int64_t n, int nbits, int src_mant,
                          int64_t dest_exp, int64_t dest_mant) {
  const ReduceMasks<UInt> m = MasksOf<UInt>(nbits, src_mant, dest_exp, dest_mant);
  if (m.round && m.reduce_exponent) {
    ReduceLoop<UInt, true, true>(out, in, n, m);
  } else if (m.round) {
    ReduceLoop<UInt, true, false>(out, in, n, m);
  } else if (m.reduce_exponent) {
    ReduceLoop<UInt, false, true>(out, in, n, m);
  } else {
    ReduceLoop<UInt, false, false>(out, in, n, m);
  }
}

template void ReducePrecisionArray<uint8_t>(uint8_t*, const uint8_t*, int64_t, int, int, int64_t,
                                            int64_t);
template void ReducePrecisionArray<uint16_t>(uint16_t*, const uint16_t*, int64_t, int, int, int64_t,
                                             int64_t);
template void ReducePrecisionArray<uint32_t>(uint32_t*, const uint32_t*, int64_t, int, int, int64_t,
                                             int64_t);
template void ReducePrecisionArray<uint64_t>(uint64_t*, const uint64_t*, int64_t, int, int, int64_t,
                                             int64_t);

}  // namespace hlo
