// Binary elementwise ops: add, subtract, multiply, divide, remainder, power,
// atan2, maximum, minimum, and, or, xor, the shifts, mulhi and complex.
//
// Integer edge cases follow XLA: x / 0 is -1 (all ones: UINT_MAX for
// unsigned), INT_MIN / -1 is INT_MIN, x % 0 is x, INT_MIN % -1 is 0; shift
// amounts are unsigned, and amounts >= the bit width give 0 (left, logical
// right) or the sign fill (arithmetic right); overflow wraps in the type's
// width, sub-byte types included.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "eval/interp/elementwise_ops.h"
#include "eval/vector_clones.h"
#include "ir/instruction.h"

namespace hlo {
namespace elementwise {
namespace {

using PT = PrimitiveType;

// ---- integers ------------------------------------------------------------------

// Integer lanes are exact in any width: the AVX-512 and AVX2 clones also
// vectorise the shifts by per-element amounts (threefry's rotations), which
// SSE2 has no instruction for.
template <PT P, typename F>
HLO_VECTOR_CLONES void IntZip(const Storage<P>* __restrict a, const Storage<P>* __restrict b,
                              Storage<P>* __restrict out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

// The same with one side a scalar, read once (a broadcast scalar's value:
// small programs' shifts and adds by a loop's round constants).
template <PT P, typename F>
HLO_VECTOR_CLONES void IntZipScalarB(const Storage<P>* __restrict a, Storage<P> y,
                                     Storage<P>* __restrict out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
}
template <PT P, typename F>
HLO_VECTOR_CLONES void IntZipScalarA(Storage<P> x, const Storage<P>* __restrict b,
                                     Storage<P>* __restrict out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
}

// The integer ops, each applied by zip(f) with f(x, y) the op on one pair
// of elements (zip: IntZip over two arrays, or a scalar against an array).
template <PT P, typename Zip>
absl::Status IntBinaryOps(Opcode op, Zip zip) {
  using T = IntTraits<P>;
  using S = typename T::S;
  using U = typename T::U;
  using W = typename T::W;
  constexpr bool kSigned = T::kSigned;
  auto wide = [](S x) { return static_cast<W>(static_cast<U>(x)); };
  switch (op) {
    case Opcode::kAdd:
      zip([&](S x, S y) { return T::Wrap(wide(x) + wide(y)); });
      break;
    case Opcode::kSubtract:
      zip([&](S x, S y) { return T::Wrap(wide(x) - wide(y)); });
      break;
    case Opcode::kMultiply:
      zip([&](S x, S y) { return T::Wrap(wide(x) * wide(y)); });
      break;
    case Opcode::kDivide:
      zip([&](S x, S y) -> S {
        if (y == 0) return T::Wrap(~W{0});  // -1 / all ones
        if constexpr (kSigned) {
          if (x == T::kMin && y == S(-1)) return T::kMin;
        }
        return T::Wrap(static_cast<W>(static_cast<U>(x / y)));
      });
      break;
    case Opcode::kRemainder:
      zip([&](S x, S y) -> S {
        if (y == 0) return x;
        if constexpr (kSigned) {
          if (x == T::kMin && y == S(-1)) return 0;
        }
        return T::Wrap(static_cast<W>(static_cast<U>(x % y)));
      });
      break;
    case Opcode::kPower:
      // Exponentiation by squaring, wrapping; a negative exponent gives 0
      // except for base 1 (XLA: 1^x = 1 and x^0 = 1 first).
      zip([&](S x, S y) -> S {
        if constexpr (kSigned) {
          if (y < 0) return x == 1 ? S(1) : S(0);
        }
        W base = wide(x), acc = 1;
        for (W e = T::Bits(y); e != 0; e >>= 1) {
          if (e & 1) acc = static_cast<W>(acc * base);
          base = static_cast<W>(base * base);
        }
        return T::Wrap(acc);
      });
      break;
    case Opcode::kMaximum:
      zip([](S x, S y) { return std::max(x, y); });
      break;
    case Opcode::kMinimum:
      zip([](S x, S y) { return std::min(x, y); });
      break;
    case Opcode::kAnd:
      zip([](S x, S y) { return static_cast<S>(x & y); });
      break;
    case Opcode::kOr:
      zip([](S x, S y) { return static_cast<S>(x | y); });
      break;
    case Opcode::kXor:
      zip([](S x, S y) { return static_cast<S>(x ^ y); });
      break;
    case Opcode::kShiftLeft:
      zip([&](S x, S y) -> S {
        W amount = T::Bits(y);
        if (amount >= static_cast<W>(T::kBits)) return 0;
        return T::Wrap(static_cast<W>(wide(x) << amount));
      });
      break;
    case Opcode::kShiftRightLogical:
      zip([&](S x, S y) -> S {
        W amount = T::Bits(y);
        if (amount >= static_cast<W>(T::kBits)) return 0;
        return T::Wrap(static_cast<W>(T::Bits(x) >> amount));
      });
      break;
    case Opcode::kShiftRightArithmetic:
      // The top bit of the type's width is the sign, unsigned types too.
      zip([&](S x, S y) -> S {
        using SS = std::make_signed_t<S>;
        SS v;
        if constexpr (kSigned) {
          v = x;
        } else if constexpr (T::kFull) {
          v = static_cast<SS>(x);
        } else {
          constexpr int sh = 8 - T::kBits;
          v = static_cast<SS>(static_cast<int8_t>(static_cast<uint8_t>(x << sh)) >> sh);
        }
        W amount = T::Bits(y);
        SS r = amount >= static_cast<W>(T::kBits) ? static_cast<SS>(v < 0 ? -1 : 0)
                                                  : static_cast<SS>(v >> amount);
        return T::Wrap(static_cast<W>(static_cast<U>(r)));
      });
      break;
    case Opcode::kMulhi:
      // The high half of the double-width product.
      zip([&](S x, S y) -> S {
        if constexpr (sizeof(S) == 8) {
          if constexpr (kSigned) {
            __int128 p = static_cast<__int128>(x) * static_cast<__int128>(y);
            return static_cast<S>(p >> 64);
          } else {
            unsigned __int128 p =
                static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(y);
            return static_cast<S>(p >> 64);
          }
        } else if constexpr (kSigned) {
          int64_t p = static_cast<int64_t>(x) * static_cast<int64_t>(y);
          return T::Wrap(static_cast<W>(static_cast<uint64_t>(p >> T::kBits)));
        } else {
          uint64_t p = static_cast<uint64_t>(T::Bits(x)) * static_cast<uint64_t>(T::Bits(y));
          return T::Wrap(static_cast<W>(p >> T::kBits));
        }
      });
      break;
    default:
      return TypeError(op, P);
  }
  return absl::OkStatus();
}

template <PT P>
absl::Status IntBinary(Opcode op, const Storage<P>* a, const Storage<P>* b, Storage<P>* out,
                       int64_t n) {
  return IntBinaryOps<P>(op, [&](auto f) { IntZip<P>(a, b, out, n, f); });
}

// pred: add/maximum are or, multiply/minimum are and, subtract is xor.
absl::Status PredBinary(Opcode op, const bool* a, const bool* b, bool* out, int64_t n) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kMaximum:
    case Opcode::kOr:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] | b[i];
      return absl::OkStatus();
    case Opcode::kMultiply:
    case Opcode::kMinimum:
    case Opcode::kAnd:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] & b[i];
      return absl::OkStatus();
    case Opcode::kSubtract:
    case Opcode::kXor:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] ^ b[i];
      return absl::OkStatus();
    default:
      return TypeError(op, PT::kPred);
  }
}

// ---- complex ----------------------------------------------------------------------

template <typename R>
std::complex<R> ComplexPow(std::complex<R> x, std::complex<R> y) {
  using C = std::complex<R>;
  // XLA: 1^y = 1 and x^0 = 1 whatever the other; inf^(a+0i) is inf for
  // a > 0 and 0 for a < 0; 0^(a+0i) is 0 for a > 0.
  if (x == C(1) || y == C(0)) return C(1);
  if (y.imag() == 0 && x.imag() == 0) {
    if (std::isinf(x.real()) && x.real() > 0) {
      if (y.real() > 0) return x;
      if (y.real() < 0) return C(0);
    }
    if (x.real() == 0 && y.real() > 0) return C(0);
  }
  // exp(y log x) in the wider type: in R the angle's error grows with
  // y*log|x| and std::pow lost up to thousands of ULPs for c64.
  return WidenedComplex([](auto a, auto b) { return std::pow(a, b); }, x, y);
}

// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)).
// In the wider type, as the unary complex functions (WidenedComplex).
template <typename R>
std::complex<R> ComplexAtan2(std::complex<R> y, std::complex<R> x) {
  return WidenedComplex(
      [](auto b, auto a) {
        const decltype(a) i(0, 1);
        return -i * std::log((a + i * b) / std::sqrt(a * a + b * b));
      },
      y, x);
}

template <typename R>
absl::Status ComplexBinary(Opcode op, PT type, const Literal& la, const Literal& lb, Literal& lo) {
  using C = std::complex<R>;
  const C* a = la.typed<C>();
  const C* b = lb.typed<C>();
  C* out = lo.typed<C>();
  const int64_t n = la.element_count();
  auto zip = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  };
  switch (op) {
    case Opcode::kAdd:
      zip([](C x, C y) { return x + y; });
      break;
    case Opcode::kSubtract:
      zip([](C x, C y) { return x - y; });
      break;
    case Opcode::kMultiply:
      zip([](C x, C y) { return x * y; });
      break;
    case Opcode::kDivide:
      zip([](C x, C y) { return x / y; });
      break;
    case Opcode::kPower:
      zip(ComplexPow<R>);
      break;
    case Opcode::kAtan2:
      zip(ComplexAtan2<R>);
      break;
    case Opcode::kMaximum:
      zip([](C x, C y) { return MaxOf(x, y); });
      break;
    case Opcode::kMinimum:
      zip([](C x, C y) { return MinOf(x, y); });
      break;
    default:
      return TypeError(op, type);
  }
  return absl::OkStatus();
}

// ---- floats ---------------------------------------------------------------------

absl::Status SmallFloatBinary(Opcode op, PT type, const Literal& la, const Literal& lb,
                              Literal& lo) {
  const int64_t n = la.element_count();
  const int w = ByteWidth(type);
  float a[kChunk], b[kChunk], c[kChunk];
  if (!BinaryFloatKernel<float>(op, a, b, c, 0)) return TypeError(op, type);
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    int64_t m = std::min(kChunk, n - i0);
    DecodeSmallFloats(type, la.data() + i0 * w, a, m);
    DecodeSmallFloats(type, lb.data() + i0 * w, b, m);
    BinaryFloatKernel<float>(op, a, b, c, m);
    EncodeSmallFloats(type, c, lo.data() + i0 * w, m);
  }
  return absl::OkStatus();
}

template <typename R>
void MakeComplex(const R* re, const R* im, std::complex<R>* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::complex<R>(re[i], im[i]);
}

}  // namespace

bool PredBinaryKernel(Opcode op, const bool* a, const bool* b, bool* out, int64_t n) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kMaximum:
    case Opcode::kOr:
    case Opcode::kMultiply:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kSubtract:
    case Opcode::kXor:
      return PredBinary(op, a, b, out, n).ok();
    default:
      return false;
  }
}

absl::Status EvalBinary(const Instruction& inst, const Literal& a, const Literal& b, Literal& out) {
  const Opcode op = inst.opcode();
  const PT t = a.element_type();
  const PT rt = out.element_type();
  const int64_t n = a.element_count();
  if (op == Opcode::kComplex) {
    if (t == PT::kF32 && rt == PT::kC64) {
      MakeComplex(a.typed<float>(), b.typed<float>(), out.typed<std::complex<float>>(), n);
    } else if (t == PT::kF64 && rt == PT::kC128) {
      MakeComplex(a.typed<double>(), b.typed<double>(), out.typed<std::complex<double>>(), n);
    } else {
      return absl::InvalidArgumentError(StrCat("'complex' of ", PrimitiveTypeName(t),
                                               " cannot produce ", PrimitiveTypeName(rt),
                                               " (f32 gives c64, f64 gives c128)"));
    }
    return absl::OkStatus();
  }
  if (rt != t) {
    return absl::InvalidArgumentError(StrCat("'", OpcodeName(op), "' of ", PrimitiveTypeName(t),
                                             " cannot produce ", PrimitiveTypeName(rt)));
  }
  if (t == PT::kF32) {
    if (!BinaryFloatKernel<float>(op, a.typed<float>(), b.typed<float>(), out.typed<float>(), n)) {
      return TypeError(op, t);
    }
    return absl::OkStatus();
  }
  if (t == PT::kF64) {
    if (!BinaryFloatKernel<double>(op, a.typed<double>(), b.typed<double>(), out.typed<double>(),
                                   n)) {
      return TypeError(op, t);
    }
    return absl::OkStatus();
  }
  if (IsFloat(t)) return SmallFloatBinary(op, t, a, b, out);
  if (t == PT::kC64) return ComplexBinary<float>(op, t, a, b, out);
  if (t == PT::kC128) return ComplexBinary<double>(op, t, a, b, out);
  if (t == PT::kPred) return PredBinary(op, a.typed<bool>(), b.typed<bool>(), out.typed<bool>(), n);

  // The error only when no integer kernel ran (not built up front: a Status
  // with a message allocates, once per instruction).
  bool is_int = false;
  absl::Status status;
  DispatchType(t, [&](auto tag) {
    constexpr PT P = decltype(tag)::value;
    if constexpr (kIsInt<P>) {
      is_int = true;
      using S = Storage<P>;
      status = IntBinary<P>(op, a.typed<S>(), b.typed<S>(), out.typed<S>(), n);
    }
  });
  return is_int ? status : TypeError(op, t);
}

bool BinaryIntKernel(Opcode op, PrimitiveType t, const void* a, const void* b, void* out,
                     int64_t n) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kMulhi:
      break;
    default:
      return false;  // IntBinary's TypeError, not made here
  }
  bool ran = false;
  DispatchType(t, [&](auto tag) {
    constexpr PT P = decltype(tag)::value;
    if constexpr (kIsInt<P>) {
      using S = Storage<P>;
      ran = IntBinary<P>(op, static_cast<const S*>(a), static_cast<const S*>(b),
                         static_cast<S*>(out), n)
                .ok();
    }
  });
  return ran;
}

namespace {

// IntBinary for one op, the switch on it resolved at compile time.
template <PT P, Opcode OP>
[[gnu::flatten]] void IntBinaryFixed(const void* a, const void* b, void* out, int64_t n) {
  using S = Storage<P>;
  (void)IntBinary<P>(OP, static_cast<const S*>(a), static_cast<const S*>(b), static_cast<S*>(out),
                     n);
}

// The same with b (kScalarB) or a (kScalarA) one element, read once.
template <PT P, Opcode OP>
[[gnu::flatten]] void IntBinaryScalarBFixed(const void* a, const void* b, void* out, int64_t n) {
  using S = Storage<P>;
  const S y = *static_cast<const S*>(b);
  (void)IntBinaryOps<P>(OP, [&](auto f) {
    IntZipScalarB<P>(static_cast<const S*>(a), y, static_cast<S*>(out), n, f);
  });
}
template <PT P, Opcode OP>
[[gnu::flatten]] void IntBinaryScalarAFixed(const void* a, const void* b, void* out, int64_t n) {
  using S = Storage<P>;
  const S x = *static_cast<const S*>(a);
  (void)IntBinaryOps<P>(OP, [&](auto f) {
    IntZipScalarA<P>(x, static_cast<const S*>(b), static_cast<S*>(out), n, f);
  });
}

template <PT P, Opcode OP>
BinaryIntFn IntBinaryFixedFor(IntOperands operands) {
  switch (operands) {
    case IntOperands::kArrays:
      return &IntBinaryFixed<P, OP>;
    case IntOperands::kScalarB:
      return &IntBinaryScalarBFixed<P, OP>;
    case IntOperands::kScalarA:
      return &IntBinaryScalarAFixed<P, OP>;
  }
  return nullptr;
}

template <PT P>
BinaryIntFn IntBinaryFor(Opcode op, IntOperands operands) {
  switch (op) {
#define HLO_INT_BINARY_CASE(o) \
  case Opcode::o:              \
    return IntBinaryFixedFor<P, Opcode::o>(operands);
    HLO_INT_BINARY_CASE(kAdd)
    HLO_INT_BINARY_CASE(kSubtract)
    HLO_INT_BINARY_CASE(kMultiply)
    HLO_INT_BINARY_CASE(kDivide)
    HLO_INT_BINARY_CASE(kRemainder)
    HLO_INT_BINARY_CASE(kPower)
    HLO_INT_BINARY_CASE(kMaximum)
    HLO_INT_BINARY_CASE(kMinimum)
    HLO_INT_BINARY_CASE(kAnd)
    HLO_INT_BINARY_CASE(kOr)
    HLO_INT_BINARY_CASE(kXor)
    HLO_INT_BINARY_CASE(kShiftLeft)
    HLO_INT_BINARY_CASE(kShiftRightLogical)
    HLO_INT_BINARY_CASE(kShiftRightArithmetic)
    HLO_INT_BINARY_CASE(kMulhi)
#undef HLO_INT_BINARY_CASE
    default:
      return nullptr;
  }
}

}  // namespace

BinaryIntFn BinaryIntKernelFor(Opcode op, PrimitiveType t, IntOperands operands) {
  BinaryIntFn fn = nullptr;
  DispatchType(t, [&](auto tag) {
    constexpr PT P = decltype(tag)::value;
    if constexpr (kIsInt<P>) fn = IntBinaryFor<P>(op, operands);
  });
  return fn;
}

}  // namespace elementwise
}  // namespace hlo
