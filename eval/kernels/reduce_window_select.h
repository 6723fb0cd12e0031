// reduce-window whose reducer picks one of its two argument tuples whole:
// every result is select(p, acc_j, x_j), one predicate p for all (or every
// select the other way round). XLA:CPU writes such a reduce-window for each
// select-and-scatter (its SelectAndScatterExpander: the operand and one
// iota per dimension, p the select function plus "not the init" tests), so
// every max-pool gradient of a JAX training step has one.
#ifndef HLO_EVAL_KERNELS_REDUCE_WINDOW_SELECT_H_
#define HLO_EVAL_KERNELS_REDUCE_WINDOW_SELECT_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eval/interp/kernel_context.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/reduce_internal.h"
#include "ir/computation.h"

namespace hlo {
namespace reduction {

// Runs such a reduce-window into `outs` (made by the caller) where p reads
// only some of the operands: the fold carries those and the operand offset
// of the element it holds, and the others are read at that offset once at
// the end, the same bits as folding every operand. nullopt: not such a
// reducer, p reads every operand, or the window's last axes are not
// trivial (the caller then runs the reducer as it is).
std::optional<absl::Status> SelectReduceWindow(const Computation& reducer, Operands ops,
                                               const std::vector<WindowAxis>& axes,
                                               absl::Span<const int64_t> in_strides,
                                               std::vector<Value>& outs, KernelContext& ev);

}  // namespace reduction
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_REDUCE_WINDOW_SELECT_H_
