// The StableHLO writer: a module as MLIR text that StableHLO's tools, JAX
// and XLA's StableHLO front end read (`hlo-opt --emit=stablehlo`).
//
// Every computation called by `call` or `fusion` (and the entry) becomes a
// `func.func`; the computations of reduce, sort, while, conditional, map,
// scatter and the collectives become the op's regions. Tuples built by
// `tuple` and the tuples of multi-result ops (reduce, sort, while, ...)
// travel as their elements (`%3#1`), as StableHLO writes them; a tuple value
// is built (`stablehlo.tuple`) only where one is needed. Layouts are not part
// of StableHLO: a copy is its operand, and a bitcast becomes the transposes
// and reshape that give the same logical result.
#ifndef HLO_STABLEHLO_WRITER_H_
#define HLO_STABLEHLO_WRITER_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo::stablehlo {

// The module as StableHLO text; a located error for an instruction that
// has no StableHLO form (or none written yet). Common ops are written in
// their custom assembly, as JAX prints them, the others in MLIR's generic
// form; `generic` writes every op in the generic form (which MLIR's parser
// reads without the StableHLO dialect, as mlir-opt's
// --mlir-print-op-generic prints).
absl::StatusOr<std::string> PrintStableHlo(const Module& module, bool generic = false);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_WRITER_H_
