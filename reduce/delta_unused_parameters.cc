// unused-parameters: entry parameters nothing uses go (the others are
// numbered again).
#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

class UnusedParametersDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    Computation* entry = module.entry();
    std::vector<Instruction*> unused;
    for (const auto& inst : entry->instructions()) {
      if (inst->opcode() != Opcode::kParameter || !inst->users().empty() || inst->is_root()) {
        continue;
      }
      if (select.Pick()) unused.push_back(inst.get());
    }
    for (Instruction* p : unused) entry->RemoveInstruction(p);
  }
};

}  // namespace

std::unique_ptr<Delta> CreateUnusedParametersDelta() {
  return std::make_unique<UnusedParametersDelta>();
}

}  // namespace hlo::reduce
