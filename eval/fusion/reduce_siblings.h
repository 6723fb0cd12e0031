// Sibling reductions in the executor: reduces that read one operand with
// simple reducers (eval/interp/reduce_one_pass.h), planned as one group that runs
// at the first of them in post order and reads the operand once (a row
// sum, a column sum and a maximum of one matrix: one pass instead of
// three). The others' results wait in their slots until their turn.
#ifndef HLO_EVAL_FUSION_REDUCE_SIBLINGS_H_
#define HLO_EVAL_FUSION_REDUCE_SIBLINGS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "eval/interp/reduce_one_pass.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

struct SiblingReduces {
  std::vector<const Instruction*> members;  // post order; the first runs the group
  std::vector<ReduceAxes> axes;             // per member
  std::vector<Opcode> ops;                  // per member
  int64_t rows = 1, cols = 1;               // the operand's view
  std::vector<int32_t> slots;               // each member's slot in its plan
  bool flush_denormals = false;
};

// The groups of a computation given its post order: at least two reduces
// of one operand, each of one array by a simple reducer with a scalar
// constant init, of the row, column or whole form over one view; each
// reduce in at most one group.
std::vector<std::unique_ptr<SiblingReduces>> FindSiblingReduces(
    absl::Span<const Instruction* const> order, bool flush_denormals);

// Runs every member on `operand`: results[k] is members[k]'s. Nullopt when
// the operand is not what the plan expected (each member then runs alone).
std::optional<std::vector<Value>> RunSiblingReduces(const SiblingReduces& group,
                                                    const Value& operand);

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_REDUCE_SIBLINGS_H_
