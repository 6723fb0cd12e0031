// scan: not evaluated. Neither the operation semantics nor the StableHLO
// spec in shared/spec describes it, and the verifier takes its result shape
// as declared, so the order of inputs and carries among the operands, the
// signature of to_apply, and what num_carries, is_reverse and
// is_associative mean are not pinned down; guessing would give plausible
// but unfounded numbers, so this is an error that says why.
#include "eval/kernels/dynamic.h"

namespace hlo {

absl::StatusOr<Value> EvalScan(const Instruction&, Operands, KernelContext&) {
  return absl::UnimplementedError(
      "hlo-run cannot evaluate 'scan': its semantics (which operands are inputs and which "
      "carries, the signature of to_apply, num_carries, is_reverse, is_associative) are not "
      "specified by the operation semantics or the StableHLO spec");
}

}  // namespace hlo
