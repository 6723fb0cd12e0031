// hlo-run's evaluation of StableHLO's check ops (eval/kernels/stablehlo_check.cc),
// the custom-call targets `stablehlo.check.expect_eq`, `.expect_almost_eq`
// and `.expect_close` that stablehlo/ops_check.cc translates them to.
#ifndef HLO_EVAL_KERNELS_STABLEHLO_CHECK_H_
#define HLO_EVAL_KERNELS_STABLEHLO_CHECK_H_

#include "eval/kernels/kernels.h"

namespace hlo {

// Compares operand 0 (actual) with operand 1 (expected); the first element
// that differs is an error naming both and its index. An optional third
// operand, a pred[], false skips the check (a value of another device). The
// result is `()`.
absl::StatusOr<Value> EvalStableHloCheck(const Instruction& inst, Operands ops, KernelContext& ev);

// check.expect_eq's comparison: same type and dims, every element equal
// (IEEE: NaN differs, -0 == +0); else an error naming the first that differs.
absl::Status StableHloExpectEq(const Literal& actual, const Literal& expected);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_STABLEHLO_CHECK_H_
