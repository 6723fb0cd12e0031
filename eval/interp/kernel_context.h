// What a kernel may ask of the evaluator that runs it: the run's options
// and rng state, and calls of the module's other computations (reducers,
// comparators, loop bodies, branches, manual computations). Kernels sit
// below the evaluator (eval/evaluator.h implements this class) and reach it
// only through here. Its calls are virtual: once per call of a computation
// or per kernel, never per element of a loop.
#ifndef HLO_EVAL_INTERP_KERNEL_CONTEXT_H_
#define HLO_EVAL_INTERP_KERNEL_CONTEXT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/module.h"

namespace hlo {

class BatchProgram;
class DeviceContext;
class EvalObserver;
class Profiler;
// A computation prepared for calls (eval/computation_plan.h); opaque here.
struct ComputationPlan;

struct EvalOptions {
  // Largest number of bytes of live buffers; more is an error naming the
  // instruction that would exceed it.
  int64_t max_memory_bytes = int64_t{1} << 34;
  // While loops stop with an error after this many trips (< 0: no limit).
  int64_t max_iterations = -1;
  // Seed for rng and rng-bit-generator defaults and elided constants.
  uint64_t seed = 0;
  // Called after each instruction of the entry computation with (done,
  // total); null for none.
  std::function<void(int64_t, int64_t)> progress;
  // The device this evaluator runs as in a multi-device run (its ids, the
  // rendezvous shared with the other devices, its feeds); null: the only
  // device, with no feeds. Owned by the caller, one per evaluator.
  DeviceContext* device = nullptr;
  // XLA:CPU's flush-to-zero (hlo-run --denormals=flush, eval/denormals.h);
  // false: IEEE denormals, as the spec says.
  bool flush_denormals = false;
  // false: applied computations (reducers, comparators, combiners, …) go
  // through the general evaluator element by element, as a reference for
  // the specialised paths (hlo-run --no-fast-paths).
  bool fast_paths = true;
  // false: no fusion: groups of elementwise ops (and softmax rows,
  // row-broadcast ops), sibling reductions and XLA's loop fusions are not
  // run as one loop; each instruction runs through its own kernel, with
  // the same bits (hlo-run --no-fusion; the fusion_agreement test holds
  // every golden module to that). Implied by fast_paths = false.
  bool fusion = true;
  // Times every instruction evaluated (hlo-run --profile, eval/runtime/profiler.h);
  // null: no timing, no cost. Shared by the devices of a multi-device run.
  Profiler* profiler = nullptr;
  // Told about every instruction evaluated (eval/runtime/eval_observer.h:
  // hlo-run's numerics options); null: none, no cost. One device only.
  EvalObserver* observer = nullptr;
  // How the devices of a multi-device run share the cores
  // (eval/replica_runner.h; hlo-run --device-scheduling): kAuto runs them
  // as fibers on one thread where there are as many devices as cores or
  // more.
  enum class DeviceScheduling { kAuto, kThreads, kFibers };
  DeviceScheduling device_scheduling = DeviceScheduling::kAuto;
};

class KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual const EvalOptions& options() const = 0;
  virtual Module& module() = 0;
  // Runs any computation of the module on `arguments`.
  virtual absl::StatusOr<Value> Call(const Computation& computation,
                                     absl::Span<const Value* const> arguments) = 0;
  // A computation's plan, made at its first call: callers that run one
  // computation many times (while loops) look it up once and call it
  // through the plan.
  virtual ComputationPlan& PlanFor(const Computation& computation) = 0;
  // PlanFor a computation that runs once per step of a loop (a scan's body):
  // profiled and observed like a while body even when its parameters are
  // scalars, which would otherwise mark a reducer applied per element.
  virtual ComputationPlan& LoopBodyPlanFor(const Computation& computation) = 0;
  virtual absl::StatusOr<Value> Call(ComputationPlan& plan,
                                     absl::Span<const Value* const> arguments) = 0;
  // Like Call, but the arguments are handed over: the callee may move their
  // buffers out and update those nobody else holds in place (a while body's
  // loop state).
  virtual absl::StatusOr<Value> CallTaking(ComputationPlan& plan, absl::Span<Value> arguments) = 0;
  // Evaluates one instruction on its operands' values (an async op's
  // wrapped instruction).
  virtual absl::StatusOr<Value> EvaluateInstruction(const Instruction& inst,
                                                    absl::Span<const Value* const> operands) = 0;
  // `computation` compiled for the batched interpreter (batch_program.h),
  // once per computation; null when it cannot be compiled or fast paths are
  // off (the caller then uses Call element by element).
  virtual BatchProgram* BatchProgramFor(const Computation& computation) = 0;
  // Copy `copy` of BatchProgramFor's program, with registers of its own, for
  // parts of one loop on several cores: copy 0 is that program, the others
  // are made at their first request and kept. Null where it is.
  virtual BatchProgram* BatchProgramCopy(const Computation& computation, int64_t copy) = 0;
  // What a kernel works out once from a computation of the module and keeps
  // for this evaluator's life (a reducer's derived programs): `make` runs at
  // the first request for (kind, key), `kind` being the address of
  // something of the kernel's own; a null result is kept too (asked once).
  struct DerivedData {
    virtual ~DerivedData() = default;
  };
  virtual DerivedData* DerivedDataFor(const void* kind, const Computation& key,
                                      absl::FunctionRef<std::unique_ptr<DerivedData>()> make) = 0;
  // Runs `body` (a Shardy manual computation's, eval/collectives/
  // sdy_manual_computation.cc) on `partitions` devices, device d on
  // arguments[d]; the devices of `call` are made at its first call and kept.
  // Returns each device's result.
  virtual absl::StatusOr<std::vector<Value>> RunManualComputation(
      const Instruction& call, int64_t partitions, const std::vector<std::vector<Value>>& arguments,
      const Computation& body) = 0;
  // The 128-bit rng state of this run, low word first, read and advanced by
  // rng-get-and-update-state and rng (eval/kernels/random.cc); starts at
  // {seed, 0}.
  virtual std::array<uint64_t, 2>& rng_state() = 0;
};

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_KERNEL_CONTEXT_H_
