// The simple reducers (add, multiply, maximum, minimum, and, or, xor) as
// typed operations on native values, and the dispatch from (element type,
// opcode) to them: shared by the reduction kernels (eval/kernels/reduce*.cc),
// the row folds (reduce_fold.h) and the one-pass reductions.
#ifndef HLO_EVAL_INTERP_REDUCE_OPS_H_
#define HLO_EVAL_INTERP_REDUCE_OPS_H_

#include <bit>
#include <cstdint>
#include <type_traits>

#include "eval/type_dispatch.h"
#include "ir/opcode.h"
#include "ir/primitive_type.h"

namespace hlo {
namespace reduction {

// IEEE-754 maximum/minimum: NaN propagates (the second operand's when both
// are NaN), -0 < +0. Written with selects only (for equal operands the
// bitwise and/or of the two picks +0 for max and -0 for min), so loops over
// them vectorise.
template <typename T>
inline T FloatBits(T a, T b, bool use_and) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  U x = std::bit_cast<U>(a), y = std::bit_cast<U>(b);
  return std::bit_cast<T>(use_and ? (x & y) : (x | y));
}
template <typename T>
inline T Max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = a > b ? a : b;
    r = a == b ? FloatBits(a, b, true) : r;
    r = a != a ? a : r;
    return b != b ? b : r;
  } else {
    return a > b ? a : b;
  }
}
template <typename T>
inline T Min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = a < b ? a : b;
    r = a == b ? FloatBits(a, b, false) : r;
    r = a != a ? a : r;
    return b != b ? b : r;
  } else {
    return a < b ? a : b;
  }
}

// One application of a simple reducer on native T (integers wrap). The op
// is a template argument so loops over it have no branch on the opcode and
// can vectorise.
template <Opcode op, typename T>
inline T Apply(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case Opcode::kAdd:
      case Opcode::kOr:
      case Opcode::kMaximum:
        return a || b;
      case Opcode::kXor:
        return a != b;
      default:
        return a && b;  // multiply, and, minimum
    }
  } else if constexpr (std::is_integral_v<T>) {
    // u16 * u16 promotes to int and can overflow it: wrap in at least 32 bits.
    using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
    switch (op) {
      case Opcode::kAdd:
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case Opcode::kMultiply:
        return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case Opcode::kMaximum:
        return Max(a, b);
      case Opcode::kMinimum:
        return Min(a, b);
      case Opcode::kAnd:
        return a & b;
      case Opcode::kOr:
        return a | b;
      default:
        return a ^ b;
    }
  } else {
    switch (op) {
      case Opcode::kAdd:
        return a + b;
      case Opcode::kMultiply:
        return a * b;
      case Opcode::kMaximum:
        return Max(a, b);
      default:
        return Min(a, b);
    }
  }
}

// Whether (a op b) op c == a op (b op c) bit for bit, operand order kept:
// every op on integers and pred (wrapping), and float maximum/minimum (a
// total order with the leftmost NaN winning); not float sums or products.
template <Opcode op, typename T>
constexpr bool kExactlyAssociative =
    !std::is_floating_point_v<T> || op == Opcode::kMaximum || op == Opcode::kMinimum;

template <typename T>
constexpr bool kNativeFast = std::is_arithmetic_v<T>;

// Whether `op` is defined on T (and/or/xor only on integers and pred).
template <Opcode op, typename T>
constexpr bool kOpOnType =
    !std::is_floating_point_v<T> || (op != Opcode::kAnd && op != Opcode::kOr && op != Opcode::kXor);

// Calls f(std::integral_constant<Opcode, op>{}) for a simple reducer op.
template <typename F>
void DispatchReducer(Opcode op, F&& f) {
  switch (op) {
    case Opcode::kAdd:
      f(std::integral_constant<Opcode, Opcode::kAdd>{});
      break;
    case Opcode::kMultiply:
      f(std::integral_constant<Opcode, Opcode::kMultiply>{});
      break;
    case Opcode::kMaximum:
      f(std::integral_constant<Opcode, Opcode::kMaximum>{});
      break;
    case Opcode::kMinimum:
      f(std::integral_constant<Opcode, Opcode::kMinimum>{});
      break;
    case Opcode::kAnd:
      f(std::integral_constant<Opcode, Opcode::kAnd>{});
      break;
    case Opcode::kOr:
      f(std::integral_constant<Opcode, Opcode::kOr>{});
      break;
    default:
      f(std::integral_constant<Opcode, Opcode::kXor>{});
      break;
  }
}

// True when (type, op) can use the typed loop.
inline bool FastPathType(PrimitiveType t, Opcode op) {
  if (IsSmallFloat(t) || IsComplex(t) || !IsArrayType(t)) return false;
  if (IsInteger(t) && BitWidth(t) < 8) return false;  // sub-byte ints wrap in their width
  if (IsFloat(t) && (op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor)) {
    return false;
  }
  return true;
}

// Calls f(op, type tag) when (t, op) has a typed loop (FastPathType, and
// the op defined on T); returns whether it did.
template <typename F>
bool DispatchTypedReducer(PrimitiveType t, Opcode op, F&& f) {
  if (!FastPathType(t, op)) return false;
  bool called = false;
  DispatchType(t, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (kNativeFast<T>) {
      DispatchReducer(op, [&](auto o) {
        if constexpr (kOpOnType<o.value, T>) {
          f(o, tag);
          called = true;
        }
      });
    }
  });
  return called;
}

}  // namespace reduction
}  // namespace hlo

#endif  // HLO_EVAL_INTERP_REDUCE_OPS_H_
