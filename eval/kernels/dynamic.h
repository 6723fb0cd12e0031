// Kernels dispatched from EvalDataMovement (eval/kernels/data.cc) and
// EvalControl (eval/kernels/control.cc) that live in their own files:
// dynamic-reshape, copy-start and copy-done (eval/kernels/dynamic.cc), and scan
// (eval/kernels/scan.cc).
#ifndef HLO_EVAL_KERNELS_DYNAMIC_H_
#define HLO_EVAL_KERNELS_DYNAMIC_H_

#include "eval/kernels/kernels.h"

namespace hlo {

absl::StatusOr<Value> EvalDynamicReshape(const Instruction& inst, Operands ops);
absl::StatusOr<Value> EvalCopyStart(const Instruction& inst, Operands ops);
absl::StatusOr<Value> EvalCopyDone(const Instruction& inst, Operands ops);
absl::StatusOr<Value> EvalScan(const Instruction& inst, Operands ops, KernelContext& evaluator);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_DYNAMIC_H_
