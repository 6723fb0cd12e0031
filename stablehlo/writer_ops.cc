// The StableHLO form of each instruction (XLA's HLO-to-StableHLO rules:
// xla/hlo/translate/hlo_to_mhlo, learnt from its sources and tests).
#include <numeric>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/mlir_text.h"
#include "stablehlo/writer_impl.h"

namespace hlo::stablehlo::writing {
namespace {

// The elementwise ops: HLO opcode -> op name (stablehlo.* or chlo.* for
// those StableHLO leaves to CHLO).
std::string_view ElementwiseName(Opcode op) {
  switch (op) {
    case Opcode::kAbs:
      return "stablehlo.abs";
    case Opcode::kAcos:
      return "chlo.acos";
    case Opcode::kAcosh:
      return "chlo.acosh";
    case Opcode::kAdd:
      return "stablehlo.add";
    case Opcode::kAnd:
      return "stablehlo.and";
    case Opcode::kAsin:
      return "chlo.asin";
    case Opcode::kAsinh:
      return "chlo.asinh";
    case Opcode::kAtan:
      return "chlo.atan";
    case Opcode::kAtan2:
      return "stablehlo.atan2";
    case Opcode::kAtanh:
      return "chlo.atanh";
    case Opcode::kBitcastConvert:
      return "stablehlo.bitcast_convert";
    case Opcode::kCbrt:
      return "stablehlo.cbrt";
    case Opcode::kCeil:
      return "stablehlo.ceil";
    case Opcode::kClamp:
      return "stablehlo.clamp";
    case Opcode::kClz:
      return "stablehlo.count_leading_zeros";
    case Opcode::kComplex:
      return "stablehlo.complex";
    case Opcode::kConvert:
      return "stablehlo.convert";
    case Opcode::kCos:
      return "stablehlo.cosine";
    case Opcode::kCosh:
      return "chlo.cosh";
    case Opcode::kDivide:
      return "stablehlo.divide";
    case Opcode::kErf:
      return "chlo.erf";
    case Opcode::kExp:
      return "stablehlo.exponential";
    case Opcode::kExpm1:
      return "stablehlo.exponential_minus_one";
    case Opcode::kFloor:
      return "stablehlo.floor";
    case Opcode::kImag:
      return "stablehlo.imag";
    case Opcode::kIsFinite:
      return "stablehlo.is_finite";
    case Opcode::kLog:
      return "stablehlo.log";
    case Opcode::kLog1p:
      return "stablehlo.log_plus_one";
    case Opcode::kLogistic:
      return "stablehlo.logistic";
    case Opcode::kMaximum:
      return "stablehlo.maximum";
    case Opcode::kMinimum:
      return "stablehlo.minimum";
    case Opcode::kMultiply:
      return "stablehlo.multiply";
    case Opcode::kNegate:
      return "stablehlo.negate";
    case Opcode::kNot:
      return "stablehlo.not";
    case Opcode::kOr:
      return "stablehlo.or";
    case Opcode::kPopcnt:
      return "stablehlo.popcnt";
    case Opcode::kPower:
      return "stablehlo.power";
    case Opcode::kReal:
      return "stablehlo.real";
    case Opcode::kRemainder:
      return "stablehlo.remainder";
    case Opcode::kRoundNearestAfz:
      return "stablehlo.round_nearest_afz";
    case Opcode::kRoundNearestEven:
      return "stablehlo.round_nearest_even";
    case Opcode::kRsqrt:
      return "stablehlo.rsqrt";
    case Opcode::kSelect:
      return "stablehlo.select";
    case Opcode::kShiftLeft:
      return "stablehlo.shift_left";
    case Opcode::kShiftRightArithmetic:
      return "stablehlo.shift_right_arithmetic";
    case Opcode::kShiftRightLogical:
      return "stablehlo.shift_right_logical";
    case Opcode::kSign:
      return "stablehlo.sign";
    case Opcode::kSin:
      return "stablehlo.sine";
    case Opcode::kSinh:
      return "chlo.sinh";
    case Opcode::kSqrt:
      return "stablehlo.sqrt";
    case Opcode::kSubtract:
      return "stablehlo.subtract";
    case Opcode::kTan:
      return "stablehlo.tan";
    case Opcode::kTanh:
      return "stablehlo.tanh";
    case Opcode::kXor:
      return "stablehlo.xor";
    default:
      return {};
  }
}

std::string CompareType(const hlo::Instruction& inst) {
  std::string_view type = inst.GetString(AttrKind::kType);
  if (!type.empty()) return Upper(type);
  // XLA's newer text: order=TOTAL|PARTIAL for floats.
  std::string_view order = inst.GetString(AttrKind::kOrder);
  PrimitiveType element = inst.operand(0)->shape().element_type();
  if (order == "TOTAL" && IsFloat(element)) return "TOTALORDER";
  PrimitiveType t = inst.operand(0)->shape().element_type();
  if (IsFloat(t) || IsComplex(t)) return "FLOAT";
  if (IsSignedInt(t)) return "SIGNED";
  return "UNSIGNED";
}

// `[b, 0, 1, f]`: the label of each dimension of a tensor.

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace

std::vector<const Shape*> Writer::ResultsOf(const Shape& shape) {
  if (!shape.IsTuple()) return {&shape};
  for (const Shape* e : shape.tuple_shapes()) {
    if (e->IsTuple()) return {&shape};
  }
  return shape.tuple_shapes();
}

absl::StatusOr<Value> Writer::Elementwise(const hlo::Instruction& inst, std::string_view name,
                                          int indent) {
  Op op;
  op.name = std::string(name);
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  op.results = {&inst.shape()};
  if (inst.opcode() == Opcode::kConvert || inst.opcode() == Opcode::kBitcastConvert) {
    op.pretty = PrettyForm::kFunctional;
  } else if (inst.opcode() == Opcode::kSelect) {
    op.pretty = PrettyForm::kSelect;
  } else if (name.substr(0, 5) != "chlo.") {
    op.pretty = PrettyForm::kSameType;
  }
  return EmitFor(inst, op, indent);
}

absl::StatusOr<Value> Writer::Constant(const hlo::Instruction& inst, int indent) {
  const Literal* lit = inst.literal();
  if (lit == nullptr || inst.literal_elided()) {
    return Error(inst, "a constant whose value is elided ({...}) has no StableHLO form");
  }
  if (lit->IsTuple()) return Error(inst, "tuple constants are not written yet");
  HLO_ASSIGN_OR_RETURN(std::string dense, DenseText(*lit));
  HLO_ASSIGN_OR_RETURN(std::string type, TypeText(inst.shape()));
  Op op;
  op.name = "stablehlo.constant";
  op.properties = {StrCat("value = ", dense, " : ", type)};
  op.pretty = PrettyForm::kConstant;
  op.pretty_text = dense;
  op.results = {&inst.shape()};
  return EmitFor(inst, op, indent);
}

// A bitcast reinterprets the operand's bytes in the result's layout: the
// operand in its physical (major-to-minor) order, reshaped to the result's
// physical dims, transposed to the result's logical order.
absl::StatusOr<Value> Writer::Bitcast(const hlo::Instruction& inst, int indent) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  if (!in.IsArray() || !out.IsArray() ||
      BitWidth(in.element_type()) != BitWidth(out.element_type())) {
    return Error(inst, "only a bitcast between arrays of one element width is written");
  }
  // The layout steps in the operand's element type, then a bitcast_convert.
  const Shape out_dims = Shape::Array(in.element_type(), out.dims());
  const bool converts = in.element_type() != out.element_type();
  auto major_to_minor = [](const Shape& s) {
    std::vector<int64_t> order;
    if (!s.has_layout() || s.layout().minor_to_major.empty()) return Iota(s.rank());
    for (auto it = s.layout().minor_to_major.rbegin(); it != s.layout().minor_to_major.rend();
         ++it) {
      order.push_back(*it);
    }
    return order;
  };
  std::vector<int64_t> p = major_to_minor(in), q = major_to_minor(out);
  std::string current = ValueOf(inst.operand(0)).parts[0];
  const Shape* current_shape = &in;
  std::vector<std::unique_ptr<Shape>> temps;
  auto step = [&](std::string name, std::vector<std::string> props,
                  const Shape& result) -> absl::Status {
    Op op;
    op.name = std::move(name);
    op.operands = {current};
    op.operand_shapes = {current_shape};
    op.properties = std::move(props);
    op.results = {&result};
    HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
    current = v.parts[0];
    current_shape = &result;
    return absl::OkStatus();
  };
  if (p != Iota(in.rank())) {
    std::vector<int64_t> dims;
    for (int64_t d : p) dims.push_back(in.dim(d));
    temps.push_back(std::make_unique<Shape>(Shape::Array(in.element_type(), dims)));
    HLO_RETURN_IF_ERROR(
        step("stablehlo.transpose", {StrCat("permutation = ", I64Array(p))}, *temps.back()));
  }
  std::vector<int64_t> physical_out;
  for (int64_t d : q) physical_out.push_back(out.dim(d));
  temps.push_back(std::make_unique<Shape>(Shape::Array(in.element_type(), physical_out)));
  if (current_shape->dims() != temps.back()->dims()) {
    HLO_RETURN_IF_ERROR(step("stablehlo.reshape", {}, *temps.back()));
  }
  if (q != Iota(out.rank())) {
    std::vector<int64_t> inverse(q.size());
    for (size_t k = 0; k < q.size(); ++k) inverse[q[k]] = static_cast<int64_t>(k);
    HLO_RETURN_IF_ERROR(
        step("stablehlo.transpose", {StrCat("permutation = ", I64Array(inverse))}, out_dims));
  }
  if (converts) HLO_RETURN_IF_ERROR(step("stablehlo.bitcast_convert", {}, out));
  return Value{{current}, false};
}

absl::StatusOr<Value> Writer::Reduce(const hlo::Instruction& inst, int indent) {
  Computation* f = inst.to_apply();
  if (f == nullptr) return Error(inst, "reduce has no to_apply");
  const bool window = inst.opcode() == Opcode::kReduceWindow;
  Op op;
  op.name = window ? "stablehlo.reduce_window" : "stablehlo.reduce";
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  if (window) {
    const Window* w = inst.window();
    std::vector<int64_t> size, stride, base, dil;
    std::vector<std::vector<int64_t>> pad;
    for (const WindowDim& d : w ? *w : Window{}) {
      size.push_back(d.size);
      stride.push_back(d.stride);
      base.push_back(d.base_dilation);
      dil.push_back(d.window_dilation);
      pad.push_back({d.padding_low, d.padding_high});
    }
    op.properties = {
        StrCat("window_dimensions = ", I64Array(size)),
        StrCat("window_strides = ", I64Array(stride)), StrCat("base_dilations = ", I64Array(base)),
        StrCat("window_dilations = ", I64Array(dil)), StrCat("padding = ", I64Matrix(pad, 2))};
  } else {
    op.properties = {StrCat("dimensions = ", I64Array(inst.GetInts(AttrKind::kDimensions)))};
  }
  HLO_ASSIGN_OR_RETURN(std::string region, Region(*f, indent, false));
  op.regions = {region};
  op.results = ResultsOf(inst.shape());
  return EmitFor(inst, op, indent);
}

absl::StatusOr<Value> Writer::While(const hlo::Instruction& inst, int indent) {
  Computation* cond = nullptr;
  Computation* body = nullptr;
  for (const Attribute& a : inst.attributes()) {
    if (a.kind == AttrKind::kCondition) cond = std::get<std::vector<Computation*>>(a.value)[0];
    if (a.kind == AttrKind::kBody) body = std::get<std::vector<Computation*>>(a.value)[0];
  }
  if (cond == nullptr || body == nullptr) return Error(inst, "while lacks condition or body");
  const Shape& s = inst.shape();
  Op op;
  op.name = "stablehlo.while";
  const Value& init = ValueOf(inst.operand(0));
  if (s.IsTuple()) {
    HLO_ASSIGN_OR_RETURN(op.operands, Elements(init, s, indent));
    op.operand_shapes = s.tuple_shapes();
    op.results = s.tuple_shapes();
  } else {
    op.operands = init.parts;
    op.operand_shapes = op.results = {&s};
  }
  HLO_ASSIGN_OR_RETURN(std::string c, Region(*cond, indent, true));
  HLO_ASSIGN_OR_RETURN(std::string b, Region(*body, indent, true));
  op.regions = {c, b};
  HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
  if (s.IsTuple() && op.results.size() == 1) v.flat = true;  // a 1-tuple
  return v;
}

absl::StatusOr<Value> Writer::Conditional(const hlo::Instruction& inst, int indent) {
  std::vector<Computation*> branches;
  Computation *on_true = nullptr, *on_false = nullptr;
  for (const Attribute& a : inst.attributes()) {
    if (a.kind == AttrKind::kBranchComputations) {
      branches = std::get<std::vector<Computation*>>(a.value);
    }
    if (a.kind == AttrKind::kTrueComputation) {
      on_true = std::get<std::vector<Computation*>>(a.value)[0];
    }
    if (a.kind == AttrKind::kFalseComputation) {
      on_false = std::get<std::vector<Computation*>>(a.value)[0];
    }
  }
  const bool by_pred = branches.empty();
  if (by_pred) branches = {on_true, on_false};
  if (branches.empty() || branches[0] == nullptr || branches.back() == nullptr ||
      inst.operand_count() != static_cast<int64_t>(branches.size()) + 1) {
    return Error(inst, "conditional's branches and operands do not agree");
  }
  Op op;
  op.name = by_pred ? "stablehlo.if" : "stablehlo.case";
  HLO_ASSIGN_OR_RETURN(std::string selector, Operand(inst, 0, indent));
  op.operands = {selector};
  op.operand_shapes = {&inst.operand(0)->shape()};
  // Branches read their operand from above: regions take no arguments.
  for (size_t i = 0; i < branches.size(); ++i) {
    std::vector<Value> captured = {ValueOf(inst.operand(static_cast<int64_t>(i) + 1))};
    HLO_ASSIGN_OR_RETURN(std::string r, Region(*branches[i], indent, true, &captured));
    op.regions.push_back(std::move(r));
  }
  const Shape& s = inst.shape();
  op.results = s.IsTuple() ? s.tuple_shapes() : std::vector<const Shape*>{&s};
  HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
  if (s.IsTuple() && op.results.size() == 1) v.flat = true;
  return v;
}

absl::StatusOr<Value> Writer::Call(const hlo::Instruction& inst, const Computation& callee,
                                   int indent) {
  Op op;
  op.name = "func.call";
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  op.properties = {StrCat("callee = @", FunctionName(callee))};
  op.pretty = PrettyForm::kCall;
  op.pretty_text = StrCat("@", FunctionName(callee));
  op.results = {&inst.shape()};
  return EmitFor(inst, op, indent);
}

absl::StatusOr<Value> Writer::Instruction(const hlo::Instruction& inst, int indent) {
  const hlo::Instruction* outer = decorating_;
  decorating_ = &inst;
  absl::StatusOr<Value> v = InstructionOps(inst, indent);
  decorating_ = outer;
  return v;
}

absl::StatusOr<Value> Writer::InstructionOps(const hlo::Instruction& inst, int indent) {
  std::string_view elementwise = ElementwiseName(inst.opcode());
  if (!elementwise.empty()) return Elementwise(inst, elementwise, indent);
  switch (inst.opcode()) {
    case Opcode::kConstant:
      return Constant(inst, indent);
    case Opcode::kBitcast:
      return Bitcast(inst, indent);
    case Opcode::kCopy:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      return ValueOf(inst.operand(0));  // layouts and scheduling only
    case Opcode::kTuple: {
      Value v{{}, true};
      for (int64_t i = 0; i < inst.operand_count(); ++i) {
        HLO_ASSIGN_OR_RETURN(std::string e, Operand(inst, i, indent));
        v.parts.push_back(std::move(e));
      }
      return v;
    }
    case Opcode::kGetTupleElement: {
      const Value& t = ValueOf(inst.operand(0));
      int64_t index = inst.GetInt(AttrKind::kIndex);
      if (index < 0 ||
          index >= static_cast<int64_t>(inst.operand(0)->shape().tuple_shapes().size())) {
        return Error(inst, "tuple index out of range");
      }
      if (t.flat) return Value{{t.parts[index]}, false};
      Op op;
      op.name = "stablehlo.get_tuple_element";
      op.operands = t.parts;
      op.operand_shapes = {&inst.operand(0)->shape()};
      op.properties = {StrCat("index = ", index, " : i32")};
      op.results = {&inst.shape()};
      return EmitFor(inst, op, indent);
    }
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
      return Reduce(inst, indent);
    case Opcode::kWhile:
      return While(inst, indent);
    case Opcode::kConditional:
      return Conditional(inst, indent);
    case Opcode::kCall:
    case Opcode::kFusion: {
      Computation* callee = inst.to_apply();
      if (callee == nullptr) return Error(inst, "call has no computation");
      return Call(inst, *callee, indent);
    }
    case Opcode::kCustomCall:
      return CustomCall(inst, indent);
    default:
      break;
  }
  absl::StatusOr<Value> v = DataMovement(inst, indent);
  if (v.ok() || !absl::IsUnimplemented(v.status())) return v;
  v = Structured(inst, indent);
  if (v.ok() || !absl::IsUnimplemented(v.status())) return v;
  v = Collective(inst, indent);
  if (v.ok() || !absl::IsUnimplemented(v.status())) return v;
  return Other(inst, indent);
}

// Ops that only move or reshape data, one property set each.
absl::StatusOr<Value> Writer::DataMovement(const hlo::Instruction& inst, int indent) {
  Op op;
  op.results = {&inst.shape()};
  auto dims = [&] { return I64Array(inst.GetInts(AttrKind::kDimensions)); };
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
      op.name = "stablehlo.broadcast_in_dim";
      op.properties = {StrCat("broadcast_dimensions = ", dims())};
      op.pretty = PrettyForm::kFunctional;
      op.pretty_text = StrCat(", dims = ", I64List(inst.GetInts(AttrKind::kDimensions)));
      break;
    case Opcode::kReshape:
      op.name = "stablehlo.reshape";
      op.pretty = PrettyForm::kFunctional;
      break;
    case Opcode::kTranspose:
      op.name = "stablehlo.transpose";
      op.properties = {StrCat("permutation = ", dims())};
      op.pretty = PrettyForm::kFunctional;
      op.pretty_text = StrCat(", dims = ", I64List(inst.GetInts(AttrKind::kDimensions)));
      break;
    case Opcode::kReverse:
      op.name = "stablehlo.reverse";
      op.properties = {StrCat("dimensions = ", dims())};
      break;
    case Opcode::kConcatenate:
      op.name = "stablehlo.concatenate";
      op.properties = {StrCat(
          "dimension = ",
          inst.GetInts(AttrKind::kDimensions).empty() ? 0 : inst.GetInts(AttrKind::kDimensions)[0],
          " : i64")};
      op.pretty = PrettyForm::kFunctional;
      op.pretty_text = StrCat(", dim = ", inst.GetInts(AttrKind::kDimensions).empty()
                                              ? 0
                                              : inst.GetInts(AttrKind::kDimensions)[0]);
      break;
    case Opcode::kIota:
      op.name = "stablehlo.iota";
      op.properties = {
          StrCat("iota_dimension = ", inst.GetInt(AttrKind::kIotaDimension), " : i64")};
      op.pretty = PrettyForm::kBare;
      op.pretty_text = StrCat(" dim = ", inst.GetInt(AttrKind::kIotaDimension));
      break;
    case Opcode::kSlice: {
      op.name = "stablehlo.slice";
      std::vector<int64_t> start, limit, stride;
      if (const SliceSpec* s = inst.slice()) {
        for (const SliceDim& d : *s) {
          start.push_back(d.start);
          limit.push_back(d.limit);
          stride.push_back(d.stride);
        }
      }
      op.properties = {StrCat("start_indices = ", I64Array(start)),
                       StrCat("limit_indices = ", I64Array(limit)),
                       StrCat("strides = ", I64Array(stride))};
      // [start:limit] per dimension, [start:limit:stride] where it steps.
      std::vector<std::string> ranges;
      for (size_t i = 0; i < start.size(); ++i) {
        ranges.push_back(stride[i] == 1 ? StrCat(start[i], ":", limit[i])
                                        : StrCat(start[i], ":", limit[i], ":", stride[i]));
      }
      op.pretty = PrettyForm::kSlice;
      op.pretty_text = StrCat("[", StrJoin(ranges, ", "), "]");
      break;
    }
    case Opcode::kDynamicSlice:
      op.name = "stablehlo.dynamic_slice";
      op.properties = {
          StrCat("slice_sizes = ", I64Array(inst.GetInts(AttrKind::kDynamicSliceSizes)))};
      break;
    case Opcode::kDynamicUpdateSlice:
      op.name = "stablehlo.dynamic_update_slice";
      break;
    case Opcode::kPad: {
      op.name = "stablehlo.pad";
      std::vector<int64_t> low, high, interior;
      if (const PaddingConfig* p = inst.padding()) {
        for (const PaddingDim& d : *p) {
          low.push_back(d.low);
          high.push_back(d.high);
          interior.push_back(d.interior);
        }
      }
      op.properties = {StrCat("edge_padding_low = ", I64Array(low)),
                       StrCat("edge_padding_high = ", I64Array(high)),
                       StrCat("interior_padding = ", I64Array(interior))};
      break;
    }
    case Opcode::kCompare:
      op.name = "stablehlo.compare";
      op.properties = {
          StrCat("comparison_direction = ",
                 Enum("comparison_direction", Upper(inst.GetString(AttrKind::kDirection)))),
          StrCat("compare_type = ", Enum("comparison_type", CompareType(inst)))};
      op.pretty = PrettyForm::kCompare;
      op.pretty_text = StrCat(Upper(inst.GetString(AttrKind::kDirection)), " ", CompareType(inst));
      break;
    case Opcode::kReducePrecision:
      op.name = "stablehlo.reduce_precision";
      op.properties = {StrCat("exponent_bits = ", inst.GetInt(AttrKind::kExponentBits), " : i32"),
                       StrCat("mantissa_bits = ", inst.GetInt(AttrKind::kMantissaBits), " : i32")};
      break;
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
      op.name = inst.opcode() == Opcode::kGetDimensionSize ? "stablehlo.get_dimension_size"
                                                           : "stablehlo.set_dimension_size";
      op.properties = {StrCat(
          "dimension = ",
          inst.GetInts(AttrKind::kDimensions).empty() ? 0 : inst.GetInts(AttrKind::kDimensions)[0],
          " : i64")};
      break;
    case Opcode::kReplicaId:
      op.name = "stablehlo.replica_id";
      op.pretty = PrettyForm::kBare;
      break;
    case Opcode::kPartitionId:
      op.name = "stablehlo.partition_id";
      op.pretty = PrettyForm::kBare;
      break;
    default:
      return absl::UnimplementedError("");
  }
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  return EmitFor(inst, op, indent);
}

}  // namespace hlo::stablehlo::writing
