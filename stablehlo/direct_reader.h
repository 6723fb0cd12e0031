// The direct reader: StableHLO text read into the IR in one pass, without
// the AST, the HLO text and the HLO parser that the general path (reader.h,
// translator.h, then ParseModule) goes through for the whole text.
//
// The ops JAX prints most (elementwise ops, constants, broadcasts, reshapes,
// slices, dot_general, reduce, while, call, ...: direct_ops.cc) it reads and
// emits itself. Any other op, and one whose reader meets a form it does not
// read before it has made anything, it hands to the general path one op at a
// time (direct_delegate.cc): the general reader reads it, the general
// translator translates it and the HLO parser reads that into this module.
// It gives up on the whole text, and the caller reads it with the general
// path (which also words the errors), at locations, meshes, attributes of a
// function or of the module it does not know, and at every error.
//
// What it returns is the Module the general path gives for the same text, to
// every instruction name, attribute, literal and source place:
// direct_reader_test.cc holds the two paths to that on every .mlir file in
// testdata/ and third_party/, the shared cases, and --emit=stablehlo's text of
// every testdata module, and the StableHLO fuzz target on every input.
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
