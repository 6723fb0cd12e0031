// operands: an instruction becomes one of its operands of the same shape
// (in every computation; one target per such operand).
#include "absl/container/flat_hash_set.h"
#include "reduce/delta.h"

namespace hlo::reduce {

namespace {

class OperandsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    absl::flat_hash_set<Instruction*> replaced;
    for (const auto& comp : module.computations()) {
      for (Instruction* inst : comp->PostOrder()) {
        for (Instruction* op : inst->operands()) {
          if (!(op->shape() == inst->shape()) && !op->shape().Compatible(inst->shape())) continue;
          if (!select.Pick() || replaced.contains(inst)) continue;
          replaced.insert(inst);
          inst->ReplaceAllUsesWith(op);
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateOperandsDelta() { return std::make_unique<OperandsDelta>(); }

}  // namespace hlo::reduce
