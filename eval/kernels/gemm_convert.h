// Element types for the dot and convolution kernels: the type a product is
// accumulated in (its "compute type"), and conversions of literal elements
// to and from it.
//
// Floats accumulate in float (f32, and bf16/f16/f8 widened to f32, rounded
// once at the end) or in double when an f64/c128 is involved; complex in
// std::complex of those. Integers and pred accumulate in uint64: wrapping
// arithmetic modulo 2^64 and truncating at the end gives exactly the
// result type's wrap-around, and for pred (products 0/1) a non-zero sum is
// the OR of the ANDs.
#ifndef HLO_EVAL_KERNELS_GEMM_CONVERT_H_
#define HLO_EVAL_KERNELS_GEMM_CONVERT_H_

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "eval/interp/float16_convert.h"
#include "eval/type_dispatch.h"
#include "ir/float_formats.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace gemm {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

enum class Compute { kFloat, kDouble, kCFloat, kCDouble, kU64 };

// The accumulation type of a product of `a` and `b` elements giving `result`.
Compute ComputeTypeOf(PrimitiveType a, PrimitiveType b, PrimitiveType result);

template <typename C>
inline constexpr bool kIsComplex = std::is_same_v<C, cfloat> || std::is_same_v<C, cdouble>;

// 256-entry decode table of an 8-bit or 4-bit float format, built once.
const float* SmallFloatDecodeTable(PrimitiveType type);

// Element of storage type Storage<P> -> compute type C.
template <PrimitiveType P, typename C>
inline C ToCompute(const Storage<P>& v, const float* table) {
  using S = Storage<P>;
  if constexpr (std::is_same_v<S, SmallFloatBits<P>>) {
    float f;
    if constexpr (P == PrimitiveType::kBF16) {
      f = BF16ToFloat(v.bits);
    } else if constexpr (P == PrimitiveType::kF16) {
      f = HalfToFloat(v.bits);
    } else {
      f = table[v.bits];
    }
    if constexpr (std::is_same_v<C, uint64_t>) {
      return static_cast<uint64_t>(static_cast<int64_t>(f));  // not reached
    } else {
      return C(f);
    }
  } else if constexpr (kIsComplex<S>) {
    if constexpr (kIsComplex<C>) {
      return C(v.real(), v.imag());
    } else if constexpr (std::is_same_v<C, uint64_t>) {
      return 0;  // not reached: complex operands never accumulate in integers
    } else {
      return C(v.real());
    }
  } else if constexpr (std::is_same_v<C, uint64_t>) {
    if constexpr (std::is_floating_point_v<S>) {
      return 0;  // not reached: float operands never accumulate in integers
    } else {
      return static_cast<uint64_t>(v);  // sign-extends modulo 2^64
    }
  } else if constexpr (kIsComplex<C>) {
    using R = typename C::value_type;
    return C(static_cast<R>(v), R(0));
  } else {
    return static_cast<C>(v);
  }
}

// Integer wrap into P's logical width (sub-byte types are stored extended).
template <PrimitiveType P>
inline Storage<P> WrapInt(uint64_t v) {
  using S = Storage<P>;
  constexpr int bits = P == PrimitiveType::kS1 || P == PrimitiveType::kU1   ? 1
                       : P == PrimitiveType::kS2 || P == PrimitiveType::kU2 ? 2
                       : P == PrimitiveType::kS4 || P == PrimitiveType::kU4 ? 4
                                                                            : 64;
  if constexpr (bits == 64) {
    return static_cast<S>(v);
  } else {
    uint64_t low = v & ((uint64_t{1} << bits) - 1);
    if constexpr (std::is_signed_v<S>) {
      if (low >> (bits - 1))
        return static_cast<S>(static_cast<int64_t>(low) - (int64_t{1} << bits));
    }
    return static_cast<S>(low);
  }
}

// Float -> integer as convert does: truncate, saturate, NaN gives 0.
template <PrimitiveType P>
inline Storage<P> FloatToInt(double d) {
  using S = Storage<P>;
  if (std::isnan(d)) return S(0);
  constexpr bool sgn = std::is_signed_v<S>;
  constexpr int bits = sizeof(S) * 8;
  const double lo = sgn ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi = sgn ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (d <= lo) return std::numeric_limits<S>::min();
  if (d >= hi) return std::numeric_limits<S>::max();
  return WrapInt<P>(sgn ? static_cast<uint64_t>(static_cast<int64_t>(d))
                        : static_cast<uint64_t>(d));
}

// Compute type C -> element of storage type Storage<P> (one rounding).
template <PrimitiveType P, typename C>
inline Storage<P> FromCompute(const C& c) {
  using S = Storage<P>;
  if constexpr (P == PrimitiveType::kPred) {
    return c != C(0);
  } else if constexpr (std::is_same_v<S, SmallFloatBits<P>>) {
    double d;
    if constexpr (kIsComplex<C>) {
      d = c.real();
    } else {
      d = static_cast<double>(c);
    }
    if constexpr (std::is_same_v<C, float> && P == PrimitiveType::kBF16) {
      return S{FloatToBF16(c)};
    } else if constexpr (std::is_same_v<C, float> && P == PrimitiveType::kF16) {
      return S{FloatToHalf(c)};
    } else {
      return S{static_cast<typename S::Bits>(EncodeSmallFloat(P, d))};
    }
  } else if constexpr (kIsComplex<S>) {
    using R = typename S::value_type;
    if constexpr (kIsComplex<C>) {
      return S(static_cast<R>(c.real()), static_cast<R>(c.imag()));
    } else {
      return S(static_cast<R>(c), R(0));
    }
  } else if constexpr (std::is_floating_point_v<S>) {
    if constexpr (kIsComplex<C>) {
      return static_cast<S>(c.real());
    } else {
      return static_cast<S>(c);
    }
  } else if constexpr (std::is_same_v<C, uint64_t>) {
    return WrapInt<P>(c);
  } else if constexpr (kIsComplex<C>) {
    return FloatToInt<P>(c.real());
  } else {
    return FloatToInt<P>(static_cast<double>(c));
  }
}

// A vector of n elements, or an error when too large to allocate.
template <typename T>
absl::Status Allocate(std::vector<T>& v, int64_t n) {
  if (n < 0 || n > kMaxLiteralBytes / static_cast<int64_t>(sizeof(T))) {
    return absl::ResourceExhaustedError(
        StrCat("a scratch buffer of ", n, " elements is too large"));
  }
  try {
    v.assign(static_cast<size_t>(n), T(0));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(StrCat("cannot allocate ", n * sizeof(T), " bytes"));
  }
  return absl::OkStatus();
}

// An uninitialised buffer of n elements (for buffers the caller fills).
template <typename T>
absl::Status AllocateUninitialized(std::unique_ptr<T[]>& p, int64_t n) {
  if (n < 0 || n > kMaxLiteralBytes / static_cast<int64_t>(sizeof(T))) {
    return absl::ResourceExhaustedError(
        StrCat("a scratch buffer of ", n, " elements is too large"));
  }
  p.reset(new (std::nothrow) T[static_cast<size_t>(std::max<int64_t>(n, 1))]);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(StrCat("cannot allocate ", n * sizeof(T), " bytes"));
  }
  return absl::OkStatus();
}

// The literal's elements converted to C (row-major) into `out`, room for
// every element.
template <typename C>
void ConvertToCompute(const Literal& lit, C* out) {
  const int64_t n = lit.element_count();
  const float* table = nullptr;
  if (IsSmallFloat(lit.element_type()) && BitWidth(lit.element_type()) <= 8) {
    table = SmallFloatDecodeTable(lit.element_type());
  }
  if constexpr (std::is_same_v<C, float>) {
    if (WidenFloat16s(lit.element_type(), lit.data(), n, out)) return;
  }
  DispatchType(lit.element_type(), [&](auto tag) {
    constexpr PrimitiveType P = decltype(tag)::value;
    const Storage<P>* src = lit.typed<Storage<P>>();
    for (int64_t i = 0; i < n; ++i) out[i] = ToCompute<P, C>(src[i], table);
  });
}

// The same into a vector sized here.
template <typename C>
absl::Status ToComputeBuffer(const Literal& lit, std::vector<C>& out) {
  if (auto st = Allocate(out, lit.element_count()); !st.ok()) return st;
  ConvertToCompute(lit, out.data());
  return absl::OkStatus();
}

// The literal's storage when it already holds C elements (no copy needed).
template <typename C>
const C* DirectData(const Literal& lit) {
  PrimitiveType t = lit.element_type();
  if constexpr (std::is_same_v<C, float>) {
    return t == PrimitiveType::kF32 ? lit.typed<float>() : nullptr;
  } else if constexpr (std::is_same_v<C, double>) {
    return t == PrimitiveType::kF64 ? lit.typed<double>() : nullptr;
  } else if constexpr (std::is_same_v<C, cfloat>) {
    return t == PrimitiveType::kC64 ? lit.typed<cfloat>() : nullptr;
  } else if constexpr (std::is_same_v<C, cdouble>) {
    return t == PrimitiveType::kC128 ? lit.typed<cdouble>() : nullptr;
  } else {
    return t == PrimitiveType::kU64 ? lit.typed<uint64_t>() : nullptr;
  }
}

template <typename C>
C* MutableDirectData(Literal& lit) {
  return const_cast<C*>(DirectData<C>(lit));
}

// Writes n compute values into the literal's elements, converting.
template <typename C>
void FromComputeBuffer(const C* src, Literal& lit) {
  const int64_t n = lit.element_count();
  if constexpr (std::is_same_v<C, float>) {
    if (NarrowToFloat16s(lit.element_type(), src, n, lit.data())) return;
  }
  DispatchType(lit.element_type(), [&](auto tag) {
    constexpr PrimitiveType P = decltype(tag)::value;
    Storage<P>* dst = lit.typed<Storage<P>>();
    for (int64_t i = 0; i < n; ++i) dst[i] = FromCompute<P, C>(src[i]);
  });
}

// Calls f(C{}) with a value of the compute type.
template <typename F>
void DispatchCompute(Compute c, F&& f) {
  switch (c) {
    case Compute::kFloat:
      f(float{});
      return;
    case Compute::kDouble:
      f(double{});
      return;
    case Compute::kCFloat:
      f(cfloat{});
      return;
    case Compute::kCDouble:
      f(cdouble{});
      return;
    case Compute::kU64:
      f(uint64_t{});
      return;
  }
}

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_CONVERT_H_
