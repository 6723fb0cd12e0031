// while-loop-simplifier: removes dead loop state (while_loop_dead_state.cc)
// and while loops whose trip count is known statically to be 0 or 1,
// following XLA's WhileLoopSimplifier
// (TryRemoveWhileLoop):
//  * trip count 0 (the condition is false on the init value): the while is
//    replaced by its init;
//  * trip count 1 (true on init, false on body(init)): the while is replaced
//    by `call(init), to_apply=body` (call-inliner can inline it).
// The condition is evaluated exactly and only in simple forms: a constant
// pred root, or compare(a, b) where each side is a scalar integer constant
// or an element of the loop state known on entry — the init is a tuple
// whose element i is a constant, read as get-tuple-element(param), index=i
// (or a scalar state read as the parameter itself). The state after one
// trip is known for that element when the body's root tuple sets it to
// add/subtract(get-tuple-element(param, i), constant) without overflow.
// Left alone: loops whose condition or body (transitively) has side
// effects, and loops in control dependencies. Computations left unreachable
// are removed.
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "passes/control_flow_util.h"
#include "passes/passes.h"
#include "passes/rewrite_limit.h"
#include "passes/while_loop_dead_state.h"

namespace hlo {
namespace {

// Known scalar values of the loop state: tuple index -> value; index -1
// stands for a non-tuple state.
using KnownState = absl::flat_hash_map<int64_t, int64_t>;

// A scalar integer value of `inst` inside `comp`, when known.
std::optional<int64_t> ValueOf(const Instruction* inst, const Computation& comp,
                               const KnownState& known) {
  if (std::optional<int64_t> c = ScalarIntConstant(inst)) return c;
  const std::optional<int64_t> i = LoopStateIndex(inst, comp);
  if (!i) return std::nullopt;
  auto it = known.find(*i);
  if (it == known.end()) return std::nullopt;
  return it->second;
}

std::optional<bool> Compare(std::string_view dir, int64_t a, int64_t b) {
  if (dir == "EQ") return a == b;
  if (dir == "NE") return a != b;
  if (dir == "LT") return a < b;
  if (dir == "LE") return a <= b;
  if (dir == "GT") return a > b;
  if (dir == "GE") return a >= b;
  return std::nullopt;
}

// The condition's value on a state, when known exactly.
std::optional<bool> EvalCondition(const Computation& cond, const KnownState& known) {
  const Instruction* root = cond.root();
  if (!root->shape().IsArray() || root->shape().rank() != 0 ||
      !IsPred(root->shape().element_type())) {
    return std::nullopt;
  }
  if (std::optional<int64_t> c = ScalarIntConstant(root)) return *c != 0;
  if (root->opcode() != Opcode::kCompare) return std::nullopt;
  const std::optional<int64_t> a = ValueOf(root->operand(0), cond, known);
  const std::optional<int64_t> b = ValueOf(root->operand(1), cond, known);
  if (!a || !b) return std::nullopt;
  return Compare(root->GetString(AttrKind::kDirection), *a, *b);
}

// Whether v fits the integer type t.
bool Fits(PrimitiveType t, int64_t v) {
  const int bits = BitWidth(t);
  if (IsSignedInt(t)) {
    if (bits >= 64) return true;
    const int64_t half = int64_t{1} << (bits - 1);
    return v >= -half && v < half;
  }
  if (IsUnsignedInt(t) && bits <= 32) return v >= 0 && v < (int64_t{1} << bits);
  return false;
}

// The known elements of the state after one trip of `body` from `known`:
// elements set to add/subtract(element, constant) of a known element.
KnownState StepState(const Computation& body, const KnownState& known) {
  KnownState out;
  const Instruction* root = body.root();
  auto step = [&](int64_t index, const Instruction* v) {
    if (v->opcode() != Opcode::kAdd && v->opcode() != Opcode::kSubtract) return;
    const PrimitiveType t = v->shape().element_type();
    if (!v->shape().IsArray() || v->shape().rank() != 0 || !IsInteger(t)) return;
    const Instruction* x = v->operand(0);
    const Instruction* k = v->operand(1);
    if (v->opcode() == Opcode::kAdd && LoopStateIndex(k, body) == index) std::swap(x, k);
    if (LoopStateIndex(x, body) != index) return;
    const std::optional<int64_t> kv = ScalarIntConstant(k);
    auto it = known.find(index);
    if (!kv || it == known.end()) return;
    int64_t r;
    const bool overflow = v->opcode() == Opcode::kAdd ? __builtin_add_overflow(it->second, *kv, &r)
                                                      : __builtin_sub_overflow(it->second, *kv, &r);
    if (!overflow && Fits(t, r)) out[index] = r;
  };
  if (root->opcode() == Opcode::kTuple) {
    for (int64_t i = 0; i < root->operand_count(); ++i) step(i, root->operand(i));
  } else if (!root->shape().IsTuple()) {
    step(-1, root);
  }
  return out;
}

// The known elements of the init value.
KnownState InitState(const Instruction* init) {
  KnownState out;
  if (init->opcode() == Opcode::kTuple) {
    for (int64_t i = 0; i < init->operand_count(); ++i) {
      if (std::optional<int64_t> c = ScalarIntConstant(init->operand(i))) out[i] = *c;
    }
  } else if (std::optional<int64_t> c = ScalarIntConstant(init)) {
    out[-1] = *c;
  }
  return out;
}

// Replaces a loop of 0 or 1 trips by its init or a call of the body.
bool RemoveTrips(Module& module, Computation& comp, Instruction* loop, const Computation& cond,
                 Computation& body) {
  Instruction* init = loop->operand(0);
  const KnownState start = InitState(init);
  const std::optional<bool> first = EvalCondition(cond, start);
  if (!first) return false;
  if (!*first) {  // zero trips
    if (!AllowRewrite(*loop)) return false;
    loop->ReplaceAllUsesWith(init);
    return true;
  }
  const std::optional<bool> second = EvalCondition(cond, StepState(body, start));
  if (!second || *second || !AllowRewrite(*loop)) return false;
  loop->ReplaceAllUsesWith(AddCall(module, comp, loop->shape(), &body, {init}));
  return true;
}

class WhileLoopSimplifier : public Pass {
 public:
  std::string_view name() const override { return "while-loop-simplifier"; }
  std::string_view description() const override {
    return "removes dead loop state and loops of 0 or 1 trips";
  }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  bool RunOn(Module& module, Computation& comp);
  SideEffectCache effects_;
  std::optional<absl::flat_hash_map<const Computation*, int>> calls_;
};

bool WhileLoopSimplifier::RunOn(Module& module, Computation& comp) {
  if (comp.CountOf(Opcode::kWhile) == 0) return false;  // not read at all
  std::vector<Instruction*> loops;
  for (const auto& inst : comp.instructions()) {
    if (inst->opcode() == Opcode::kWhile) loops.push_back(inst.get());
  }
  if (loops.empty()) return false;  // no second walk for the control set
  // Call counts are taken when the first loop is seen: computations without
  // loops are left unchanged, so they are the counts at the start of Run.
  if (!calls_) calls_ = CallCounts(module);
  const absl::flat_hash_set<const Instruction*> control = ControlRelated(comp);
  absl::flat_hash_set<const Instruction*> dead;
  bool changed = false;
  for (Instruction* loop : loops) {
    if (control.contains(loop) || loop->operand_count() != 1) continue;
    const std::vector<Computation*> cond = ComputationsOf(loop, AttrKind::kCondition);
    const std::vector<Computation*> body = ComputationsOf(loop, AttrKind::kBody);
    if (cond.size() != 1 || body.size() != 1 || cond[0]->parameter_count() != 1 ||
        body[0]->parameter_count() != 1) {
      continue;
    }
    if (effects_.Has(cond[0]) || effects_.Has(body[0])) continue;
    if (RemoveTrips(module, comp, loop, *cond[0], *body[0])) {
      dead.insert(loop);
    } else {
      changed = RemoveDeadLoopState(module, comp, loop, *calls_, dead) || changed;
    }
  }
  comp.RemoveInstructions(dead);
  return changed || !dead.empty();
}

absl::StatusOr<bool> WhileLoopSimplifier::Run(Module& module) {
  effects_.Clear();  // computations of an earlier module may share addresses
  calls_.reset();
  bool changed = false;
  std::vector<Computation*> comps;
  for (const auto& c : module.computations()) comps.push_back(c.get());
  for (Computation* c : comps) changed = RunOn(module, *c) || changed;
  if (changed) module.RemoveUnreachableComputations();
  return changed;
}

}  // namespace

std::unique_ptr<Pass> CreateWhileLoopSimplifier() {
  return std::make_unique<WhileLoopSimplifier>();
}

}  // namespace hlo
