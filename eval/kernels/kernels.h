// The instruction kernels, one family per file (eval/kernels/*.cc). Each
// takes the instruction (for its attributes and result shape) and its
// operand values, and returns the result. Errors are plain messages; the
// evaluator adds the instruction's name and place.
#ifndef HLO_EVAL_KERNELS_KERNELS_H_
#define HLO_EVAL_KERNELS_KERNELS_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/kernel_context.h"
#include "eval/runtime/new_array.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

using Operands = absl::Span<const Value* const>;

// eval/kernels/elementwise.cc: every unary and binary elementwise op, compare,
// select, clamp, convert, bitcast-convert, reduce-precision,
// stochastic-convert.
absl::StatusOr<Value> EvalElementwise(const Instruction& inst, Operands ops);
// EvalElementwise with XLA:CPU's flush-to-zero: the operands' denormals
// read as zeros (copies are flushed, the operands stay as they are) and the
// result's flushed, for the ops ElementwiseFlushesDenormals names
// (eval/denormals.h).
absl::StatusOr<Value> EvalElementwiseFlushingDenormals(const Instruction& inst, Operands ops);

// eval/kernels/data.cc: broadcast, reshape, transpose, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, iota, copy, bitcast,
// tuple, get-tuple-element, constant, get/set-dimension-size.
absl::StatusOr<Value> EvalDataMovement(const Instruction& inst, Operands ops,
                                       KernelContext& evaluator);
// Whether a bitcast is a reshape of row-major storage: one element type and
// count, and both its operand's layout and its own store the elements in
// row-major order (eval/kernels/data_bitcast.cc).
bool BitcastIsReshape(const Instruction& bitcast);

// eval/kernels/reduce.cc: reduce, reduce-window, select-and-scatter.
absl::StatusOr<Value> EvalReduction(const Instruction& inst, Operands ops,
                                    KernelContext& evaluator);
// A reduce or reduce-window whose computation is one arithmetic op (add,
// multiply, maximum, minimum) runs as a typed loop: its result is flushed
// as the op would flush it (maximum/minimum keep their operand's bits in
// that loop; XLA's maxps/minps do not).
void FlushFastReductionResult(const Instruction& inst, Value& result);

// eval/kernels/control.cc: call, fusion, while, conditional, map, opt-barrier,
// after-all, add-dependency, domain.
absl::StatusOr<Value> EvalControl(const Instruction& inst, Operands ops, KernelContext& evaluator);

// eval/kernels/dot.cc: dot, ragged-dot, scaled-dot (OpenBLAS gemm for floats).
absl::StatusOr<Value> EvalDot(const Instruction& inst, Operands ops, KernelContext& evaluator);

// eval/kernels/convolution.cc: convolution (packing plus gemm).
absl::StatusOr<Value> EvalConvolution(const Instruction& inst, Operands ops,
                                      KernelContext& evaluator);

// eval/linalg/cholesky_triangular_solve.cc: cholesky, triangular-solve (LAPACK/BLAS).
absl::StatusOr<Value> EvalLinalg(const Instruction& inst, Operands ops, KernelContext& evaluator);

// eval/kernels/fft.cc: fft (FFT, IFFT, RFFT, IRFFT).
absl::StatusOr<Value> EvalFft(const Instruction& inst, Operands ops, KernelContext& evaluator);

// eval/kernels/batch_norm.cc: batch-norm-training, -inference, -grad.
absl::StatusOr<Value> EvalBatchNorm(const Instruction& inst, Operands ops,
                                    KernelContext& evaluator);

// eval/kernels/gather_scatter.cc: gather, scatter.
absl::StatusOr<Value> EvalGatherScatter(const Instruction& inst, Operands ops,
                                        KernelContext& evaluator);

// eval/kernels/sort.cc: sort, topk.
absl::StatusOr<Value> EvalSort(const Instruction& inst, Operands ops, KernelContext& evaluator);

// custom_call.cc: custom-call, through a registry of known targets.
absl::StatusOr<Value> EvalCustomCall(const Instruction& inst, Operands ops,
                                     KernelContext& evaluator);

// eval/collectives/sdy_manual_computation.cc: Shardy manual computations (shard_map) run on
// every device of their mesh: the call of an xla.sdy.manual_computation_body
// and the custom-calls xla.sdy.GlobalToLocalShape / LocalToGlobalShape
// around it.
bool IsSdyManualComputationCall(const Instruction& call);
absl::StatusOr<Value> EvalSdyManualComputation(const Instruction& call, Operands ops,
                                               KernelContext& evaluator);
absl::StatusOr<Value> EvalSdyGlobalToLocalShape(const Instruction& inst, Operands ops,
                                                KernelContext& evaluator);
absl::StatusOr<Value> EvalSdyLocalToGlobalShape(const Instruction& inst, Operands ops,
                                                KernelContext& evaluator);

// eval/collectives/probe_kernels.cc: StableHLO's interpreter probes, as
// stablehlo/ops_check.cc translates them: `stablehlo.interpreter.probe` (backend_config
// `probe_id=ID`) records its operand on the device each time it runs and returns it;
// `stablehlo.check.expect_serialized_eq` (`iter=N,probe_id=ID`) compares its
// operand with the value recorded the N-th time. The reference interpreter
// writes the values to files (--probe-output-dir) and reads them back; here
// they stay in the device's context for the run. `stablehlo.interpreter.print`
// prints its operand on standard output, one write per value (devices that
// print at once do not interleave).
absl::StatusOr<Value> EvalInterpreterPrint(const Instruction& inst, Operands ops,
                                           KernelContext& ev);
absl::StatusOr<Value> EvalInterpreterProbe(const Instruction& inst, Operands ops,
                                           KernelContext& ev);
// An optional second operand, a pred[], false skips the check (a value of
// another device of interpreter.run_parallel's grid).
absl::StatusOr<Value> EvalExpectSerializedEq(const Instruction& inst, Operands ops,
                                             KernelContext& ev);

// eval/kernels/random.cc: rng, rng-bit-generator, rng-get-and-update-state.
absl::StatusOr<Value> EvalRandom(const Instruction& inst, Operands ops, KernelContext& evaluator);

// eval/collectives/collective_kernels.cc: collectives across replicas, replica-id,
// partition-id, send/recv, infeed/outfeed and the async forms.
absl::StatusOr<Value> EvalCollective(const Instruction& inst, Operands ops,
                                     KernelContext& evaluator);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_KERNELS_H_
