// The executor: evaluates a module's entry computation over typed
// contiguous buffers, instruction by instruction in post order, freeing each
// buffer after its last use.
#ifndef HLO_EVAL_EVALUATOR_H_
#define HLO_EVAL_EVALUATOR_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/kernel_context.h"
#include "eval/value.h"
#include "ir/module.h"

namespace hlo {

struct Frame;
struct FusedGroup;
class SmallProgram;
struct SmallLoop;
class ReplicaRunner;

// Checks, before any input is made, that the entry computation's parameters
// fit in `max_bytes` (inputs are live buffers too, counted per device as
// EvalOptions::max_memory_bytes is); the error names the parameter that
// passes the limit.
absl::Status CheckInputsFit(const Module& module, int64_t max_bytes);

class Evaluator : public KernelContext {
 public:
  Evaluator(Module& module, EvalOptions options);
  ~Evaluator();

  // Runs the entry computation on one value per parameter.
  absl::StatusOr<Value> Run(std::vector<Value> arguments);
  // Runs any computation of the module (used by call, while, reduce, …).
  absl::StatusOr<Value> Call(const Computation& computation,
                             absl::Span<const Value* const> arguments) override;
  // A computation's plan (eval/computation_plan.h), made at its first call:
  // callers that run one computation many times (while loops) look it up
  // once and call it through the plan.
  ComputationPlan& PlanFor(const Computation& computation) override;
  ComputationPlan& LoopBodyPlanFor(const Computation& computation) override;
  absl::StatusOr<Value> Call(ComputationPlan& plan,
                             absl::Span<const Value* const> arguments) override;
  // Like Call, but the arguments are handed over: the callee may move their
  // buffers out and update those nobody else holds in place (a while body's
  // loop state, a fusion's operand that dies at the fusion).
  absl::StatusOr<Value> CallTaking(ComputationPlan& plan, absl::Span<Value> arguments) override;
  // Evaluates one instruction on its operands' values (constant folding).
  absl::StatusOr<Value> EvaluateInstruction(const Instruction& inst,
                                            absl::Span<const Value* const> operands) override {
    return Evaluate(inst, operands);
  }
  const EvalOptions& options() const override { return options_; }
  Module& module() override { return module_; }

  // Live buffer accounting (bytes); Reserve fails when the limit is passed.
  absl::Status Reserve(int64_t bytes, const Instruction& inst);
  void Release(int64_t bytes) { live_bytes_ -= bytes; }
  // Bytes counted live now (0 between runs), and the most counted at once
  // since construction: inputs, outputs and the largest live set.
  int64_t live_bytes() const { return live_bytes_; }
  int64_t peak_live_bytes() const { return peak_live_bytes_; }

  // `computation` compiled for the batched interpreter (eval/interp/batch_program.h),
  // once per computation; null when it cannot be compiled or fast paths are
  // off (the caller then uses Call element by element).
  BatchProgram* BatchProgramFor(const Computation& computation) override;
  BatchProgram* BatchProgramCopy(const Computation& computation, int64_t copy) override;
  DerivedData* DerivedDataFor(const void* kind, const Computation& key,
                              absl::FunctionRef<std::unique_ptr<DerivedData>()> make) override;
  // A fusion, call or while compiled at its first run: a fusion as one
  // batched loop (eval/fusion/loop_fusion.h), else a fusion or call as a
  // small program (eval/fusion/small_fusion.h); a while over small state as
  // small programs (eval/fusion/small_loop.h); else nothing (all null).
  // Null when fast paths or fusion are off, or an observer watches (and
  // for calls and whiles, under a profile).
  struct CompiledPrograms {
    std::unique_ptr<FusedGroup> loop;
    std::unique_ptr<SmallProgram> small;
    std::unique_ptr<SmallLoop> small_while;
  };
  CompiledPrograms* CompiledFor(const Instruction& inst);
  // What small programs hand their dots, reduces, gathers, ... to: this
  // evaluator's kernel for the instruction (Evaluate).
  auto KernelRunner() {
    return [this](const Instruction& inst, absl::Span<const Value* const> ops) {
      return Evaluate(inst, ops);
    };
  }
  // The devices that run `call` (a Shardy manual computation, eval/
  // eval/collectives/sdy_manual_computation.cc) on `partitions` partitions: made at its
  // first call and kept, with their threads and plans, for the next.
  ReplicaRunner& ManualRunnerFor(const Instruction& call, int64_t partitions);
  absl::StatusOr<std::vector<Value>> RunManualComputation(
      const Instruction& call, int64_t partitions, const std::vector<std::vector<Value>>& arguments,
      const Computation& body) override;

  // The 128-bit rng state of this run, low word first, read and advanced by
  // rng-get-and-update-state and rng (eval/kernels/random.cc); starts at
  // {seed, 0}.
  std::array<uint64_t, 2>& rng_state() override { return rng_state_; }

 private:
  absl::StatusOr<Value> Evaluate(const Instruction& inst, absl::Span<const Value* const> operands);
  // Evaluate's kernel call, unlocated.
  absl::StatusOr<Value> Dispatch(const Instruction& inst, absl::Span<const Value* const> operands);
  absl::Status Located(const Instruction& inst, const absl::Status& status) const;
  // `status` located at `inst` unless it names an instruction already (the
  // errors of nested calls).
  absl::Status LocatedOnce(const Instruction& inst, const absl::Status& status) const;
  // Runs `plan` on read-only `read` arguments or on handed-over `taken` ones
  // (exactly one of the two is used).
  absl::StatusOr<Value> Execute(ComputationPlan& plan, absl::Span<const Value* const> read,
                                absl::Span<Value> taken);
  // Evaluates instruction `i` of the running call into its slot.
  absl::StatusOr<Value> Step(ComputationPlan& plan, Frame& frame, size_t i,
                             absl::Span<Value> taken);
  // A group with outputs besides its root (step i is the root's): their
  // bytes are counted and their slots filled here, the root's returned.
  absl::StatusOr<Value> RunMultiOutputGroup(ComputationPlan& plan, Frame& frame, size_t i);
  absl::StatusOr<Value> StepBody(ComputationPlan& plan, Frame& frame, size_t i,
                                 absl::Span<Value> taken);
  // Step with EvalOptions::observer told (out of Step's hot path).
  [[gnu::noinline]] absl::StatusOr<Value> ObservedStep(ComputationPlan& plan, Frame& frame,
                                                       size_t i, absl::Span<Value> taken);

  absl::flat_hash_map<const Computation*, std::unique_ptr<ComputationPlan>> plans_;
  // The last plan looked up (kernels call one computation per element).
  const Computation* last_planned_ = nullptr;
  ComputationPlan* last_plan_ = nullptr;
  absl::flat_hash_map<const Computation*, std::unique_ptr<BatchProgram>> batch_programs_;
  // BatchProgramCopy's copies 1.. (copy k at index k - 1).
  absl::flat_hash_map<const Computation*, std::vector<std::unique_ptr<BatchProgram>>>
      batch_program_copies_;
  absl::flat_hash_map<const Instruction*, CompiledPrograms> compiled_;
  absl::flat_hash_map<std::pair<const void*, const Computation*>, std::unique_ptr<DerivedData>>
      derived_data_;
  absl::flat_hash_map<const Instruction*, std::unique_ptr<ReplicaRunner>> manual_runners_;

  Module& module_;
  EvalOptions options_;
  int64_t live_bytes_ = 0;
  int64_t peak_live_bytes_ = 0;
  int call_depth_ = 0;
  std::array<uint64_t, 2> rng_state_{options_.seed, 0};
};

}  // namespace hlo

#endif  // HLO_EVAL_EVALUATOR_H_
