// The post order of a computation for the passes: the order of
// Computation::PostOrder (operands and control predecessors before their
// users, the stored order kept where it already is one), computed with an
// InstructionMarks bitmap instead of a hash set, and gathering the
// control-related instructions in the same walk (the passes need both, and a
// second walk over a large computation reads every instruction again).
#ifndef HLO_PASSES_POST_ORDER_H_
#define HLO_PASSES_POST_ORDER_H_

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "ir/module.h"

namespace hlo {

// When `control` is not null it receives what ControlRelated(comp) returns.
// When `calls` is not null, (*calls)[i] says whether an attribute of the
// i-th instruction of the order names computations (read with the control
// edges, so a pass need not read the attributes again).
std::vector<Instruction*> PostOrderOf(const Computation& comp,
                                      absl::flat_hash_set<const Instruction*>* control = nullptr,
                                      std::vector<bool>* calls = nullptr);

// Whether an attribute of `inst` names computations.
bool HasCallees(const Instruction& inst);

// The order of Module::PostOrder (callees before callers, the entry last),
// without a vector of callees per instruction and with a bitmap for the
// visited computations. `visit`, when given, sees every instruction of every
// computation once, for a pass that needs one more look at each.
std::vector<Computation*> ModulePostOrderOf(
    const Module& module,
    absl::FunctionRef<void(const Instruction&)> visit = [](const Instruction&) {});

}  // namespace hlo

#endif  // HLO_PASSES_POST_ORDER_H_
