// dce: removes instructions nothing uses (and that have no side effects) and
// computations nothing calls. Linear: each instruction is looked at once, and
// again only when its last user goes.
#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ir/instruction_marks.h"
#include "ir/module.h"
#include "passes/dead_code.h"
#include "passes/passes.h"

namespace hlo {

bool IsSideEffecting(const Instruction& inst) {
  if (inst.opcode() == Opcode::kCustomCall) {
    return inst.GetBool(AttrKind::kCustomCallHasSideEffect, false);
  }
  return HasSideEffect(inst.opcode());
}

bool SideEffects::Of(const Instruction& inst) {
  if (IsSideEffecting(inst)) return true;
  if (!inst.may_call_computations()) return false;
  const auto& attrs = inst.attributes();
  for (const Attribute& a : attrs) {
    auto* callees = std::get_if<std::vector<Computation*>>(&a.value);
    if (callees == nullptr) continue;
    for (const Computation* c : *callees) {
      if (c != nullptr && OfComputation(*c)) return true;
    }
  }
  return false;
}

std::optional<bool> SideEffects::Known(const Computation& comp) const {
  if (known_) {
    if (!known_->contains(&comp)) return std::nullopt;
    return effects_->contains(&comp);
  }
  auto it = cache_.find(&comp);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

void SideEffects::Set(const Computation& comp, bool effects) {
  if (known_) {
    known_->insert(&comp);
    if (effects) effects_->insert(&comp);
    return;
  }
  cache_[&comp] = effects;
}

void SideEffects::Note(const Computation& comp, bool effects) {
  if (!Known(comp)) Set(comp, effects);
}

bool SideEffects::OfComputation(const Computation& comp) {
  if (comp.MaybeEffectfulCount() == 0) return false;           // without reading it
  if (std::optional<bool> known = Known(comp)) return *known;  // or being examined
  Set(comp, false);                                            // a cycle back here finds no effects
  bool effects = false;
  for (const auto& inst : comp.instructions()) {
    if (Of(*inst)) {
      effects = true;
      break;
    }
  }
  if (effects) Set(comp, true);
  return effects;
}

absl::flat_hash_set<const Instruction*> ControlRelated(const Computation& comp) {
  absl::flat_hash_set<const Instruction*> out;
  for (const auto& inst : comp.instructions()) {
    auto preds = inst->control_predecessors();
    if (preds.empty()) continue;
    out.insert(inst.get());
    out.insert(preds.begin(), preds.end());
  }
  return out;
}

DeadInstructions FindDeadFrom(const Computation& comp, const std::vector<Instruction*>& candidates,
                              const absl::flat_hash_set<const Instruction*>* control) {
  DeadInstructions dead(comp);
  if (candidates.empty()) return dead;
  std::optional<absl::flat_hash_set<const Instruction*>> own_control;
  auto control_related = [&](const Instruction* inst) {
    if (control == nullptr) control = &own_control.emplace(ControlRelated(comp));
    return control->contains(inst);
  };
  // An operand becomes dead when its last live user dies. With a few users
  // they are asked (bitmap lookups, no table); many users are counted down in
  // a map, filled lazily, so a constant's thousand users are not rescanned.
  constexpr size_t kFewUsers = 8;
  absl::flat_hash_map<const Instruction*, int64_t> live_users;
  auto last_user_gone = [&](const Instruction* op) {
    auto users = op->users();
    if (users.size() <= kFewUsers) {
      return std::all_of(users.begin(), users.end(),
                         [&](const Instruction* u) { return dead.contains(u); });
    }
    auto [it, fresh] = live_users.try_emplace(op, static_cast<int64_t>(users.size()));
    return --it->second == 0;
  };
  SideEffects effects;
  auto removable = [&](const Instruction* inst) {
    return inst != comp.root() && inst->opcode() != Opcode::kParameter && !effects.Of(*inst) &&
           !dead.contains(inst) && !control_related(inst);
  };
  std::vector<Instruction*> work;
  for (Instruction* c : candidates) {
    if (c->users().empty() && removable(c)) work.push_back(c);
  }
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    if (!dead.marks.insert(inst)) continue;
    dead.list.push_back(inst);
    auto ops = inst->operands();
    for (size_t i = 0; i < ops.size(); ++i) {
      Instruction* op = ops[i];
      if (op == nullptr || op->parent() != &comp || dead.contains(op)) continue;
      // An operand used twice by one instruction is one use.
      if (std::find(ops.begin(), ops.begin() + i, op) != ops.begin() + i) continue;
      if (last_user_gone(op) && removable(op)) work.push_back(op);
    }
  }
  return dead;
}

int64_t RemoveDeadFrom(Computation& comp, const std::vector<Instruction*>& candidates,
                       const absl::flat_hash_set<const Instruction*>* control) {
  if (candidates.empty()) return 0;
  return comp.RemoveInstructions(FindDeadFrom(comp, candidates, control).list);
}

void RemoveReplaced(Computation& comp, const absl::flat_hash_set<const Instruction*>& replaced,
                    std::vector<Instruction*> operands) {
  operands.erase(std::remove_if(operands.begin(), operands.end(),
                                [&](const Instruction* op) { return replaced.contains(op); }),
                 operands.end());
  comp.RemoveInstructions(replaced);
  RemoveDeadFrom(comp, operands);
}

int64_t RemoveAllDead(Computation& comp) {
  // Only unused instructions can start a dead chain (RemoveDeadFrom skips
  // the others anyway).
  std::vector<Instruction*> unused;
  for (const auto& inst : comp.instructions()) {
    if (inst->users().empty()) unused.push_back(inst.get());
  }
  return RemoveDeadFrom(comp, unused);
}

namespace {

// Removes the dead instructions of `comp` and returns how many; the
// computations its remaining instructions call go to `work` unless reached.
// One walk finds both the unused instructions and what each instruction
// calls (a large computation is read once per run, not once more to find
// what is reachable).
int64_t RemoveDeadAndFindCallees(Computation& comp, const ComputationMarks& reached,
                                 std::vector<Computation*>& work) {
  std::vector<Instruction*> unused;
  // (caller, callee) pairs, taken while the attributes are at hand.
  std::vector<std::pair<const Instruction*, Computation*>> calls;
  for (const auto& inst : comp.instructions()) {
    if (inst->users().empty()) unused.push_back(inst.get());
    if (!inst->may_call_computations()) continue;
    for (const Attribute& a : inst->attributes()) {
      auto* callees = std::get_if<std::vector<Computation*>>(&a.value);
      if (callees == nullptr) continue;
      for (Computation* callee : *callees) {
        if (callee != nullptr) calls.push_back({inst.get(), callee});
      }
    }
  }
  DeadInstructions dead = FindDeadFrom(comp, unused);
  for (auto [inst, callee] : calls) {
    if (!reached.contains(callee) && !dead.contains(inst)) work.push_back(callee);
  }
  return dead.empty() ? 0 : comp.RemoveInstructions(dead.list);
}

class DeadCodeElimination : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  std::string_view description() const override {
    return "removes instructions and computations nothing uses";
  }
  // Dead instructions go from each computation reachable from the entry
  // (found as the walk goes), then the computations nothing reaches (their
  // dead instructions would go with them).
  absl::StatusOr<bool> Run(Module& module) override {
    int64_t removed = 0;
    ComputationMarks reached(module);
    size_t reached_count = 0;
    std::vector<Computation*> work;
    if (module.entry()) work.push_back(module.entry());
    while (!work.empty()) {
      Computation* c = work.back();
      work.pop_back();
      if (!reached.insert(c)) continue;
      ++reached_count;
      removed += RemoveDeadAndFindCallees(*c, reached, work);
    }
    if (reached_count < module.computations().size()) {
      // `reached` is what the entry reaches once the dead callers are gone.
      removed += module.RemoveComputationsExcept(
          [&](const Computation* c) { return reached.contains(c); });
    }
    return removed > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateDeadCodeElimination() {
  return std::make_unique<DeadCodeElimination>();
}

}  // namespace hlo
