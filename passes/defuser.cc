// defuser (XLA's Defuser): replaces every fusion by the instructions of its
// fused computation, its parameters standing for the fusion's operands, as
// call-inliner does for calls (fused computations left uncalled go). A
// fusion's value is its computation's, so the module computes the same.
//
// hlo-run's fused mode runs it with DefuserOptions::reduce_producers_over:
// XLA:CPU writes a batch norm's centred values (x - mean, a kLoop fusion)
// to memory only for a reduce fusion to read them back and sum their
// squares, and recomputes them in the normalising fusion; defused, the
// executor's own groups fold x - mean into the sum (eval/fusion/
// group_reduce.h) and the array is never made.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/clone.h"
#include "ir/module.h"
#include "passes/dead_code.h"
#include "passes/fusion_sharing.h"
#include "passes/passes.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

// Ops the executor's fused groups take over whole: elementwise ops,
// broadcasts, constants, reduces and changes of shape alone.
bool GroupFriendly(const Computation& comp) {
  for (const auto& inst : comp.instructions()) {
    const Opcode op = inst->opcode();
    if (IsElementwise(op) || op == Opcode::kParameter || op == Opcode::kBroadcast ||
        op == Opcode::kReduce || op == Opcode::kBitcast || op == Opcode::kReshape) {
      continue;
    }
    if (op == Opcode::kConstant && !inst->literal_elided()) continue;
    return false;
  }
  return true;
}

// Instructions that compute something: neither parameters nor constants.
int64_t OpCount(const Computation& comp) {
  int64_t n = 0;
  for (const auto& inst : comp.instructions()) {
    n += inst->opcode() != Opcode::kParameter && inst->opcode() != Opcode::kConstant;
  }
  return n;
}

Computation* FusedComputation(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion) return nullptr;
  std::vector<Computation*> called = inst.called_computations();
  return called.size() == 1 ? called[0] : nullptr;
}

// A fusion whose fused computation is one array reduce over group-friendly
// ops.
bool IsFriendlyReduceFusion(const Instruction& inst) {
  const Computation* comp = FusedComputation(inst);
  return comp != nullptr && comp->root() != nullptr && comp->root()->opcode() == Opcode::kReduce &&
         inst.shape().IsArray() && GroupFriendly(*comp);
}

// Whether `value` is a transpose or a copy of one.
bool IsTransposeOrCopy(const Instruction& value) {
  const Instruction* t = value.opcode() == Opcode::kCopy ? value.operand(0) : &value;
  return t->opcode() == Opcode::kTranspose;
}

// A fusion of one dot of its parameters (XLA:CPU's ynn fusions) that reads
// a transpose, or a copy of one, made outside or by a fusion being defused
// (`defused`): defused too, the executor folds the transpose into the dot
// (eval/fusion/transpose_folding.h).
bool IsDotOfTranspose(const Instruction& fusion, const Computation& fused,
                      const absl::flat_hash_set<const Instruction*>& defused) {
  const Instruction* root = fused.root();
  if (root == nullptr || root->opcode() != Opcode::kDot || OpCount(fused) != 1) return false;
  for (const Instruction* op : root->operands()) {
    if (op->opcode() != Opcode::kParameter) return false;
  }
  return std::any_of(fusion.operands().begin(), fusion.operands().end(),
                     [&](const Instruction* op) {
                       if (IsTransposeOrCopy(*op)) return true;
                       const Computation* made = FusedComputation(*op);
                       return made != nullptr && defused.contains(op) && made->root() != nullptr &&
                              IsTransposeOrCopy(*made->root());
                     });
}

// Whether hlo-run computes the defused copies as it computes the fusion:
// no side effects (the rng state is drawn in the order instructions run)
// and no elided constant (whose values hlo-run makes from its name, which a
// copy may not keep).
bool SameResultsDefused(const Instruction& fusion, const Computation& fused, SideEffects& effects) {
  if (effects.Of(fusion)) return false;
  return std::none_of(fused.instructions().begin(), fused.instructions().end(),
                      [](const auto& inst) { return inst->literal_elided(); });
}

// The fusions of `comp` to defuse under `options`.
std::vector<Instruction*> Chosen(const Computation& comp, const DefuserOptions& options,
                                 SideEffects& effects) {
  std::vector<Instruction*> chosen;
  if (options.reduce_producers_over < 0) {
    for (const auto& inst : comp.instructions()) {
      if (FusedComputation(*inst) != nullptr) chosen.push_back(inst.get());
    }
    return chosen;
  }
  // Producers over more than the threshold's elements whose every user is
  // a friendly reduce fusion, and those users; then loop fusions the
  // executor would run instruction by instruction.
  absl::flat_hash_set<const Instruction*> taken;
  for (const auto& inst : comp.instructions()) {
    const Computation* fused = FusedComputation(*inst);
    if (fused == nullptr || IsFriendlyReduceFusion(*inst) || !inst->shape().IsArray() ||
        inst->shape().ElementCount() <= options.reduce_producers_over || inst->is_root() ||
        inst->users().empty() || !GroupFriendly(*fused)) {
      continue;
    }
    const auto& users = inst->users();
    if (!std::all_of(users.begin(), users.end(),
                     [](const Instruction* u) { return IsFriendlyReduceFusion(*u); })) {
      continue;
    }
    if (taken.insert(inst.get()).second) chosen.push_back(inst.get());
    for (Instruction* u : users) {
      if (taken.insert(u).second) chosen.push_back(u);
    }
  }
  if (!options.runs_as_one_loop) return chosen;
  const absl::flat_hash_set<const Instruction*> sharing =
      options.defuse_sharing_siblings ? FusionsSharingWork(comp, effects)
                                      : absl::flat_hash_set<const Instruction*>();
  for (const auto& inst : comp.instructions()) {
    const Computation* fused = FusedComputation(*inst);
    if (fused != nullptr && !taken.contains(inst.get()) && options.joins_pattern &&
        options.joins_pattern(*inst) && SameResultsDefused(*inst, *fused, effects)) {
      taken.insert(inst.get());
      chosen.push_back(inst.get());
      continue;
    }
    if (fused != nullptr && !taken.contains(inst.get()) && IsDotOfTranspose(*inst, *fused, taken)) {
      taken.insert(inst.get());
      chosen.push_back(inst.get());
      continue;
    }
    if (fused == nullptr || taken.contains(inst.get()) ||
        inst->GetString(AttrKind::kKind) != "kLoop" || OpCount(*fused) < 2 ||
        !SameResultsDefused(*inst, *fused, effects) ||
        (!sharing.contains(inst.get()) && options.runs_as_one_loop(*inst))) {
      continue;
    }
    taken.insert(inst.get());
    chosen.push_back(inst.get());
  }
  return chosen;
}

// Copies the fused computation into the fusion's place; returns the copies
// made (fusions among them are defused in the next round).
std::vector<Instruction*> Defuse(Module& module, Instruction* fusion, bool keep_names,
                                 absl::flat_hash_set<std::string>& names) {
  auto copy = [&](const Instruction& inst) {
    if (keep_names && names.insert(std::string(inst.name())).second) {
      return CloneInstruction(inst, inst.name());
    }
    std::unique_ptr<Instruction> c = CloneInstruction(module, inst);
    names.insert(std::string(c->name()));
    return c;
  };
  std::vector<Instruction*> made;
  fusion->ReplaceAllUsesWith(
      CopyBodyInto(*FusedComputation(*fusion), fusion->operands(), *fusion->parent(), copy, &made));
  return made;
}

class Defuser : public Pass {
 public:
  explicit Defuser(DefuserOptions options) : options_(options) {}
  std::string_view name() const override { return "defuser"; }
  std::string_view description() const override {
    return "replaces every fusion by its fused computation's instructions";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    int64_t defused = 0;
    SideEffects effects(module);
    for (Computation* comp : module.PostOrder()) {
      if (comp->is_fusion_computation()) continue;
      std::vector<Instruction*> pending = Chosen(*comp, options_, effects);
      if (pending.empty()) continue;
      absl::flat_hash_set<std::string> names;
      for (const auto& inst : comp->instructions()) names.emplace(inst->name());
      absl::flat_hash_set<const Instruction*> done;
      std::vector<Instruction*> operands;
      while (!pending.empty()) {
        std::vector<Instruction*> next;
        // A fusion tied by a control edge, either end, stays: defused, its
        // successors named a removed instruction (XLA:GPU's while bodies
        // order a reduce fusion after a gemm fusion).
        const absl::flat_hash_set<const Instruction*> control = ControlRelated(*comp);
        for (Instruction* fusion : pending) {
          if (control.contains(fusion) || !AllowRewrite(*fusion)) continue;
          std::vector<Instruction*> made = Defuse(module, fusion, options_.keep_names, names);
          done.insert(fusion);
          operands.insert(operands.end(), fusion->operands().begin(), fusion->operands().end());
          // Nested fusions are defused too, unless only some are chosen.
          if (options_.reduce_producers_over >= 0) continue;
          for (Instruction* m : made) {
            if (FusedComputation(*m) != nullptr) next.push_back(m);
          }
        }
        pending = std::move(next);
      }
      RemoveReplaced(*comp, done, std::move(operands));
      defused += static_cast<int64_t>(done.size());
    }
    if (defused > 0) module.RemoveUnreachableComputations();
    return defused > 0;
  }

 private:
  const DefuserOptions options_;
};

}  // namespace

std::unique_ptr<Pass> CreateDefuser() { return CreateDefuser(DefuserOptions{}); }

std::unique_ptr<Pass> CreateDefuser(DefuserOptions options) {
  return std::make_unique<Defuser>(options);
}

}  // namespace hlo
