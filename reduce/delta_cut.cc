// cut: every instruction of the entry up to a point of its post order is
// cut off, those still used past the point becoming parameters (search:
// the targets are the points from the root backwards, so the first
// interesting one leaves the fewest instructions). On a large module this
// finds in a few tests the cut that ddmin over single instructions would
// reach by halving.
#include "absl/container/flat_hash_set.h"
#include "reduce/delta.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {
namespace {

class CutDelta : public Delta {
 public:
  Strategy strategy() const override { return Strategy::kSearch; }
  void Run(Module& module, TargetSelector& select) override {
    Computation* entry = module.entry();
    std::vector<Instruction*> order;
    for (Instruction* inst : entry->PostOrder()) {
      if (inst->opcode() != Opcode::kParameter && !inst->shape().IsToken()) order.push_back(inst);
    }
    // Cutting at the root would leave nothing.
    if (!order.empty() && order.back() == entry->root()) order.pop_back();
    for (int64_t i = static_cast<int64_t>(order.size()) - 1; i >= 0; --i) {
      if (!select.Pick()) continue;
      absl::flat_hash_set<Instruction*> cut(order.begin(), order.begin() + i + 1);
      // In order: parameters are numbered as they are made.
      for (int64_t j = 0; j <= i; ++j) {
        Instruction* inst = order[j];
        bool used_past = false;
        for (Instruction* user : inst->users()) used_past = used_past || !cut.contains(user);
        if (used_past) inst->ReplaceAllUsesWith(AddEntryParameter(module, inst->shape_ptr()));
      }
      return;
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateCutDelta() { return std::make_unique<CutDelta>(); }

}  // namespace hlo::reduce
