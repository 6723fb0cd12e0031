// IR edits the reductions share: new parameters and constants, inlining a called computation, and
// the clean-up after a change.
#ifndef HLO_REDUCE_IR_EDIT_H_
#define HLO_REDUCE_IR_EDIT_H_

#include <memory>

#include "absl/types/span.h"
#include "ir/module.h"

namespace hlo::reduce {

// A new parameter of the entry computation, numbered after the others.
Instruction* AddEntryParameter(Module& module, const Shape* shape);

// `value` (0 or 1) in `shape` (an array of a numeric or pred type): a scalar
// constant, broadcast when the shape has dimensions. Null for other shapes.
Instruction* AddFilledConstant(Module& module, Computation& comp, const Shape& shape, int value);

// Copies `callee` into the computation of `call`, `args` standing for the
// callee's parameters, and makes the users of `call` use the copied root.
// False, changing nothing, when the counts or the root's shape disagree.
bool InlineInto(Module& module, Instruction* call, const Computation& callee,
                absl::Span<Instruction* const> args);

// After a change: dead instructions (not the side-effecting ones) and
// uncalled computations go, the entry's parameters are renumbered and the
// entry layout follows the entry computation where it no longer fits. The
// module must then be printed without signatures and parsed again.
void CleanUp(Module& module);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_IR_EDIT_H_
