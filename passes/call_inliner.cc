// call-inliner (XLA's CallInliner): replaces every `call` by a copy of the
// computation it calls, the parameters standing for the call's operands.
// Callees are inlined bottom-up (a callee's own calls first), so one run
// leaves no call behind; computations left uncalled are removed. Calls tied
// by control edges, inside or outside, are kept, and so are calls the
// frontend marks inlineable="false" or "xla_late" (XLA's
// FrontendInlinePolicy::kXlaLate: a Shardy manual computation's call, which
// hlo-run runs per device), calls of shard_map bodies and calls with a
// backend_config, as XLA's IsInlineableCallOp keeps them.
//
// hlo-run's fused mode inlines with CallInlinerOptions (passes/passes.h):
// a callee only one instruction calls keeps its instructions' names, and
// calls whose copies could compute something else there stay.
#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
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

// A JAX shard_map's body as Shardy writes it: XLA keeps the call (its
// CallInliner checks these names under Shardy), and hlo-run runs it per
// device.
bool ShardMapBody(const Computation& callee) {
  return absl::StrContains(callee.name(), "shmap_body") ||
         absl::StrContains(callee.name(), "xla.sdy.manual_computation_body");
}

bool Inlinable(const Instruction& call, const Computation& callee,
               const absl::flat_hash_set<const Instruction*>& control) {
  if (control.contains(&call) || callee.root() == nullptr) return false;
  // (XLA keeps calls with a backend_config too.)
  if (FrontendKeepsCall(call) || ShardMapBody(callee) || call.HasAttr(AttrKind::kBackendConfig)) {
    return false;
  }
  if (call.operand_count() != callee.parameter_count()) return false;
  for (const Instruction* p : callee.parameters()) {
    if (p == nullptr) return false;
  }
  return ControlRelated(callee).empty();
}

// How many instructions of the module call each computation (as to_apply,
// a branch, a body, ...).
absl::flat_hash_map<const Computation*, int64_t> CallerCounts(const Module& module) {
  absl::flat_hash_map<const Computation*, int64_t> counts;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (!inst->may_call_computations()) continue;
      for (const Computation* called : inst->called_computations()) ++counts[called];
    }
  }
  return counts;
}

// What one run of the pass knows and chose.
struct InlineContext {
  Module& module;
  const CallInlinerOptions& options;
  const absl::flat_hash_map<const Computation*, int64_t>& callers;
  SideEffects& effects;
  // With keep_names: the names of the caller being filled (names are
  // unique per computation; another computation may use them too).
  absl::flat_hash_set<std::string> caller_names;
};

// Whether the copies of `callee` at this call take its instructions' names
// where the caller has no instruction of that name: nothing else calls it,
// so it goes once inlined.
bool KeepsNames(const InlineContext& cx, const Computation& callee) {
  if (!cx.options.keep_names) return false;
  auto it = cx.callers.find(&callee);
  return it != cx.callers.end() && it->second == 1;
}

// Whether a copy of an elided constant of `callee` would take a fresh name
// (hlo-run makes its values from the name): every copy where names are not
// kept, else one whose name the caller already has.
bool RenamesElidedConstant(const InlineContext& cx, const Computation& callee, bool keep_names) {
  for (const auto& inst : callee.instructions()) {
    if (inst->literal_elided() &&
        (!keep_names || cx.caller_names.contains(std::string(inst->name())))) {
      return true;
    }
  }
  return false;
}

// A copy of `inst` for the caller, named as above.
std::unique_ptr<Instruction> CopyFor(InlineContext& cx, const Instruction& inst, bool keep_name) {
  if (keep_name && cx.caller_names.insert(std::string(inst.name())).second) {
    return CloneInstruction(inst, inst.name());
  }
  std::unique_ptr<Instruction> copy = CloneInstruction(cx.module, inst);
  if (cx.options.keep_names) cx.caller_names.insert(std::string(copy->name()));
  return copy;
}

// Copies the callee into the caller and makes the call's users use the copy
// of its root. Returns false (changing nothing) when the call must stay.
bool InlineCall(InlineContext& cx, Instruction* call,
                const absl::flat_hash_set<const Instruction*>& control) {
  Computation* callee = call->to_apply();
  Computation* caller = call->parent();
  if (callee == nullptr || callee == caller || !Inlinable(*call, *callee, control) ||
      !AllowRewrite(*call)) {
    return false;
  }
  const bool keep_names = KeepsNames(cx, *callee);
  if (cx.options.same_results_only &&
      (cx.effects.Of(*call) || RenamesElidedConstant(cx, *callee, keep_names))) {
    return false;
  }
  call->ReplaceAllUsesWith(
      CopyBodyInto(*callee, call->operands(), *caller,
                   [&](const Instruction& inst) { return CopyFor(cx, inst, keep_names); }));
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
  explicit CallInliner(CallInlinerOptions options) : options_(options) {}
  std::string_view name() const override { return "call-inliner"; }
  std::string_view description() const override { return "inlines every call instruction"; }
  absl::StatusOr<bool> Run(Module& module) override {
    if (!HasCall(module)) return false;
    int64_t inlined = 0;
    // (Counted once: a callee's count only grows as copies of its callers
    // are made, after it has been inlined.)
    const absl::flat_hash_map<const Computation*, int64_t> callers = CallerCounts(module);
    SideEffects effects(module);
    InlineContext cx{module, options_, callers, effects, {}};
    // Callees before callers: what is copied has no calls left.
    for (Computation* comp : module.PostOrder()) {
      absl::flat_hash_set<const Instruction*> control = ControlRelated(*comp);
      cx.caller_names.clear();
      if (options_.keep_names && comp->CountOf(Opcode::kCall) > 0) {
        for (const auto& inst : comp->instructions()) cx.caller_names.emplace(inst->name());
      }
      std::vector<Instruction*> calls;
      for (const auto& inst : comp->instructions()) {
        if (inst->opcode() == Opcode::kCall) calls.push_back(inst.get());
      }
      absl::flat_hash_set<const Instruction*> done;
      std::vector<Instruction*> operands;
      for (Instruction* call : calls) {
        if (!InlineCall(cx, call, control)) continue;
        done.insert(call);
        operands.insert(operands.end(), call->operands().begin(), call->operands().end());
      }
      // The calls go even when their callee has side effects: the copies
      // now carry them. Operands the callee ignored may be dead then.
      RemoveReplaced(*comp, done, std::move(operands));
      inlined += static_cast<int64_t>(done.size());
    }
    if (inlined > 0) module.RemoveUnreachableComputations();
    return inlined > 0;
  }

 private:
  const CallInlinerOptions options_;
};

}  // namespace

std::unique_ptr<Pass> CreateCallInliner() { return CreateCallInliner(CallInlinerOptions{}); }

std::unique_ptr<Pass> CreateCallInliner(CallInlinerOptions options) {
  return std::make_unique<CallInliner>(options);
}

}  // namespace hlo
