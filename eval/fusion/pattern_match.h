// Small tests the pattern kernels' matchers share (eval/fusion/row_softmax.h,
// gelu_tanh.h): shapes alike, who reads an instruction, a scalar's broadcast.
#ifndef HLO_EVAL_FUSION_PATTERN_MATCH_H_
#define HLO_EVAL_FUSION_PATTERN_MATCH_H_

#include <algorithm>
#include <initializer_list>

#include "ir/instruction.h"

namespace hlo {

// Two arrays of one element type and dims.
inline bool SameArray(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.element_type() == b.element_type() && a.dims() == b.dims();
}

// Whether `inst` has readers, all among `users`, and may be computed inside
// a group (not the computation's result, no control edges).
inline bool OnlyUsers(const Instruction& inst, std::initializer_list<const Instruction*> users) {
  if (inst.is_root() || !inst.control_predecessors().empty() || inst.users().empty()) return false;
  for (const Instruction* u : inst.users()) {
    if (std::find(users.begin(), users.end(), u) == users.end()) return false;
  }
  return true;
}

// `b` broadcasts a scalar of `shape`'s element type to `shape`.
inline bool IsScalarBroadcast(const Instruction& b, const Shape& shape) {
  return b.opcode() == Opcode::kBroadcast && b.operand_count() == 1 &&
         SameArray(b.shape(), shape) && b.operand(0)->shape().IsArray() &&
         b.operand(0)->shape().rank() == 0 &&
         b.operand(0)->shape().element_type() == shape.element_type();
}

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_PATTERN_MATCH_H_
