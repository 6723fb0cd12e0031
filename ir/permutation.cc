#include "ir/permutation.h"

#include <vector>

namespace hlo {

bool IsPermutation(absl::Span<const int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank) return false;
  std::vector<bool> seen(perm.size(), false);
  for (int64_t d : perm) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

bool IsWellFormedTranspose(const Instruction& inst) {
  if (inst.opcode() != Opcode::kTranspose || inst.operand_count() != 1 || !inst.shape().IsArray() ||
      !inst.operand(0)->shape().IsArray()) {
    return false;
  }
  const int64_t rank = inst.shape().rank();
  return inst.operand(0)->shape().rank() == rank &&
         IsPermutation(inst.GetInts(AttrKind::kDimensions), rank);
}

}  // namespace hlo
