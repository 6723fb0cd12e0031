#include "eval/evaluator.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "eval/computation_plan.h"
#include "eval/denormals.h"
#include "eval/fusion/fusion_plan.h"
#include "eval/fusion/group_reduce.h"
#include "eval/fusion/loop_fusion.h"
#include "eval/fusion/reduce_siblings.h"
#include "eval/fusion/small_fusion.h"
#include "eval/fusion/small_loop.h"
#include "eval/interp/batch_program.h"
#include "eval/kernels/dot.h"
#include "eval/kernels/kernels.h"
#include "eval/replica_runner.h"
#include "eval/runtime/array_recycler.h"
#include "eval/runtime/eval_observer.h"
#include "eval/runtime/profiler.h"
#include "ir/computation.h"
#include "ir/located_status.h"
#include "ir/strings.h"

namespace hlo {

absl::Status CheckInputsFit(const Module& module, int64_t max_bytes) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::OkStatus();
  int64_t total = 0;  // bytes of the parameters before i
  for (int64_t i = 0; i < entry->parameter_count(); ++i) {
    const Instruction& param = *entry->parameter(i);
    int64_t bytes = ShapeBytes(param.shape());
    if (bytes >= 0 && total <= INT64_MAX - bytes && total + bytes <= max_bytes) {
      total += bytes;
      continue;
    }
    std::string where = module.source_name().empty() ? "<module>" : module.source_name();
    if (param.loc().line > 0) StrAppend(&where, ":", param.loc().line, ":", param.loc().col);
    return MarkLocated(absl::ResourceExhaustedError(StrCat(
        where, ": error: %", param.name(), ": parameter ", i, " needs ",
        bytes < 0 ? std::string("more than 2^63") : StrCat(bytes), " bytes with ", total,
        " bytes of earlier parameters, over the limit of ", max_bytes, " bytes (--max-memory)")));
  }
  return absl::OkStatus();
}

ComputationPlan& Evaluator::PlanFor(const Computation& comp) {
  if (&comp == last_planned_) return *last_plan_;
  std::unique_ptr<ComputationPlan>& plan = plans_[&comp];
  if (plan == nullptr) {
    // An observer sees every instruction's value: nothing fused, no
    // transpose folded into its dot (the same bits either way).
    const bool observed = options_.observer != nullptr;
    plan = MakePlan(comp, options_.fast_paths, options_.fusion && !observed,
                    options_.flush_denormals, /*fold_transposes=*/!observed);
  }
  last_planned_ = &comp;
  last_plan_ = plan.get();
  return *plan;
}

ComputationPlan& Evaluator::LoopBodyPlanFor(const Computation& comp) {
  ComputationPlan& plan = PlanFor(comp);
  plan.profiled = true;
  return plan;
}

BatchProgram* Evaluator::BatchProgramFor(const Computation& comp) {
  if (!options_.fast_paths) return nullptr;
  auto it = batch_programs_.find(&comp);
  if (it != batch_programs_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<BatchProgram>> program =
      BatchProgram::Compile(comp, options_.flush_denormals);
  std::unique_ptr<BatchProgram> kept = program.ok() ? *std::move(program) : nullptr;
  return batch_programs_.emplace(&comp, std::move(kept)).first->second.get();
}

BatchProgram* Evaluator::BatchProgramCopy(const Computation& comp, int64_t copy) {
  BatchProgram* program = BatchProgramFor(comp);
  if (program == nullptr || copy <= 0) return program;
  std::vector<std::unique_ptr<BatchProgram>>& copies = batch_program_copies_[&comp];
  while (static_cast<int64_t>(copies.size()) < copy) copies.push_back(program->Clone());
  return copies[copy - 1].get();
}

KernelContext::DerivedData* Evaluator::DerivedDataFor(
    const void* kind, const Computation& key,
    absl::FunctionRef<std::unique_ptr<DerivedData>()> make) {
  auto [it, added] = derived_data_.try_emplace({kind, &key});
  if (added) it->second = make();
  return it->second.get();
}

Evaluator::CompiledPrograms* Evaluator::CompiledFor(const Instruction& inst) {
  // (A profile times what runs: a loop or call compiled here is one row,
  // as a fusion is; --no-fusion shows their instructions.)
  if (!options_.fast_paths || !options_.fusion || options_.observer != nullptr) return nullptr;
  auto [it, added] = compiled_.try_emplace(&inst);
  CompiledPrograms& programs = it->second;
  if (added) {
    const bool flush = options_.flush_denormals;
    if (inst.opcode() == Opcode::kWhile) {
      programs.small_while = CompileSmallLoop(inst, flush);
      return &programs;
    }
    if (inst.opcode() == Opcode::kFusion) programs.loop = CompileLoopFusion(inst, flush);
    if (programs.loop == nullptr) programs.small = CompileSmallFusion(inst, flush);
  }
  return &programs;
}

ReplicaRunner& Evaluator::ManualRunnerFor(const Instruction& call, int64_t partitions) {
  std::unique_ptr<ReplicaRunner>& runner = manual_runners_[&call];
  if (runner == nullptr || runner->devices() != partitions) {
    EvalOptions options = options_;
    options.progress = nullptr;
    options.observer = nullptr;  // one device's observer; the manual devices are threads
    runner = std::make_unique<ReplicaRunner>(module_, options, /*replicas=*/1, partitions);
  }
  return *runner;
}

absl::StatusOr<std::vector<Value>> Evaluator::RunManualComputation(
    const Instruction& call, int64_t partitions, const std::vector<std::vector<Value>>& arguments,
    const Computation& body) {
  return ManualRunnerFor(call, partitions).Run(arguments, &body);
}

Evaluator::Evaluator(Module& module, EvalOptions options)
    : module_(module), options_(std::move(options)) {}

Evaluator::~Evaluator() = default;

absl::Status Evaluator::Reserve(int64_t bytes, const Instruction& inst) {
  if (bytes < 0 || bytes > options_.max_memory_bytes - live_bytes_) {
    return Located(
        inst, absl::ResourceExhaustedError(StrCat(
                  "needs ", bytes < 0 ? std::string("more than 2^63") : StrCat(bytes),
                  " bytes for its result with ", live_bytes_, " bytes live, over the limit of ",
                  options_.max_memory_bytes, " bytes (--max-memory)")));
  }
  live_bytes_ += bytes;
  peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
  return absl::OkStatus();
}

absl::Status Evaluator::Located(const Instruction& inst, const absl::Status& status) const {
  std::string where = module_.source_name().empty() ? "<module>" : module_.source_name();
  if (inst.loc().line > 0) StrAppend(&where, ":", inst.loc().line, ":", inst.loc().col);
  return MarkLocated(absl::Status(status.code(), StrCat(where, ": error: %", inst.name(), ": ",
                                                        std::string(status.message()))));
}

absl::StatusOr<Value> Evaluator::Run(std::vector<Value> arguments) {
  const Computation* entry = module_.entry();
  if (!entry) return absl::InvalidArgumentError("the module has no entry computation");
  if (static_cast<int64_t>(arguments.size()) != entry->parameter_count()) {
    return absl::InvalidArgumentError(StrCat("the entry computation takes ",
                                             entry->parameter_count(), " parameters but ",
                                             arguments.size(), " inputs were given"));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Instruction* p = entry->parameter(static_cast<int64_t>(i));
    absl::Status st = CheckValueShape(arguments[i], p->shape(), StrCat("input ", i));
    if (!st.ok()) return Located(*p, st);
  }
  // The inputs are live for the whole run.
  int64_t input_bytes = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Instruction* p = entry->parameter(static_cast<int64_t>(i));
    int64_t bytes = ShapeBytes(p->shape());
    if (absl::Status st = Reserve(bytes, *p); !st.ok()) {
      Release(input_bytes);
      return st;
    }
    input_bytes += bytes;
  }
  std::vector<const Value*> ptrs;
  for (const Value& v : arguments) ptrs.push_back(&v);
  if (options_.observer != nullptr) {
    for (size_t i = 0; i < arguments.size(); ++i) {
      const Instruction& p = *entry->parameter(static_cast<int64_t>(i));
      options_.observer->Before(p);
      if (absl::Status st = options_.observer->After(p, {}, &arguments[i]); !st.ok()) {
        Release(input_bytes);
        return st;
      }
    }
  }
  ScopedFlushDenormals denormal_mode(options_.flush_denormals);
  absl::StatusOr<Value> result = Call(*entry, ptrs);
  Release(input_bytes);
  return result;
}

absl::StatusOr<Value> Evaluator::Call(const Computation& comp,
                                      absl::Span<const Value* const> arguments) {
  return Execute(PlanFor(comp), arguments, {});
}

absl::StatusOr<Value> Evaluator::Call(ComputationPlan& plan,
                                      absl::Span<const Value* const> arguments) {
  return Execute(plan, arguments, {});
}

absl::StatusOr<Value> Evaluator::CallTaking(ComputationPlan& plan, absl::Span<Value> arguments) {
  return Execute(plan, {}, arguments);
}

absl::StatusOr<Value> Evaluator::Execute(ComputationPlan& plan, absl::Span<const Value* const> read,
                                         absl::Span<Value> taken) {
  if (++call_depth_ > 10000) {
    --call_depth_;
    return absl::ResourceExhaustedError("computations nest more than 10000 calls deep");
  }
  const size_t n = plan.order.size();
  const bool taking = read.empty() && !taken.empty();
  const size_t argument_count = taking ? taken.size() : read.size();
  std::unique_ptr<Frame> frame = plan.TakeFrame();
  std::vector<Value>& slots = frame->slots;
  std::copy(plan.uses.begin(), plan.uses.end(), frame->remaining.begin());
  const bool report = options_.progress && plan.computation->is_entry();
  absl::Status failure;
  size_t i = 0;
  for (; i < n; ++i) {
    const PlanStep step = plan.steps[i];
    if (step == PlanStep::kParameter) {
      const int32_t p = plan.parameter[i];
      if (static_cast<size_t>(p) >= argument_count) {
        failure =
            Located(*plan.order[i], absl::InvalidArgumentError("no argument for this parameter"));
        break;
      }
      if (taking) {
        frame->params[p] = &taken[p];
      } else if (plan.uses[i] == 0) {
        frame->params[p] = nullptr;  // never read
      } else if (read[p]->is_array()) {
        // A slot's own reference: a kernel that finds its operand's buffer
        // held once may write it in place, and this one is the caller's.
        slots[i] = *read[p];
        frame->params[p] = &slots[i];
      } else {
        frame->params[p] = read[p];  // tuple elements stay shared with the caller's
      }
    } else if (step != PlanStep::kFusedAway && step != PlanStep::kGroupOutput) {
      const int64_t bytes = plan.bytes[i];
      if (absl::Status st = Reserve(bytes, *plan.order[i]); !st.ok()) {
        failure = st;
        break;
      }
      absl::StatusOr<Value> result = Step(plan, *frame, i, taken);
      if (!result.ok()) {
        Release(bytes);
        failure = result.status();
        break;
      }
      slots[i] = *std::move(result);
      // Free operands after their last use (a parameter's buffer is the
      // caller's, counted there), and a result nobody reads at once.
      for (int32_t s : plan.operands(i)) {
        if (--frame->remaining[s] == 0) {
          if (plan.parameter[s] < 0) Release(plan.bytes[s]);
          RecycleArray(slots[s]);
        }
      }
      if (frame->remaining[i] == 0) {
        Release(bytes);
        RecycleArray(slots[i]);
      }
    }
    if (report) options_.progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(n));
  }
  --call_depth_;
  Value result;
  if (!failure.ok()) {
    for (size_t j = 0; j < i; ++j) {
      // A group's output counts from its group's step on (its slot holds it).
      const bool made = plan.steps[j] != PlanStep::kGroupOutput || slots[j].is_array();
      if (plan.parameter[j] < 0 && plan.steps[j] != PlanStep::kFusedAway && made &&
          frame->remaining[j] > 0) {
        Release(plan.bytes[j]);
      }
    }
    for (Value& v : slots) v = Value();
  } else if (const int32_t p = plan.parameter[plan.root]; p >= 0) {
    result = taking ? std::move(taken[p]) : *read[p];
    slots[plan.root] = Value();
  } else {
    // The caller counts the result as its instruction's.
    Release(plan.bytes[plan.root]);
    result = std::move(slots[plan.root]);
    slots[plan.root] = Value();
  }
  for (const Value*& p : frame->params) p = nullptr;
  plan.GiveBack(std::move(frame));
  if (!failure.ok()) return failure;
  return result;
}

absl::StatusOr<Value> Evaluator::StepBody(ComputationPlan& plan, Frame& frame, size_t i,
                                          absl::Span<Value> taken) {
  const Instruction& inst = *plan.order[i];
  absl::Span<const int32_t> operands = plan.operands(i);
  std::vector<Value>& slots = frame.slots;
  auto operand = [&](int32_t s) -> const Value* {
    const int32_t p = plan.parameter[s];
    return p >= 0 ? frame.params[p] : &slots[s];
  };
  // The operand's value when this call may take it apart: its own slots,
  // and handed-over arguments.
  auto owned = [&](int32_t s) -> Value* {
    const int32_t p = plan.parameter[s];
    if (p < 0) return &slots[s];
    return taken.empty() ? nullptr : &taken[p];
  };
  // Moved when this is its last read, else shared.
  auto pass = [&](int32_t s) -> Value {
    Value* v = frame.remaining[s] == 1 ? owned(s) : nullptr;
    return v != nullptr ? std::move(*v) : *operand(s);
  };
  auto evaluate = [&]() -> absl::StatusOr<Value> {
    switch (plan.steps[i]) {
      case PlanStep::kConstant: {
        if (plan.constant_made[i]) return plan.constants[i];
        absl::StatusOr<Value> made = Evaluate(inst, {});
        if (made.ok()) {
          plan.constants[i] = *made;
          plan.constant_made[i] = true;
        }
        return made;
      }
      case PlanStep::kGetTupleElement: {
        const int32_t s = operands[0];
        const Value* tuple = operand(s);
        const int32_t index = plan.tuple_index[i];
        if (!tuple->is_tuple() || index < 0 ||
            static_cast<size_t>(index) >= tuple->elements().size()) {
          break;  // the kernel's error
        }
        Value* mine = frame.remaining[s] == 1 || plan.takes_element[i] ? owned(s) : nullptr;
        std::vector<Value>* elements = mine != nullptr ? mine->unique_elements() : nullptr;
        if (elements != nullptr) return std::move((*elements)[index]);
        return tuple->element(index);
      }
      case PlanStep::kTuple: {
        std::vector<Value> elements;
        elements.reserve(operands.size());
        for (int32_t s : operands) elements.push_back(pass(s));
        return Value::Tuple(std::move(elements));
      }
      case PlanStep::kWrapped:
        // An observer sees the called instruction as a call runs it.
        if (options_.observer == nullptr) {
          frame.ops.clear();
          for (int32_t s : operands) {
            // A kernel writes its operand in place when it finds the buffer
            // held once and the operand read by it alone (scatter,
            // dynamic-update-slice), and here it sees the wrapped
            // instruction, whose parameter it reads once: so a value read
            // again after this call, or not this frame's own, is held once
            // more for the call (a scatter fusion wrote into the broadcast
            // a second one read next).
            const Value* v = operand(s);
            if (v->unique() && (frame.remaining[s] != 1 || owned(s) == nullptr)) {
              frame.args.push_back(*v);
            }
            frame.ops.push_back(v);
          }
          // (Released when this step is done.)
          struct ReleaseHeld {
            std::vector<Value>& held;
            ~ReleaseHeld() { held.clear(); }
          } release{frame.args};
          if (plan.wrapped_scalar[i]) {
            if (std::optional<Value> r =
                    RunScalarInt(plan.scalar_ops[i], plan.wrapped[i]->shape(), frame.ops)) {
              return *std::move(r);
            }
          } else if (const int32_t e = plan.element_at[i]; e >= 0) {
            if (std::optional<Value> r =
                    RunScalarElement(plan.element_ops[e], plan.wrapped[i]->shape(), frame.ops)) {
              return *std::move(r);
            }
          }
          return Evaluate(*plan.wrapped[i], frame.ops);
        }
        [[fallthrough]];
      case PlanStep::kCall: {
        ComputationPlan*& callee = plan.callee_plan[i];
        if (callee == nullptr) callee = &PlanFor(*plan.callee[i]);
        // This frame's: a recursive call of this computation runs in
        // another frame.
        std::vector<Value>& args = frame.args;
        for (int32_t s : operands) args.push_back(pass(s));
        if (CompiledPrograms* fused = CompiledFor(inst)) {
          std::optional<absl::StatusOr<Value>> r;
          if (fused->loop != nullptr && LoopFusionFits(*fused->loop, args)) {
            r = RunLoopFusion(*fused->loop, absl::MakeSpan(args));
          } else if (fused->small != nullptr && SmallFusionFits(inst, args)) {
            r = RunSmallFusion(*fused->small, inst, args, KernelRunner());
          }
          if (r) {
            args.clear();
            if (!r->ok()) return Located(inst, r->status());
            return *std::move(r);
          }
        }
        absl::StatusOr<Value> r = CallTaking(*callee, absl::MakeSpan(args));
        args.clear();
        if (!r.ok()) return LocatedOnce(inst, r.status());
        return r;
      }
      case PlanStep::kGroup: {
        // An input read by this group alone, and this call's, may become
        // the result.
        frame.reusable.clear();
        for (int32_t s : operands) {
          frame.reusable.push_back(frame.remaining[s] == 1 && owned(s) != nullptr);
        }
        frame.ops.clear();
        for (int32_t s : operands) frame.ops.push_back(operand(s));
        FusedGroup& group = *plan.group_at[i];
        if (group.outputs.empty()) {
          absl::StatusOr<Value> r = RunFusedGroup(group, frame.ops, frame.reusable);
          if (!r.ok()) return Located(inst, r.status());
          return r;
        }
        return RunMultiOutputGroup(plan, frame, i);
      }
      case PlanStep::kGroupReduce: {
        frame.ops.clear();
        for (int32_t s : operands) frame.ops.push_back(operand(s));
        absl::StatusOr<Value> r = RunGroupReduce(
            *plan.group_at[i], absl::MakeConstSpan(frame.ops).first(operands.size() - 1),
            *frame.ops.back());
        if (!r.ok()) return Located(inst, r.status());
        if (options_.flush_denormals) FlushFastReductionResult(inst, *r);
        return r;
      }
      case PlanStep::kSiblingReduce: {
        // Computed with the first of its group, or this is the first.
        if (slots[i].is_array()) return std::move(slots[i]);
        const SiblingReduces& g = *plan.sibling_at[i];
        if (g.members[0] != &inst) break;
        std::optional<std::vector<Value>> r = RunSiblingReduces(g, *operand(operands[0]));
        if (!r) break;  // each runs alone
        for (size_t k = 1; k < g.members.size(); ++k) {
          slots[g.slots[k]] = std::move((*r)[k]);
        }
        return std::move((*r)[0]);
      }
      case PlanStep::kScalarInt: {
        frame.ops.clear();
        for (int32_t s : operands) frame.ops.push_back(operand(s));
        std::optional<Value> r = RunScalarInt(plan.scalar_ops[i], inst.shape(), frame.ops);
        if (r) return *std::move(r);
        break;  // not the scalars the shapes say: the kernel's error
      }
      case PlanStep::kScalarElement: {
        frame.ops.clear();
        for (int32_t s : operands) frame.ops.push_back(operand(s));
        std::optional<Value> r =
            RunScalarElement(plan.element_ops[plan.element_at[i]], inst.shape(), frame.ops);
        if (r) return *std::move(r);
        break;  // not the values the plan saw: the kernel's error
      }
      case PlanStep::kFoldedDot: {
        frame.ops.clear();
        for (int32_t s : operands) frame.ops.push_back(operand(s));
        const FoldedDot& f = *plan.folded_at[i];
        absl::StatusOr<Value> r = EvalDotWithDims(
            f.dot != nullptr ? *f.dot : inst, frame.ops, f.dims,
            {f.layouts[0] ? &*f.layouts[0] : nullptr, f.layouts[1] ? &*f.layouts[1] : nullptr},
            f.dot != nullptr ? &inst : nullptr);
        if (!r.ok()) return LocatedOnce(inst, r.status());
        return r;
      }
      default:
        break;
    }
    frame.ops.clear();
    for (int32_t s : operands) frame.ops.push_back(operand(s));
    return Evaluate(inst, frame.ops);
  };
  Profiler* profiler = options_.profiler != nullptr && plan.profiled ? options_.profiler : nullptr;
  if (profiler == nullptr) return evaluate();
  // A transpose that its dot writes (FoldOutputTranspose) runs the dot: its
  // time, FLOPs and bytes are the dot's (as a transpose it read 0 GFLOP/s).
  const FoldedDot* folded = plan.steps[i] == PlanStep::kFoldedDot ? plan.folded_at[i] : nullptr;
  return profiler->Time(folded != nullptr && folded->dot != nullptr ? *folded->dot : inst,
                        evaluate);
}

absl::StatusOr<Value> Evaluator::RunMultiOutputGroup(ComputationPlan& plan, Frame& frame,
                                                     size_t i) {
  const Instruction& inst = *plan.order[i];
  FusedGroup& group = *plan.group_at[i];
  int64_t reserved = 0;
  for (int32_t s : group.output_slots) {
    if (absl::Status st = Reserve(plan.bytes[s], inst); !st.ok()) {
      Release(reserved);
      return st;
    }
    reserved += plan.bytes[s];
  }
  absl::InlinedVector<Value, 4> outputs;
  absl::StatusOr<Value> r = RunFusedGroup(group, frame.ops, frame.reusable, &outputs);
  if (!r.ok()) {
    Release(reserved);
    return Located(inst, r.status());
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    frame.slots[group.output_slots[k]] = std::move(outputs[k]);
  }
  return r;
}

absl::StatusOr<Value> Evaluator::Step(ComputationPlan& plan, Frame& frame, size_t i,
                                      absl::Span<Value> taken) {
  // Observed like profiled: not the scalar computations applied per element.
  if (__builtin_expect(options_.observer != nullptr && plan.profiled, 0)) {
    return ObservedStep(plan, frame, i, taken);
  }
  return StepBody(plan, frame, i, taken);
}

absl::StatusOr<Value> Evaluator::ObservedStep(ComputationPlan& plan, Frame& frame, size_t i,
                                              absl::Span<Value> taken) {
  const Instruction& inst = *plan.order[i];
  // The operands are held until After: no kernel writes into a buffer held
  // twice, and a call's taken arguments stay readable here.
  std::vector<Value> held;
  for (int32_t s : plan.operands(i)) {
    const int32_t p = plan.parameter[s];
    held.push_back(p >= 0 ? *frame.params[p] : frame.slots[s]);
  }
  EvalObserver& observer = *options_.observer;
  observer.Before(inst);
  absl::StatusOr<Value> result = StepBody(plan, frame, i, taken);
  std::vector<const Value*> read;
  read.reserve(held.size());
  for (const Value& v : held) read.push_back(&v);
  absl::Status seen = observer.After(inst, read, result.ok() ? &*result : nullptr);
  if (!seen.ok() && result.ok()) return seen;
  return result;
}

absl::StatusOr<Value> Evaluator::Evaluate(const Instruction& inst, Operands ops) {
  absl::StatusOr<Value> result = Dispatch(inst, ops);
  if (!result.ok()) return LocatedOnce(inst, result.status());
  return result;
}

// Each kernel's result returned as it is (no StatusOr assigned per
// instruction: its temporaries showed in programs of many small ones).
absl::StatusOr<Value> Evaluator::Dispatch(const Instruction& inst, Operands ops) {
  switch (inst.opcode()) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter: {
      absl::StatusOr<Value> result = EvalReduction(inst, ops, *this);
      if (options_.flush_denormals && result.ok()) FlushFastReductionResult(inst, *result);
      return result;
    }
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kMap:
    case Opcode::kOptimizationBarrier:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
    case Opcode::kScan:
      // A Shardy manual computation's call runs its body on every device of
      // its mesh (eval/collectives/, a layer above the call kernel).
      if (IsSdyManualComputationCall(inst)) return EvalSdyManualComputation(inst, ops, *this);
      if (inst.opcode() == Opcode::kWhile && ops.size() == 1) {
        CompiledPrograms* compiled = CompiledFor(inst);
        if (compiled != nullptr && compiled->small_while != nullptr &&
            SmallLoopFits(inst, *ops[0])) {
          return RunSmallLoop(*compiled->small_while, inst, *ops[0], options_.max_iterations,
                              KernelRunner());
        }
      }
      return EvalControl(inst, ops, *this);
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
    case Opcode::kIota:
    case Opcode::kCopy:
    case Opcode::kBitcast:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kConstant:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
      return EvalDataMovement(inst, ops, *this);
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
      return EvalDot(inst, ops, *this);
    case Opcode::kConvolution:
      return EvalConvolution(inst, ops, *this);
    case Opcode::kCholesky:
    case Opcode::kTriangularSolve:
      return EvalLinalg(inst, ops, *this);
    case Opcode::kFft:
      return EvalFft(inst, ops, *this);
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return EvalBatchNorm(inst, ops, *this);
    case Opcode::kGather:
    case Opcode::kScatter:
      return EvalGatherScatter(inst, ops, *this);
    case Opcode::kSort:
    case Opcode::kTopK:
      return EvalSort(inst, ops, *this);
    case Opcode::kCustomCall:
      return EvalCustomCall(inst, ops, *this);
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
      return EvalRandom(inst, ops, *this);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveReduce:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return EvalCollective(inst, ops, *this);
    default:
      if (IsElementwise(inst.opcode())) {
        return options_.flush_denormals ? EvalElementwiseFlushingDenormals(inst, ops)
                                        : EvalElementwise(inst, ops);
      }
      return absl::UnimplementedError(
          StrCat("hlo-run cannot evaluate '", inst.OpcodeText(), "' yet"));
  }
}

absl::Status Evaluator::LocatedOnce(const Instruction& inst, const absl::Status& status) const {
  // Errors from nested calls already name their instruction.
  if (IsLocated(status)) return status;
  return Located(inst, status);
}

}  // namespace hlo
