// Checks of a transpose's permutation, which an unverified module may get
// wrong: shared by the passes that rewrite transposes and the executor's
// plan that folds them into dots.
#ifndef HLO_IR_PERMUTATION_H_
#define HLO_IR_PERMUTATION_H_

#include <cstdint>

#include "absl/types/span.h"
#include "ir/instruction.h"

namespace hlo {

// `perm` holds each of 0..rank-1 once.
bool IsPermutation(absl::Span<const int64_t> perm, int64_t rank);
// A transpose with one array operand and a valid permutation of the
// operand's and result's rank.
bool IsWellFormedTranspose(const Instruction& inst);

}  // namespace hlo

#endif  // HLO_IR_PERMUTATION_H_
