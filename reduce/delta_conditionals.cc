// conditionals: a conditional becomes a copy of one of its branches on that
// branch's operand (one target per branch).
#include "reduce/delta.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {
namespace {

class ConditionalsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    for (Computation* comp : module.PostOrder()) {
      for (Instruction* inst : comp->PostOrder()) {
        if (inst->opcode() != Opcode::kConditional) continue;
        std::vector<Computation*> branches = inst->called_computations();
        bool done = false;
        for (size_t b = 0; b < branches.size(); ++b) {
          if (!select.Pick() || done) continue;
          if (b + 1 >= static_cast<size_t>(inst->operand_count())) continue;
          Instruction* arg = inst->operand(static_cast<int64_t>(b) + 1);
          done = InlineInto(module, inst, *branches[b], {&arg, 1});
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateConditionalsDelta() { return std::make_unique<ConditionalsDelta>(); }

}  // namespace hlo::reduce
