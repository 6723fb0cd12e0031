// Copies of instructions and computations within a module.
#ifndef HLO_IR_CLONE_H_
#define HLO_IR_CLONE_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "ir/module.h"

namespace hlo {

// `add.12` -> `add`: the stem copies take their fresh names from.
std::string_view NameStem(std::string_view name);

// A copy of `inst` (opcode, shape, attributes, literal, place) without
// operands, under a fresh name from the same stem.
std::unique_ptr<Instruction> CloneInstruction(Module& module, const Instruction& inst);
// The same copy under `name` (the caller keeps names unique in the module).
std::unique_ptr<Instruction> CloneInstruction(const Instruction& inst, std::string_view name);

// Copies `callee`'s instructions into `caller`, its parameters standing for
// `args` (one per parameter), each made by `copy` (which names it) and given
// its operands' copies; returns what stands for the callee's root. The
// copies, in post order, are appended to `made` when it is given. (Inlining
// a call, defusing a fusion: the caller then replaces the site's uses.)
Instruction* CopyBodyInto(const Computation& callee, absl::Span<Instruction* const> args,
                          Computation& caller,
                          absl::FunctionRef<std::unique_ptr<Instruction>(const Instruction&)> copy,
                          std::vector<Instruction*>* made = nullptr);

// A copy of `comp` (instructions, parameters, root) added to `module` under
// a fresh name; the computations it calls are shared, not copied.
Computation* CloneComputation(Module& module, const Computation& comp);

}  // namespace hlo

#endif  // HLO_IR_CLONE_H_
