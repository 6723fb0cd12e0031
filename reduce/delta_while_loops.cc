// while-loops: a while loop becomes one trip of its body on the initial
// state (none at all is the operands reduction: the loop becomes its init).
#include "reduce/delta.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {
namespace {

class WhileLoopsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    for (Computation* comp : module.PostOrder()) {
      for (Instruction* inst : comp->PostOrder()) {
        if (inst->opcode() != Opcode::kWhile || inst->operand_count() != 1) continue;
        const Attribute* body = inst->FindAttr(AttrKind::kBody);
        if (body == nullptr || !select.Pick()) continue;
        auto* v = std::get_if<std::vector<Computation*>>(&body->value);
        if (v == nullptr || v->size() != 1) continue;
        InlineInto(module, inst, *(*v)[0], inst->operands());
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateWhileLoopsDelta() { return std::make_unique<WhileLoopsDelta>(); }

}  // namespace hlo::reduce
