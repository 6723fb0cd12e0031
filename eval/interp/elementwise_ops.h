// The elementwise ops on literals (eval/interp/elementwise*.cc), for the
// elementwise kernel (eval/kernels/elementwise.cc), the batched interpreter
// and the fused loops: compile-time element traits, the small-float
// decode/encode helpers, and the per-family entry points that Apply routes
// to.
//
// Conventions (ir/literal.h): dense row-major storage, pred as a byte 0/1,
// sub-byte integers sign/zero-extended in a byte, f16/bf16/f8/f4 as raw bits,
// complex as (re, im) pairs. Narrow floats are computed in float and rounded
// once per op (as XLA's CPU backend does for f16/bf16).
#ifndef HLO_EVAL_INTERP_ELEMENTWISE_OPS_H_
#define HLO_EVAL_INTERP_ELEMENTWISE_OPS_H_

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/type_dispatch.h"
#include "ir/compare_order.h"
#include "ir/float_formats.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/primitive_type.h"
#include "ir/strings.h"

namespace hlo {
namespace elementwise {

// ---- compile-time properties of primitive types ------------------------------

constexpr int LogicalBits(PrimitiveType t) {
  switch (t) {
#define HLO_EW_BITS(e, name, bits, kind) \
  case PrimitiveType::e:                 \
    return bits;
    HLO_PRIMITIVE_TYPES(HLO_EW_BITS)
#undef HLO_EW_BITS
  }
  return 0;
}

// 'P' pred, 'S' signed, 'U' unsigned, 'F' float, 'C' complex, 'T', 'O'.
constexpr char KindOf(PrimitiveType t) {
  switch (t) {
#define HLO_EW_KIND(e, name, bits, kind) \
  case PrimitiveType::e:                 \
    return #kind[0];
    HLO_PRIMITIVE_TYPES(HLO_EW_KIND)
#undef HLO_EW_KIND
  }
  return 'O';
}

template <PrimitiveType P>
inline constexpr bool kIsInt = KindOf(P) == 'S' || KindOf(P) == 'U';
template <PrimitiveType P>
inline constexpr bool kIsSmallFloat = KindOf(P) == 'F' && P != PrimitiveType::kF32&& P
                                                              != PrimitiveType::kF64;

// Integer element helpers: storage type S, unsigned twin U, a wide-enough
// unsigned type W for wrapping arithmetic (no int promotion surprises), the
// logical width, and Wrap (truncate to the width, sign- or zero-extended as
// the storage convention wants).
template <PrimitiveType P>
struct IntTraits {
  using S = Storage<P>;
  using U = std::make_unsigned_t<S>;
  using W = std::conditional_t<(sizeof(S) < 4), uint32_t, U>;
  static constexpr int kBits = LogicalBits(P);
  static constexpr bool kSigned = KindOf(P) == 'S';
  static constexpr bool kFull = kBits == 8 * static_cast<int>(sizeof(S));
  static constexpr W kMask = kFull ? static_cast<W>(~U{0}) : static_cast<W>((W{1} << kBits) - 1);
  static constexpr S kMin = kFull     ? std::numeric_limits<S>::min()
                            : kSigned ? static_cast<S>(-(int64_t{1} << (kBits - 1)))
                                      : S{0};
  static constexpr S kMax = kFull     ? std::numeric_limits<S>::max()
                            : kSigned ? static_cast<S>((int64_t{1} << (kBits - 1)) - 1)
                                      : static_cast<S>(kMask);

  static S Wrap(W v) {
    if constexpr (kFull) {
      return static_cast<S>(static_cast<U>(v));
    } else if constexpr (kSigned) {
      constexpr int sh = 8 - kBits;
      return static_cast<S>(static_cast<int8_t>(static_cast<uint8_t>(v << sh)) >> sh);
    } else {
      return static_cast<S>(v & kMask);
    }
  }
  // The element's bits within its logical width (zero-extended).
  static W Bits(S v) { return static_cast<W>(static_cast<U>(v)) & kMask; }
};

// ---- small floats --------------------------------------------------------------

// 256-entry decode table of an 8-bit (or 4-bit) float format, built once.
const float* SmallFloatTable(PrimitiveType type);

// Decodes n elements of a small float type (raw storage) to float / encodes
// floats with round to nearest even (one rounding).
void DecodeSmallFloats(PrimitiveType type, const uint8_t* src, float* dst, int64_t n);
void EncodeSmallFloats(PrimitiveType type, const float* src, uint8_t* dst, int64_t n);

// Elements processed per chunk when narrow floats go through float buffers.
inline constexpr int64_t kChunk = 2048;

// ---- maximum / minimum -------------------------------------------------------

// IEEE-754 maximum/minimum with NaN propagation (NaN wins; of two NaNs the
// lhs) and -0 < +0. Branch-free so that loops over them vectorise.
//
// For float and double, `a > b ? a : b` is the hardware's max (b when
// either is NaN), so only a NaN lhs needs fixing; equal values are equal
// bits but for +0 and -0, whose AND is +0 (their OR -0 for the minimum).
// That is half the vector instructions of testing the sign of equal values
// (a ReLU's maximum: 2.1 -> 1.5 ns per 16 floats), with the same bits.
template <typename T>
inline T MaxOf(T a, T b) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const T both = std::bit_cast<T>(std::bit_cast<Bits>(a) & std::bit_cast<Bits>(b));
    T r = a > b ? a : b;
    r = a == b ? both : r;
    return a != a ? a : r;
  } else {
    T r = a > b ? a : b;
    // Equal values: +0 beats -0 (for other equal values either is right).
    r = a == b ? (std::signbit(a) ? b : a) : r;
    r = b != b ? b : r;
    r = a != a ? a : r;
    return r;
  }
}
template <typename T>
inline T MinOf(T a, T b) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const T either = std::bit_cast<T>(std::bit_cast<Bits>(a) | std::bit_cast<Bits>(b));
    T r = a < b ? a : b;
    r = a == b ? either : r;
    return a != a ? a : r;
  } else {
    T r = a < b ? a : b;
    r = a == b ? (std::signbit(a) ? a : b) : r;
    r = b != b ? b : r;
    r = a != a ? a : r;
    return r;
  }
}
// The type complex transcendental functions run in: c64 in complex<double>,
// c128 in complex<long double>. libm's functions in the component type are
// off by several ULPs (thousands for pow, where the angle y*log|x| is large);
// computed wider and rounded once, the parts come out correctly rounded.
template <typename R>
using WideReal = std::conditional_t<std::is_same_v<R, float>, double, long double>;

// f(z...) with every operand in the wider type, each part of the result
// rounded once to R.
template <typename R, typename F, typename... Z>
inline std::complex<R> WidenedComplex(F f, std::complex<R> z, Z... more) {
  using W = std::complex<WideReal<R>>;
  W r = f(W(z.real(), z.imag()), W(more.real(), more.imag())...);
  return {static_cast<R>(r.real()), static_cast<R>(r.imag())};
}

// Complex: lexicographic on (real, imag) as StableHLO defines it.
template <typename R>
inline bool LexLess(const std::complex<R>& a, const std::complex<R>& b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}
template <typename R>
inline std::complex<R> MaxOf(std::complex<R> a, std::complex<R> b) {
  return LexLess(a, b) ? b : a;
}
template <typename R>
inline std::complex<R> MinOf(std::complex<R> a, std::complex<R> b) {
  return LexLess(b, a) ? b : a;
}

// ---- float kernels shared by the families -----------------------------------

// out[i] = op(in[i]) for float math ops whose result type is the operand's
// (T = float or double). Vectorised with libmvec where the CPU allows.
// Returns false when `op` is not such an op.
template <typename T>
bool UnaryFloatKernel(Opcode op, const T* in, T* out, int64_t n);

// The transcendental functions of UnaryFloatKernel (exp, expm1, log, log1p,
// the trigonometric and hyperbolic functions and their inverses, erf,
// cbrt): vector math where the CPU allows, libm otherwise; each reads
// element i before writing it.
inline bool IsTranscendental(Opcode op) {
  switch (op) {
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kAsin:
    case Opcode::kAcos:
    case Opcode::kAtan:
    case Opcode::kSinh:
    case Opcode::kCosh:
    case Opcode::kAsinh:
    case Opcode::kAcosh:
    case Opcode::kAtanh:
    case Opcode::kErf:
    case Opcode::kCbrt:
      return true;
    default:
      return false;
  }
}

// out[i] = op(a[i], b[i]) for float arithmetic (add … atan2, maximum,
// minimum). Returns false when `op` is not such an op.
template <typename T>
bool BinaryFloatKernel(Opcode op, const T* a, const T* b, T* out, int64_t n);

// out[i] = op(a[i], b[i]) for the integer ops of EvalBinary (arithmetic
// wrapping, bit ops, shifts, maximum/minimum, mulhi, with its edge cases)
// on elements of integer type t. Returns false when `op` is not such an op
// or t no integer type (n = 0 only asks).
bool BinaryIntKernel(Opcode op, PrimitiveType t, const void* a, const void* b, void* out,
                     int64_t n);
// out[i] = convert(in[i]) between integer types of 8, 16, 32 or 64 bits
// (wrapping as EvalConvert does). False for other types (n = 0 only asks).
bool ConvertIntKernel(PrimitiveType from, PrimitiveType to, const void* in, void* out, int64_t n);

// The loops of BinaryIntKernel for one op and type, and of ConvertIntKernel
// for one pair of types, resolved once (a step run many times calls it
// without the dispatch on op and types); null where those return false.
// kScalarB: b is one element, every position's right operand (a broadcast
// scalar's value); kScalarA: a is, the left one.
using BinaryIntFn = void (*)(const void* a, const void* b, void* out, int64_t n);
enum class IntOperands : uint8_t { kArrays, kScalarB, kScalarA };
BinaryIntFn BinaryIntKernelFor(Opcode op, PrimitiveType t,
                               IntOperands operands = IntOperands::kArrays);
using ConvertIntFn = void (*)(const void* in, void* out, int64_t n);
ConvertIntFn ConvertIntKernelFor(PrimitiveType from, PrimitiveType to);
// The loop of BinaryFloatKernel for add, subtract, multiply, divide,
// maximum and minimum of f32 or f64 (out may be a or b), resolved once;
// null for other ops and types.
using BinaryFloatFn = BinaryIntFn;
BinaryFloatFn BinaryFloatKernelFor(Opcode op, PrimitiveType t);

// libmvec vector math (x86-64 glibc): false when unavailable for op / CPU.
bool VecMath(Opcode op, const float* in, float* out, int64_t n);
bool VecMath(Opcode op, const double* in, double* out, int64_t n);
// out[i] = exp(in[i] - s) with VecMath's exp, the difference rounded to
// float first (the bits of a subtract then an exp); false as VecMath.
bool VecExpOfDifference(const float* in, float s, float* out, int64_t n);
// The vector-math loop of UnaryFloatKernel for op on f32 (exp, log, log1p,
// tanh and the other libmvec ops), resolved once for this CPU: the same
// bits, without the dispatch per call (a float chain's unary link calls it
// on every tile); `in` may be `out`. Null for other ops and types, and
// while vector math is off (then UnaryFloatKernel runs scalar libm).
using UnaryFloatFn = void (*)(const void* in, void* out, int64_t n);
UnaryFloatFn UnaryFloatKernelFor(Opcode op, PrimitiveType t);
// Tests: turn libmvec off (scalar libm) and on again.
void SetVecMathEnabled(bool enabled);
// Tests: run vector math at most at this level (2: AVX-512, 1: AVX2, 0:
// scalar), so that an AVX-512 machine tests the AVX2 loops too.
void SetVecLevelCap(int level);

// ---- the families --------------------------------------------------------------
// Each gets validated array operands and a zero-filled result of the
// instruction's shape.

// Unary math and bit ops (abs … tanh, is-finite, popcnt, clz, real, imag).
absl::Status EvalUnary(const Instruction& inst, const Literal& in, Literal& out);
// Binary arithmetic and bit ops, complex, mulhi, shifts, maximum/minimum.
absl::Status EvalBinary(const Instruction& inst, const Literal& a, const Literal& b, Literal& out);
// compare, select, clamp.
absl::Status EvalCompare(const Instruction& inst, const Literal& a, const Literal& b, Literal& out);
absl::Status EvalSelect(const Literal& pred, const Literal& on_true, const Literal& on_false,
                        Literal& out);
absl::Status EvalClamp(const Literal& lo, const Literal& x, const Literal& hi, Literal& out);
// The same loops on raw arrays of n elements, for fused loops
// (eval/interp/batch_program.cc). A compare's attributes resolved once: its
// direction and how it orders its operands (integers signed or unsigned,
// f32/f64 by IEEE or totalOrder).
struct CompareMode {
  CompareDirection dir = CompareDirection::kEq;
  bool signed_view = false;
  bool total = false;
};
// `inst`'s mode for operands of type t (pred, an integer type, f32 or f64),
// or the error EvalCompare gives for its attributes.
absl::StatusOr<CompareMode> CompareModeOf(const Instruction& inst, PrimitiveType t);
// out[i] = a[i] <mode> b[i] for arrays of type t (CompareModeOf's types).
void CompareRaw(const CompareMode& mode, PrimitiveType t, const void* a, const void* b, bool* out,
                int64_t n);
// Both: the compare `inst` asks for on arrays of type t.
absl::Status CompareArrays(const Instruction& inst, PrimitiveType t, const void* a, const void* b,
                           bool* out, int64_t n);
// Select of elements `width` bytes wide (false for widths other than 1, 2,
// 4 and 8).
bool SelectArrays(int64_t width, const bool* pred, const void* on_true, const void* on_false,
                  void* out, int64_t n);
// pred's binary ops (add/maximum/or, multiply/minimum/and, subtract/xor:
// false for others, n = 0 only asks).
bool PredBinaryKernel(Opcode op, const bool* a, const bool* b, bool* out, int64_t n);
// pred's unary op (not; others fail).
absl::Status PredUnary(Opcode op, const bool* in, bool* out, int64_t n);
// convert, bitcast-convert, reduce-precision, stochastic-convert.
absl::Status EvalConvert(const Literal& in, Literal& out);
absl::Status EvalBitcastConvert(const Literal& in, Literal& out);
absl::Status EvalReducePrecision(const Literal& in, int64_t exponent_bits, int64_t mantissa_bits,
                                 Literal& out);
absl::Status EvalStochasticConvert(const Literal& in, const Literal& random, Literal& out);

// Routes one elementwise op to its family on operands the caller has
// checked (the result's dimensions and types; select's and clamp's scalar
// operands broadcast). The batched interpreter runs its steps through it.
absl::Status Apply(const Instruction& inst, absl::Span<const Literal* const> ops, Literal& out);

// "'sqrt' does not take element type s32".
absl::Status TypeError(Opcode op, PrimitiveType type);

}  // namespace elementwise
}  // namespace hlo

#endif  // HLO_EVAL_INTERP_ELEMENTWISE_OPS_H_
