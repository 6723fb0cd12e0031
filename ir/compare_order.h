// The ordering a compare applies to floats. XLA writes it as `order=TOTAL`
// or `order=PARTIAL` (its text since 2026) or, in older text, as
// `type=TOTALORDER` / `type=FLOAT`; either is left out when it is the element
// type's default: partial (IEEE) for floats and complex, total for integers
// and pred. Total order on floats is IEEE totalOrder:
// -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
#pragma once

#include <string_view>

#include "ir/instruction.h"
#include "ir/primitive_type.h"

namespace hlo {

// The order XLA prints nothing for: "PARTIAL" for floats and complex, else "TOTAL".
inline std::string_view DefaultCompareOrder(PrimitiveType t) {
  return IsFloat(t) || IsComplex(t) ? "PARTIAL" : "TOTAL";
}

// Whether a compare of floats orders them totally (type=TOTALORDER or
// order=TOTAL); integers and pred are always ordered totally.
inline bool ComparesFloatsInTotalOrder(const Instruction& cmp) {
  return cmp.GetString(AttrKind::kType) == "TOTALORDER" ||
         cmp.GetString(AttrKind::kOrder) == "TOTAL";
}

// Whether a compare of floats is IEEE's partial order (no type/order
// attribute, or type=FLOAT / order=PARTIAL).
inline bool ComparesFloatsInIeeeOrder(const Instruction& cmp) {
  return !ComparesFloatsInTotalOrder(cmp);
}

}  // namespace hlo
