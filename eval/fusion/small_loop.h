// While loops over small state as compiled programs. JAX's fori_loops in
// unoptimised text (LU's pivots turned into a permutation, scans' index
// bookkeeping) carry a tuple of a few small arrays; a trip through the
// evaluator paid its frame, a result Value per instruction and the tuple's
// bookkeeping, microseconds a trip. Here the condition and the body are
// SmallPrograms over the state's elements (eval/fusion/small_program.h),
// run trip after trip on two buffers per element that the body changes
// (elements it passes through unchanged are never copied).
#ifndef HLO_EVAL_FUSION_SMALL_LOOP_H_
#define HLO_EVAL_FUSION_SMALL_LOOP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/fusion/small_program.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct SmallLoop {
  std::unique_ptr<SmallProgram> condition;
  std::unique_ptr<SmallProgram> body;
  // Per state element: the body gives it back unchanged.
  std::vector<bool> passed_through;
  // The two buffers per element the body changes, kept from one run of
  // the loop to the next: a buffer no one else holds any more (the last
  // run's result consumed) is written again instead of allocated anew.
  std::vector<Value> buffers[2];
};

// The programs of `loop` (a while whose state is a tuple of static
// arrays), or null when its condition or body does not compile.
std::unique_ptr<SmallLoop> CompileSmallLoop(const Instruction& loop, bool flush_denormals);

// Whether `state` is a tuple of arrays of the loop's state shapes; when
// not, the caller runs the loop itself, whose kernels say what is wrong.
bool SmallLoopFits(const Instruction& loop, const Value& state);

// Runs the loop from `state` (never written: the elements the body changes
// go to buffers of the loop's own). `max_iterations` as EvalOptions';
// `kernels` runs the ops the programs hand over (SmallProgram::Run).
absl::StatusOr<Value> RunSmallLoop(
    SmallLoop& program, const Instruction& loop, const Value& state, int64_t max_iterations,
    std::optional<SmallProgram::KernelRunner> kernels = std::nullopt);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_SMALL_LOOP_H_
