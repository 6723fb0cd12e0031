// XLA's reduce fusions (kInput) in the executor: a reduce by a simple
// reducer (add, multiply, maximum, minimum, and, or, xor) whose operand is
// the root of a fused elementwise group that nothing else reads folds the
// root's values as the group's loop makes them, a leaf of rows or a piece
// at a time in L1, in the one pass's order (eval/interp/reduce_one_pass.h),
// so with the bits of the same reduce over the materialised root, which is
// never made. An elementwise op alone (the square of a variance) is worth
// such a group too.
#ifndef HLO_EVAL_FUSION_GROUP_REDUCE_H_
#define HLO_EVAL_FUSION_GROUP_REDUCE_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/reduce_one_pass.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct FusedGroup;

struct GroupReduce {
  const Instruction* reduce = nullptr;
  OnePassForm form;
  Opcode op = Opcode::kAdd;
  // The group is (x - v) * (x - v), or (v - x) * (v - x), over inputs x (of
  // the root's shape) and v (broadcast along the columns, folded by a
  // column sum; or one value per row, folded by a row sum: a layer norm's
  // variance): the pass reads x and v and squares in registers
  // (SquaredDifferences), the group's loop never run. Indices into the
  // group's inputs.
  struct Squares {
    size_t x = 0, v = 0;
    bool v_first = false;
    bool per_row = false;
  };
  std::optional<Squares> squares;
};

// The reduce that may fold `root`'s values as they are made: root's only
// user, reading it as its one operand (with an init value), by a simple
// reducer on root's own type, over dims that make rows, columns or the
// whole array of a one pass, with rows of at least 32 elements and columns
// of at least 8 (narrower ones would make the loop in tiny pieces), and a
// whole array only where a lone reduce runs the one pass too (2^22
// elements and more: below, it sums in another order).
std::optional<GroupReduce> GroupReduceOf(const Instruction& root);

// GroupReduce::squares for a group (its members and inputs known) whose
// reduce is set: a batch norm's variance over channels, a layer norm's
// over each row.
std::optional<GroupReduce::Squares> MatchSquaredDifferences(const FusedGroup& group);

// Runs group.reduce over the group's loop on its inputs' values (inputs[i]
// for group.inputs[i]) with the reduce's init value.
absl::StatusOr<Value> RunGroupReduce(FusedGroup& group, absl::Span<const Value* const> inputs,
                                     const Value& init);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_GROUP_REDUCE_H_
