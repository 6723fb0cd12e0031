#include "eval/kernels/operand_reuse.h"

namespace hlo {

bool SoleReaderOfOperand(const Instruction& inst, int64_t k) {
  if (k < 0 || k >= inst.operand_count()) return false;
  const Instruction* op = inst.operand(k);
  if (op == nullptr || op->users().size() != 1 || op->is_root()) return false;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (i != k && inst.operand(i) == op) return false;
  }
  return true;
}

}  // namespace hlo
