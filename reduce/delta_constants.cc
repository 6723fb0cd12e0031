// constants: an instruction becomes a constant zero or one of its shape (a
// broadcast scalar for arrays). Two targets per instruction, zero first.
#include "reduce/delta.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {
namespace {

// Already a constant, or a broadcast of one: nothing to gain.
bool IsConstantLike(const Instruction& inst) {
  if (inst.opcode() == Opcode::kConstant) return true;
  return inst.opcode() == Opcode::kBroadcast && inst.operand_count() == 1 &&
         inst.operand(0)->opcode() == Opcode::kConstant;
}

class ConstantsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    for (const auto& comp : module.computations()) {
      const bool entry = comp.get() == module.entry();
      for (Instruction* inst : comp->PostOrder()) {
        // Parameters of other computations are their signature.
        if (IsConstantLike(*inst) || (!entry && inst->opcode() == Opcode::kParameter)) continue;
        if (!inst->shape().IsArray()) continue;
        // Both targets are counted whichever is picked: the numbering of
        // the targets after them must not depend on the choice.
        const bool zero = select.Pick();
        const bool one = select.Pick();
        if (!zero && !one) continue;
        Instruction* c = AddFilledConstant(module, *comp, inst->shape(), zero ? 0 : 1);
        if (c != nullptr) inst->ReplaceAllUsesWith(c);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateConstantsDelta() { return std::make_unique<ConstantsDelta>(); }

}  // namespace hlo::reduce
