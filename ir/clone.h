// Copies of instructions and computations within a module.
#ifndef HLO_IR_CLONE_H_
#define HLO_IR_CLONE_H_

#include <memory>
#include <string_view>

#include "ir/module.h"

namespace hlo {

// `add.12` -> `add`: the stem copies take their fresh names from.
std::string_view NameStem(std::string_view name);

// A copy of `inst` (opcode, shape, attributes, literal, place) without
// operands, under a fresh name from the same stem.
std::unique_ptr<Instruction> CloneInstruction(Module& module, const Instruction& inst);
// The same copy under `name` (the caller keeps names unique in the module).
std::unique_ptr<Instruction> CloneInstruction(const Instruction& inst, std::string_view name);

// A copy of `comp` (instructions, parameters, root) added to `module` under
// a fresh name; the computations it calls are shared, not copied.
Computation* CloneComputation(Module& module, const Computation& comp);

}  // namespace hlo

#endif  // HLO_IR_CLONE_H_
