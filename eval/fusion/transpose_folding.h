// XLA's transpose folding, at run time: a dot whose operand is a transpose
// read by nothing else reads the transpose's operand instead, its batch and
// contracting dims mapped through the permutation, so that the transposed
// copy is never made. The dot core (eval/kernels/gemm.cc) hands the strided
// matrices to OpenBLAS with transpose flags and leading dims. JAX's
// unoptimised dumps transpose every attention head's q, k and v and the
// tied embedding (GPT-2's f32[768,50257], 154 MB a run) only to feed dots.
// Where the transpose's operand is a chain of slices, reshapes, bitcasts
// that are reshapes and copies with a slice among them, each read only by
// the next, the dot reads the sliced array where it lies as a strided view
// too (JAX splits q, k and v out of one product and reshapes
// them into heads: GPT-2 small copied 36 slices a run only to feed dots).
#ifndef HLO_EVAL_FUSION_TRANSPOSE_FOLDING_H_
#define HLO_EVAL_FUSION_TRANSPOSE_FOLDING_H_

#include <array>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/strided_layout.h"
#include "ir/instruction.h"

namespace hlo {

struct FoldedDot {
  // The values the dot reads: a folded transpose's operand, or its own.
  std::array<const Instruction*, 2> reads = {nullptr, nullptr};
  std::array<bool, 2> folded = {false, false};
  // A folded operand that is a copy of the transpose (XLA:CPU's fusions
  // end a transpose in a copy to the default layout): the transpose, which
  // is skipped too. Storage is row-major whatever the layouts, so the copy
  // is the transpose's value.
  std::array<const Instruction*, 2> through_copy = {nullptr, nullptr};
  // Where `reads` is the array a slice (and a reshape of it) took the
  // transpose's operand from: that operand's elements in the array's
  // storage, and the slice and reshape, which are skipped too.
  std::array<std::optional<gemm::StridedLayout>, 2> layouts;
  std::array<absl::InlinedVector<const Instruction*, 4>, 2> viewed_away;
  gemm::DotDimNumbers dims;  // over `reads`' dims (the layout's where one is given)
  // Set where the step is a transpose of this dot's result instead: the
  // product is written straight into the transpose's result.
  const Instruction* dot = nullptr;
};

// The dot with every operand folded that `foldable` allows; nullopt when
// none folds. foldable(value, reader): whether `value` may be skipped,
// `reader` being its only reader (a transpose only this dot reads, or only
// the copy the dot reads). A transpose folds when the dot's free dims of
// that operand keep their order through the permutation, so that the
// result's dims are unchanged. A chain of view ops with a slice under the
// transpose folds when `foldable` allows each link and no reshape in it
// needs a copy of the sliced elements.
// `transpose` written by the dot it transposes, when that dot has batch
// dims, only the transpose reads it, and the transpose keeps the last dim
// last (each product matrix then keeps its contiguous rows, written with
// a longer leading dim: the same gemm calls, so the same bits). `dot` is
// the dot's own folding, if any. JAX's attention transposes the heads'
// outputs [batch, heads, seq, d] to [batch, seq, heads, d] before the
// output projection: GPT-2 small copied 12 of them a run (0.9 ms).
std::optional<FoldedDot> FoldOutputTranspose(const Instruction& transpose, const FoldedDot* dot);

std::optional<FoldedDot> FoldTransposes(
    const Instruction& dot,
    absl::FunctionRef<bool(const Instruction& value, const Instruction& reader)> foldable);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_TRANSPOSE_FOLDING_H_
