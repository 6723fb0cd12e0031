// while-trips: a counted loop runs half as many trips. A loop whose
// condition compares a state element that starts at a constant I with a
// constant bound C (`i < C`, `C > i`, any direction) gets the bound
// I + (C - I) / 2, so that rounds shorten it 10 -> 5 -> 2 -> 1 -> 0 trips.
// The condition is changed in place, so only loops that have their
// condition computation to themselves are targets.
#include "ir/literal.h"
#include "passes/control_flow_util.h"
#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

// The constant state element `index` of a loop's init, when it is one.
std::optional<int64_t> InitValue(const Instruction* init, int64_t index) {
  if (index < 0) return ScalarIntConstant(init);
  if (init->opcode() != Opcode::kTuple || index >= init->operand_count()) return std::nullopt;
  return ScalarIntConstant(init->operand(index));
}

// How many while loops use each condition computation.
absl::flat_hash_map<const Computation*, int> ConditionUses(const Module& module) {
  absl::flat_hash_map<const Computation*, int> uses;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() != Opcode::kWhile) continue;
      for (Computation* c : ComputationsOf(inst.get(), AttrKind::kCondition)) ++uses[c];
    }
  }
  return uses;
}

// Operand `k` of `compare` (constant `old`) becomes `value`: in place when
// the compare is its only user, so the name (and the text's size) stays.
void SetBound(Module& module, Computation& cond, Instruction* compare, int64_t k, Instruction* old,
              int64_t value) {
  auto lit = Literal::Create(old->shape());
  if (!lit.ok()) return;
  lit->SetInt(0, value);
  auto shared = std::make_shared<Literal>(*std::move(lit));
  if (old->users().size() == 1) {
    old->set_literal(std::move(shared));
    return;
  }
  auto c = std::make_unique<Instruction>(Opcode::kConstant, module.UniqueName(old->name()),
                                         old->shape_ptr());
  c->set_literal(std::move(shared));
  compare->ReplaceOperand(k, cond.AddInstruction(std::move(c)));
}

class WhileTripsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    const absl::flat_hash_map<const Computation*, int> uses = ConditionUses(module);
    for (Computation* comp : module.PostOrder()) {
      for (Instruction* loop : comp->PostOrder()) {
        if (loop->opcode() != Opcode::kWhile || loop->operand_count() != 1) continue;
        std::vector<Computation*> conds = ComputationsOf(loop, AttrKind::kCondition);
        if (conds.size() != 1 || uses.at(conds[0]) != 1) continue;
        Computation& cond = *conds[0];
        Instruction* root = cond.root();
        if (root->opcode() != Opcode::kCompare || root->operand_count() != 2) continue;
        for (int64_t k = 0; k < 2; ++k) {
          const std::optional<int64_t> bound = ScalarIntConstant(root->operand(k));
          const std::optional<int64_t> element = LoopStateIndex(root->operand(1 - k), cond);
          if (!bound || !element) continue;
          const std::optional<int64_t> start = InitValue(loop->operand(0), *element);
          if (!start || *start == *bound) continue;
          // Both fit the type, so the midpoint does (computed without overflow).
          const int64_t mid = *start + (*bound / 2 - *start / 2) + (*bound % 2 - *start % 2) / 2;
          if (mid == *bound || !select.Pick()) break;
          SetBound(module, cond, root, k, root->operand(k), mid);
          break;
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateWhileTripsDelta() { return std::make_unique<WhileTripsDelta>(); }

}  // namespace hlo::reduce
