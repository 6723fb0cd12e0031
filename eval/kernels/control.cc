// Control flow: call, fusion, while, conditional, map, and the ops that only
// pass values through (opt-barrier, after-all, add-dependency, domain).
#include "eval/kernels/dynamic.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/scalar_apply.h"
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

absl::StatusOr<Value> EvalWhile(const Instruction& inst, Operands ops, Evaluator& ev) {
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
  for (int64_t trip = 0;; ++trip) {
    auto go = ev.Call(cond_plan, absl::MakeConstSpan(&arg, 1));
    if (!go.ok()) return go.status();
    if (!go->is_array() || go->array().GetInt(0) == 0) return state;
    if (limit >= 0 && trip >= limit) {
      return absl::ResourceExhaustedError(
          StrCat("the loop ran ", trip, " iterations, the limit set by --max-iterations"));
    }
    auto next = ev.CallTaking(body_plan, absl::MakeSpan(&state, 1));
    if (!next.ok()) return next.status();
    state = *std::move(next);
  }
}

absl::StatusOr<Value> EvalConditional(const Instruction& inst, Operands ops, Evaluator& ev) {
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

absl::StatusOr<Value> EvalControl(const Instruction& inst, Operands ops, Evaluator& ev) {
  switch (inst.opcode()) {
    case Opcode::kCall:
    case Opcode::kFusion: {
      if (IsSdyManualComputationCall(inst)) return EvalSdyManualComputation(inst, ops, ev);
      auto c = CalledComputation(inst, inst.opcode() == Opcode::kCall ? AttrKind::kToApply
                                                                       : AttrKind::kCalls);
      if (!c.ok()) return c.status();
      return ev.Call(**c, ops);
    }
    case Opcode::kWhile: return EvalWhile(inst, ops, ev);
    case Opcode::kConditional: return EvalConditional(inst, ops, ev);
    case Opcode::kMap: {
      auto c = CalledComputation(inst, AttrKind::kToApply);
      if (!c.ok()) return c.status();
      return MapScalarComputation(**c, ops, inst.shape(), ev);
    }
    case Opcode::kOptimizationBarrier:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      return *ops[0];
    case Opcode::kAfterAll: return Value::Token();
    case Opcode::kScan: return EvalScan(inst, ops, ev);
    default:
      return absl::InternalError(StrCat("no control kernel for ", inst.OpcodeText()));
  }
}

}  // namespace hlo
