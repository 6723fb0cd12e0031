// XLA's loop fusions as one batched-interpreter loop: a fusion whose called
// computation is elementwise over the root's dimensions (scalars broadcast,
// scalar constants, one-element slices of other parameters, other
// parameters read through one broadcast, smaller arrays computed from the
// parameters and read through one broadcast, which run first as groups of
// their own) runs as one array-mode BatchProgram over its positions
// instead of instruction by instruction. Optimised JAX programs are made of such fusions, most over
// small arrays (threefry's rounds over u32[500]), where the per-instruction
// cost of the general executor was most of the run.
#ifndef HLO_EVAL_FUSION_LOOP_FUSION_H_
#define HLO_EVAL_FUSION_LOOP_FUSION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/fusion/fusion_plan.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

// The program of `fusion` (a kFusion with an array result), or null when
// its computation is not elementwise in that sense.
std::unique_ptr<FusedGroup> CompileLoopFusion(const Instruction& fusion, bool flush_denormals);

// Whether the fusion's operands fit the program's parameters (types and
// element counts); when not, the caller runs the computation itself, whose
// kernels report what is wrong.
bool LoopFusionFits(const FusedGroup& loop, absl::Span<const Value> args);

// Runs `loop` on operands that fit, handed over (an operand buffer held only
// here may become the result).
absl::StatusOr<Value> RunLoopFusion(FusedGroup& loop, absl::Span<Value> args);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_LOOP_FUSION_H_
