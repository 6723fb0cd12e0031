// A dot's dimension numbers, a dot evaluated with numbers other than its
// own (the operands are then the values of transposes folded into it,
// eval/fusion/transpose_folding.h, read as strided views where the
// instruction would read the transposes), and a plain product's gemm call
// planned once.
#ifndef HLO_EVAL_KERNELS_DOT_H_
#define HLO_EVAL_KERNELS_DOT_H_

#include <array>
#include <optional>

#include "absl/status/statusor.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/strided_layout.h"

namespace hlo {

// The instruction's lhs/rhs_batch_dims and lhs/rhs_contracting_dims.
gemm::DotDimNumbers DotDimNumbersOf(const Instruction& inst);

// `inst` must be a dot; `dims` pair `ops`' dims, and the result they give
// must have the instruction's dims (checked, as for any dot). Where
// layouts[k] is given, operand k is read through it over its array's
// storage (its reach checked), with the layout's dims. Where `transpose`
// is given (a transpose of the dot's result), the product is written
// straight into that transpose's result, which is returned (its dims
// checked against the product's permuted).
absl::StatusOr<Value> EvalDotWithDims(const Instruction& inst, Operands ops,
                                      const gemm::DotDimNumbers& dims,
                                      std::array<const gemm::StridedLayout*, 2> layouts = {},
                                      const Instruction* transpose = nullptr);

// The one gemm::Gemm call that EvalDot makes for `inst` (a dot) on
// operands of shapes `lhs` and `rhs`: a product of two matrices, or of a
// matrix and a vector, without batch dims, operands and result all f32 or
// all f64; nullopt where EvalDot takes another path. Small programs run it
// on their own buffers (row-major, as the operands' and the result's
// elements lie): the same call, so the same bits, without a result array
// or the dims checks per call.
struct PlannedGemm {
  PrimitiveType type = PrimitiveType::kF32;
  bool trans_a = false, trans_b = false;
  int64_t m = 1, n = 1, k = 0, lda = 0, ldb = 0, ldc = 0;
};
std::optional<PlannedGemm> PlanDirectGemm(const Instruction& inst, const Shape& lhs,
                                          const Shape& rhs);
void RunPlannedGemm(const PlannedGemm& gemm, const void* lhs, const void* rhs, void* out);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_DOT_H_
