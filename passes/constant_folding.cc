// constant-folding: evaluates instructions whose operands are constants and
// replaces them with constants, following XLA's HloConstantFolding (default
// level):
//  * candidates have at least one constant operand, and every operand is a
//    constant, a broadcast of a constant, an iota, or a tuple of those;
//  * broadcast and iota are never folded themselves (they would grow
//    constants; XLA's algebraic simplifier prefers them), nor fft, while,
//    parameter, constant, tuple, instructions with side effects or control
//    dependencies, or calls of computations that contain side effects, rng
//    or after-all; nor pad of a broadcast;
//  * nothing is folded whose result or summed operands exceed 45,000,000
//    elements (XLA's kMaximumConstantSizeElements);
//  * fusion computations are left alone.
// Instructions are visited in post order, so a chain of foldable
// instructions collapses in one run. The new constant keeps the folded
// instruction's name and shape (with its layout); operands that become dead
// are removed. Results that are not arrays (tuples, tokens) are not folded,
// nor instructions the evaluator cannot evaluate.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "eval/evaluator.h"
#include "ir/computation.h"
#include "passes/passes.h"
#include "passes/post_order.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

constexpr int64_t kMaxConstantElements = 45 * 1000 * 1000;

// Elements of a shape, tuples summed; -1 when dynamic or past the limit.
int64_t Elements(const Shape& shape) {
  if (shape.IsArray()) return shape.ElementCount();
  if (!shape.IsTuple()) return 0;
  int64_t n = 0;
  for (const Shape* e : shape.tuple_shapes()) {
    const int64_t k = Elements(*e);
    if (k < 0 || k > kMaxConstantElements) return -1;
    n += k;
  }
  return n;
}

// Elements an operand's evaluation makes: a tuple's operands' own (as
// OperandValue evaluates them), not its declared shape's, which unverified
// text may shrink (a tuple declared (f32[100000,3]) of a 10^10-element
// broadcast); -1 past the limit.
int64_t OperandElements(const Instruction* op) {
  if (op->opcode() != Opcode::kTuple) return Elements(op->shape());
  int64_t n = 0;
  for (const Instruction* e : op->operands()) {
    const int64_t k = OperandElements(e);
    if (k < 0 || k > kMaxConstantElements - n) return -1;
    n += k;
  }
  return n;
}

// At least one operand (looking through tuples) is a constant.
bool AnyOperandConstant(const Instruction* inst) {
  for (const Instruction* op : inst->operands()) {
    if (op->opcode() == Opcode::kTuple ? AnyOperandConstant(op) : op->IsKnownConstant())
      return true;
  }
  return false;
}

// Every operand is a constant, a broadcast of one, an iota, or a tuple of
// those.
bool AllOperandsConstantLike(const Instruction* inst) {
  for (const Instruction* op : inst->operands()) {
    const Opcode o = op->opcode();
    if (o == Opcode::kTuple) {
      if (!AllOperandsConstantLike(op)) return false;
    } else if (!op->IsKnownConstant() && o != Opcode::kIota &&
               !(o == Opcode::kBroadcast && op->operand_count() == 1 &&
                 op->operand(0)->IsKnownConstant())) {
      return false;
    }
  }
  return true;
}

class ConstantFolding : public Pass {
 public:
  std::string_view name() const override { return "constant-folding"; }
  std::string_view description() const override {
    return "evaluates instructions whose operands are all constants";
  }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  bool Foldable(const Instruction* inst);
  bool ComputationFoldable(const Computation* comp);
  absl::StatusOr<Value> OperandValue(const Instruction* op, Evaluator& ev);
  bool FoldIn(Computation& comp, Evaluator& ev);

  absl::flat_hash_map<const Computation*, bool> foldable_computation_;
  absl::flat_hash_set<const Instruction*> control_related_;
};

bool ConstantFolding::ComputationFoldable(const Computation* comp) {
  auto it = foldable_computation_.find(comp);
  if (it != foldable_computation_.end()) return it->second;
  foldable_computation_[comp] = true;  // recursion guard
  bool ok = true;
  for (const auto& inst : comp->instructions()) {
    const Opcode o = inst->opcode();
    if (o == Opcode::kRng || o == Opcode::kAfterAll || HasSideEffect(o) || o == Opcode::kFft ||
        o == Opcode::kWhile) {
      ok = false;
      break;
    }
    for (const Computation* c : inst->called_computations()) {
      if (!ComputationFoldable(c)) ok = false;
    }
    if (!ok) break;
  }
  foldable_computation_[comp] = ok;
  return ok;
}

// What Foldable asks of the opcode and operands alone. Folds only follow
// from a fold, so a computation where no instruction passes this has
// nothing to fold (and is not ordered).
bool MayFold(const Instruction* inst) {
  const Opcode o = inst->opcode();
  if (o == Opcode::kParameter || o == Opcode::kConstant || o == Opcode::kTuple ||
      o == Opcode::kBroadcast || o == Opcode::kIota || o == Opcode::kFft || o == Opcode::kWhile ||
      o == Opcode::kRng || o == Opcode::kAfterAll || HasSideEffect(o)) {
    return false;
  }
  // A dot's algorithm rounds its operands as written (dot-algorithm-
  // rewriter): the folding evaluator would compute it in the operand types.
  if (inst->HasAttr(AttrKind::kAlgorithm) && o != Opcode::kRngBitGenerator) return false;
  return AnyOperandConstant(inst) && AllOperandsConstantLike(inst);
}

bool ConstantFolding::Foldable(const Instruction* inst) {
  if (!MayFold(inst)) return false;
  const Opcode o = inst->opcode();
  if (!inst->shape().IsArray() || control_related_.contains(inst)) return false;
  if (o == Opcode::kPad && inst->operand(0)->opcode() == Opcode::kBroadcast) return false;
  // XLA's size limit: the result and the operands together (tuple
  // operands counted too, as their broadcasts get evaluated).
  int64_t in = 0;
  for (const Instruction* op : inst->operands()) {
    const int64_t n = OperandElements(op);
    if (n < 0 || n > kMaxConstantElements) return false;
    in += n;
  }
  const int64_t out = Elements(inst->shape());
  if (out < 0 || out > kMaxConstantElements || in > kMaxConstantElements) return false;
  for (const Computation* c : inst->called_computations()) {
    if (!ComputationFoldable(c)) return false;
  }
  return true;
}

// The value of a constant-like operand: a constant's literal, or a
// broadcast/iota/tuple evaluated from its own constant-like operands.
absl::StatusOr<Value> ConstantFolding::OperandValue(const Instruction* op, Evaluator& ev) {
  if (op->IsKnownConstant()) return Value::FromLiteral(*op->literal());
  std::vector<Value> values;
  for (const Instruction* o : op->operands()) {
    auto v = OperandValue(o, ev);
    if (!v.ok()) return v.status();
    values.push_back(*std::move(v));
  }
  std::vector<const Value*> ptrs;
  for (const Value& v : values) ptrs.push_back(&v);
  return ev.EvaluateInstruction(*op, ptrs);
}

// Detaches `inst` and then every operand that becomes unused, adding them to
// `removed`; the caller removes them all in one sweep (removing one at a
// time is linear in the computation each).
void DetachWithDeadOperands(Computation& comp, Instruction* inst,
                            const absl::flat_hash_set<const Instruction*>& keep,
                            absl::flat_hash_set<const Instruction*>& removed) {
  std::vector<Instruction*> dead = {inst};
  while (!dead.empty()) {
    Instruction* d = dead.back();
    dead.pop_back();
    if (!removed.insert(d).second) continue;
    std::vector<Instruction*> operands(d->operands().begin(), d->operands().end());
    d->DetachOperands();
    for (Instruction* op : operands) {
      if (op->users().empty() && op != comp.root() && op->opcode() != Opcode::kParameter &&
          !HasSideEffect(op->opcode()) && !keep.contains(op) && !removed.contains(op)) {
        dead.push_back(op);
      }
    }
  }
}

bool ConstantFolding::FoldIn(Computation& comp, Evaluator& ev) {
  control_related_.clear();
  std::vector<Instruction*> order = PostOrderOf(comp, &control_related_);
  bool changed = false;
  absl::flat_hash_set<const Instruction*> removed;
  for (Instruction* inst : order) {
    if (removed.contains(inst)) continue;
    if (inst->users().empty() && inst != comp.root()) continue;  // dead code
    if (!Foldable(inst)) continue;
    std::vector<Value> values;
    bool ok = true;
    for (const Instruction* op : inst->operands()) {
      auto v = OperandValue(op, ev);
      if (!v.ok()) {
        ok = false;
        break;
      }
      values.push_back(*std::move(v));
    }
    if (!ok) continue;
    std::vector<const Value*> ptrs;
    for (const Value& v : values) ptrs.push_back(&v);
    absl::StatusOr<Value> result = ev.EvaluateInstruction(*inst, ptrs);
    if (!result.ok() || !result->is_array()) continue;  // unimplemented: leave it
    // A bounded dynamic result (dynamic-reshape to s32[<=6]) evaluates to a
    // static literal, which no constant of the dynamic shape may hold.
    if (!result->array().shape().Compatible(inst->shape().WithoutLayout())) continue;
    if (!AllowRewrite(*inst)) continue;
    auto folded = std::make_unique<Instruction>(Opcode::kConstant, inst->name(), inst->shape_ptr());
    folded->set_loc(inst->loc());
    folded->set_literal(std::make_shared<const Literal>(result->ToLiteral()));
    Instruction* constant = comp.AddInstruction(std::move(folded));
    inst->ReplaceAllUsesWith(constant);
    DetachWithDeadOperands(comp, inst, control_related_, removed);
    changed = true;
  }
  comp.RemoveInstructions(removed);
  return changed;
}

absl::StatusOr<bool> ConstantFolding::Run(Module& module) {
  foldable_computation_.clear();
  EvalOptions options;
  options.max_iterations = 0;
  options.max_memory_bytes = int64_t{1} << 32;
  Evaluator ev(module, options);
  // Folding in one computation changes no other (it never removes what
  // ComputationFoldable looks for), so the order of the computations does
  // not matter. Fusion computations are left alone, as XLA does, and are
  // not read.
  bool changed = false;
  for (const auto& comp : module.computations()) {
    if (comp->is_fusion_computation()) continue;
    const auto& insts = comp->instructions();
    if (std::none_of(insts.begin(), insts.end(), [](const auto& i) { return MayFold(i.get()); })) {
      continue;  // nothing to fold, nothing to order
    }
    changed |= FoldIn(*comp, ev);
  }
  return changed;
}

}  // namespace

std::unique_ptr<Pass> CreateConstantFolding() { return std::make_unique<ConstantFolding>(); }

}  // namespace hlo
