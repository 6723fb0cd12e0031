#include "eval/computation_plan.h"

#include <algorithm>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "eval/evaluator.h"
#include "eval/kernels/kernels.h"
#include "eval/runtime/profiler.h"

namespace hlo {
namespace {

// The one computation a call or fusion runs; null when the attribute is
// missing or odd (its kernel then reports the error).
const Computation* CalleeOf(const Instruction& inst) {
  if (inst.opcode() != Opcode::kCall && inst.opcode() != Opcode::kFusion) return nullptr;
  if (IsSdyManualComputationCall(inst)) return nullptr;
  const Attribute* a =
      inst.FindAttr(inst.opcode() == Opcode::kCall ? AttrKind::kToApply : AttrKind::kCalls);
  if (a == nullptr) return nullptr;
  const auto* v = std::get_if<std::vector<Computation*>>(&a->value);
  return v != nullptr && v->size() == 1 ? (*v)[0] : nullptr;
}

// The one instruction of `c` besides its parameters, reading them all in
// order (XLA's wrapped_* fusions around a single op); null otherwise.
const Instruction* WrappedRoot(const Computation& c) {
  const Instruction* root = c.root();
  const int64_t params = c.parameter_count();
  if (root == nullptr || root->opcode() == Opcode::kParameter ||
      c.instruction_count() != params + 1 || root->operand_count() != params) {
    return nullptr;
  }
  for (int64_t k = 0; k < params; ++k) {
    const Instruction* op = root->operand(k);
    if (op->opcode() != Opcode::kParameter || op->parameter_number() != k) return nullptr;
  }
  return root;
}

PlanStep StepOf(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kConstant:
      return PlanStep::kConstant;
    case Opcode::kTuple:
      return PlanStep::kTuple;
    case Opcode::kGetTupleElement:
      return inst.operand_count() == 1 && inst.HasAttr(AttrKind::kIndex)
                 ? PlanStep::kGetTupleElement
                 : PlanStep::kEvaluate;
    case Opcode::kCall:
    case Opcode::kFusion:
      return CalleeOf(inst) != nullptr ? PlanStep::kCall : PlanStep::kEvaluate;
    default:
      return PlanStep::kEvaluate;
  }
}

// Marks the get-tuple-elements that may move their element out of a tuple
// before its last read: every reader of the tuple is a get-tuple-element,
// no two read one index, and the tuple is not the result.
void FindElementTakers(ComputationPlan& plan) {
  const size_t n = plan.order.size();
  std::vector<std::vector<int32_t>> readers(n);
  for (size_t i = 0; i < n; ++i) {
    for (int32_t s : plan.operands(i)) readers[s].push_back(static_cast<int32_t>(i));
  }
  plan.takes_element.assign(n, false);
  for (size_t s = 0; s < n; ++s) {
    if (readers[s].empty() || static_cast<int32_t>(s) == plan.root) continue;
    bool all_distinct = true;
    absl::flat_hash_map<int32_t, int32_t> seen;  // index -> reads
    for (int32_t r : readers[s]) {
      if (plan.steps[r] != PlanStep::kGetTupleElement || ++seen[plan.tuple_index[r]] > 1) {
        all_distinct = false;
        break;
      }
    }
    if (!all_distinct) continue;
    for (int32_t r : readers[s]) plan.takes_element[r] = true;
  }
}

// Folds each transpose that only one dot reads (and that is not the
// result) into that dot, and each transpose that is all a dot's result
// feeds into the dot's writes.
void FoldTransposesIntoDots(ComputationPlan& plan,
                            const absl::flat_hash_map<const Instruction*, int32_t>& slot) {
  for (size_t i = 0; i < plan.order.size(); ++i) {
    const Instruction* dot = plan.order[i];
    if (dot->opcode() != Opcode::kDot || plan.steps[i] != PlanStep::kEvaluate) continue;
    std::optional<FoldedDot> f =
        FoldTransposes(*dot, [&](const Instruction& value, const Instruction& reader) {
          auto it = slot.find(&value);
          if (it == slot.end()) return false;
          const int32_t s = it->second;
          return s != plan.root && plan.steps[s] == PlanStep::kEvaluate &&
                 std::all_of(value.users().begin(), value.users().end(),
                             [&](const Instruction* u) { return u == &reader; });
        });
    if (!f) continue;
    for (int k = 0; k < 2; ++k) {
      if (!f->folded[k]) continue;
      plan.steps[slot.at(dot->operand(k))] = PlanStep::kFusedAway;
      if (f->through_copy[k] != nullptr)
        plan.steps[slot.at(f->through_copy[k])] = PlanStep::kFusedAway;
      for (const Instruction* v : f->viewed_away[k]) plan.steps[slot.at(v)] = PlanStep::kFusedAway;
    }
    plan.steps[i] = PlanStep::kFoldedDot;
    plan.folded_dots.push_back(std::make_unique<FoldedDot>(*std::move(f)));
    plan.folded_at[i] = plan.folded_dots.back().get();
  }
  // Transposes of a dot's result that the dot writes (FoldOutputTranspose).
  for (size_t i = 0; i < plan.order.size(); ++i) {
    const Instruction* t = plan.order[i];
    if (t->opcode() != Opcode::kTranspose || plan.steps[i] != PlanStep::kEvaluate ||
        t->operand_count() != 1) {
      continue;
    }
    const int32_t d = slot.at(t->operand(0));
    if (d == plan.root ||
        (plan.steps[d] != PlanStep::kEvaluate && plan.steps[d] != PlanStep::kFoldedDot)) {
      continue;
    }
    std::optional<FoldedDot> f = FoldOutputTranspose(*t, plan.folded_at[d]);
    if (!f) continue;
    plan.steps[d] = PlanStep::kFusedAway;
    plan.folded_at[d] = nullptr;
    plan.steps[i] = PlanStep::kFoldedDot;
    plan.folded_dots.push_back(std::make_unique<FoldedDot>(*std::move(f)));
    plan.folded_at[i] = plan.folded_dots.back().get();
  }
}

// Marks the groups' members that nothing outside their groups reads. A
// duplicable member (IsDuplicableMember) may be in several groups and have
// other readers: it is skipped only when each reader is a group's root
// whose group computes it too, or a member skipped itself whose every
// group computes it too: a scalar constant whose broadcast one loop group
// computes and a row program reads as its splat's input is made (a layer
// norm whose sum of squares is an XLA fusion failed with "a fused input
// has the wrong type"). Users come later in the order, so one backward
// pass decides.
void MarkFusedAway(ComputationPlan& plan,
                   const absl::flat_hash_map<const Instruction*, int32_t>& slot) {
  std::vector<std::vector<const FusedGroup*>> in_groups(plan.order.size());
  for (const std::unique_ptr<FusedGroup>& g : plan.groups) {
    for (const Instruction* m : g->members) {
      if (m != g->root) in_groups[slot.at(m)].push_back(g.get());
    }
  }
  auto computes = [](const FusedGroup* g, const Instruction* m) {
    return std::find(g->members.begin(), g->members.end(), m) != g->members.end();
  };
  // Whether `u`, a reader of `m`, needs no made value of it: u is a group's
  // root whose group computes m, or a member skipped itself whose every
  // group computes m.
  auto computed_for = [&](const Instruction* u, const Instruction* m) {
    auto it = slot.find(u);
    if (it == slot.end()) return false;
    if (const FusedGroup* g = plan.group_at[it->second]) return computes(g, m);
    const std::vector<const FusedGroup*>& holders = in_groups[it->second];
    return plan.steps[it->second] == PlanStep::kFusedAway && !holders.empty() &&
           std::all_of(holders.begin(), holders.end(),
                       [&](const FusedGroup* g) { return computes(g, m); });
  };
  for (size_t i = plan.order.size(); i-- > 0;) {
    const Instruction* m = plan.order[i];
    if (in_groups[i].empty()) continue;
    const bool skip = !IsDuplicableMember(*m) ||
                      std::all_of(m->users().begin(), m->users().end(),
                                  [&](const Instruction* u) { return computed_for(u, m); });
    if (skip) plan.steps[i] = PlanStep::kFusedAway;
  }
}

}  // namespace

std::unique_ptr<Frame> ComputationPlan::TakeFrame() {
  if (!free_frames.empty()) {
    std::unique_ptr<Frame> frame = std::move(free_frames.back());
    free_frames.pop_back();
    return frame;
  }
  auto frame = std::make_unique<Frame>();
  frame->slots.resize(order.size());
  frame->remaining.resize(order.size());
  frame->params.resize(parameter_count);
  return frame;
}

namespace {

using SlotMap = absl::flat_hash_map<const Instruction*, int32_t>;

// The per-instruction arrays, and each instruction's step before fusion:
// parameters, and with fast paths the steps that skip the kernel dispatch.
void ClassifySteps(ComputationPlan& plan, bool fast_paths) {
  const size_t n = plan.order.size();
  plan.steps.assign(n, PlanStep::kEvaluate);
  plan.uses.assign(n, 0);
  plan.bytes.resize(n);
  plan.parameter.assign(n, -1);
  plan.tuple_index.assign(n, -1);
  plan.callee.assign(n, nullptr);
  plan.callee_plan.assign(n, nullptr);
  plan.constants.resize(n);
  plan.constant_made.assign(n, false);
  plan.group_at.assign(n, nullptr);
  plan.sibling_at.assign(n, nullptr);
  plan.folded_at.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& inst = *plan.order[i];
    plan.bytes[i] = ShapeBytes(inst.shape());
    if (inst.opcode() == Opcode::kParameter) {
      plan.steps[i] = PlanStep::kParameter;
      plan.parameter[i] = static_cast<int32_t>(inst.parameter_number());
      plan.parameter_count = std::max(plan.parameter_count, plan.parameter[i] + 1);
    } else if (fast_paths) {
      plan.steps[i] = StepOf(inst);
      if (plan.steps[i] == PlanStep::kGetTupleElement) {
        plan.tuple_index[i] = static_cast<int32_t>(inst.GetInt(AttrKind::kIndex, -1));
      }
      if (plan.steps[i] == PlanStep::kCall) plan.callee[i] = CalleeOf(inst);
    }
  }
}

// The fused groups' roots, outputs and members, and a reduce that folds
// its operand's group running the group at its own step.
void PlanGroups(ComputationPlan& plan, const SlotMap& slot, bool flush_denormals) {
  plan.groups = FindFusedGroups(plan.order, flush_denormals);
  for (const std::unique_ptr<FusedGroup>& g : plan.groups) {
    plan.steps[slot.at(g->root)] = PlanStep::kGroup;
    plan.group_at[slot.at(g->root)] = g.get();
  }
  MarkFusedAway(plan, slot);
  for (const std::unique_ptr<FusedGroup>& g : plan.groups) {
    g->output_slots.clear();
    for (const Instruction* o : g->outputs) {
      plan.steps[slot.at(o)] = PlanStep::kGroupOutput;
      g->output_slots.push_back(slot.at(o));
    }
  }
  for (const std::unique_ptr<FusedGroup>& g : plan.groups) {
    if (!g->reduce) continue;
    const int32_t root = slot.at(g->root), reduce = slot.at(g->reduce->reduce);
    if (root == plan.root || plan.steps[reduce] != PlanStep::kEvaluate) {
      g->reduce.reset();
      continue;
    }
    plan.steps[root] = PlanStep::kFusedAway;
    plan.group_at[root] = nullptr;
    plan.steps[reduce] = PlanStep::kGroupReduce;
    plan.group_at[reduce] = g.get();
  }
}

// Integer and pred scalars left to their kernels are computed in place
// (--no-fusion keeps the kernels: the reference the two are held to), and
// a call of one instruction runs that instruction here, without a frame
// of its own (XLA wraps single ops in fusions; in while loops the call was
// most of their cost).
void PlanScalarSteps(ComputationPlan& plan) {
  const size_t n = plan.order.size();
  plan.scalar_ops.resize(n);
  plan.element_at.assign(n, -1);
  auto element = [&](size_t i, const Instruction& inst) {
    std::optional<ScalarElementOp> e = ScalarElementOf(inst);
    if (!e) return false;
    plan.element_at[i] = static_cast<int32_t>(plan.element_ops.size());
    plan.element_ops.push_back(*std::move(e));
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    if (plan.steps[i] != PlanStep::kEvaluate) continue;
    if (std::optional<ScalarIntOp> op = ScalarIntOpOf(*plan.order[i])) {
      plan.steps[i] = PlanStep::kScalarInt;
      plan.scalar_ops[i] = *op;
    } else if (element(i, *plan.order[i])) {
      plan.steps[i] = PlanStep::kScalarElement;
    }
  }
  plan.wrapped.assign(n, nullptr);
  plan.wrapped_scalar.assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (plan.steps[i] != PlanStep::kCall) continue;
    const Instruction* root = WrappedRoot(*plan.callee[i]);
    if (root == nullptr) continue;
    plan.steps[i] = PlanStep::kWrapped;
    plan.wrapped[i] = root;
    if (std::optional<ScalarIntOp> op = ScalarIntOpOf(*root)) {
      plan.wrapped_scalar[i] = true;
      plan.scalar_ops[i] = *op;
    } else {
      element(i, *root);
    }
  }
}

// Fused groups, sibling reduces and the scalar steps.
void PlanFusion(ComputationPlan& plan, const SlotMap& slot, bool flush_denormals) {
  PlanGroups(plan, slot, flush_denormals);
  // Reduces inside a group (a softmax's) are not siblings of others.
  std::vector<const Instruction*> outside;
  for (size_t i = 0; i < plan.order.size(); ++i) {
    if (plan.steps[i] != PlanStep::kFusedAway) outside.push_back(plan.order[i]);
  }
  plan.sibling_groups = FindSiblingReduces(outside, flush_denormals);
  PlanScalarSteps(plan);
  for (const std::unique_ptr<SiblingReduces>& g : plan.sibling_groups) {
    for (const Instruction* m : g->members) {
      g->slots.push_back(slot.at(m));
      plan.steps[slot.at(m)] = PlanStep::kSiblingReduce;
      plan.sibling_at[slot.at(m)] = g.get();
    }
  }
}

// Each step's operand slots (a group's inputs, a folded dot's reads), and
// how many steps read each slot.
void LinkOperands(ComputationPlan& plan, const SlotMap& slot) {
  const size_t n = plan.order.size();
  plan.operand_begin.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    plan.operand_begin[i] = static_cast<int32_t>(plan.operand_slots.size());
    if (plan.steps[i] == PlanStep::kFusedAway || plan.steps[i] == PlanStep::kGroupOutput) {
      continue;
    }
    auto read = [&](const Instruction* op) {
      int32_t s = slot.at(op);
      plan.operand_slots.push_back(s);
      ++plan.uses[s];
    };
    if (const FusedGroup* g = plan.group_at[i]) {
      for (const Instruction* op : g->inputs) read(op);
      if (plan.steps[i] == PlanStep::kGroupReduce) read(plan.order[i]->operand(1));
    } else if (const FoldedDot* f = plan.folded_at[i]) {
      for (const Instruction* op : f->reads) read(op);
    } else {
      for (const Instruction* op : plan.order[i]->operands()) read(op);
    }
  }
  plan.operand_begin[n] = static_cast<int32_t>(plan.operand_slots.size());
  ++plan.uses[plan.root];  // the result outlives the loop
}

}  // namespace

std::unique_ptr<ComputationPlan> MakePlan(const Computation& comp, bool fast_paths, bool fusion,
                                          bool flush_denormals, bool fold_transposes) {
  auto plan = std::make_unique<ComputationPlan>();
  plan->computation = &comp;
  std::vector<Instruction*> order = comp.PostOrder();
  SlotMap slot;
  slot.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) slot[order[i]] = static_cast<int32_t>(i);
  plan->order.assign(order.begin(), order.end());
  plan->root = slot.at(comp.root());
  ClassifySteps(*plan, fast_paths);
  if (fast_paths && fold_transposes) FoldTransposesIntoDots(*plan, slot);
  if (fast_paths && fusion) PlanFusion(*plan, slot, flush_denormals);
  LinkOperands(*plan, slot);
  FindElementTakers(*plan);
  plan->profiled = Profiler::Covers(comp);
  return plan;
}

}  // namespace hlo
