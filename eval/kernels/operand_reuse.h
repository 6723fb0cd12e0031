// When a kernel may take an operand's buffer as its result (update it in
// place, or keep its bytes): the value's only reference is the one the
// frame passes (Value::unique, the caller's business) and no other
// instruction reads it, which this answers from the graph.
#ifndef HLO_EVAL_KERNELS_OPERAND_REUSE_H_
#define HLO_EVAL_KERNELS_OPERAND_REUSE_H_

#include <cstdint>

#include "ir/instruction.h"

namespace hlo {

// True when `inst` is the only reader of its operand k: the producing
// instruction has this one user, is not its computation's root, and is no
// other operand of `inst` as well.
bool SoleReaderOfOperand(const Instruction& inst, int64_t k);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_OPERAND_REUSE_H_
