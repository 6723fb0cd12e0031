// layout-assignment: gives every array shape (tuple elements included) a
// layout, as XLA's LayoutAssignment does, in a simpler design:
//
// Constraints (kept exactly; copies are inserted where they conflict):
//  - the entry computation's parameters and result: entry_computation_layout
//    when the module has one, else the layouts written on them;
//  - any layout written that is not the default (or has more than
//    minor_to_major: tiles, memory space, ...): the parser gives a shape
//    written without a layout the default one and does not record which, so
//    only those are known to be written (default ones are free);
//  - a bitcast's operand and result keep the layouts they had: the bitcast's
//    meaning (the element order) depends on both;
//  - custom-call operand_layout_constraints;
//  - calls, fusions, whiles and conditionals: operands take the callee's
//    parameter layouts, the result the callee's root layout (a while body's
//    root and its condition's parameter take the body parameter's layout; a
//    conditional's branch roots take the conditional's layout);
//  - elementwise ops: operands of the result's rank have the result's layout.
//
// Free instructions (elementwise, copy, transpose, reshape) first take a
// layout wanted by their users (propagated backward from the constraints
// above, and from an elementwise op's already-decided operand, through
// single-user elementwise ops, transposes, reshapes and tuples; when users
// disagree, the first wish), else derive one from their operand: elementwise
// ops and copies follow their operand, a transpose takes the layout that
// makes it a bitcast (XLA's TransposeIsBitcast), a reshape the one that
// makes it a bitcast when there is one (ReshapeIsBitcast), else the default.
// A free transpose, reshape or copy whose only user then needs another
// layout takes that layout instead of getting a copy. Every other op keeps
// the layout it was written with (the default when none was).
//
// Transposes and reshapes are kept as they are, not rewritten into bitcasts:
// with a bitcast-able layout a backend lowers them to no data movement, and
// the module stays readable. Layouts are compared by minor_to_major only.
//
// Linear: one backward and one forward walk over each computation.
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/layout_assignment_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// Layouts a computation's parameters and root must have.
struct Boundary {
  std::vector<const Shape*> params;
  const Shape* root = nullptr;
};

enum class Rule {
  kKeep,
  kParameter,
  kElementwise,
  kCopy,
  kTranspose,
  kReshape,
  kTuple,
  kGetTupleElement,
  kCall,
  kWhile,
  kConditional
};

// One array operand and an array result (an unverified module may differ).
bool IsArrayToArray(const Instruction& inst) {
  return inst.operand_count() == 1 && inst.shape().IsArray() && inst.operand(0)->shape().IsArray();
}

Rule RuleOf(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kParameter:
      return Rule::kParameter;
    case Opcode::kCopy:
      return IsArrayToArray(inst) ? Rule::kCopy : Rule::kKeep;
    case Opcode::kTranspose:
      return IsWellFormedTranspose(inst) ? Rule::kTranspose : Rule::kKeep;
    case Opcode::kReshape:
      return IsArrayToArray(inst) ? Rule::kReshape : Rule::kKeep;
    case Opcode::kTuple:
      return inst.shape().IsTuple() ? Rule::kTuple : Rule::kKeep;
    case Opcode::kGetTupleElement:
      return inst.operand_count() == 1 ? Rule::kGetTupleElement : Rule::kKeep;
    case Opcode::kCall:
    case Opcode::kFusion:
      return Rule::kCall;
    case Opcode::kWhile:
      return Rule::kWhile;
    case Opcode::kConditional:
      return Rule::kConditional;
    default:
      return IsElementwiseInstruction(inst) && inst.shape().IsArray() ? Rule::kElementwise
                                                                      : Rule::kKeep;
  }
}

// A layout the text must have given: not the default minor_to_major, or
// with more than minor_to_major (tiles, memory space, ...).
bool IsWritten(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape* e : shape.tuple_shapes()) {
      if (IsWritten(*e)) return true;
    }
    return false;
  }
  return shape.IsArray() && shape.has_layout() &&
         (!shape.layout().IsPlain() || HasNonDefaultLayout(shape));
}

bool IsFreeRule(Rule r) {
  return r == Rule::kElementwise || r == Rule::kCopy || r == Rule::kTranspose ||
         r == Rule::kReshape;
}

class LayoutAssigner {
 public:
  explicit LayoutAssigner(Module& module) : module_(module) {}

  bool Run() {
    ComputeBoundaries();
    for (Computation* c : module_.PostOrder()) AssignComputation(*c);
    return changed_;
  }

 private:
  const Shape* Filled(const Shape& s) { return WithLayoutsFilled(module_, s); }
  // `s` is interned: when it has that plain layout already, no lookup.
  const Shape* WithM2M(const Shape& s, absl::Span<const int64_t> m2m) {
    if (s.has_layout() && s.layout().IsPlain() &&
        absl::Span<const int64_t>(s.layout().minor_to_major) == m2m) {
      return &s;
    }
    return WithMinorToMajor(module_, s, m2m);
  }

  void ComputeBoundaries() {
    for (const auto& c : module_.computations()) {
      Boundary& b = boundary_[c.get()];
      for (Instruction* p : c->parameters()) b.params.push_back(p ? Filled(p->shape()) : nullptr);
      if (c->root()) b.root = Filled(c->root()->shape());
    }
    if (Computation* entry = module_.entry()) ApplyEntryLayout(boundary_[entry], *entry);
    for (const auto& c : module_.computations()) {
      for (const auto& inst : c->instructions()) ConstrainCallees(*inst);
    }
  }

  void ApplyEntryLayout(Boundary& b, const Computation& entry) {
    const Shape* result = module_.entry_result_layout();
    const auto& params = module_.entry_parameter_layouts();
    if (!result || static_cast<int64_t>(params.size()) != entry.parameter_count()) return;
    for (size_t i = 0; i < params.size(); ++i) {
      if (b.params[i] && params[i]->Compatible(*b.params[i])) b.params[i] = Filled(*params[i]);
    }
    if (b.root && result->Compatible(*b.root)) b.root = Filled(*result);
  }

  // A while's body root and condition parameter follow the body parameter;
  // a conditional's branch roots follow the conditional.
  void ConstrainCallees(const Instruction& inst) {
    if (inst.opcode() == Opcode::kWhile) {
      auto body = boundary_.find(CalledAttr(inst, AttrKind::kBody));
      auto cond = boundary_.find(CalledAttr(inst, AttrKind::kCondition));
      if (body == boundary_.end() || body->second.params.size() != 1) return;
      const Shape* state = body->second.params[0];
      if (!state) return;
      if (body->second.root && body->second.root->Compatible(*state)) body->second.root = state;
      if (cond != boundary_.end() && cond->second.params.size() == 1 && cond->second.params[0] &&
          cond->second.params[0]->Compatible(*state)) {
        cond->second.params[0] = state;
      }
    } else if (inst.opcode() == Opcode::kConditional) {
      const Shape* result = Filled(inst.shape());
      for (Computation* branch : inst.called_computations()) {
        auto it = boundary_.find(branch);
        if (it != boundary_.end() && it->second.root && it->second.root->Compatible(*result)) {
          it->second.root = result;
        }
      }
    }
  }

  static const Computation* CalledAttr(const Instruction& inst, AttrKind kind) {
    const Attribute* a = inst.FindAttr(kind);
    if (!a) return nullptr;
    const auto* list = std::get_if<std::vector<Computation*>>(&a->value);
    return list && list->size() == 1 ? (*list)[0] : nullptr;
  }

  const Boundary* BoundaryOf(const Computation* c) const {
    auto it = boundary_.find(c);
    return it == boundary_.end() ? nullptr : &it->second;
  }

  void AssignComputation(Computation& comp) {
    const Boundary* bd = BoundaryOf(&comp);
    if (!bd || !comp.root()) return;
    desired_.clear();
    free_.clear();
    converted_.clear();
    bitcast_operand_.clear();
    std::vector<Instruction*> order = comp.PostOrder();
    for (Instruction* inst : order) {
      if (inst->opcode() == Opcode::kBitcast && inst->operand_count() == 1) {
        bitcast_operand_[inst] = Filled(inst->operand(0)->shape());
      }
    }
    Want(comp.root(), bd->root);
    for (auto it = order.rbegin(); it != order.rend(); ++it) PropagateBackward(**it, *bd);
    for (Instruction* inst : order) {
      Assign(*inst, *bd);
      FixOperands(comp, *inst);
    }
    Instruction* root = Convert(comp, comp.root(), bd->root);
    if (root != comp.root()) {
      comp.set_root(root);
      changed_ = true;
    }
    RemoveReplacedTuples(comp);
  }

  // A tuple operand rebuilt with other layouts is dead when nothing else
  // used it.
  void RemoveReplacedTuples(Computation& comp) {
    absl::flat_hash_set<const Instruction*> dead;
    for (const Instruction* t : replaced_tuples_) {
      if (t->users().empty() && t != comp.root() && t->control_predecessors().empty()) {
        dead.insert(t);
      }
    }
    replaced_tuples_.clear();
    if (dead.empty()) return;
    for (const auto& inst : comp.instructions()) {
      for (const Instruction* p : inst->control_predecessors()) dead.erase(p);
    }
    comp.RemoveInstructions(dead);
  }

  // ---- Backward: the layouts users want ------------------------------------

  void Want(Instruction* inst, const Shape* shape) {
    if (!shape || !shape->Compatible(inst->shape())) return;
    auto [it, inserted] = desired_.try_emplace(inst, Wish{shape, false});
    if (!inserted && !SameLayouts(*it->second.shape, *shape)) it->second.conflict = true;
  }

  // A wish passed on from a user to its operand, when the operand has no
  // other user: one used by several picks its own layout, so that one user's
  // wish does not become copies for the others (on the 91k-instruction bench
  // module this gives fewer layout changes than passing wishes to every
  // operand and voting).
  void Pass(Instruction* op, const Shape* shape) {
    if (op->users().size() == 1) Want(op, shape);
  }

  // Requirements of `inst` on its operands that do not depend on its own
  // layout (so they are known before it is assigned).
  template <typename F>
  void ForEachFixedRequirement(const Instruction& inst, const F& f) {
    switch (RuleOf(inst)) {
      case Rule::kCall:
        if (const Boundary* b = BoundaryOf(inst.to_apply())) {
          if (static_cast<int64_t>(b->params.size()) == inst.operand_count()) {
            for (int64_t i = 0; i < inst.operand_count(); ++i) f(i, b->params[i]);
          }
        }
        return;
      case Rule::kWhile:
        if (const Boundary* b = BoundaryOf(CalledAttr(inst, AttrKind::kBody))) {
          if (b->params.size() == 1 && inst.operand_count() == 1) f(0, b->params[0]);
        }
        return;
      case Rule::kConditional: {
        std::vector<Computation*> branches = inst.called_computations();
        for (size_t i = 0; i < branches.size(); ++i) {
          const Boundary* b = BoundaryOf(branches[i]);
          if (b && b->params.size() == 1 && static_cast<int64_t>(i) + 1 < inst.operand_count()) {
            f(static_cast<int64_t>(i) + 1, b->params[0]);
          }
        }
        return;
      }
      default:
        break;
    }
    if (inst.opcode() == Opcode::kBitcast) {
      auto it = bitcast_operand_.find(&inst);
      if (it != bitcast_operand_.end()) f(0, it->second);
    } else if (inst.opcode() == Opcode::kCustomCall) {
      const Attribute* a = inst.FindAttr(AttrKind::kOperandLayoutConstraints);
      const auto* shapes = a ? std::get_if<std::vector<const Shape*>>(&a->value) : nullptr;
      if (shapes && static_cast<int64_t>(shapes->size()) == inst.operand_count()) {
        for (int64_t i = 0; i < inst.operand_count(); ++i) {
          if ((*shapes)[i]) f(i, Filled(*(*shapes)[i]));
        }
      }
    }
  }

  // The layout an instruction will have whatever its users want (kept ops,
  // parameters, written non-default layouts, call results), or null.
  const Shape* KnownLayout(const Instruction& inst, const Boundary& bd) {
    Rule rule = RuleOf(inst);
    if (rule == Rule::kParameter || rule == Rule::kCall || rule == Rule::kWhile) {
      return Choose(inst, bd);
    }
    if (rule == Rule::kKeep || (IsFreeRule(rule) && IsWritten(inst.shape()))) {
      return Filled(inst.shape());
    }
    return nullptr;
  }

  void PropagateBackward(Instruction& inst, const Boundary& bd) {
    ForEachFixedRequirement(inst, [&](int64_t i, const Shape* s) { Want(inst.operand(i), s); });
    auto it = desired_.find(&inst);
    if (it == desired_.end() && RuleOf(inst) == Rule::kElementwise && !IsWritten(inst.shape())) {
      // No user wants a layout: take an operand's that is already decided,
      // so free operands (transposes, reshapes) follow it rather than
      // needing a copy later.
      for (const Instruction* op : inst.operands()) {
        const Shape* known = op->shape().IsArray() && op->shape().rank() == inst.shape().rank() &&
                                     inst.shape().rank() > 0
                                 ? KnownLayout(*op, bd)
                                 : nullptr;
        if (known && known->IsArray()) {
          it = desired_
                   .try_emplace(&inst, Wish{WithM2M(inst.shape(), MinorToMajorOf(*known)), false})
                   .first;
          break;
        }
      }
    }
    // Users that disagree: the instruction takes the first wish (so one of
    // them needs no copy) but passes nothing on.
    if (it == desired_.end() || it->second.conflict) return;
    const Shape* want = it->second.shape;
    Rule rule = RuleOf(inst);
    if (rule == Rule::kTuple && want->IsTuple()) {
      for (int64_t i = 0; i < inst.operand_count() && i < want->tuple_size(); ++i) {
        Pass(inst.operand(i), &want->tuple_shape(i));
      }
      return;
    }
    if (!IsFreeRule(rule) || IsWritten(inst.shape()) || !want->IsArray()) return;
    MinorToMajor m2m = MinorToMajorOf(*want);
    if (rule == Rule::kElementwise || rule == Rule::kCopy) {
      for (Instruction* op : inst.operands()) {
        if (op->shape().IsArray() && op->shape().rank() == want->rank() && want->rank() > 0) {
          Pass(op, WithM2M(op->shape(), m2m));
        }
      }
    } else if (rule == Rule::kTranspose && inst.operand_count() == 1) {
      Pass(inst.operand(0),
           WithM2M(inst.operand(0)->shape(),
                   TransposeOperandLayout(m2m, inst.GetInts(AttrKind::kDimensions))));
    } else if (rule == Rule::kReshape && inst.operand_count() == 1) {
      const Shape& op = inst.operand(0)->shape();
      if (auto l = ReshapeBitcastLayout(*want, op.dims())) Pass(inst.operand(0), WithM2M(op, *l));
    }
  }

  // ---- Forward: each instruction's layout ----------------------------------

  void Assign(Instruction& inst, const Boundary& bd) {
    const Shape* s = Choose(inst, bd);
    if (s && s != inst.shape_ptr() && s->Compatible(inst.shape())) {
      inst.set_shape(s);
      changed_ = true;
    }
  }

  const Shape* Choose(const Instruction& inst, const Boundary& bd) {
    Rule rule = RuleOf(inst);
    switch (rule) {
      case Rule::kParameter: {
        int64_t n = inst.parameter_number();
        bool own = n >= 0 && n < static_cast<int64_t>(bd.params.size()) &&
                   inst.parent()->parameter(n) == &inst;
        return own && bd.params[n] ? bd.params[n] : Filled(inst.shape());
      }
      case Rule::kTuple: {
        std::vector<const Shape*> elements;
        for (Instruction* op : inst.operands()) elements.push_back(op->shape_ptr());
        return module_.Intern(Shape::Tuple(std::move(elements)));
      }
      case Rule::kGetTupleElement: {
        const Shape& t = inst.operand(0)->shape();
        int64_t i = inst.GetInt(AttrKind::kIndex, -1);
        return t.IsTuple() && i >= 0 && i < t.tuple_size() ? &t.tuple_shape(i)
                                                           : Filled(inst.shape());
      }
      case Rule::kCall: {
        const Boundary* b = BoundaryOf(inst.to_apply());
        return b && b->root ? b->root : Filled(inst.shape());
      }
      case Rule::kWhile: {
        const Boundary* b = BoundaryOf(CalledAttr(inst, AttrKind::kBody));
        return b && b->params.size() == 1 && b->params[0] ? b->params[0] : Filled(inst.shape());
      }
      default:
        break;
    }
    if (!IsFreeRule(rule) || IsWritten(inst.shape())) return Filled(inst.shape());
    free_.insert(&inst);
    auto want = desired_.find(&inst);
    if (want != desired_.end()) return want->second.shape;
    return Derive(inst, rule);
  }

  // A free instruction's layout from its operand's.
  const Shape* Derive(const Instruction& inst, Rule rule) {
    const Shape& shape = inst.shape();
    if (rule == Rule::kTranspose) {
      return WithM2M(shape, TransposeResultLayout(MinorToMajorOf(inst.operand(0)->shape()),
                                                  inst.GetInts(AttrKind::kDimensions)));
    }
    if (rule == Rule::kReshape) {
      auto l = ReshapeBitcastLayout(inst.operand(0)->shape(), shape.dims());
      return l ? WithM2M(shape, *l) : Filled(shape);
    }
    for (Instruction* op : inst.operands()) {
      if (op->shape().IsArray() && op->shape().rank() == shape.rank() && shape.rank() > 0) {
        return WithM2M(shape, MinorToMajorOf(op->shape()));
      }
    }
    return Filled(shape);
  }

  // Inserts copies where an operand's layout is not the one required.
  void FixOperands(Computation& comp, Instruction& inst) {
    auto fix = [&](int64_t i, const Shape* want) {
      Instruction* op = inst.operand(i);
      if (Relayout(*op, want)) return;
      Instruction* v = Convert(comp, op, want);
      if (v != op) {
        inst.ReplaceOperand(i, v);
        if (op->opcode() == Opcode::kTuple) replaced_tuples_.push_back(op);
        changed_ = true;
      }
    };
    ForEachFixedRequirement(inst, fix);
    if (RuleOf(inst) != Rule::kElementwise) return;
    MinorToMajor m2m = MinorToMajorOf(inst.shape());
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      const Shape& op = inst.operand(i)->shape();
      if (op.IsArray() && op.rank() == inst.shape().rank() && op.rank() > 0) {
        fix(i, WithM2M(op, m2m));
      }
    }
  }

  // A transpose, reshape or copy that chose its layout freely and has no
  // other user simply takes the layout wanted of it: it moves the data then,
  // instead of a copy after it.
  bool Relayout(Instruction& op, const Shape* want) {
    Opcode o = op.opcode();
    if ((o != Opcode::kTranspose && o != Opcode::kReshape && o != Opcode::kCopy) ||
        !free_.contains(&op) || op.users().size() != 1 || !want || !want->IsArray() ||
        !op.shape().Compatible(*want)) {
      return false;
    }
    const Shape* s = WithM2M(op.shape(), MinorToMajorOf(*want));
    if (s != op.shape_ptr()) {
      op.set_shape(s);
      changed_ = true;
    }
    return true;
  }

  // `value` with the layouts of `want`: itself, or a copy (tuples: their
  // elements taken apart, converted and put back together).
  Instruction* Convert(Computation& comp, Instruction* value, const Shape* want) {
    const Shape& have = value->shape();
    if (!want || SameLayouts(have, *want) || !have.Compatible(*want)) return value;
    auto [it, inserted] = converted_.try_emplace({value, want}, nullptr);
    if (!inserted) return it->second;
    Instruction* out = value;
    if (have.IsArray()) {
      out = AddInstruction(comp, Opcode::kCopy, want, {value}, "copy");
    } else if (have.IsTuple()) {
      std::vector<Instruction*> elements;
      std::vector<const Shape*> shapes;
      for (int64_t i = 0; i < have.tuple_size(); ++i) {
        // A tuple instruction's elements are at hand; others are taken apart.
        Instruction* part =
            value->opcode() == Opcode::kTuple && value->operand_count() == have.tuple_size()
                ? value->operand(i)
                : AddGetTupleElement(comp, value, i);
        Instruction* e = Convert(comp, part, &want->tuple_shape(i));
        elements.push_back(e);
        shapes.push_back(e->shape_ptr());
      }
      out = AddInstruction(comp, Opcode::kTuple, module_.Intern(Shape::Tuple(std::move(shapes))),
                           elements, "tuple");
    }
    converted_[{value, want}] = out;
    changed_ = true;
    return out;
  }

  Module& module_;
  absl::flat_hash_map<const Computation*, Boundary> boundary_;
  // Per computation:
  // What the users of an instruction want: the first wish, and whether
  // another user wanted something else.
  struct Wish {
    const Shape* shape;
    bool conflict;
  };
  absl::flat_hash_map<const Instruction*, Wish> desired_;
  // Instructions whose layout was a free choice.
  absl::flat_hash_set<const Instruction*> free_;
  absl::flat_hash_map<std::pair<Instruction*, const Shape*>, Instruction*> converted_;
  absl::flat_hash_map<const Instruction*, const Shape*> bitcast_operand_;
  std::vector<const Instruction*> replaced_tuples_;
  bool changed_ = false;
};

class LayoutAssignment : public Pass {
 public:
  std::string_view name() const override { return "layout-assignment"; }
  std::string_view description() const override {
    return "gives every array shape a layout (constraints kept, copies where they conflict)";
  }
  absl::StatusOr<bool> Run(Module& module) override { return LayoutAssigner(module).Run(); }
};

}  // namespace

std::unique_ptr<Pass> CreateLayoutAssignment() { return std::make_unique<LayoutAssignment>(); }

}  // namespace hlo
