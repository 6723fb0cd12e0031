// convert, bitcast-convert, reduce-precision and stochastic-convert.
//
// convert: integers wrap into the target's width; integer -> float and
// float -> narrower float round once to nearest even; float -> integer
// truncates and saturates, NaN gives 0; anything -> pred is `!= 0` (NaN is
// true); complex -> real takes the real part (StableHLO), real -> complex has
// a zero imaginary part.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "eval/interp/elementwise_ops.h"
#include "eval/interp/reduce_precision.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace elementwise {
namespace {

using PT = PrimitiveType;

// ---- convert: source -> an intermediate chunk -> target ------------------------

enum class Mid { kInt, kUInt, kFloat, kComplex };

struct Chunk {
  Mid kind;
  int64_t i[kChunk];
  uint64_t u[kChunk];
  double d[kChunk];
  std::complex<double> c[kChunk];
};

// Reads elements [i0, i0 + m) of `in` into the chunk.
template <PT P>
void Load(const Literal& in, int64_t i0, int64_t m, Chunk& ch) {
  using S = Storage<P>;
  constexpr char kind = KindOf(P);
  if constexpr (P == PT::kPred) {
    const bool* s = in.typed<bool>() + i0;
    ch.kind = Mid::kUInt;
    for (int64_t k = 0; k < m; ++k) ch.u[k] = s[k];
  } else if constexpr (kind == 'S') {
    const S* s = in.typed<S>() + i0;
    ch.kind = Mid::kInt;
    for (int64_t k = 0; k < m; ++k) ch.i[k] = s[k];
  } else if constexpr (kind == 'U') {
    const S* s = in.typed<S>() + i0;
    ch.kind = Mid::kUInt;
    for (int64_t k = 0; k < m; ++k) ch.u[k] = s[k];
  } else if constexpr (P == PT::kF32 || P == PT::kF64) {
    const S* s = in.typed<S>() + i0;
    ch.kind = Mid::kFloat;
    for (int64_t k = 0; k < m; ++k) ch.d[k] = s[k];
  } else if constexpr (kind == 'F') {
    float f[kChunk];
    DecodeSmallFloats(P, in.data() + i0 * sizeof(S), f, m);
    ch.kind = Mid::kFloat;
    for (int64_t k = 0; k < m; ++k) ch.d[k] = f[k];
  } else if constexpr (kind == 'C') {
    const S* s = in.typed<S>() + i0;
    ch.kind = Mid::kComplex;
    for (int64_t k = 0; k < m; ++k) ch.c[k] = std::complex<double>(s[k].real(), s[k].imag());
  }
}

// An integer as a double rounded to odd at 53 bits: rounding that double
// once more to any format of at most 51 significand bits gives the
// correctly rounded value of the integer (no double-rounding error).
double RoundToOdd(uint64_t magnitude, bool negative) {
  int shift = static_cast<int>(std::bit_width(magnitude)) - 53;
  if (shift > 0) {
    uint64_t sticky = (magnitude & ((uint64_t{1} << shift) - 1)) != 0;
    magnitude = (magnitude >> shift) | sticky;
  }
  double d = std::ldexp(static_cast<double>(magnitude), std::max(shift, 0));
  return negative ? -d : d;
}
double RoundToOdd(int64_t v) {
  uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return RoundToOdd(mag, v < 0);
}

// Saturating truncation of a double to an integer type (NaN -> 0).
template <PT Q>
Storage<Q> Saturate(double d) {
  using T = IntTraits<Q>;
  using S = typename T::S;
  if (std::isnan(d)) return 0;
  if constexpr (T::kSigned) {
    const double lim = std::ldexp(1.0, T::kBits - 1);
    if (d >= lim) return T::kMax;
    if (d <= -lim) return T::kMin;
    return static_cast<S>(static_cast<int64_t>(d));
  } else {
    const double lim = std::ldexp(1.0, T::kBits);
    if (d >= lim) return T::kMax;
    if (!(d > -1.0)) return 0;
    return static_cast<S>(static_cast<uint64_t>(d > 0 ? d : 0.0));
  }
}

// Calls put(k, v) for the chunk's elements k < m, v its value as the
// chunk holds it (int64_t, uint64_t, double or std::complex<double>): one
// loop per kind, each with its own instance of put.
template <typename V, typename Put>
void EachOf(const V* values, int64_t m, Put& put) {
  for (int64_t k = 0; k < m; ++k) put(k, values[k]);
}
template <typename Put>
void EachValue(const Chunk& ch, int64_t m, Put&& put) {
  switch (ch.kind) {
    case Mid::kInt:
      return EachOf(ch.i, m, put);
    case Mid::kUInt:
      return EachOf(ch.u, m, put);
    case Mid::kFloat:
      return EachOf(ch.d, m, put);
    case Mid::kComplex:
      return EachOf(ch.c, m, put);
  }
}

template <typename V>
constexpr bool kIsComplexValue = std::is_same_v<V, std::complex<double>>;

// A chunk value without its imaginary part (complex -> real takes the real
// part); other values as they are.
template <typename V>
auto RealOf(V v) {
  if constexpr (kIsComplexValue<V>) {
    return v.real();
  } else {
    return v;
  }
}

// A value as the double that a small float rounds from: integers rounded
// to odd first (see RoundToOdd).
template <typename V>
double SmallFloatSource(V v) {
  if constexpr (std::is_same_v<V, int64_t>) {
    return RoundToOdd(v);
  } else if constexpr (std::is_same_v<V, uint64_t>) {
    return RoundToOdd(v, false);
  } else {
    return RealOf(v);
  }
}

// Writes the chunk as elements [i0, i0 + m) of `out`.
template <PT Q>
void Store(const Chunk& ch, int64_t i0, int64_t m, Literal& out) {
  using S = Storage<Q>;
  constexpr char kind = KindOf(Q);
  if constexpr (Q == PT::kPred) {
    bool* o = out.typed<bool>() + i0;
    EachValue(ch, m, [&](int64_t k, auto v) { o[k] = v != decltype(v){}; });
  } else if constexpr (kind == 'S' || kind == 'U') {
    using T = IntTraits<Q>;
    S* o = out.typed<S>() + i0;
    EachValue(ch, m, [&](int64_t k, auto v) {
      if constexpr (std::is_integral_v<decltype(v)>) {
        o[k] = T::Wrap(static_cast<typename T::W>(v));
      } else {
        o[k] = Saturate<Q>(RealOf(v));
      }
    });
  } else if constexpr (Q == PT::kF32 || Q == PT::kF64) {
    S* o = out.typed<S>() + i0;
    EachValue(ch, m, [&](int64_t k, auto v) { o[k] = static_cast<S>(RealOf(v)); });
  } else if constexpr (kind == 'F') {
    uint8_t* o = out.data() + i0 * sizeof(S);
    EachValue(ch, m, [&](int64_t k, auto v) {
      const uint32_t bits = EncodeSmallFloat(Q, SmallFloatSource(v));
      if constexpr (sizeof(S) == 2) {
        const uint16_t b16 = static_cast<uint16_t>(bits);
        std::memcpy(o + 2 * k, &b16, 2);
      } else {
        o[k] = static_cast<uint8_t>(bits);
      }
    });
  } else if constexpr (kind == 'C') {
    using R = typename S::value_type;
    S* o = out.typed<S>() + i0;
    EachValue(ch, m, [&](int64_t k, auto v) {
      if constexpr (kIsComplexValue<decltype(v)>) {
        o[k] = S(static_cast<R>(v.real()), static_cast<R>(v.imag()));
      } else {
        o[k] = S(static_cast<R>(v), 0);
      }
    });
  }
}

template <typename From, typename To>
void CastLoop(const From* __restrict in, To* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(in[i]);
}

// Saturate<Q> of each element (NaN 0, past the range the nearest end,
// else truncated), the cases picked by masks so that the loop vectorises:
// through the chunk's doubles f32 -> s32 of f32[2048,4096] took 11 ms and
// f32 -> u8 59. The range is (-2^(bits-1), 2^(bits-1)) signed and
// (-1, 2^bits) unsigned (the truncation of (-1, 0) is 0); below 32 bits the
// truncation goes through an int32 (the vector conversions).
template <typename From, typename To>
HLO_VECTOR_CLONES void SaturateLoop(const From* __restrict in, To* __restrict out, int64_t n) {
  using U = std::make_unsigned_t<To>;
  using Wide = std::conditional_t<(sizeof(To) < 4), int32_t, To>;
  constexpr From kLimit = static_cast<From>(std::numeric_limits<To>::max()) + From{1};
  constexpr From kLow = std::is_signed_v<To> ? -kLimit : From{-1};
  constexpr U kMax = static_cast<U>(std::numeric_limits<To>::max());
  constexpr U kMin = static_cast<U>(std::numeric_limits<To>::min());
  for (int64_t i = 0; i < n; ++i) {
    const From x = in[i];
    const bool inside = x < kLimit && x > kLow;  // false for NaN
    const U truncated = static_cast<U>(static_cast<To>(static_cast<Wide>(inside ? x : From{0})));
    const U positive = U{0} - static_cast<U>(x > From{0});
    const U end = kMin ^ ((kMax ^ kMin) & positive);
    const U value = end ^ ((truncated ^ end) & (U{0} - static_cast<U>(inside)));
    out[i] = static_cast<To>(value & (U{0} - static_cast<U>(x == x)));
  }
}

// pred -> a number: 1 where the byte is not 0, else 0, as `bits` of the
// target's width (a one-hot's or a mask's convert went through the chunk's
// 64-bit values at about 2 ns an element).
template <typename To>
HLO_VECTOR_CLONES void PredLoop(const uint8_t* __restrict in, To* __restrict out, To one,
                                int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] != 0 ? one : To{0};
}

// The bits of 1 in `to`, for the number types PredLoop writes; 0 for others.
uint64_t OneBits(PT to) {
  switch (to) {
    case PT::kF32:
      return 0x3f800000;
    case PT::kF64:
      return 0x3ff0000000000000;
    case PT::kBF16:
      return 0x3f80;
    case PT::kF16:
      return 0x3c00;
    case PT::kS8:
    case PT::kU8:
    case PT::kS16:
    case PT::kU16:
    case PT::kS32:
    case PT::kU32:
    case PT::kS64:
    case PT::kU64:
      return 1;
    default:
      return 0;
  }
}

bool FastPredConvert(const Literal& in, Literal& out) {
  const uint64_t one = OneBits(out.element_type());
  const uint8_t* p = in.data();
  const int64_t n = in.element_count();
  switch (one == 0 ? 0 : ByteWidth(out.element_type())) {
    case 1:
      PredLoop(p, out.typed<uint8_t>(), static_cast<uint8_t>(one), n);
      return true;
    case 2:
      PredLoop(p, out.typed<uint16_t>(), static_cast<uint16_t>(one), n);
      return true;
    case 4:
      PredLoop(p, out.typed<uint32_t>(), static_cast<uint32_t>(one), n);
      return true;
    case 8:
      PredLoop(p, out.typed<uint64_t>(), one, n);
      return true;
    default:
      return false;
  }
}

// The common conversions without the intermediate chunk.
bool FastConvert(const Literal& in, Literal& out) {
  const PT from = in.element_type(), to = out.element_type();
  const int64_t n = in.element_count();
  if (from == PT::kPred) return FastPredConvert(in, out);
  if (from == PT::kF32 && to == PT::kS32) {
    SaturateLoop(in.typed<float>(), out.typed<int32_t>(), n);
  } else if (from == PT::kF32 && to == PT::kS8) {
    SaturateLoop(in.typed<float>(), out.typed<int8_t>(), n);
  } else if (from == PT::kF32 && to == PT::kS16) {
    SaturateLoop(in.typed<float>(), out.typed<int16_t>(), n);
  } else if (from == PT::kF32 && to == PT::kU8) {
    SaturateLoop(in.typed<float>(), out.typed<uint8_t>(), n);
  } else if (from == PT::kF32 && to == PT::kU16) {
    SaturateLoop(in.typed<float>(), out.typed<uint16_t>(), n);
  } else if (from == PT::kF32 && to == PT::kU32) {
    SaturateLoop(in.typed<float>(), out.typed<uint32_t>(), n);
  } else if (from == PT::kF64 && to == PT::kS32) {
    SaturateLoop(in.typed<double>(), out.typed<int32_t>(), n);
  } else if (from == PT::kF32 && to == PT::kF64) {
    CastLoop(in.typed<float>(), out.typed<double>(), n);
  } else if (from == PT::kF64 && to == PT::kF32) {
    CastLoop(in.typed<double>(), out.typed<float>(), n);
  } else if (from == PT::kS32 && to == PT::kF32) {
    CastLoop(in.typed<int32_t>(), out.typed<float>(), n);
  } else if (from == PT::kF32 && (to == PT::kBF16 || to == PT::kF16)) {
    EncodeSmallFloats(to, in.typed<float>(), out.data(), n);
  } else if ((from == PT::kBF16 || from == PT::kF16) && to == PT::kF32) {
    DecodeSmallFloats(from, in.data(), out.typed<float>(), n);
  } else {
    return false;
  }
  return true;
}

// Integer to integer in the C++ types: modular, as Store's Wrap of the
// sign- or zero-extended 64-bit value.
template <typename From, typename To>
void ConvertIntLoop(const From* in, To* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(in[i]);
}

bool WholeBytesInt(PT t) {
  return (IsSignedInt(t) || IsUnsignedInt(t)) && LogicalBits(t) == 8 * ByteWidth(t);
}

}  // namespace

bool ConvertIntKernel(PT from, PT to, const void* in, void* out, int64_t n) {
  if (!WholeBytesInt(from) || !WholeBytesInt(to)) return false;
  DispatchType(from, [&](auto f) {
    constexpr PT F = decltype(f)::value;
    if constexpr (kIsInt<F>) {
      DispatchType(to, [&](auto t) {
        constexpr PT T = decltype(t)::value;
        if constexpr (kIsInt<T>) {
          ConvertIntLoop(static_cast<const Storage<F>*>(in), static_cast<Storage<T>*>(out), n);
        }
      });
    }
  });
  return true;
}

absl::Status EvalConvert(const Literal& in, Literal& out) {
  const PT from = in.element_type(), to = out.element_type();
  const int64_t n = in.element_count();
  if (from == to) {
    if (out.size_bytes() > 0) std::memcpy(out.data(), in.data(), out.size_bytes());
    return absl::OkStatus();
  }
  if (FastConvert(in, out)) return absl::OkStatus();
  void (*load)(const Literal&, int64_t, int64_t, Chunk&) = nullptr;
  void (*store)(const Chunk&, int64_t, int64_t, Literal&) = nullptr;
  DispatchType(from, [&](auto tag) { load = &Load<decltype(tag)::value>; });
  DispatchType(to, [&](auto tag) { store = &Store<decltype(tag)::value>; });
  if (load == nullptr || store == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("cannot convert ", PrimitiveTypeName(from), " to ", PrimitiveTypeName(to)));
  }
  // One chunk per thread, made at its first use: a fresh one (80 KiB,
  // value-initialised) cost more than converting a small array (memset was
  // 29% of random_rbg), and a chunk in static TLS would be zeroed at every
  // thread's start.
  thread_local std::unique_ptr<Chunk> chunk;
  if (chunk == nullptr) chunk.reset(new Chunk);
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    int64_t m = std::min(kChunk, n - i0);
    load(in, i0, m, *chunk);
    store(*chunk, i0, m, out);
  }
  return absl::OkStatus();
}

// ---- bitcast-convert ------------------------------------------------------------

absl::Status EvalBitcastConvert(const Literal& in, Literal& out) {
  const PT from = in.element_type(), to = out.element_type();
  const int64_t win = LogicalBits(from), wout = LogicalBits(to);
  const int64_t nin = in.element_count(), nout = out.element_count();
  if (win == 0 || wout == 0 || nin * win != nout * wout) {
    return absl::InvalidArgumentError(StrCat("bitcast-convert from ", in.shape().ToString(false),
                                             " to ", out.shape().ToString(false),
                                             ": the sizes in bits differ"));
  }
  const bool in_packed = win == 8 * ByteWidth(from);
  const bool out_packed = wout == 8 * ByteWidth(to);
  if (in_packed && out_packed) {
    // Storage is the little-endian bit stream already.
    if (out.size_bytes() > 0) std::memcpy(out.data(), in.data(), out.size_bytes());
  } else {
    // Sub-byte types: pack the operand's logical bits into a little-endian
    // stream (element 0 in the lowest bits), then cut the result from it.
    const int64_t total_bits = nin * win;
    std::vector<uint8_t> stream;
    const uint8_t* bits;
    if (in_packed) {
      bits = in.data();
    } else {
      stream.assign((total_bits + 7) / 8, 0);
      const uint8_t mask = static_cast<uint8_t>((1u << win) - 1);
      for (int64_t i = 0; i < nin; ++i) {
        int64_t pos = i * win;  // win divides 8: never straddles a byte
        stream[pos / 8] |= static_cast<uint8_t>((in.data()[i] & mask) << (pos % 8));
      }
      bits = stream.data();
    }
    if (out_packed) {
      std::memcpy(out.data(), bits, out.size_bytes());
    } else {
      const uint8_t mask = static_cast<uint8_t>((1u << wout) - 1);
      const bool sign_extend = IsSignedInt(to);
      for (int64_t j = 0; j < nout; ++j) {
        int64_t pos = j * wout;
        uint8_t v = static_cast<uint8_t>((bits[pos / 8] >> (pos % 8)) & mask);
        if (sign_extend && (v >> (wout - 1)) & 1) v = static_cast<uint8_t>(v | ~mask);
        out.data()[j] = v;
      }
    }
  }
  if (to == PT::kPred) {
    // A pred byte holds 0 or 1.
    uint8_t* o = out.data();
    for (int64_t j = 0; j < nout; ++j) o[j] = o[j] != 0;
  }
  return absl::OkStatus();
}

// ---- reduce-precision -------------------------------------------------------------

absl::Status EvalReducePrecision(const Literal& in, int64_t exponent_bits, int64_t mantissa_bits,
                                 Literal& out) {
  const PT t = in.element_type();
  if (!IsFloat(t)) return TypeError(Opcode::kReducePrecision, t);
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return absl::InvalidArgumentError(
        StrCat("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, not ",
               exponent_bits, " and ", mantissa_bits));
  }
  const int64_t n = in.element_count();
  switch (t) {
    case PT::kF32:
      ReducePrecisionArray(out.typed<uint32_t>(), in.typed<uint32_t>(), n, 32, 23, exponent_bits,
                           mantissa_bits);
      return absl::OkStatus();
    case PT::kF64:
      ReducePrecisionArray(out.typed<uint64_t>(), in.typed<uint64_t>(), n, 64, 52, exponent_bits,
                           mantissa_bits);
      return absl::OkStatus();
    case PT::kF16:
    case PT::kBF16: {
      const int mant = GetSmallFloatInfo(t).mantissa_bits;
      ReducePrecisionArray(out.typed<uint16_t>(), in.typed<uint16_t>(), n, 16, mant, exponent_bits,
                           mantissa_bits);
      return absl::OkStatus();
    }
    case PT::kF8E5M2:
    case PT::kF8E4M3:
    case PT::kF8E3M4: {
      const int mant = GetSmallFloatInfo(t).mantissa_bits;
      ReducePrecisionArray(out.typed<uint8_t>(), in.typed<uint8_t>(), n, 8, mant, exponent_bits,
                           mantissa_bits);
      return absl::OkStatus();
    }
    default: {
      // Formats without IEEE's inf/NaN encodings: through f32.
      float a[kChunk];
      uint32_t b[kChunk];
      for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
        int64_t m = std::min(kChunk, n - i0);
        DecodeSmallFloats(t, in.data() + i0, a, m);
        std::memcpy(b, a, m * 4);
        ReducePrecisionArray(b, b, m, 32, 23, exponent_bits, mantissa_bits);
        std::memcpy(a, b, m * 4);
        EncodeSmallFloats(t, a, out.data() + i0, m);
      }
      return absl::OkStatus();
    }
  }
}

// ---- stochastic-convert ---------------------------------------------------------

namespace {

// XLA's stochastic rounding: inf saturates, NaN is 0, values past the
// target's range (as the operand type rounds it) saturate; otherwise the
// magnitude is truncated and rounded up when random < fraction * 2^bits.
template <PT Q>
void StochasticLoop(const double* x, const uint64_t* random, int random_bits, double fp_max,
                    double fp_min, Storage<Q>* out, int64_t n) {
  using T = IntTraits<Q>;
  using W = typename T::W;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    const bool negative = std::signbit(v);
    if (std::isinf(v)) {
      out[i] = negative ? T::kMin : T::kMax;
      continue;
    }
    if (std::isnan(v)) {
      out[i] = 0;
      continue;
    }
    if (v >= fp_max) {
      out[i] = T::kMax;
      continue;
    }
    if (v <= fp_min) {
      out[i] = T::kMin;
      continue;
    }
    const double mag = std::fabs(v);
    uint64_t truncated = static_cast<uint64_t>(mag);
    const double fraction = mag - static_cast<double>(truncated);
    if (fraction != 0) {
      const uint64_t fixed = static_cast<uint64_t>(std::ldexp(fraction, random_bits));
      if (random[i] < fixed) ++truncated;
    }
    const uint64_t r = negative ? uint64_t{0} - truncated : truncated;
    out[i] = T::Wrap(static_cast<W>(r));
  }
}

}  // namespace

absl::Status EvalStochasticConvert(const Literal& in, const Literal& random, Literal& out) {
  const PT from = in.element_type(), bits_type = random.element_type(), to = out.element_type();
  if (!IsFloat(from)) return TypeError(Opcode::kStochasticConvert, from);
  if (!IsUnsignedInt(bits_type) || BitWidth(bits_type) != BitWidth(from)) {
    return absl::InvalidArgumentError(
        StrCat("the random operand of 'stochastic-convert' must be an unsigned integer as wide "
               "as ",
               PrimitiveTypeName(from), ", not ", PrimitiveTypeName(bits_type)));
  }
  if (!IsInteger(to)) {
    return absl::UnimplementedError(StrCat("'stochastic-convert' to ", PrimitiveTypeName(to),
                                           " is not supported (only to integer types)"));
  }
  const int64_t n = in.element_count();
  // The operand and random bits as double / uint64.
  std::vector<double> x(n);
  std::vector<uint64_t> r(n);
  for (int64_t i = 0; i < n; ++i) r[i] = random.GetBits(i);
  // The target's limits as the operand's type rounds them (XLA compares in
  // that type): one rounding from the integer.
  auto limit = [&](auto v) -> double {
    if (from == PT::kF64) return static_cast<double>(v);
    if (from == PT::kF32) return static_cast<double>(static_cast<float>(v));
    double odd = std::is_signed_v<decltype(v)> ? RoundToOdd(static_cast<int64_t>(v))
                                               : RoundToOdd(static_cast<uint64_t>(v), false);
    return DecodeSmallFloat(from, EncodeSmallFloat(from, odd));
  };
  if (from == PT::kF32) {
    for (int64_t i = 0; i < n; ++i) x[i] = in.typed<float>()[i];
  } else if (from == PT::kF64) {
    for (int64_t i = 0; i < n; ++i) x[i] = in.typed<double>()[i];
  } else {
    for (int64_t i = 0; i < n; ++i)
      x[i] = DecodeSmallFloat(from, static_cast<uint32_t>(in.GetBits(i)));
  }
  DispatchType(to, [&](auto tag) {
    constexpr PT Q = decltype(tag)::value;
    if constexpr (kIsInt<Q>) {
      using T = IntTraits<Q>;
      double fp_max =
          limit(static_cast<std::conditional_t<T::kSigned, int64_t, uint64_t>>(T::kMax));
      double fp_min = limit(static_cast<int64_t>(T::kMin));
      StochasticLoop<Q>(x.data(), r.data(), BitWidth(bits_type), fp_max, fp_min,
                        out.typed<Storage<Q>>(), n);
    }
  });
  return absl::OkStatus();
}

namespace {

template <PT F, PT T>
void ConvertIntFixed(const void* in, void* out, int64_t n) {
  ConvertIntLoop(static_cast<const Storage<F>*>(in), static_cast<Storage<T>*>(out), n);
}

}  // namespace

ConvertIntFn ConvertIntKernelFor(PT from, PT to) {
  if (!WholeBytesInt(from) || !WholeBytesInt(to)) return nullptr;
  ConvertIntFn fn = nullptr;
  DispatchType(from, [&](auto f) {
    constexpr PT F = decltype(f)::value;
    if constexpr (kIsInt<F>) {
      DispatchType(to, [&](auto t) {
        constexpr PT T = decltype(t)::value;
        if constexpr (kIsInt<T>) fn = &ConvertIntFixed<F, T>;
      });
    }
  });
  return fn;
}

}  // namespace elementwise
}  // namespace hlo
