// reshape-mover: sinks reshapes and transposes ("rearranges") below
// elementwise ops, as XLA's ReshapeMover, so that chains of them meet and
// can cancel (algsimp folds reshape-of-reshape and transpose-of-transpose).
//
//   add(reshape(a), reshape(b))  ->  reshape(add(a, b))
//
// An elementwise op moves when one operand is a non-trivial rearrange R (not
// an identity, not of a constant or scalar broadcast) and every operand is
//  - a rearrange equivalent to R (same opcode, same operand dimensions, same
//    permutation) that nothing else uses (moving one with other users would
//    duplicate it; XLA drops candidates the same way), or
//  - trivially rearranged: a constant (R's inverse is applied to it, a new
//    reshape/transpose of the constant for constant folding to fold), a
//    broadcast of a scalar (re-broadcast to the new shape), or a scalar
//    operand (clamp's bounds).
// The op is rewritten in place on R's operand dimensions and a new R after
// it takes its users. Instructions are visited operands first, so a moved R
// keeps moving down a chain in the same walk: linear.
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "passes/layout_assignment_util.h"
#include "passes/passes.h"
#include "passes/post_order.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

bool IsRearrange(const Instruction* inst) {
  if (inst->opcode() == Opcode::kTranspose && !IsWellFormedTranspose(*inst)) return false;
  return (inst->opcode() == Opcode::kReshape || inst->opcode() == Opcode::kTranspose) &&
         inst->operand_count() == 1 && inst->shape().IsArray() &&
         inst->operand(0)->shape().IsArray() && inst->shape().IsStatic() &&
         inst->operand(0)->shape().IsStatic();
}

bool IsScalarBroadcast(const Instruction* inst) {
  return inst->opcode() == Opcode::kBroadcast && inst->operand_count() == 1 &&
         inst->operand(0)->shape().IsArray() && inst->operand(0)->shape().rank() == 0;
}

// Constants and scalar broadcasts take any shape at no cost.
bool CanTriviallyRearrange(const Instruction* inst) {
  return (inst->opcode() == Opcode::kConstant && inst->shape().IsArray()) ||
         IsScalarBroadcast(inst);
}

bool IsIdentityRearrange(const Instruction* r) {
  if (r->opcode() == Opcode::kTranspose)
    return IsIdentityPermutation(r->GetInts(AttrKind::kDimensions));
  return r->shape().dims() == r->operand(0)->shape().dims();
}

bool IsNontrivialRearrange(const Instruction* inst) {
  return IsRearrange(inst) && !IsIdentityRearrange(inst) &&
         !CanTriviallyRearrange(inst->operand(0));
}

bool AreEquivalent(const Instruction* a, const Instruction* b) {
  return a->opcode() == b->opcode() &&
         a->operand(0)->shape().dims() == b->operand(0)->shape().dims() &&
         a->shape().dims() == b->shape().dims() &&
         (a->opcode() != Opcode::kTranspose ||
          a->GetInts(AttrKind::kDimensions) == b->GetInts(AttrKind::kDimensions));
}

class Mover {
 public:
  explicit Mover(Module& module) : module_(module) {}

  bool RunOn(Computation& comp) {
    // Nothing moves unless some instruction is a candidate now (moves only
    // follow from one), so a computation without one is not ordered.
    if (!AnyCandidate(comp)) return false;
    bool changed = false;
    // The control-related set comes from the ordering walk; moves add no
    // control edge, so it still holds when the dead are removed.
    absl::flat_hash_set<const Instruction*> control;
    for (Instruction* inst : PostOrderOf(comp, &control)) {
      if (const Instruction* r = Candidate(*inst); r != nullptr && AllowRewrite(*inst)) {
        Move(comp, *inst, r);
        changed = true;
      }
    }
    RemoveDead(comp, control);
    return changed;
  }

 private:
  bool AnyCandidate(const Computation& comp) const {
    for (const auto& inst : comp.instructions()) {
      if (Candidate(*inst) != nullptr) return true;
    }
    return false;
  }

  // The rearrange to move past `inst`, or null.
  const Instruction* Candidate(const Instruction& inst) const {
    if (!IsElementwiseInstruction(inst) || !inst.shape().IsArray() || inst.shape().rank() == 0) {
      return nullptr;
    }
    const Instruction* first = nullptr;
    for (const Instruction* op : inst.operands()) {
      if (IsNontrivialRearrange(op)) {
        first = op;
        break;
      }
    }
    if (!first) return nullptr;
    for (const Instruction* op : inst.operands()) {
      bool ok = IsRearrange(op) ? AreEquivalent(op, first) && op->users().size() == 1
                                : CanTriviallyRearrange(op) || op->shape().rank() == 0;
      if (!ok) return nullptr;
    }
    // Last: it reads the attributes, which most instructions never need.
    if (!inst.control_predecessors().empty()) return nullptr;
    return first;
  }

  void Move(Computation& comp, Instruction& inst, const Instruction* r) {
    const Shape* old_shape = inst.shape_ptr();
    const Shape& inner = r->operand(0)->shape();
    const Opcode kind = r->opcode();
    const std::vector<int64_t> perm(r->GetInts(AttrKind::kDimensions).begin(),
                                    r->GetInts(AttrKind::kDimensions).end());
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      Instruction* op = inst.operand(i);
      Instruction* v = nullptr;
      if (IsRearrange(op)) {
        v = op->operand(0);
        dead_.push_back(op);
      } else if (op->shape().rank() == 0) {
        continue;
      } else {
        v = Rearranged(comp, op, inner.dims(), kind, perm);
        if (IsScalarBroadcast(op)) dead_.push_back(op);
      }
      inst.ReplaceOperand(i, v);
    }
    inst.set_shape(Array(inst.shape().element_type(), inner.dims()));
    // The new rearrange takes every use of `inst`, then reads it.
    Instruction* out = AddInstruction(comp, kind, old_shape, {},
                                      kind == Opcode::kReshape ? "reshape" : "transpose");
    if (kind == Opcode::kTranspose) out->SetAttr(AttrKind::kDimensions, perm);
    inst.ReplaceAllUsesWith(out);
    out->AppendOperand(&inst);
  }

  const Shape* Array(PrimitiveType type, absl::Span<const int64_t> dims) {
    return module_.Intern(Shape::Array(type, dims).WithDefaultLayout());
  }

  // `op` (a constant or scalar broadcast of the moved op's old shape) on the
  // dims before the rearrange: R's inverse applied.
  Instruction* Rearranged(Computation& comp, Instruction* op, absl::Span<const int64_t> dims,
                          Opcode kind, const std::vector<int64_t>& perm) {
    const Shape* shape = Array(op->shape().element_type(), dims);
    if (IsScalarBroadcast(op)) {
      Instruction* b =
          AddInstruction(comp, Opcode::kBroadcast, shape, {op->operand(0)}, "broadcast");
      b->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
      return b;
    }
    if (kind == Opcode::kTranspose) return AddTranspose(comp, op, InversePermutation(perm), shape);
    return AddInstruction(comp, Opcode::kReshape, shape, {op}, "reshape");
  }

  void RemoveDead(Computation& comp, const absl::flat_hash_set<const Instruction*>& control) {
    if (dead_.empty()) return;
    absl::flat_hash_set<const Instruction*> dead;
    for (const Instruction* d : dead_) {
      if (d->users().empty() && d != comp.root() && !control.contains(d)) dead.insert(d);
    }
    comp.RemoveInstructions(dead);
    dead_.clear();
  }

  Module& module_;
  std::vector<const Instruction*> dead_;
};

class ReshapeMover : public Pass {
 public:
  std::string_view name() const override { return "reshape-mover"; }
  std::string_view description() const override {
    return "sinks reshapes and transposes below elementwise ops so they can cancel";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    Mover mover(module);
    bool changed = false;
    for (const auto& c : module.computations()) {
      if (!c->is_fusion_computation()) changed |= mover.RunOn(*c);  // as XLA
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateReshapeMover() { return std::make_unique<ReshapeMover>(); }

}  // namespace hlo
