// The direct reader: StableHLO text of the common kind, read into the IR in
// one pass, without the AST, the HLO text and the HLO parser that the
// general path (reader.h, translator.h, then ParseModule) goes through.
//
// It reads what JAX prints for most programs: a module of func.func's made of
// the ops in direct_ops.cc (elementwise ops, constants, broadcasts, reshapes,
// slices, dot_general, reduce, call, ...) in their pretty forms, without
// locations or dialect attributes. On anything else (another op or form, an
// attribute dictionary, a location, and every error) it gives up, and the
// caller reads the text with the general path, which also words the errors.
//
// What it returns is the Module the general path gives for the same text, to
// every instruction name, attribute, literal and source place:
// direct_reader_test.cc holds the two paths to that on every .mlir file in
// testdata/ and the shared cases.
#ifndef HLO_STABLEHLO_DIRECT_READER_H_
#define HLO_STABLEHLO_DIRECT_READER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "ir/module.h"

namespace hlo::stablehlo {

// The module of `text` (one piece of a file; its first line is `first_line`
// of the file), or null where the general path must read it; then
// `gave_up_at` (when given) gets the place where the reader stopped.
std::unique_ptr<Module> ReadDirect(std::string_view text, uint32_t first_line,
                                   SourceLoc* gave_up_at = nullptr);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_DIRECT_READER_H_
