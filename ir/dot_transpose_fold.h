// A dot's operand read through a transpose folded into the dot (XLA's
// TransposeFolding): the batch and contracting dims of that side mapped
// through the permutation. hlo-opt's transpose-folding pass rewrites the
// dot with them; the executor's plan reads the transpose's operand with
// them (eval/fusion/transpose_folding.h).
#ifndef HLO_IR_DOT_TRANSPOSE_FOLD_H_
#define HLO_IR_DOT_TRANSPOSE_FOLD_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"

namespace hlo {

struct DotSideDims {
  std::vector<int64_t> batch, contracting;
};

// A transpose with dimensions `perm` has result dim d = operand dim
// perm[d], so dim d of the transpose is dim perm[d] of its operand. The
// dot's result lists each side's free dims in increasing order, so the fold
// is exact only when perm keeps that side's free dims in order; nullopt
// otherwise, or when a dim is out of range. `perm` must be a permutation.
std::optional<DotSideDims> DotSideThroughTranspose(absl::Span<const int64_t> perm,
                                                   absl::Span<const int64_t> batch,
                                                   absl::Span<const int64_t> contracting);

}  // namespace hlo

#endif  // HLO_IR_DOT_TRANSPOSE_FOLD_H_
