// Reading StableHLO (MLIR) text, as JAX prints it, into the IR.
//
// The text is read into an AST (reader.h), translated to HLO as XLA's
// StableHLO-to-HLO translation does (translator.h), and the HLO is parsed
// into a Module. Every error is `FILE:LINE:COL: error: ...` at the place in
// the StableHLO text, and instructions carry their op's line, so that the
// verifier's messages point there too.
#ifndef HLO_STABLEHLO_STABLEHLO_H_
#define HLO_STABLEHLO_STABLEHLO_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "parser/parser.h"

namespace hlo {

// True when the text, past blank lines and `//` comments, starts like MLIR:
// `module`, `func.func`, `#loc`/alias definitions or `"builtin.module"`.
bool LooksLikeStableHlo(std::string_view text);

// Parses StableHLO text into Modules: one, or one per piece of a file split
// by `// -----` (SplitStableHlo; pieces of only blanks and comments are
// skipped). The first error ends it.
// `options.filename` names the file in errors; `options.infer_shape` is
// handed to the HLO parser.
absl::StatusOr<std::vector<std::unique_ptr<Module>>> ParseStableHlo(
    std::string_view text, const ParseOptions& options = {});

// Splits text as MLIR's -split-input-file does: at every `// -----`,
// wherever it stands on its line (`// // -----` too); the rest of the
// marker's line is dropped. Each piece and the line its text starts on.
std::vector<TextPiece> SplitStableHlo(std::string_view text);

// One piece of a split file (SplitStableHlo), with the whole file's
// line numbers in errors and locations. A piece of nothing but blanks and
// comments gives NotFound.
absl::StatusOr<std::unique_ptr<Module>> ParseStableHloPiece(std::string_view text,
                                                            uint32_t first_line,
                                                            const ParseOptions& options);

// The HLO text the StableHLO text translates to (for debugging and tests).
absl::StatusOr<std::string> StableHloToHloText(std::string_view text,
                                               std::string_view filename = "<input>");

}  // namespace hlo

#endif  // HLO_STABLEHLO_STABLEHLO_H_
