// StableHLO's interpreter probes, as stablehlo/ops_check.cc translates them:
// `stablehlo.interpreter.probe` (backend_config `probe_id=ID`) records its
// operand on the device each time it runs and returns it;
// `stablehlo.check.expect_serialized_eq` (`iter=N,probe_id=ID`) compares its
// operand with the value recorded the N-th time. The reference interpreter
// writes the values to files (--probe-output-dir) and reads them back; here
// they stay in the device's context for the run. `stablehlo.interpreter.print`
// prints its operand on standard output, one write per value (devices that
// print at once do not interleave).
#ifndef HLO_EVAL_COLLECTIVES_PROBE_KERNELS_H_
#define HLO_EVAL_COLLECTIVES_PROBE_KERNELS_H_

#include "eval/kernels/kernels.h"

namespace hlo {

absl::StatusOr<Value> EvalInterpreterPrint(const Instruction& inst, Operands ops,
                                           KernelContext& ev);
absl::StatusOr<Value> EvalInterpreterProbe(const Instruction& inst, Operands ops,
                                           KernelContext& ev);
// An optional second operand, a pred[], false skips the check (a value of
// another device of interpreter.run_parallel's grid).
absl::StatusOr<Value> EvalExpectSerializedEq(const Instruction& inst, Operands ops,
                                             KernelContext& ev);

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_PROBE_KERNELS_H_
