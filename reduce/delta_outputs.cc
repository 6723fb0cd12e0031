// outputs: an earlier instruction of the entry becomes its root (the rest
// dies), found by search: targets in post order, so the first interesting
// one is the earliest instruction that still shows the fault.
#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

class OutputsDelta : public Delta {
 public:
  Strategy strategy() const override { return Strategy::kSearch; }
  void Run(Module& module, TargetSelector& select) override {
    Computation* entry = module.entry();
    Instruction* root = entry->root();
    for (Instruction* inst : entry->PostOrder()) {
      if (inst == root || inst->shape().IsToken()) continue;
      if (select.Pick()) {
        entry->set_root(inst);
        return;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateOutputsDelta() { return std::make_unique<OutputsDelta>(); }

}  // namespace hlo::reduce
