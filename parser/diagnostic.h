// Formatting of error messages: `FILE:LINE:COL: error: message`, the source
// line, and a caret under the column.
#ifndef HLO_PARSER_DIAGNOSTIC_H_
#define HLO_PARSER_DIAGNOSTIC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ir/module.h"

namespace hlo {

std::string FormatDiagnostic(std::string_view filename, uint32_t line, uint32_t col,
                             std::string_view message, std::string_view source_line);

// Line `line` (1-based) of `text`, without its line break; empty past the end.
std::string_view SourceLineAt(std::string_view text, uint32_t line);

// `FILE:LINE:COL: error: %name: message` at the instruction's place in its
// module's source (with the source line and a caret), or `FILE: error: ...`
// for an instruction a pass made; a located InvalidArgument status.
absl::Status InstructionError(const Module& module, const Instruction& inst,
                              std::string_view message);

// The closest of `candidates` to `word` by edit distance, or empty when none
// is close enough to suggest.
std::string_view ClosestMatch(std::string_view word,
                              const std::vector<std::string_view>& candidates);

}  // namespace hlo

#endif  // HLO_PARSER_DIAGNOSTIC_H_
