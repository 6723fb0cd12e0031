// The ordering a compare applies to floats. XLA writes it as `order=TOTAL`
// or `order=PARTIAL` (its text since 2026) or, in older text, as
// `type=TOTALORDER` / `type=FLOAT`; either is left out when it is the element
// type's default: partial (IEEE) for floats and complex, total for integers
// and pred. Total order on floats is IEEE totalOrder:
// -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
#pragma once

#include <optional>
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

// A compare's direction attribute.
enum class CompareDirection { kEq, kNe, kGe, kGt, kLe, kLt };

// `cmp`'s direction, or nullopt where it is not one of EQ, NE, GE, GT, LE, LT.
inline std::optional<CompareDirection> CompareDirectionOf(const Instruction& cmp) {
  const std::string_view d = cmp.GetString(AttrKind::kDirection);
  if (d == "EQ") return CompareDirection::kEq;
  if (d == "NE") return CompareDirection::kNe;
  if (d == "GE") return CompareDirection::kGe;
  if (d == "GT") return CompareDirection::kGt;
  if (d == "LE") return CompareDirection::kLe;
  if (d == "LT") return CompareDirection::kLt;
  return std::nullopt;
}

// The direction of compare(b, a) that equals compare(a, b) in `d`.
inline CompareDirection Mirrored(CompareDirection d) {
  switch (d) {
    case CompareDirection::kGe:
      return CompareDirection::kLe;
    case CompareDirection::kGt:
      return CompareDirection::kLt;
    case CompareDirection::kLe:
      return CompareDirection::kGe;
    case CompareDirection::kLt:
      return CompareDirection::kGt;
    default:
      return d;  // EQ and NE are symmetric
  }
}

// Whether a compare of floats is IEEE's partial order (no type/order
// attribute, or type=FLOAT / order=PARTIAL).
inline bool ComparesFloatsInIeeeOrder(const Instruction& cmp) {
  return !ComparesFloatsInTotalOrder(cmp);
}

}  // namespace hlo
