// call-inliner (XLA's CallInliner): replaces every `call` by a copy of the
// computation it calls, the parameters standing for the call's operands.
// Callees are inlined bottom-up (a callee's own calls first), so one run
// leaves no call behind; computations left uncalled are removed. Calls tied
// by control edges, inside or outside, are kept, and so are calls the
// frontend marks inlineable="false" or "xla_late" (XLA's
// FrontendInlinePolicy::kXlaLate: a Shardy manual computation's call, which
// hlo-run runs per device).
#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/clone.h"
#include "ir/frontend_attributes.h"
#include "ir/module.h"
#include "passes/dead_code.h"
#include "passes/passes.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

// frontend_attributes={inlineable="false"} or "xla_late".
bool FrontendKeepsCall(const Instruction& call) {
  std::optional<std::string_view> v = FrontendAttribute(call, "inlineable");
  return v && (*v == "false" || *v == "xla_late");
}

bool Inlinable(const Instruction& call, const Computation& callee,
               const absl::flat_hash_set<const Instruction*>& control) {
  if (control.contains(&call) || callee.root() == nullptr) return false;
  if (FrontendKeepsCall(call)) return false;
  if (call.operand_count() != callee.parameter_count()) return false;
  for (const Instruction* p : callee.parameters()) {
    if (p == nullptr) return false;
  }
  return ControlRelated(callee).empty();
}

// Copies the callee into the caller and makes the call's users use the copy
// of its root. Returns false (changing nothing) when the call must stay.
bool InlineCall(Module& module, Instruction* call,
                const absl::flat_hash_set<const Instruction*>& control) {
  Computation* callee = call->to_apply();
  Computation* caller = call->parent();
  if (callee == nullptr || callee == caller || !Inlinable(*call, *callee, control) ||
      !AllowRewrite(*call)) {
    return false;
  }
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  for (int64_t i = 0; i < callee->parameter_count(); ++i) {
    copies[callee->parameter(i)] = call->operand(i);
  }
  for (Instruction* inst : callee->PostOrder()) {
    if (inst->opcode() == Opcode::kParameter) continue;
    std::unique_ptr<Instruction> copy = CloneInstruction(module, *inst);
    for (Instruction* op : inst->operands()) copy->AppendOperand(copies.at(op));
    copies[inst] = caller->AddInstruction(std::move(copy));
  }
  call->ReplaceAllUsesWith(copies.at(callee->root()));
  return true;
}

bool HasCall(const Module& module) {
  for (const auto& comp : module.computations()) {
    if (comp->CountOf(Opcode::kCall) > 0) return true;
  }
  return false;
}

class CallInliner : public Pass {
 public:
  std::string_view name() const override { return "call-inliner"; }
  std::string_view description() const override { return "inlines every call instruction"; }
  absl::StatusOr<bool> Run(Module& module) override {
    if (!HasCall(module)) return false;
    int64_t inlined = 0;
    // Callees before callers: what is copied has no calls left.
    for (Computation* comp : module.PostOrder()) {
      absl::flat_hash_set<const Instruction*> control = ControlRelated(*comp);
      std::vector<Instruction*> calls;
      for (const auto& inst : comp->instructions()) {
        if (inst->opcode() == Opcode::kCall) calls.push_back(inst.get());
      }
      absl::flat_hash_set<const Instruction*> done;
      std::vector<Instruction*> operands;
      for (Instruction* call : calls) {
        if (!InlineCall(module, call, control)) continue;
        done.insert(call);
        operands.insert(operands.end(), call->operands().begin(), call->operands().end());
      }
      // The calls go even when their callee has side effects: the copies
      // now carry them. Operands the callee ignored may be dead then.
      operands.erase(std::remove_if(operands.begin(), operands.end(),
                                    [&](const Instruction* op) { return done.contains(op); }),
                     operands.end());
      comp->RemoveInstructions(done);
      RemoveDeadFrom(*comp, operands);
      inlined += static_cast<int64_t>(done.size());
    }
    if (inlined > 0) module.RemoveUnreachableComputations();
    return inlined > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCallInliner() { return std::make_unique<CallInliner>(); }

}  // namespace hlo
