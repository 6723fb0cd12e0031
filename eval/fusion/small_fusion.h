// XLA's fusions over small arrays of several shapes (eval/fusion/
// small_program.h) run as one compiled program instead of instruction by
// instruction: the Philox rounds XLA:CPU expands rng-bit-generator into,
// LU's and scans' index bookkeeping; and calls of such computations (JAX's
// jit-wrapped helpers in unoptimised text). Loop fusions (one elementwise loop,
// loop_fusion.h) and single-instruction fusions (the plan's kWrapped) keep
// their own paths; this takes the fusions they leave.
#ifndef HLO_EVAL_FUSION_SMALL_FUSION_H_
#define HLO_EVAL_FUSION_SMALL_FUSION_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/fusion/small_program.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

// The program of `fusion`'s computation, or null when it is not one
// SmallProgram compiles (or its result is not an array or a tuple of them).
std::unique_ptr<SmallProgram> CompileSmallFusion(const Instruction& fusion, bool flush_denormals);

// Whether the operands are arrays of the fusion's parameter shapes
// (element types and dimensions); when not, the caller runs the
// computation itself, whose kernels report what is wrong.
bool SmallFusionFits(const Instruction& fusion, absl::Span<const Value> args);

// Runs the program on operands that fit; the result has `fusion`'s shape.
// `kernels` runs the ops the program hands over (SmallProgram::Run).
absl::StatusOr<Value> RunSmallFusion(
    SmallProgram& program, const Instruction& fusion, absl::Span<const Value> args,
    std::optional<SmallProgram::KernelRunner> kernels = std::nullopt);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_SMALL_FUSION_H_
