// Applying a scalar computation (a reducer, comparator, map function) to
// array elements: a native loop when the computation is one known binary op
// of its two parameters, else the evaluator once per element.
#ifndef HLO_EVAL_KERNELS_SCALAR_APPLY_H_
#define HLO_EVAL_KERNELS_SCALAR_APPLY_H_

#include <optional>

#include "eval/interp/kernel_context.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"

namespace hlo {

// `ROOT r = op(p0, p1)` (or op(p1, p0) for commutative ops) with op one of
// add, multiply, maximum, minimum, and, or, xor: that op.
std::optional<Opcode> SimpleBinaryReducer(const Computation& computation);

// A rank-0 value holding element i of `array`.
Value ScalarAt(const Literal& array, int64_t i);
// Writes a rank-0 value into element i of `array` (same element type).
void StoreScalar(Literal& array, int64_t i, const Literal& scalar);

// map: applies the computation to the operands' elements.
absl::StatusOr<Value> MapScalarComputation(const Computation& computation, Operands ops,
                                           const Shape& result, KernelContext& evaluator);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_SCALAR_APPLY_H_
