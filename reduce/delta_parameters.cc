// parameters: instructions of the entry become new entry parameters of
// their shape (what computed them dies); hlo-run's --random-inputs then
// feeds them.
#include "reduce/delta.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {
namespace {

class ParametersDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    Computation* entry = module.entry();
    for (Instruction* inst : entry->PostOrder()) {
      if (inst->opcode() == Opcode::kParameter || inst->shape().IsToken()) continue;
      if (!select.Pick()) continue;
      inst->ReplaceAllUsesWith(AddEntryParameter(module, inst->shape_ptr()));
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateParametersDelta() { return std::make_unique<ParametersDelta>(); }

}  // namespace hlo::reduce
