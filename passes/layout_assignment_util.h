// Layout arithmetic and small IR builders shared by layout-assignment,
// layout-normalization, transpose-folding and reshape-mover.
//
// Layouts are compared and derived by their minor_to_major only: that is all
// hlo-run reads (bitcast's element order). Other layout fields (tiles, memory
// space, ...) stay where they were written and are not propagated.
#ifndef HLO_PASSES_LAYOUT_ASSIGNMENT_UTIL_H_
#define HLO_PASSES_LAYOUT_ASSIGNMENT_UTIL_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "ir/computation.h"
#include "ir/module.h"
#include "ir/permutation.h"

namespace hlo {

using MinorToMajor = absl::InlinedVector<int64_t, 4>;

// The minor_to_major of an array shape ({rank-1..0} when it has no layout).
MinorToMajor MinorToMajorOf(const Shape& shape);
bool IsDefaultMinorToMajor(absl::Span<const int64_t> m2m);
// Array leaves compare by minor_to_major; tuples recurse. The shapes must be
// compatible.
bool SameLayouts(const Shape& a, const Shape& b);
// Every array leaf with a non-default minor_to_major?  (No leaf at all: false.)
bool HasNonDefaultLayout(const Shape& shape);

// `shape` (an array) with the plain layout `m2m`, interned.
const Shape* WithMinorToMajor(Module& module, const Shape& shape, absl::Span<const int64_t> m2m);
// `shape` (interned in `module`) with a default layout on every array leaf
// that has none (tuples recurse), interned; `&shape` when nothing is missing.
const Shape* WithLayoutsFilled(Module& module, const Shape& shape);
// `shape` with the default layout on every array leaf, interned.
const Shape* WithDefaultLayouts(Module& module, const Shape& shape);

// The layout of transpose(operand, perm)'s result that makes the transpose a
// bitcast: result m2m[k] = inverse(perm)[operand m2m[k]].
MinorToMajor TransposeResultLayout(absl::Span<const int64_t> operand_m2m,
                                   absl::Span<const int64_t> perm);
// The inverse: the operand layout that makes the transpose a bitcast when
// its result has `result_m2m`.
MinorToMajor TransposeOperandLayout(absl::Span<const int64_t> result_m2m,
                                    absl::Span<const int64_t> perm);
// A layout for an array of dims `to` that makes reshape between `from` (with
// its layout) and `to` a bitcast (both directions: the relation is
// symmetric), or nullopt when there is none (XLA's ReshapeIsBitcast). Size-1
// dimensions go next to their logical neighbours, so default maps to default.
std::optional<MinorToMajor> ReshapeBitcastLayout(const Shape& from, absl::Span<const int64_t> to);

// An elementwise instruction whose result has its operands' dimensions:
// every elementwise opcode except a bitcast-convert between element types
// of different widths, which adds or drops the minor dimension (XLA's
// HloInstruction::IsElementwise says the same).
bool IsElementwiseInstruction(const Instruction& inst);

std::vector<int64_t> InversePermutation(absl::Span<const int64_t> perm);
bool IsIdentityPermutation(absl::Span<const int64_t> perm);

// A new instruction appended to `comp` (named `prefix.N`).
Instruction* AddInstruction(Computation& comp, Opcode opcode, const Shape* shape,
                            absl::Span<Instruction* const> operands, std::string_view prefix);
Instruction* AddTranspose(Computation& comp, Instruction* operand, absl::Span<const int64_t> perm,
                          const Shape* shape);
Instruction* AddGetTupleElement(Computation& comp, Instruction* tuple, int64_t index);
// The dims of `shape` permuted: result dim i = shape dim perm[i].
std::vector<int64_t> PermuteDims(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm);

}  // namespace hlo

#endif  // HLO_PASSES_LAYOUT_ASSIGNMENT_UTIL_H_
