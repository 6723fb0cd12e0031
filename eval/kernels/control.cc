// Control flow: call, fusion, while, conditional, map, and the ops that only
// pass values through (opt-barrier, after-all, add-dependency, domain).
#include <optional>
#include <string_view>

#include "eval/kernels/dynamic.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/runtime/eval_observer.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::StatusOr<const Computation*> CalledComputation(const Instruction& inst, AttrKind kind) {
  const Attribute* a = inst.FindAttr(kind);
  if (a) {
    const auto* v = std::get_if<std::vector<Computation*>>(&a->value);
    if (v && v->size() == 1 && (*v)[0]) return (*v)[0];
  }
  return absl::InvalidArgumentError(StrCat("missing computation '", AttrName(kind), "'"));
}

// A loop condition `compare(get-tuple-element(state), index=i), constant)`
// (either operand order) on an s32 or s64 scalar, the usual counted loop:
// tested here without calling the computation, whose call (a frame, four
// steps and a pred array) costs as much as a small loop body.
struct CounterTest {
  int64_t index = 0;
  int64_t bound = 0;
  PrimitiveType type = PrimitiveType::kS32;
  bool counter_first = true;  // compare(counter, bound), else compare(bound, counter)
  std::string_view direction;

  // The condition's value for `state`; nullopt when the state is not as
  // the condition expects (the general path then reports it).
  std::optional<bool> Test(const Value& state) const {
    if (!state.is_tuple() || static_cast<size_t>(index) >= state.elements().size()) {
      return std::nullopt;
    }
    const Value& e = state.element(index);
    if (!e.is_array() || e.array().element_type() != type || e.array().element_count() != 1) {
      return std::nullopt;
    }
    const int64_t a = counter_first ? e.array().GetInt(0) : bound;
    const int64_t b = counter_first ? bound : e.array().GetInt(0);
    if (direction == "LT") return a < b;
    if (direction == "LE") return a <= b;
    if (direction == "GT") return a > b;
    if (direction == "GE") return a >= b;
    if (direction == "EQ") return a == b;
    return a != b;  // NE (matched below)
  }
};

std::optional<CounterTest> MatchCounterTest(const Computation& cond) {
  const Instruction* cmp = cond.root();
  if (cond.instruction_count() != 4 || cond.parameter_count() != 1 || cmp == nullptr ||
      cmp->opcode() != Opcode::kCompare || cmp->operand_count() != 2) {
    return std::nullopt;
  }
  const std::string_view dir = cmp->GetString(AttrKind::kDirection);
  const std::string_view type = cmp->GetString(AttrKind::kType);
  if ((dir != "LT" && dir != "LE" && dir != "GT" && dir != "GE" && dir != "EQ" && dir != "NE") ||
      (!type.empty() && type != "SIGNED") || cmp->HasAttr(AttrKind::kOrder)) {
    return std::nullopt;
  }
  CounterTest t;
  t.direction = dir;
  t.counter_first = cmp->operand(0)->opcode() == Opcode::kGetTupleElement;
  const Instruction* gte = cmp->operand(t.counter_first ? 0 : 1);
  const Instruction* bound = cmp->operand(t.counter_first ? 1 : 0);
  if (gte->opcode() != Opcode::kGetTupleElement || bound->opcode() != Opcode::kConstant ||
      gte->operand_count() != 1 || gte->operand(0) != cond.parameter(0)) {
    return std::nullopt;
  }
  if (!gte->shape().IsArray()) return std::nullopt;
  t.type = gte->shape().element_type();
  const Literal* lit = bound->literal();
  if ((t.type != PrimitiveType::kS32 && t.type != PrimitiveType::kS64) ||
      gte->shape().rank() != 0 || lit == nullptr || bound->literal_elided() ||
      lit->element_type() != t.type || lit->element_count() != 1) {
    return std::nullopt;
  }
  t.index = gte->GetInt(AttrKind::kIndex, -1);
  if (t.index < 0) return std::nullopt;
  t.bound = lit->GetInt(0);
  return t;
}

absl::StatusOr<Value> EvalWhile(const Instruction& inst, Operands ops, KernelContext& ev) {
  auto cond = CalledComputation(inst, AttrKind::kCondition);
  if (!cond.ok()) return cond.status();
  auto body = CalledComputation(inst, AttrKind::kBody);
  if (!body.ok()) return body.status();
  ComputationPlan& cond_plan = ev.PlanFor(**cond);
  ComputationPlan& body_plan = ev.PlanFor(**body);
  // The state is the loop's own: each trip hands it to the body, which
  // moves its buffers into the next state and updates in place those that
  // nothing else holds (a buffer the caller still holds is copied at its
  // first update, and the copy is the loop's).
  Value state = *ops[0];
  const Value* arg = &state;
  int64_t limit = ev.options().max_iterations;
  // (A profile times the condition's instructions as they are; an
  // observer sees them.)
  EvalObserver* observer = ev.options().observer;
  const std::optional<CounterTest> counter = ev.options().profiler == nullptr && observer == nullptr
                                                 ? MatchCounterTest(**cond)
                                                 : std::nullopt;
  for (int64_t trip = 0;; ++trip) {
    if (observer != nullptr) observer->LoopTrip(trip);
    if (std::optional<bool> go = counter ? counter->Test(state) : std::nullopt; go.has_value()) {
      if (!*go) return state;
    } else {
      auto go_value = ev.Call(cond_plan, absl::MakeConstSpan(&arg, 1));
      if (!go_value.ok()) return go_value.status();
      if (!go_value->is_array() || go_value->array().GetInt(0) == 0) return state;
    }
    if (limit >= 0 && trip >= limit) {
      return absl::ResourceExhaustedError(
          StrCat("the loop ran ", trip, " iterations, the limit set by --max-iterations"));
    }
    auto next = ev.CallTaking(body_plan, absl::MakeSpan(&state, 1));
    if (!next.ok()) return next.status();
    state = *std::move(next);
  }
}

absl::StatusOr<Value> EvalConditional(const Instruction& inst, Operands ops, KernelContext& ev) {
  std::vector<const Computation*> branches;
  if (const Attribute* a = inst.FindAttr(AttrKind::kBranchComputations)) {
    for (const Computation* c : std::get<std::vector<Computation*>>(a->value)) {
      branches.push_back(c);
    }
  } else {
    for (AttrKind k : {AttrKind::kTrueComputation, AttrKind::kFalseComputation}) {
      auto c = CalledComputation(inst, k);
      if (!c.ok()) return c.status();
      branches.push_back(*c);
    }
  }
  const Literal& index = ops[0]->array();
  int64_t b;
  if (index.element_type() == PrimitiveType::kPred) {
    b = index.GetInt(0) ? 0 : 1;  // true_computation first
  } else {
    // An index out of range runs the last branch (XLA's semantics).
    b = index.GetInt(0);
    if (b < 0 || b >= static_cast<int64_t>(branches.size())) {
      b = static_cast<int64_t>(branches.size()) - 1;
    }
  }
  if (static_cast<size_t>(b) + 1 >= ops.size()) {
    return absl::InvalidArgumentError("conditional has fewer branch operands than branches");
  }
  const Value* arg = ops[b + 1];
  return ev.Call(*branches[b], absl::MakeConstSpan(&arg, 1));
}

}  // namespace

absl::StatusOr<Value> EvalControl(const Instruction& inst, Operands ops, KernelContext& ev) {
  switch (inst.opcode()) {
    case Opcode::kCall:
    case Opcode::kFusion: {
      auto c = CalledComputation(
          inst, inst.opcode() == Opcode::kCall ? AttrKind::kToApply : AttrKind::kCalls);
      if (!c.ok()) return c.status();
      return ev.Call(**c, ops);
    }
    case Opcode::kWhile:
      return EvalWhile(inst, ops, ev);
    case Opcode::kConditional:
      return EvalConditional(inst, ops, ev);
    case Opcode::kMap: {
      auto c = CalledComputation(inst, AttrKind::kToApply);
      if (!c.ok()) return c.status();
      return MapScalarComputation(**c, ops, inst.shape(), ev);
    }
    case Opcode::kOptimizationBarrier:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      return *ops[0];
    case Opcode::kAfterAll:
      return Value::Token();
    case Opcode::kScan:
      return EvalScan(inst, ops, ev);
    default:
      return absl::InternalError(StrCat("no control kernel for ", inst.OpcodeText()));
  }
}

}  // namespace hlo
