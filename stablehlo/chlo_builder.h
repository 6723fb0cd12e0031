// What the chlo decompositions share: a builder of elementwise HLO on
// values of one shape, and the special functions (chlo_math.cc).
#ifndef HLO_STABLEHLO_CHLO_BUILDER_H_
#define HLO_STABLEHLO_CHLO_BUILDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/strings.h"
#include "stablehlo/op_util.h"
#include "stablehlo/translator.h"

namespace hlo::stablehlo {

// Emits elementwise HLO on values of one shape.
struct Builder {
  Translator& t;
  Scope& s;
  const Op& op;
  Type type;  // the shape every value here has (its element type varies)

  Type Of(std::string_view element) const {
    Type r = type;
    r.element = std::string(element);
    return r;
  }
  std::string Un(std::string_view opcode, const std::string& a, const Type& ty) {
    return t.Emit(s, op, opcode, ty, StrCat(opcode, "(", a, ")"));
  }
  std::string Bin(std::string_view opcode, const std::string& a, const std::string& b,
                  const Type& ty) {
    return t.Emit(s, op, opcode, ty, StrCat(opcode, "(", a, ", ", b, ")"));
  }
  std::string Cmp(std::string_view dir, const std::string& a, const std::string& b) {
    return t.Emit(s, op, "compare", Of("pred"),
                  StrCat("compare(", a, ", ", b, "), direction=", dir));
  }
  std::string Sel(const std::string& p, const std::string& a, const std::string& b,
                  const Type& ty) {
    return t.Emit(s, op, "select", ty, StrCat("select(", p, ", ", a, ", ", b, ")"));
  }
  std::string Clamp(const std::string& lo, const std::string& x, const std::string& hi,
                    const Type& ty) {
    return t.Emit(s, op, "clamp", ty, StrCat("clamp(", lo, ", ", x, ", ", hi, ")"));
  }
  std::string Const(std::string_view text, const Type& ty) { return t.Splat(s, op, ty, text); }
};

// The one operand of `op`, checked.
absl::StatusOr<Value> OneOperand(Translator& t, const Op& op, const Scope& s);

// chlo's trigonometric, hyperbolic and gamma-family ops (chlo_math.cc).
std::vector<OpEntry> ChloMathOps();

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_CHLO_BUILDER_H_
