// Compile-time element types for the evaluator's kernels: one C++ storage
// type per primitive type, and a switch that calls a generic lambda with a
// tag for the runtime type. Kernels are instantiated per type outside their
// loops; nothing dispatches per element.
#ifndef HLO_EVAL_TYPE_DISPATCH_H_
#define HLO_EVAL_TYPE_DISPATCH_H_

#include <complex>
#include <cstdint>
#include <type_traits>

#include "ir/primitive_type.h"

namespace hlo {

// Storage of the 16-bit and narrower floats: their raw bits, wrapped so that
// overloads can tell them apart from integers.
template <PrimitiveType kType>
struct SmallFloatBits {
  using Bits = std::conditional_t<(kType == PrimitiveType::kF16 || kType == PrimitiveType::kBF16),
                                  uint16_t, uint8_t>;
  Bits bits;
};

template <PrimitiveType kType>
struct StorageOf;
#define HLO_STORAGE(T, C)              \
  template <>                          \
  struct StorageOf<PrimitiveType::T> { \
    using type = C;                    \
  };
HLO_STORAGE(kPred, bool)
HLO_STORAGE(kS1, int8_t)
HLO_STORAGE(kS2, int8_t)
HLO_STORAGE(kS4, int8_t)
HLO_STORAGE(kS8, int8_t)
HLO_STORAGE(kS16, int16_t)
HLO_STORAGE(kS32, int32_t)
HLO_STORAGE(kS64, int64_t)
HLO_STORAGE(kU1, uint8_t)
HLO_STORAGE(kU2, uint8_t)
HLO_STORAGE(kU4, uint8_t)
HLO_STORAGE(kU8, uint8_t)
HLO_STORAGE(kU16, uint16_t)
HLO_STORAGE(kU32, uint32_t)
HLO_STORAGE(kU64, uint64_t)
HLO_STORAGE(kF32, float)
HLO_STORAGE(kF64, double)
HLO_STORAGE(kC64, std::complex<float>)
HLO_STORAGE(kC128, std::complex<double>)
#undef HLO_STORAGE
#define HLO_SMALL_FLOAT_STORAGE(T)                 \
  template <>                                      \
  struct StorageOf<PrimitiveType::T> {             \
    using type = SmallFloatBits<PrimitiveType::T>; \
  };
HLO_SMALL_FLOAT_STORAGE(kF16)
HLO_SMALL_FLOAT_STORAGE(kBF16)
HLO_SMALL_FLOAT_STORAGE(kF8E5M2)
HLO_SMALL_FLOAT_STORAGE(kF8E4M3)
HLO_SMALL_FLOAT_STORAGE(kF8E4M3FN)
HLO_SMALL_FLOAT_STORAGE(kF8E4M3B11FNUZ)
HLO_SMALL_FLOAT_STORAGE(kF8E5M2FNUZ)
HLO_SMALL_FLOAT_STORAGE(kF8E4M3FNUZ)
HLO_SMALL_FLOAT_STORAGE(kF8E3M4)
HLO_SMALL_FLOAT_STORAGE(kF4E2M1FN)
HLO_SMALL_FLOAT_STORAGE(kF8E8M0FNU)
HLO_SMALL_FLOAT_STORAGE(kF6E2M3FN)
HLO_SMALL_FLOAT_STORAGE(kF6E3M2FN)
#undef HLO_SMALL_FLOAT_STORAGE

template <PrimitiveType kType>
using Storage = typename StorageOf<kType>::type;

template <PrimitiveType kType>
struct TypeTag {
  static constexpr PrimitiveType value = kType;
  using T = Storage<kType>;
};

// Calls f(TypeTag<type>{}) for array element types; returns false for token
// and opaque (f is not called).
template <typename F>
bool DispatchType(PrimitiveType type, F&& f) {
  // One case per array type (kinds P, S, U, F, C); token and opaque (T, O)
  // have no storage and return false.
#define HLO_DISPATCH_ARRAY(e)       \
  case PrimitiveType::e:            \
    f(TypeTag<PrimitiveType::e>{}); \
    return true;
#define HLO_DISPATCH_NONE(e) \
  case PrimitiveType::e:     \
    return false;
#define HLO_DISPATCH_P(e) HLO_DISPATCH_ARRAY(e)
#define HLO_DISPATCH_S(e) HLO_DISPATCH_ARRAY(e)
#define HLO_DISPATCH_U(e) HLO_DISPATCH_ARRAY(e)
#define HLO_DISPATCH_F(e) HLO_DISPATCH_ARRAY(e)
#define HLO_DISPATCH_C(e) HLO_DISPATCH_ARRAY(e)
#define HLO_DISPATCH_T(e) HLO_DISPATCH_NONE(e)
#define HLO_DISPATCH_O(e) HLO_DISPATCH_NONE(e)
#define HLO_DISPATCH_CASE(e, name, bits, kind) HLO_DISPATCH_##kind(e)
  switch (type) { HLO_PRIMITIVE_TYPES(HLO_DISPATCH_CASE) }
#undef HLO_DISPATCH_CASE
#undef HLO_DISPATCH_P
#undef HLO_DISPATCH_S
#undef HLO_DISPATCH_U
#undef HLO_DISPATCH_F
#undef HLO_DISPATCH_C
#undef HLO_DISPATCH_T
#undef HLO_DISPATCH_O
#undef HLO_DISPATCH_ARRAY
#undef HLO_DISPATCH_NONE
  return false;
}

}  // namespace hlo

#endif  // HLO_EVAL_TYPE_DISPATCH_H_
