// inline: a call or a fusion is replaced by a copy of the computation it
// calls (the computation goes when nothing else calls it).
#include "reduce/delta.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {
namespace {

class InlineDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    for (Computation* comp : module.PostOrder()) {
      for (Instruction* inst : comp->PostOrder()) {
        if (inst->opcode() != Opcode::kCall && inst->opcode() != Opcode::kFusion) continue;
        Computation* callee = inst->to_apply();
        if (callee == nullptr || callee == comp || !select.Pick()) continue;
        InlineInto(module, inst, *callee, inst->operands());
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateInlineDelta() { return std::make_unique<InlineDelta>(); }

}  // namespace hlo::reduce
