// The HLO text printer: XLA's canonical text, in the style the module was
// read in (or a forced one).
#ifndef HLO_IR_HLO_PRINTER_H_
#define HLO_IR_HLO_PRINTER_H_

#include <string>

#include "ir/module.h"

namespace hlo {

// Prints the whole module with the module's own style.
std::string PrintModule(Module& module);
// Prints with an explicit style.
std::string PrintModule(Module& module, const PrintStyle& style);
// One instruction line (no indentation, no newline), for diagnostics.
std::string PrintInstruction(Module& module, const Instruction& inst, const PrintStyle& style);

}  // namespace hlo

#endif  // HLO_IR_HLO_PRINTER_H_
