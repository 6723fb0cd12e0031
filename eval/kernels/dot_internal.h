// Private to eval/kernels/dot*.cc: operand and attribute checks shared by
// dot, ragged-dot and scaled-dot, and operand views in the compute type.
#ifndef HLO_EVAL_KERNELS_DOT_INTERNAL_H_
#define HLO_EVAL_KERNELS_DOT_INTERNAL_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/kernels/dot.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/gemm_convert.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/strided_layout.h"
#include "eval/runtime/scratch_buffer.h"
#include "ir/strings.h"

namespace hlo {
namespace dot_internal {

inline absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

// Operand i as an array literal.
absl::StatusOr<const Literal*> ArrayOperand(const Instruction& inst, Operands ops, size_t i);

// Checks the operand count and that the result is an array of a numeric or
// pred element type.
absl::Status CheckOperandsAndResult(const Instruction& inst, Operands ops, size_t n);

// Checks dot dims against the operand dims (range, no repeats, no dim both
// batch and contracting, paired sizes equal) and sets the result dims.
absl::Status CheckDotDims(absl::Span<const int64_t> lhs, absl::Span<const int64_t> rhs,
                          const gemm::DotDimNumbers& d, gemm::Dims& result_dims);

// The instruction's result dims must be `want`.
absl::Status CheckResultDims(const Instruction& inst, const gemm::Dims& want);

std::string DimsText(absl::Span<const int64_t> dims);

// The result's storage as a C view, or a zeroed C buffer to convert from
// afterwards (FinishResult).
template <typename C>
absl::StatusOr<gemm::View<C>> ResultView(Literal& out, std::vector<C>& buf) {
  C* p = gemm::MutableDirectData<C>(out);
  if (p == nullptr) {
    if (auto st = gemm::Allocate(buf, out.element_count()); !st.ok()) return st;
    p = buf.data();
  }
  return gemm::RowMajorView<C>(p, out.shape().dims());
}

template <typename C>
void FinishResult(Literal& out, const std::vector<C>& buf) {
  if (gemm::MutableDirectData<C>(out) == nullptr) gemm::FromComputeBuffer<C>(buf.data(), out);
}

// The literal as a read-only view in compute type C: its own storage when
// it holds C, else converted into `buf`, pooled scratch that is neither
// zeroed nor fresh pages each call (a bf16 1024^3 dot spent more on zeroing
// and faulting in its f32 copies than on the product).
template <typename C>
absl::StatusOr<gemm::View<const C>> OperandView(const Literal& lit, ScratchBuffer<C>& buf,
                                                const gemm::StridedLayout* layout = nullptr) {
  if (layout != nullptr) {
    absl::Span<const int64_t> dims = lit.shape().dims();
    if (!std::equal(dims.begin(), dims.end(), layout->source.begin(), layout->source.end()) ||
        gemm::LastElement(*layout) >= lit.element_count()) {
      return absl::InvalidArgumentError(StrCat("a dot's folded operand views an array of dims {",
                                               StrJoin(layout->source, ","), "}, but the array is ",
                                               lit.shape().ToString(false)));
    }
  }
  const C* p = gemm::DirectData<C>(lit);
  if (p == nullptr) {
    if (auto st = buf.Reset(lit.element_count()); !st.ok()) return st;
    gemm::ConvertToCompute(lit, buf.data());
    p = buf.data();
  }
  if (layout != nullptr)
    return gemm::View<const C>{p + layout->offset, layout->dims, layout->strides};
  return gemm::RowMajorView<const C>(p, lit.shape().dims());
}

// ResultView and FinishResult for a product that writes every element of
// its result (gemm::DotCore), in the same scratch.
template <typename C>
absl::StatusOr<gemm::View<C>> UnzeroedResultView(Literal& out, ScratchBuffer<C>& buf) {
  C* p = gemm::MutableDirectData<C>(out);
  if (p == nullptr) {
    if (auto st = buf.Reset(out.element_count()); !st.ok()) return st;
    p = buf.data();
  }
  return gemm::RowMajorView<C>(p, out.shape().dims());
}

template <typename C>
void FinishResult(Literal& out, const ScratchBuffer<C>& buf) {
  if (gemm::MutableDirectData<C>(out) == nullptr) gemm::FromComputeBuffer<C>(buf.data(), out);
}

// ragged-dot and scaled-dot (eval/kernels/dot_ragged.cc).
absl::StatusOr<Value> EvalRaggedDot(const Instruction& inst, Operands ops);
absl::StatusOr<Value> EvalScaledDot(const Instruction& inst, Operands ops);

}  // namespace dot_internal
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_DOT_INTERNAL_H_
