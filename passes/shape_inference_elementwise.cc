// Shape inference for the elementwise family: unary and binary arithmetic,
// compare, complex, select, clamp, the conversions, reduce-precision and map.
//
// HLO has no implicit broadcasting, so every operand of an elementwise op has
// the result's dimensions (select and clamp alone accept scalars for some
// operands). Element types follow XLA's ShapeInference, with the StableHLO
// spec's per-op type lists as the checklist.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "passes/shape_inference.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

std::string_view TypeName(PT t) { return PrimitiveTypeName(t); }

// ---- element-type classes ---------------------------------------------------

// The element types an op accepts, with the words a message uses for them.
struct TypeClass {
  bool (*accepts)(PT);
  const char* words;
};

bool AnyArrayType(PT t) { return IsArrayType(t); }
bool NumericType(PT t) { return IsInteger(t) || IsFloat(t) || IsComplex(t); }
// XLA's "ElementIsSigned" (signed ints and floats) plus complex.
bool SignedNumericType(PT t) { return IsSignedInt(t) || IsFloat(t) || IsComplex(t); }
bool FloatType(PT t) { return IsFloat(t); }
bool FloatOrComplexType(PT t) { return IsFloat(t) || IsComplex(t); }
bool IntegerType(PT t) { return IsInteger(t); }
bool PredOrIntegerType(PT t) { return IsPred(t) || IsInteger(t); }

constexpr TypeClass kAnyType{AnyArrayType, "an array element type"};
constexpr TypeClass kNumeric{NumericType, "integer, floating point or complex"};
constexpr TypeClass kSignedNumeric{SignedNumericType, "signed integer, floating point or complex"};
constexpr TypeClass kFloat{FloatType, "floating point"};
constexpr TypeClass kFloatOrComplex{FloatOrComplexType, "floating point or complex"};
constexpr TypeClass kInteger{IntegerType, "integer"};
constexpr TypeClass kPredOrInteger{PredOrIntegerType, "pred or integer"};

// What a unary op does to the element type.
enum class UnaryResult { kSame, kPred, kComponent };

struct UnaryRule {
  TypeClass types;
  UnaryResult result;
};

// nullopt for opcodes that are not plain unary elementwise ops.
std::optional<UnaryRule> UnaryRuleFor(Opcode op) {
  switch (op) {
    // abs of a complex number is its (real) magnitude.
    case Opcode::kAbs:
      return UnaryRule{kSignedNumeric, UnaryResult::kComponent};
    case Opcode::kSign:
      return UnaryRule{kSignedNumeric, UnaryResult::kSame};
    case Opcode::kNegate:
      return UnaryRule{kNumeric, UnaryResult::kSame};
    case Opcode::kNot:
      return UnaryRule{kPredOrInteger, UnaryResult::kSame};
    case Opcode::kPopcnt:
    case Opcode::kClz:
      return UnaryRule{kInteger, UnaryResult::kSame};
    // Rounding and erf have no complex form (XLA accepts floats only).
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kErf:
      return UnaryRule{kFloat, UnaryResult::kSame};
    case Opcode::kIsFinite:
      return UnaryRule{kFloat, UnaryResult::kPred};
    // real/imag of a float are the value itself and zero.
    case Opcode::kReal:
    case Opcode::kImag:
      return UnaryRule{kFloatOrComplex, UnaryResult::kComponent};
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
    case Opcode::kCbrt:
    case Opcode::kTanh:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kLogistic:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtan:
    case Opcode::kAtanh:
    case Opcode::kCosh:
    case Opcode::kSinh:
      return UnaryRule{kFloatOrComplex, UnaryResult::kSame};
    default:
      return std::nullopt;
  }
}

// nullopt for opcodes that are not plain binary elementwise ops.
std::optional<TypeClass> BinaryTypesFor(Opcode op) {
  switch (op) {
    // On pred these are the logical or/and/or/and (StableHLO and XLA agree).
    case Opcode::kAdd:
    case Opcode::kMultiply:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
      return kAnyType;
    case Opcode::kSubtract:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
      return kNumeric;
    case Opcode::kAtan2:
      return kFloatOrComplex;
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      return kPredOrInteger;
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kMulhi:
      return kInteger;
    default:
      return std::nullopt;
  }
}

// `what` names the operand(s) ("operand of 'sqrt'", "operands of 'and'").
absl::Status ExpectTypeClass(PT t, const TypeClass& types, std::string_view what,
                             bool plural = false) {
  if (types.accepts(t)) return absl::OkStatus();
  return ShapeError(what, " must be ", types.words, ", but ", plural ? "have" : "has",
                    " element type ", TypeName(t));
}

// ---- dimensions -------------------------------------------------------------

// An array shape from dims and per-dimension dynamism (a `?` size is dynamic
// whatever `dynamic` says).
Shape MakeArray(PT t, absl::Span<const int64_t> dims, const std::vector<bool>& dynamic) {
  Shape s = Shape::Array(t, dims);
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) s = s.WithDynamicDim(static_cast<int64_t>(i), true);
  }
  return s;
}

// The dims two elementwise operands share, with a's element type. Sizes must
// agree, except that an unbounded `?` matches any size (the other side is the
// more specific); a bounded dimension is dynamic when either side's is, as
// XLA infers it.
absl::StatusOr<Shape> MergeDims(const Shape& a, std::string_view a_name, const Shape& b,
                                std::string_view b_name) {
  bool same = a.rank() == b.rank();
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; same && i < a.rank(); ++i) {
    bool a_any = a.is_unbounded_dim(i), b_any = b.is_unbounded_dim(i);
    same = a_any || b_any || a.dim(i) == b.dim(i);
    dims.push_back(a_any ? b.dim(i) : a.dim(i));
    dynamic.push_back(a_any   ? b.is_dynamic_dim(i)
                      : b_any ? a.is_dynamic_dim(i)
                              : a.is_dynamic_dim(i) || b.is_dynamic_dim(i));
  }
  if (!same) {
    return ShapeError(a_name, " ", ShapeText(a), " and ", b_name, " ", ShapeText(b),
                      " must have the same dimensions");
  }
  return MakeArray(a.element_type(), dims, dynamic);
}

std::string OpText(Opcode op) { return StrCat("'", OpcodeName(op), "'"); }

// ---- compare ------------------------------------------------------------------

bool IsDirection(std::string_view d) {
  return d == "EQ" || d == "NE" || d == "GE" || d == "GT" || d == "LE" || d == "LT";
}

// The comparison types StableHLO's compare (C3) allows for an element type.
std::string_view ComparisonTypesFor(PT t) {
  if (IsFloat(t)) return "FLOAT or TOTALORDER";
  if (IsComplex(t)) return "FLOAT";
  if (IsSignedInt(t)) return "SIGNED";
  return "UNSIGNED";  // unsigned integers and pred
}

absl::Status CheckComparisonType(PT t, std::string_view type) {
  if (type.empty()) return absl::OkStatus();  // the element type's default
  bool ok;
  if (type == "FLOAT") {
    ok = IsFloat(t) || IsComplex(t);
  } else if (type == "TOTALORDER") {
    ok = IsFloat(t);
  } else if (type == "SIGNED") {
    ok = IsSignedInt(t);
  } else if (type == "UNSIGNED") {
    ok = IsUnsignedInt(t) || IsPred(t);
  } else {
    return ShapeError("compare type '", type,
                      "' is not one of FLOAT, TOTALORDER, SIGNED, UNSIGNED");
  }
  if (ok) return absl::OkStatus();
  return ShapeError("compare type ", type, " does not suit element type ", TypeName(t),
                    " (expected ", ComparisonTypesFor(t), ")");
}

// order=TOTAL|PARTIAL: partial only on floats and complex (IEEE), total on
// floats, integers and pred (complex has no total order); given beside
// type=, the two must agree.
absl::Status CheckComparisonOrder(PT t, std::string_view type, std::string_view order) {
  if (order.empty()) return absl::OkStatus();
  if (order != "TOTAL" && order != "PARTIAL") {
    return ShapeError("compare order '", order, "' is not one of TOTAL, PARTIAL");
  }
  if (order == "PARTIAL" && !IsFloat(t) && !IsComplex(t)) {
    return ShapeError("compare order PARTIAL does not suit element type ", TypeName(t),
                      " (integers and pred are ordered totally)");
  }
  if (order == "TOTAL" && IsComplex(t)) {
    return ShapeError("compare order TOTAL does not suit element type ", TypeName(t),
                      " (complex numbers have no total order)");
  }
  if (!type.empty() && (type == "FLOAT") != (order == "PARTIAL")) {
    return ShapeError("compare type ", type, " contradicts order=", order);
  }
  return absl::OkStatus();
}

// ---- bitcast-convert ----------------------------------------------------------

// bitcast-convert to a narrower type splits each element into a new minor
// dimension of `ratio` elements.
Shape SplitElements(const Shape& operand, PT to, int64_t ratio) {
  std::vector<int64_t> dims(operand.dims().begin(), operand.dims().end());
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < operand.rank(); ++i) dynamic.push_back(operand.is_dynamic_dim(i));
  dims.push_back(ratio);
  dynamic.push_back(false);
  return MakeArray(to, dims, dynamic);
}

// bitcast-convert to a wider type joins the minor dimension, which must hold
// exactly `ratio` elements.
absl::StatusOr<Shape> JoinElements(const Shape& operand, PT to, int64_t ratio) {
  int64_t last = operand.rank() - 1;
  if (last < 0 || operand.dim(last) != ratio || operand.is_dynamic_dim(last)) {
    return ShapeError("bitcast-convert from ", ShapeText(operand), " to ", TypeName(to),
                      " needs a last dimension of size ", ratio, " (the ratio of the bit widths)");
  }
  std::vector<int64_t> dims(operand.dims().begin(), operand.dims().end() - 1);
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < last; ++i) dynamic.push_back(operand.is_dynamic_dim(i));
  return MakeArray(to, dims, dynamic);
}

}  // namespace

// ---- unary and binary -------------------------------------------------------

absl::StatusOr<Shape> InferUnaryShape(Opcode op, const Shape& operand) {
  // copy moves any value, tuples included.
  if (op == Opcode::kCopy) return operand.WithoutLayout();
  std::optional<UnaryRule> rule = UnaryRuleFor(op);
  if (!rule) return ShapeError(OpText(op), " is not a unary elementwise op");
  std::string what = StrCat("operand of ", OpText(op));
  HLO_RETURN_IF_ERROR(ExpectArray(operand, what));
  PT t = operand.element_type();
  HLO_RETURN_IF_ERROR(ExpectTypeClass(t, rule->types, what));
  switch (rule->result) {
    case UnaryResult::kSame:
      return WithType(operand, t);
    case UnaryResult::kPred:
      return WithType(operand, PT::kPred);
    case UnaryResult::kComponent:
      return WithType(operand, ComplexComponentType(t));
  }
  return WithType(operand, t);
}

absl::StatusOr<Shape> InferBinaryShape(Opcode op, const Shape& lhs, const Shape& rhs) {
  if (op == Opcode::kComplex) return InferComplexShape(lhs, rhs);
  std::optional<TypeClass> types = BinaryTypesFor(op);
  if (!types) return ShapeError(OpText(op), " is not a binary elementwise op");
  HLO_RETURN_IF_ERROR(ExpectArray(lhs, StrCat("lhs of ", OpText(op))));
  HLO_RETURN_IF_ERROR(ExpectArray(rhs, StrCat("rhs of ", OpText(op))));
  absl::StatusOr<Shape> merged = MergeDims(lhs, "lhs", rhs, "rhs");
  if (!merged.ok()) return merged.status();
  HLO_RETURN_IF_ERROR(ExpectSameType(lhs, "lhs", rhs, "rhs"));
  HLO_RETURN_IF_ERROR(ExpectTypeClass(lhs.element_type(), *types,
                                      StrCat("operands of ", OpText(op)),
                                      /*plural=*/true));
  return merged;
}

absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs,
                                        std::string_view direction,
                                        std::string_view comparison_type, std::string_view order) {
  HLO_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of 'compare'"));
  HLO_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of 'compare'"));
  absl::StatusOr<Shape> merged = MergeDims(lhs, "lhs", rhs, "rhs");
  if (!merged.ok()) return merged.status();
  HLO_RETURN_IF_ERROR(ExpectSameType(lhs, "lhs", rhs, "rhs"));
  if (!IsDirection(direction)) {
    return ShapeError("compare direction '", direction, "' is not one of EQ, NE, GE, GT, LE, LT");
  }
  // StableHLO defines GE/GT/LE/LT on complex lexicographically, so every
  // direction is allowed; only the comparison type depends on the element.
  HLO_RETURN_IF_ERROR(CheckComparisonType(lhs.element_type(), comparison_type));
  HLO_RETURN_IF_ERROR(CheckComparisonOrder(lhs.element_type(), comparison_type, order));
  return WithType(*merged, PT::kPred);
}

absl::StatusOr<Shape> InferComplexShape(const Shape& real, const Shape& imag) {
  HLO_RETURN_IF_ERROR(ExpectArray(real, "real part of 'complex'"));
  HLO_RETURN_IF_ERROR(ExpectArray(imag, "imaginary part of 'complex'"));
  absl::StatusOr<Shape> merged = MergeDims(real, "real part", imag, "imaginary part");
  if (!merged.ok()) return merged.status();
  HLO_RETURN_IF_ERROR(ExpectSameType(real, "real part", imag, "imaginary part"));
  // Only c64 and c128 exist, so the parts are f32 or f64.
  PT t = real.element_type();
  if (t != PT::kF32 && t != PT::kF64) {
    return ShapeError("operands of 'complex' must be f32 or f64, but have element type ",
                      TypeName(t));
  }
  return WithType(*merged, t == PT::kF32 ? PT::kC64 : PT::kC128);
}

// ---- select and clamp -------------------------------------------------------

absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false) {
  HLO_RETURN_IF_ERROR(ExpectArray(pred, "pred of 'select'"));
  HLO_RETURN_IF_ERROR(ExpectArray(on_true, "on_true of 'select'"));
  HLO_RETURN_IF_ERROR(ExpectArray(on_false, "on_false of 'select'"));
  if (!IsPred(pred.element_type())) {
    return ShapeError("pred of 'select' must have element type pred, but has ",
                      TypeName(pred.element_type()));
  }
  absl::StatusOr<Shape> merged = MergeDims(on_true, "on_true", on_false, "on_false");
  if (!merged.ok()) return merged.status();
  HLO_RETURN_IF_ERROR(ExpectSameType(on_true, "on_true", on_false, "on_false"));
  // A scalar pred chooses whole arrays (StableHLO C1).
  if (pred.rank() != 0) {
    absl::StatusOr<Shape> p = MergeDims(pred, "pred", on_true, "on_true");
    if (!p.ok()) return p.status();
  }
  return merged;
}

absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand, const Shape& max) {
  HLO_RETURN_IF_ERROR(ExpectArray(min, "min of 'clamp'"));
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'clamp'"));
  HLO_RETURN_IF_ERROR(ExpectArray(max, "max of 'clamp'"));
  HLO_RETURN_IF_ERROR(ExpectSameType(min, "min", operand, "operand"));
  HLO_RETURN_IF_ERROR(ExpectSameType(max, "max", operand, "operand"));
  // Scalar bounds apply to every element (StableHLO C1, C2).
  for (const auto& [bound, name] : {std::pair{&min, "min"}, std::pair{&max, "max"}}) {
    if (bound->rank() == 0) continue;
    absl::StatusOr<Shape> m = MergeDims(*bound, name, operand, "operand");
    if (!m.ok()) return m.status();
  }
  return operand.WithoutLayout();
}

// ---- conversions ------------------------------------------------------------

absl::StatusOr<Shape> InferConvertShape(const Shape& operand, PrimitiveType to) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'convert'"));
  if (!IsArrayType(to)) {
    return ShapeError("'convert' cannot produce element type ", TypeName(to));
  }
  return WithType(operand, to);
}

absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand, PrimitiveType to) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'bitcast-convert'"));
  PT from = operand.element_type();
  if (!IsArrayType(to)) {
    return ShapeError("'bitcast-convert' cannot produce element type ", TypeName(to));
  }
  // StableHLO C2: the bits of a complex number are not those of one real.
  if (IsComplex(from) != IsComplex(to)) {
    return ShapeError("bitcast-convert from ", TypeName(from), " to ", TypeName(to),
                      " mixes complex and real types");
  }
  int64_t from_bits = BitWidth(from), to_bits = BitWidth(to);
  int64_t lo = std::min(from_bits, to_bits), hi = std::max(from_bits, to_bits);
  if (lo == 0 || hi % lo != 0) {
    return ShapeError("bitcast-convert from ", TypeName(from), " (", from_bits, " bits) to ",
                      TypeName(to), " (", to_bits, " bits): the bit widths do not divide");
  }
  if (from_bits == to_bits) return WithType(operand, to);
  if (from_bits > to_bits) return SplitElements(operand, to, hi / lo);
  return JoinElements(operand, to, hi / lo);
}

absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand, const Shape& random,
                                                  PrimitiveType to) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'stochastic-convert'"));
  HLO_RETURN_IF_ERROR(ExpectArray(random, "random operand of 'stochastic-convert'"));
  PT from = operand.element_type(), bits_type = random.element_type();
  HLO_RETURN_IF_ERROR(ExpectTypeClass(from, kFloat, "operand of 'stochastic-convert'"));
  if (!IsUnsignedInt(bits_type)) {
    return ShapeError(
        "random operand of 'stochastic-convert' must be unsigned integer, but "
        "has element type ",
        TypeName(bits_type));
  }
  // One random bit per bit of the operand decides the rounding.
  if (BitWidth(bits_type) != BitWidth(from)) {
    return ShapeError(
        "random operand of 'stochastic-convert' must have as many bits as the "
        "operand's ",
        TypeName(from), " (", BitWidth(from), "), but ", TypeName(bits_type), " has ",
        BitWidth(bits_type));
  }
  absl::StatusOr<Shape> merged = MergeDims(operand, "operand", random, "random operand");
  if (!merged.ok()) return merged.status();
  if (!IsInteger(to) && !IsFloat(to)) {
    return ShapeError(
        "'stochastic-convert' must produce an integer or floating point type, "
        "not ",
        TypeName(to));
  }
  return WithType(*merged, to);
}

absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand, int64_t exponent_bits,
                                                int64_t mantissa_bits) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'reduce-precision'"));
  HLO_RETURN_IF_ERROR(
      ExpectTypeClass(operand.element_type(), kFloat, "operand of 'reduce-precision'"));
  if (exponent_bits < 1) {
    return ShapeError("reduce-precision exponent_bits must be at least 1, but is ", exponent_bits);
  }
  if (mantissa_bits < 0) {
    return ShapeError("reduce-precision mantissa_bits must not be negative, but is ",
                      mantissa_bits);
  }
  return operand.WithoutLayout();
}

// ---- map --------------------------------------------------------------------

namespace {

// map applies to every dimension: `dimensions` is empty (XLA's parser fills
// it in) or exactly {0, ..., rank-1} (StableHLO C3).
absl::Status CheckMapDimensions(absl::Span<const int64_t> dimensions, int64_t rank) {
  if (dimensions.empty()) return absl::OkStatus();
  bool identity = static_cast<int64_t>(dimensions.size()) == rank;
  for (int64_t i = 0; identity && i < rank; ++i) identity = dimensions[i] == i;
  if (identity) return absl::OkStatus();
  std::vector<int64_t> all;
  for (int64_t i = 0; i < rank; ++i) all.push_back(i);
  return ShapeError("map dimensions ", DimsText(dimensions), " must be ", DimsText(all),
                    " (map applies to every dimension)");
}

// The computation takes one scalar of each operand's element type and
// returns one scalar (StableHLO C4).
absl::StatusOr<PT> CheckMapComputation(Shapes operands, const ProgramShape& to_apply) {
  if (to_apply.params.size() != operands.size()) {
    return ShapeError("map computation takes ", to_apply.params.size(), " parameters, but map has ",
                      operands.size(), " operands");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    Shape want = Shape::Array(operands[i]->element_type(), {});
    const Shape* got = to_apply.params[i];
    if (!got || !got->Compatible(want)) {
      return ShapeError("map computation parameter ", i, " must be ", ShapeText(want), ", but is ",
                        got ? ShapeText(*got) : "missing");
    }
  }
  const Shape* result = to_apply.result;
  if (!result || !result->IsArray() || result->rank() != 0) {
    return ShapeError("map computation must return a scalar, but returns ",
                      result ? ShapeText(*result) : "nothing");
  }
  return result->element_type();
}

}  // namespace

absl::StatusOr<Shape> InferMapShape(Shapes operands, const ProgramShape& to_apply,
                                    absl::Span<const int64_t> dimensions) {
  if (operands.empty()) return ShapeError("map needs at least one operand");
  for (size_t i = 0; i < operands.size(); ++i) {
    HLO_RETURN_IF_ERROR(ExpectArray(*operands[i], StrCat("map operand ", i)));
  }
  // Operands share dims; their element types may differ.
  Shape dims = operands[0]->WithoutLayout();
  for (size_t i = 1; i < operands.size(); ++i) {
    absl::StatusOr<Shape> m =
        MergeDims(dims, "map operand 0", *operands[i], StrCat("map operand ", i));
    if (!m.ok()) return m.status();
    dims = *m;
  }
  HLO_RETURN_IF_ERROR(CheckMapDimensions(dimensions, dims.rank()));
  absl::StatusOr<PT> result_type = CheckMapComputation(operands, to_apply);
  if (!result_type.ok()) return result_type.status();
  return WithType(dims, *result_type);
}

}  // namespace hlo
