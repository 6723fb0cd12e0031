// conditional-simplifier: a conditional whose branch is known statically is
// replaced by a `call` of that branch on the branch's operand (call-inliner
// can then inline it), as XLA's ConditionalSimplifier does:
//  * the predicate (true_computation/false_computation form) or the
//    branch_index (branch_computations form) is a scalar constant; an index
//    outside [0, N) selects the last branch (operation semantics);
//  * a conditional with a single branch always runs it.
// Left alone: conditionals whose branches (transitively) contain side
// effects, or that take part in control dependencies. The branches left
// unreachable are removed.
#include <memory>
#include <vector>

#include "passes/control_flow_util.h"
#include "passes/passes.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

// The index of the branch a conditional runs, when known statically.
std::optional<int64_t> KnownBranch(const Instruction* cond, int64_t branches) {
  if (branches == 1) return 0;
  const std::optional<int64_t> c = ScalarIntConstant(cond->operand(0));
  if (!c) return std::nullopt;
  if (IsPred(cond->operand(0)->shape().element_type())) return *c != 0 ? 0 : 1;
  return (*c < 0 || *c >= branches) ? branches - 1 : *c;
}

class ConditionalSimplifier : public Pass {
 public:
  std::string_view name() const override { return "conditional-simplifier"; }
  std::string_view description() const override {
    return "replaces conditionals with a constant predicate or index by a call of the branch";
  }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  bool RunOn(Module& module, Computation& comp);
  SideEffectCache effects_;
};

bool ConditionalSimplifier::RunOn(Module& module, Computation& comp) {
  if (comp.CountOf(Opcode::kConditional) == 0) return false;  // not read at all
  std::vector<Instruction*> conds;
  for (const auto& inst : comp.instructions()) {
    if (inst->opcode() == Opcode::kConditional) conds.push_back(inst.get());
  }
  if (conds.empty()) return false;  // no second walk for the control set
  const absl::flat_hash_set<const Instruction*> control = ControlRelated(comp);
  absl::flat_hash_set<const Instruction*> dead;
  for (Instruction* cond : conds) {
    if (control.contains(cond)) continue;
    std::vector<Computation*> branches = ComputationsOf(cond, AttrKind::kBranchComputations);
    if (branches.empty()) {
      branches = ComputationsOf(cond, AttrKind::kTrueComputation);
      for (Computation* f : ComputationsOf(cond, AttrKind::kFalseComputation)) {
        branches.push_back(f);
      }
      if (branches.size() != 2) continue;
    }
    const int64_t n = static_cast<int64_t>(branches.size());
    if (cond->operand_count() != n + 1) continue;
    const std::optional<int64_t> pick = KnownBranch(cond, n);
    if (!pick) continue;
    bool effects = false;
    for (const Computation* b : branches) effects = effects || effects_.Has(b);
    if (effects) continue;
    Computation* branch = branches[*pick];
    if (branch->parameter_count() != 1 || !AllowRewrite(*cond)) continue;
    Instruction* call = AddCall(module, comp, cond->shape(), branch, {cond->operand(*pick + 1)});
    cond->ReplaceAllUsesWith(call);
    dead.insert(cond);
  }
  comp.RemoveInstructions(dead);
  return !dead.empty();
}

absl::StatusOr<bool> ConditionalSimplifier::Run(Module& module) {
  effects_.Clear();  // computations of an earlier module may share addresses
  bool changed = false;
  std::vector<Computation*> comps;
  for (const auto& c : module.computations()) comps.push_back(c.get());
  for (Computation* c : comps) changed = RunOn(module, *c) || changed;
  if (changed) module.RemoveUnreachableComputations();
  return changed;
}

}  // namespace

std::unique_ptr<Pass> CreateConditionalSimplifier() {
  return std::make_unique<ConditionalSimplifier>();
}

}  // namespace hlo
