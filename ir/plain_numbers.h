// The element types a literal stores as plain C++ numbers of their own
// width (f32, f64 and the integers of whole bytes): the ones a typed loop
// over lit.typed<T>() can format or copy without a per-element switch.
#ifndef HLO_IR_PLAIN_NUMBERS_H_
#define HLO_IR_PLAIN_NUMBERS_H_

#include <cstdint>

#include "ir/primitive_type.h"

namespace hlo {

// Calls f(T{}) with the C++ type of `type` and returns true when it is one
// of those types; false (f not called) otherwise.
template <typename F>
bool VisitPlainNumberType(PrimitiveType type, F&& f) {
#define HLO_PLAIN_NUMBER(P, T) \
  case PrimitiveType::P:       \
    f(T{});                    \
    return true;
  switch (type) {
    HLO_PLAIN_NUMBER(kF32, float)
    HLO_PLAIN_NUMBER(kF64, double)
    HLO_PLAIN_NUMBER(kS8, int8_t)
    HLO_PLAIN_NUMBER(kS16, int16_t)
    HLO_PLAIN_NUMBER(kS32, int32_t)
    HLO_PLAIN_NUMBER(kS64, int64_t)
    HLO_PLAIN_NUMBER(kU8, uint8_t)
    HLO_PLAIN_NUMBER(kU16, uint16_t)
    HLO_PLAIN_NUMBER(kU32, uint32_t)
    HLO_PLAIN_NUMBER(kU64, uint64_t)
    default:
      return false;
  }
#undef HLO_PLAIN_NUMBER
}

}  // namespace hlo

#endif  // HLO_IR_PLAIN_NUMBERS_H_
