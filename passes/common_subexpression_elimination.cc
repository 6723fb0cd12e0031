// cse: merges instructions that compute the same value: same opcode, shape,
// operands (in either order for commutative binary ops), attributes
// (metadata aside), literal and called computations (alike, not only the
// same: passes/computation_equality.h). Side-effecting instructions,
// parameters and instructions tied by control edges are left alone. Linear:
// one walk in post order (PostOrderOf) with a hash set, so operands are
// merged before their users are looked up.
#include <algorithm>
#include <functional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "ir/module.h"
#include "passes/computation_equality.h"
#include "passes/dead_code.h"
#include "passes/passes.h"
#include "passes/post_order.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

// add(x, y) and add(y, x) are one value (as in XLA's HloCSE).
bool Swappable(const Instruction& i) {
  return IsBinaryCommutative(i.opcode()) && i.operand_count() == 2;
}

struct InstHash {
  size_t operator()(const Instruction* i) const {
    // A part of what InstEq compares. Attributes are left to InstEq: reading
    // every instruction's attribute block to hash it costs a cache miss each
    // in a large module, and instructions equal in all else rarely differ
    // in their attributes alone.
    size_t h = absl::HashOf(static_cast<int>(i->opcode()), i->shape_ptr());
    if (Swappable(*i)) {
      h = absl::HashOf(h, std::min(i->operand(0), i->operand(1)),
                       std::max(i->operand(0), i->operand(1)));
    } else {
      for (const Instruction* op : i->operands()) h = absl::HashOf(h, op);
    }
    if (const Literal* lit = i->literal()) {
      // A bounded prefix: equal literals hash equal, long ones stay cheap.
      size_t n = std::min<size_t>(lit->size_bytes(), 64);
      h = absl::HashOf(h, lit->size_bytes(),
                       std::hash<std::string_view>()(
                           std::string_view(reinterpret_cast<const char*>(lit->data()), n)));
    }
    return h;
  }
};

struct InstEq {
  ComputationEquality* computations;
  bool operator()(const Instruction* a, const Instruction* b) const {
    if (a == b) return true;
    if (a->operand_count() != b->operand_count()) return false;
    bool in_order = true;
    for (int64_t k = 0; k < a->operand_count(); ++k) in_order &= a->operand(k) == b->operand(k);
    if (!in_order &&
        !(Swappable(*a) && a->operand(0) == b->operand(1) && a->operand(1) == b->operand(0))) {
      return false;
    }
    return computations->SameButOperands(*a, *b);
  }
};

bool Candidate(const Instruction& inst, const absl::flat_hash_set<const Instruction*>& control,
               bool has_effects) {
  if (inst.opcode() == Opcode::kParameter || has_effects) return false;
  if (control.contains(&inst)) return false;
  // An elided constant (`constant({...})`) has no known value to compare.
  if (inst.literal_elided() || (inst.opcode() == Opcode::kConstant && !inst.literal())) {
    return false;
  }
  for (const Instruction* op : inst.operands()) {
    if (op == nullptr) return false;
  }
  return true;
}

int64_t RunOnComputation(Computation& comp, SideEffects& effects,
                         ComputationEquality& computations) {
  // Post order: an instruction's operands are merged before it is hashed,
  // so chains of duplicates merge in one run (the list order is not
  // topological once passes have appended instructions). The control set
  // comes from the same walk.
  absl::flat_hash_set<const Instruction*> control;
  std::vector<bool> calls;
  std::vector<Instruction*> order = PostOrderOf(comp, &control, &calls);
  absl::flat_hash_set<Instruction*, InstHash, InstEq> seen(order.size(), InstHash(),
                                                           InstEq{&computations});
  std::vector<Instruction*> merged;
  bool comp_effects = false;
  for (size_t i = 0; i < order.size(); ++i) {
    Instruction* inst = order[i];
    // SideEffects::Of, without reading the attributes again when they name
    // no computation (only a custom-call's effects are an attribute then).
    bool inst_effects = calls[i] || inst->opcode() == Opcode::kCustomCall
                            ? effects.Of(*inst)
                            : HasSideEffect(inst->opcode());
    comp_effects |= inst_effects;
    if (!Candidate(*inst, control, inst_effects)) continue;
    auto [it, inserted] = seen.insert(inst);
    if (inserted || !AllowRewrite(*inst)) continue;
    inst->ReplaceAllUsesWith(*it);
    merged.push_back(inst);
  }
  // Every instruction was asked, so a fusion of `comp` met later need not
  // read it again (merging and removing unused instructions never changes
  // whether a computation has effects).
  effects.Note(comp, comp_effects);
  // Merging touches no control edge, so the set is still ControlRelated.
  RemoveDeadFrom(comp, merged, &control);
  return static_cast<int64_t>(merged.size());
}

class CommonSubexpressionElimination : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  std::string_view description() const override {
    return "merges identical instructions (side-effecting ones untouched)";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    int64_t merged = 0;
    SideEffects effects(module);  // for the whole run: cse does not change them
    // Merging never makes alike computations differ, so what is learnt of
    // them holds for the whole run.
    ComputationEquality computations;
    for (const auto& comp : module.computations()) {
      merged += RunOnComputation(*comp, effects, computations);
    }
    return merged > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace hlo
