#include "passes/refine_shapes.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "eval/evaluator.h"
#include "ir/clone.h"
#include "ir/config_ints.h"
#include "ir/located_status.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "parser/parser.h"
#include "passes/post_order.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

// Shape arithmetic is small: larger integer arrays are data, left alone.
constexpr int64_t kMaxFoldedElements = 1024;
// Calls nest no deeper than this (each level is a frame of the walk).
constexpr int kMaxCallDepth = 200;

// Whether a value of shape `given` may stand where `declared` is written:
// the same structure and element types, each dimension equal unless the
// declared one is unbounded.
bool Fits(const Shape& given, const Shape& declared) {
  if (given.kind() != declared.kind()) return false;
  if (declared.IsTuple()) {
    if (given.tuple_size() != declared.tuple_size()) return false;
    for (int64_t i = 0; i < given.tuple_size(); ++i) {
      if (!Fits(given.tuple_shape(i), declared.tuple_shape(i))) return false;
    }
    return true;
  }
  if (!declared.IsArray()) return true;
  if (given.element_type() != declared.element_type() || given.rank() != declared.rank()) {
    return false;
  }
  for (int64_t i = 0; i < given.rank(); ++i) {
    if (given.is_unbounded_dim(i)) return false;
    if (!declared.is_unbounded_dim(i) && given.dim(i) != declared.dim(i)) return false;
  }
  return true;
}

// `shape` (static) with the layout of `like` where the ranks agree, tuples
// element by element; interned.
const Shape* LayoutLike(const Shape& shape, const Shape& like, ShapePool& pool) {
  if (shape.IsTuple()) {
    std::vector<const Shape*> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const bool paired = like.IsTuple() && i < like.tuple_size();
      elements.push_back(paired ? LayoutLike(shape.tuple_shape(i), like.tuple_shape(i), pool)
                                : pool.Intern(shape.tuple_shape(i)));
    }
    return pool.Intern(Shape::Tuple(std::move(elements)));
  }
  if (shape.IsArray() && like.IsArray() && like.has_layout() && like.rank() == shape.rank()) {
    return pool.Intern(shape.WithoutLayout().WithLayout(like.layout()));
  }
  return pool.Intern(shape);
}

// A small integer or pred array: what shape computations are made of.
bool IsShapeLike(const Shape& s) {
  if (!s.IsArray() || !s.IsStatic()) return false;
  const PrimitiveType t = s.element_type();
  const int64_t n = s.ElementCount();
  return (IsInteger(t) || t == PrimitiveType::kPred) && n >= 0 && n <= kMaxFoldedElements;
}

class Refiner {
 public:
  explicit Refiner(Module& module) : module_(module), ev_(module, Options()) {}

  // Refines `comp` in place for parameters of `params`; `constants` (null
  // or one per parameter) are values some parameters are known to have.
  absl::Status Refine(Computation& comp, const std::vector<const Shape*>& params,
                      const std::vector<std::shared_ptr<const Literal>>* constants);

 private:
  static EvalOptions Options() {
    EvalOptions options;
    options.max_iterations = 0;
    options.max_memory_bytes = int64_t{1} << 30;
    return options;
  }
  absl::Status Error(const Instruction& inst, std::string_view message) const;
  absl::Status RefineInstruction(Computation& comp, Instruction* inst);
  absl::Status Reinfer(Instruction* inst);
  absl::Status Fold(Computation& comp, Instruction* inst);
  // A constant in place of `like` (which goes: it takes its name, unless
  // `fresh_name`).
  Instruction* AddConstant(Computation& comp, const Instruction& like, Literal literal,
                           bool fresh_name = false);
  Instruction* Add(Computation& comp, Opcode opcode, const Shape& shape,
                   std::initializer_list<Instruction*> operands, const Instruction& like);
  void Replace(Instruction* old, Instruction* replacement);
  absl::StatusOr<std::vector<int64_t>> ConstantInts(const Instruction& inst, int64_t operand,
                                                    std::string_view what) const;
  absl::Status ResolveDynamic(Computation& comp, Instruction* inst, std::string_view target);
  absl::StatusOr<Instruction*> DynamicBroadcast(Computation& comp, Instruction* inst);
  absl::StatusOr<Instruction*> DynamicSlice(Computation& comp, Instruction* inst);
  absl::Status CheckShapeAssertion(Instruction* inst);
  absl::Status RefineCalls(Instruction* inst);
  absl::StatusOr<Computation*> RefinedCopy(const Instruction& caller, Computation* callee,
                                           const std::vector<Instruction*>& args);
  absl::Status SetResult(Instruction* inst, const Shape& shape);

  Module& module_;
  Evaluator ev_;
  // Instructions whose shape the refinement changed, or which it made.
  absl::flat_hash_set<const Instruction*> changed_;
  // Instructions replaced, to be removed with their computation's sweep.
  std::vector<Instruction*> dead_;
  // (callee, argument shapes, known argument values) -> its refined copy.
  std::map<std::tuple<const Computation*, std::vector<const Shape*>, std::vector<std::string>>,
           Computation*>
      copies_;
  int depth_ = 0;
};

absl::Status Refiner::Error(const Instruction& inst, std::string_view message) const {
  return InstructionError(module_, inst, message);
}

absl::Status Refiner::Refine(Computation& comp, const std::vector<const Shape*>& params,
                             const std::vector<std::shared_ptr<const Literal>>* constants) {
  for (int64_t i = 0; i < comp.parameter_count(); ++i) {
    Instruction* p = comp.parameter(i);
    if (p == nullptr) continue;
    if (!Fits(*params[i], p->shape())) {
      return Error(
          *p, StrCat("takes ", p->shape().ToString(false), ", given ", params[i]->ToString(false)));
    }
    const Shape* s = LayoutLike(*params[i], p->shape(), module_.shapes());
    if (s != p->shape_ptr()) {
      p->set_shape(s);
      changed_.insert(p);
    }
  }
  std::vector<Instruction*> order = PostOrderOf(comp);
  if (constants != nullptr) {
    // Known arguments: their uses read a constant instead.
    for (int64_t i = 0; i < comp.parameter_count(); ++i) {
      Instruction* p = comp.parameter(i);
      if (p == nullptr || (*constants)[i] == nullptr || p->users().empty()) continue;
      p->ReplaceAllUsesWith(AddConstant(comp, *p, Literal(*(*constants)[i]), true));
    }
  }
  const size_t first_dead = dead_.size();
  for (Instruction* inst : order) {
    if (inst->parent() != &comp || inst->opcode() == Opcode::kParameter) continue;
    HLO_RETURN_IF_ERROR(RefineInstruction(comp, inst));
  }
  std::vector<Instruction*> dead(dead_.begin() + static_cast<ptrdiff_t>(first_dead), dead_.end());
  dead_.resize(first_dead);
  comp.RemoveInstructions(dead);
  comp.RemoveDeadInstructions();
  return absl::OkStatus();
}

absl::Status Refiner::RefineInstruction(Computation& comp, Instruction* inst) {
  switch (inst->opcode()) {
    case Opcode::kGetDimensionSize: {
      const Shape& in = inst->operand(0)->shape();
      absl::Span<const int64_t> d = inst->GetInts(AttrKind::kDimensions);
      if (in.IsArray() && d.size() == 1 && d[0] >= 0 && d[0] < in.rank() &&
          !in.is_dynamic_dim(d[0]) && inst->shape().IsArray()) {
        auto lit = Literal::Create(inst->shape().WithoutLayout());
        if (!lit.ok()) return Error(*inst, std::string(lit.status().message()));
        lit->SetInt(0, in.dim(d[0]));
        Replace(inst, AddConstant(comp, *inst, *std::move(lit)));
        return absl::OkStatus();
      }
      break;
    }
    case Opcode::kCustomCall: {
      std::string_view target = inst->GetString(AttrKind::kCustomCallTarget);
      if (target == "shape_assertion") return CheckShapeAssertion(inst);
      if (target == "mhlo.dynamic_broadcast_in_dim" || target == "mhlo.dynamic_reshape" ||
          target == "mhlo.real_dynamic_slice" || target == "mhlo.dynamic_iota") {
        return ResolveDynamic(comp, inst, target);
      }
      break;
    }
    case Opcode::kCall:
    case Opcode::kWhile:
    case Opcode::kConditional:
      return RefineCalls(inst);
    default:
      break;
  }
  bool operand_changed = false;
  for (const Instruction* op : inst->operands()) operand_changed |= changed_.contains(op);
  if (!operand_changed && !HasUnboundedDims(inst->shape())) return absl::OkStatus();
  HLO_RETURN_IF_ERROR(Reinfer(inst));
  return Fold(comp, inst);
}

// The shape of `inst` from its refined operands. What InferShape takes as
// written (broadcast's and reshape's results) has its unbounded dimensions
// filled first from the operand.
absl::Status Refiner::Reinfer(Instruction* inst) {
  const Shape& declared = inst->shape();
  if (HasUnboundedDims(declared) && declared.IsArray() && inst->operand_count() > 0 &&
      inst->operand(0)->shape().IsArray()) {
    const Shape& in = inst->operand(0)->shape();
    std::vector<int64_t> dims(declared.dims().begin(), declared.dims().end());
    if (inst->opcode() == Opcode::kBroadcast) {
      absl::Span<const int64_t> map = inst->GetInts(AttrKind::kDimensions);
      for (size_t i = 0; i < map.size() && static_cast<int64_t>(i) < in.rank(); ++i) {
        if (map[i] >= 0 && map[i] < declared.rank() && declared.is_unbounded_dim(map[i])) {
          dims[map[i]] = in.dim(static_cast<int64_t>(i));
        }
      }
    } else if (inst->opcode() == Opcode::kReshape && in.IsStatic()) {
      int64_t known = 1, unknown = 0, at = 0;
      for (int64_t i = 0; i < declared.rank(); ++i) {
        if (declared.is_unbounded_dim(i)) {
          ++unknown;
          at = i;
        } else {
          known *= declared.dim(i);
        }
      }
      if (unknown == 1 && known > 0 && in.ElementCount() >= 0) {
        dims[at] = in.ElementCount() / known;
      }
    }
    bool filled = true;
    for (int64_t d : dims) filled &= d >= 0;
    if (filled) {
      inst->set_shape(
          LayoutLike(Shape::Array(declared.element_type(), dims), declared, module_.shapes()));
    }
  }
  auto shape = InferShape(*inst, module_.shapes());
  if (!shape.ok()) return Error(*inst, std::string(shape.status().message()));
  return SetResult(inst, *shape);
}

// Sets a refined result shape: where the module wrote a static shape, the
// refined operands must agree with it.
absl::Status Refiner::SetResult(Instruction* inst, const Shape& shape) {
  if (HasUnboundedDims(shape)) {
    return Error(*inst, StrCat("its shape ", shape.ToString(false),
                               " stays unknown for these input shapes"));
  }
  const Shape& declared = inst->shape();
  if (!HasUnboundedDims(declared)) {
    if (!shape.Compatible(declared)) {
      return Error(*inst, StrCat("is ", shape.ToString(false), " for these input shapes, but ",
                                 declared.ToString(false), " is written"));
    }
    return absl::OkStatus();
  }
  if (!Fits(shape, declared)) {
    return Error(*inst, StrCat("is ", shape.ToString(false), " for these input shapes, which ",
                               declared.ToString(false), " does not allow"));
  }
  inst->set_shape(LayoutLike(shape, declared, module_.shapes()));
  changed_.insert(inst);
  return absl::OkStatus();
}

// Folds a shape computation whose operands the refinement made constant.
absl::Status Refiner::Fold(Computation& comp, Instruction* inst) {
  const Opcode o = inst->opcode();
  if (!IsShapeLike(inst->shape()) || o == Opcode::kConstant || HasSideEffect(o) ||
      o == Opcode::kRng || HasCallees(*inst)) {
    return absl::OkStatus();
  }
  bool refined = false;
  std::vector<Value> values;
  for (const Instruction* op : inst->operands()) {
    if (!op->IsKnownConstant()) return absl::OkStatus();
    refined |= changed_.contains(op);
    values.push_back(Value::FromLiteral(*op->literal()));
  }
  if (!refined) return absl::OkStatus();
  std::vector<const Value*> ptrs;
  for (const Value& v : values) ptrs.push_back(&v);
  absl::StatusOr<Value> result = ev_.EvaluateInstruction(*inst, ptrs);
  if (!result.ok() || !result->is_array()) return absl::OkStatus();  // left to the run
  Replace(inst, AddConstant(comp, *inst, result->ToLiteral()));
  return absl::OkStatus();
}

Instruction* Refiner::AddConstant(Computation& comp, const Instruction& like, Literal literal,
                                  bool fresh_name) {
  const Shape* shape = LayoutLike(literal.shape(), like.shape(), module_.shapes());
  auto c = std::make_unique<Instruction>(
      Opcode::kConstant, fresh_name ? module_.UniqueName("constant") : std::string(like.name()),
      shape);
  c->set_loc(like.loc());
  c->set_literal(std::make_shared<const Literal>(std::move(literal)));
  Instruction* raw = comp.AddInstruction(std::move(c));
  changed_.insert(raw);
  return raw;
}

Instruction* Refiner::Add(Computation& comp, Opcode opcode, const Shape& shape,
                          std::initializer_list<Instruction*> operands, const Instruction& like) {
  Shape laid = shape;
  if (like.shape().IsArray() && like.shape().has_layout()) {
    laid = shape.rank() == like.shape().rank() ? shape.WithLayout(like.shape().layout())
                                               : shape.WithDefaultLayout();
  }
  auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(OpcodeName(opcode)),
                                            module_.Intern(laid));
  for (Instruction* op : operands) inst->AppendOperand(op);
  inst->set_loc(like.loc());
  Instruction* raw = comp.AddInstruction(std::move(inst));
  changed_.insert(raw);
  return raw;
}

void Refiner::Replace(Instruction* old, Instruction* replacement) {
  old->ReplaceAllUsesWith(replacement);
  old->DetachOperands();
  dead_.push_back(old);
}

absl::StatusOr<std::vector<int64_t>> Refiner::ConstantInts(const Instruction& inst, int64_t operand,
                                                           std::string_view what) const {
  if (operand >= inst.operand_count()) {
    return Error(inst, StrCat("needs its ", what, " as operand ", operand));
  }
  const Instruction* op = inst.operand(operand);
  if (!op->IsKnownConstant() || !op->shape().IsArray() || op->shape().rank() != 1 ||
      !IsInteger(op->shape().element_type())) {
    return Error(inst, StrCat("its ", what, " (%", op->name(),
                              ") is not a constant list of integers for these input shapes"));
  }
  std::vector<int64_t> out;
  for (int64_t i = 0; i < op->shape().dim(0); ++i) out.push_back(op->literal()->GetInt(i));
  return out;
}

absl::Status Refiner::ResolveDynamic(Computation& comp, Instruction* inst,
                                     std::string_view target) {
  const Shape& declared = inst->shape();
  if (!declared.IsArray()) return Error(*inst, StrCat(target, " must have an array result"));
  Instruction* made = nullptr;
  if (target == "mhlo.dynamic_broadcast_in_dim") {
    HLO_ASSIGN_OR_RETURN(made, DynamicBroadcast(comp, inst));
  } else if (target == "mhlo.real_dynamic_slice") {
    HLO_ASSIGN_OR_RETURN(made, DynamicSlice(comp, inst));
  } else {
    const bool iota = target == "mhlo.dynamic_iota";
    HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         ConstantInts(*inst, iota ? 0 : 1, "output shape"));
    for (int64_t d : dims) {
      if (d < 0) return Error(*inst, StrCat("output shape [", StrJoin(dims, ","), "] is negative"));
    }
    Shape shape = Shape::Array(declared.element_type(), dims);
    if (iota) {
      auto dim = ConfigInts(inst->GetString(AttrKind::kBackendConfig), "iota_dimension");
      if (!dim || dim->size() != 1) {
        return Error(*inst, "needs backend_config={iota_dimension=N}");
      }
      made = Add(comp, Opcode::kIota, shape, {}, *inst);
      made->SetAttr(AttrKind::kIotaDimension, (*dim)[0]);
    } else {
      made = Add(comp, Opcode::kReshape, shape, {inst->operand(0)}, *inst);
    }
  }
  auto check = InferShape(*made, module_.shapes());
  if (!check.ok()) return Error(*inst, std::string(check.status().message()));
  if (!Fits(made->shape(), declared)) {
    return Error(*inst,
                 StrCat("is ", made->shape().ToString(false), " for these input shapes, which ",
                        declared.ToString(false), " does not allow"));
  }
  Replace(inst, made);
  return absl::OkStatus();
}

// broadcast of the operand to the constant output dimensions; operand
// dimensions of size 1 that grow are reshaped away first (HLO's broadcast
// keeps every operand dimension's size).
absl::StatusOr<Instruction*> Refiner::DynamicBroadcast(Computation& comp, Instruction* inst) {
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> out, ConstantInts(*inst, 1, "output dimensions"));
  for (int64_t d : out) {
    if (d < 0) {
      return Error(*inst, StrCat("output dimensions [", StrJoin(out, ","), "] are negative"));
    }
  }
  auto map = ConfigInts(inst->GetString(AttrKind::kBackendConfig), "broadcast_dimensions");
  Instruction* x = inst->operand(0);
  const Shape& in = x->shape();
  if (!map || !in.IsArray() || static_cast<int64_t>(map->size()) != in.rank()) {
    return Error(*inst,
                 "needs backend_config={broadcast_dimensions=[...]}, one per operand "
                 "dimension");
  }
  std::vector<int64_t> kept_dims, kept_map;
  for (int64_t i = 0; i < in.rank(); ++i) {
    const int64_t to = (*map)[i];
    if (to < 0 || to >= static_cast<int64_t>(out.size())) {
      return Error(*inst, StrCat("broadcast dimension ", to, " is out of range for ", out.size(),
                                 " output dimensions"));
    }
    if (in.dim(i) == out[to]) {
      kept_dims.push_back(in.dim(i));
      kept_map.push_back(to);
    } else if (in.dim(i) != 1) {
      return Error(*inst, StrCat("operand dimension ", i, " (", in.dim(i), ") cannot broadcast to ",
                                 out[to]));
    }
  }
  if (static_cast<int64_t>(kept_dims.size()) != in.rank()) {
    x = Add(comp, Opcode::kReshape, Shape::Array(in.element_type(), kept_dims), {x}, *x);
  }
  Instruction* b = Add(comp, Opcode::kBroadcast, Shape::Array(in.element_type(), out), {x}, *inst);
  b->SetAttr(AttrKind::kDimensions, std::move(kept_map));
  return b;
}

absl::StatusOr<Instruction*> Refiner::DynamicSlice(Computation& comp, Instruction* inst) {
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> start, ConstantInts(*inst, 1, "start indices"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> limit, ConstantInts(*inst, 2, "limit indices"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> stride, ConstantInts(*inst, 3, "strides"));
  const Shape& in = inst->operand(0)->shape();
  const size_t rank = static_cast<size_t>(in.rank());
  if (start.size() != rank || limit.size() != rank || stride.size() != rank) {
    return Error(*inst, StrCat("needs ", rank, " start, limit and stride values"));
  }
  SliceSpec spec;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < rank; ++i) {
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > in.dim(static_cast<int64_t>(i)) ||
        stride[i] < 1) {
      return Error(*inst, StrCat("slice [", start[i], ":", limit[i], ":", stride[i],
                                 "] does not fit dimension ", i, " of size ",
                                 in.dim(static_cast<int64_t>(i))));
    }
    spec.push_back({start[i], limit[i], stride[i]});
    dims.push_back((limit[i] - start[i] + stride[i] - 1) / stride[i]);
  }
  Instruction* s =
      Add(comp, Opcode::kSlice, Shape::Array(in.element_type(), dims), {inst->operand(0)}, *inst);
  s->SetAttr(AttrKind::kSlice, std::make_shared<const SliceSpec>(std::move(spec)));
  return s;
}

// JAX's shape_assertion(condition, values...): removed when it holds; its
// message, with `{i}` the i-th value, when it does not.
absl::Status Refiner::CheckShapeAssertion(Instruction* inst) {
  const Instruction* cond = inst->operand_count() > 0 ? inst->operand(0) : nullptr;
  if (cond == nullptr || !cond->IsKnownConstant() || !cond->shape().IsArray() ||
      cond->shape().ElementCount() != 1) {
    return Error(*inst, "a shape assertion whose condition is not known from the input shapes");
  }
  if (cond->literal()->GetInt(0) != 0) {
    inst->DetachOperands();
    dead_.push_back(inst);
    return absl::OkStatus();
  }
  std::string message(inst->GetString(AttrKind::kBackendConfig));
  for (int64_t i = 1; i < inst->operand_count(); ++i) {
    const Instruction* v = inst->operand(i);
    std::string value = v->IsKnownConstant() && v->shape().ElementCount() == 1
                            ? StrCat(v->literal()->GetInt(0))
                            : StrCat("%", v->name());
    const std::string key = StrCat("{", i - 1, "}");
    for (size_t at = message.find(key); at != std::string::npos;
         at = message.find(key, at + value.size())) {
      message.replace(at, key.size(), value);
    }
  }
  return Error(*inst,
               StrCat("shape assertion failed: ", message.empty() ? "(no message)" : message));
}

// call, while, conditional: each computation is refined (as a copy) for
// the shapes of what it is given, and the result is the refined root's.
absl::Status Refiner::RefineCalls(Instruction* inst) {
  bool operand_changed = false;
  for (const Instruction* op : inst->operands()) operand_changed |= changed_.contains(op);
  if (!operand_changed && !HasUnboundedDims(inst->shape())) return absl::OkStatus();
  const std::vector<Instruction*> ops(inst->operands().begin(), inst->operands().end());
  if (inst->opcode() == Opcode::kCall) {
    Computation* callee = inst->to_apply();
    if (callee == nullptr) return Error(*inst, "calls no computation");
    HLO_ASSIGN_OR_RETURN(Computation * c, RefinedCopy(*inst, callee, ops));
    inst->SetAttr(AttrKind::kToApply, std::vector<Computation*>{c});
    return SetResult(inst, c->root()->shape());
  }
  if (inst->opcode() == Opcode::kWhile) {
    const Attribute* cond = inst->FindAttr(AttrKind::kCondition);
    const Attribute* body = inst->FindAttr(AttrKind::kBody);
    auto* cond_comp = cond ? std::get_if<std::vector<Computation*>>(&cond->value) : nullptr;
    auto* body_comp = body ? std::get_if<std::vector<Computation*>>(&body->value) : nullptr;
    if (cond_comp == nullptr || body_comp == nullptr || cond_comp->size() != 1 ||
        body_comp->size() != 1 || ops.size() != 1) {
      return Error(*inst, "a while needs one operand, a condition and a body");
    }
    // The loop state's values change from one iteration to the next: only
    // its shape goes in (no constants).
    HLO_ASSIGN_OR_RETURN(Computation * b, RefinedCopy(*inst, (*body_comp)[0], ops));
    HLO_ASSIGN_OR_RETURN(Computation * c, RefinedCopy(*inst, (*cond_comp)[0], ops));
    if (!b->root()->shape().Compatible(ops[0]->shape())) {
      return Error(*inst, StrCat("the loop state is ", ops[0]->shape().ToString(false),
                                 " for these input shapes, but the body makes ",
                                 b->root()->shape().ToString(false)));
    }
    inst->SetAttr(AttrKind::kBody, std::vector<Computation*>{b});
    inst->SetAttr(AttrKind::kCondition, std::vector<Computation*>{c});
    return SetResult(inst, ops[0]->shape());
  }
  // conditional: branch i is given operand i + 1.
  std::vector<Computation*> branches = inst->called_computations();
  if (branches.empty() || ops.size() != branches.size() + 1) {
    return Error(*inst, "a conditional needs one operand per branch after its index");
  }
  std::vector<Computation*> refined;
  for (size_t i = 0; i < branches.size(); ++i) {
    HLO_ASSIGN_OR_RETURN(Computation * c, RefinedCopy(*inst, branches[i], {ops[i + 1]}));
    if (!c->root()->shape().Compatible(refined.empty() ? c->root()->shape()
                                                       : refined[0]->root()->shape())) {
      return Error(
          *inst, StrCat("its branches give ", refined[0]->root()->shape().ToString(false), " and ",
                        c->root()->shape().ToString(false), " for these input shapes"));
    }
    refined.push_back(c);
  }
  if (inst->HasAttr(AttrKind::kBranchComputations)) {
    inst->SetAttr(AttrKind::kBranchComputations, refined);
  } else {
    inst->SetAttr(AttrKind::kTrueComputation, std::vector<Computation*>{refined[0]});
    if (refined.size() > 1) {
      inst->SetAttr(AttrKind::kFalseComputation, std::vector<Computation*>{refined[1]});
    }
  }
  return SetResult(inst, refined[0]->root()->shape());
}

// `callee` refined for `args` (their shapes, and the values of the small
// integer ones the refinement computed): a copy made once per distinct key.
absl::StatusOr<Computation*> Refiner::RefinedCopy(const Instruction& caller, Computation* callee,
                                                  const std::vector<Instruction*>& args) {
  if (static_cast<int64_t>(args.size()) != callee->parameter_count()) {
    return Error(caller, StrCat("gives ", args.size(), " values to '", callee->name(),
                                "', which takes ", callee->parameter_count()));
  }
  const bool takes_constants = caller.opcode() != Opcode::kWhile;
  std::vector<const Shape*> shapes;
  std::vector<std::string> values;
  std::vector<std::shared_ptr<const Literal>> constants;
  bool any_constant = false;
  for (const Instruction* a : args) {
    shapes.push_back(module_.shapes().WithoutLayout(a->shape_ptr()));
    const bool known =
        takes_constants && a->IsKnownConstant() && changed_.contains(a) && IsShapeLike(a->shape());
    values.push_back(known ? LiteralToString(*a->literal(), LiteralStyle::kCompact)
                           : std::string());
    constants.push_back(known ? std::make_shared<const Literal>(*a->literal()) : nullptr);
    any_constant |= known;
  }
  auto key = std::make_tuple(static_cast<const Computation*>(callee), shapes, values);
  if (auto it = copies_.find(key); it != copies_.end()) return it->second;
  if (depth_ >= kMaxCallDepth) {
    return Error(caller, StrCat("calls nest deeper than ", kMaxCallDepth));
  }
  Computation* copy = CloneComputation(module_, *callee);
  copies_[key] = copy;
  ++depth_;
  absl::Status st = Refine(*copy, shapes, any_constant ? &constants : nullptr);
  --depth_;
  if (!st.ok()) return st;
  return copy;
}

}  // namespace

bool HasUnboundedDims(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape* e : s.tuple_shapes()) {
      if (HasUnboundedDims(*e)) return true;
    }
    return false;
  }
  if (!s.IsArray()) return false;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (s.is_unbounded_dim(i)) return true;
  }
  return false;
}

bool HasUnboundedShapes(const Module& module) {
  if (module.entry() == nullptr) return false;
  for (const Computation* comp : ModulePostOrderOf(module)) {
    for (const auto& inst : comp->instructions()) {
      if (HasUnboundedDims(inst->shape())) return true;
    }
  }
  return false;
}

absl::StatusOr<std::vector<Shape>> ParseParameterShapes(std::string_view text, ShapePool& pool) {
  absl::StatusOr<Shape> shape = ParseShape(text, pool);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        StrCat("--refine-shapes: ", std::string(shape.status().message())));
  }
  if (!shape->IsTuple()) return std::vector<Shape>{*shape};
  std::vector<Shape> params;
  for (const Shape* e : shape->tuple_shapes()) params.push_back(*e);
  return params;
}

absl::Status RefineShapes(Module& module, absl::Span<const Shape> params) {
  Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry computation");
  if (static_cast<int64_t>(params.size()) != entry->parameter_count()) {
    const int64_t n = entry->parameter_count();
    return absl::InvalidArgumentError(
        StrCat("the entry computation takes ", n, n == 1 ? " parameter, " : " parameters, ",
               params.size(), params.size() == 1 ? " shape" : " shapes", " given"));
  }
  std::vector<const Shape*> shapes;
  for (const Shape& s : params) shapes.push_back(module.Intern(s));
  Refiner refiner(module);
  HLO_RETURN_IF_ERROR(refiner.Refine(*entry, shapes, nullptr));
  module.RemoveUnreachableComputations();
  if (!module.entry_parameter_layouts().empty() || module.entry_result_layout() != nullptr) {
    std::vector<const Shape*> layouts;
    for (const Instruction* p : entry->parameters()) layouts.push_back(p->shape_ptr());
    module.set_entry_layout(std::move(layouts), entry->root()->shape_ptr());
  }
  return absl::OkStatus();
}

}  // namespace hlo
