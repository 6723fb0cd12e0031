// The collectives over replica groups (all-reduce, collective-reduce,
// all-gather, reduce-scatter, all-to-all, ragged-all-to-all,
// collective-permute, collective-broadcast), shared by their plain, -start
// and sugared async forms.
#ifndef HLO_EVAL_COLLECTIVES_COLLECTIVE_OPS_H_
#define HLO_EVAL_COLLECTIVES_COLLECTIVE_OPS_H_

#include <optional>
#include <vector>

#include "eval/collectives/replica_context.h"
#include "eval/collectives/replica_rendezvous.h"
#include "eval/kernels/kernels.h"

namespace hlo {

// Evaluates `inst` as the collective `op` (for a sugared async-start, the
// wrapped op) with the given result shape.
absl::StatusOr<Value> EvalGroupCollective(const Instruction& inst, Opcode op, Operands ops,
                                          const Shape& result, KernelContext& evaluator);

// The device context of an evaluator, or `fallback` made now (device 0 of 1).
DeviceContext& DeviceOf(KernelContext& evaluator, std::optional<DeviceContext>& fallback);

// A zero value of any shape (arrays zero-filled, tokens, tuples).
absl::StatusOr<Value> ZeroValue(const Shape& shape);

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_COLLECTIVE_OPS_H_
