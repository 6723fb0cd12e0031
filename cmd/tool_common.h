// Helpers shared by the command-line tools: reading input, writing output
// atomically, and reporting errors.
#ifndef HLO_CMD_TOOL_COMMON_H_
#define HLO_CMD_TOOL_COMMON_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hlo {

// Reads a file, or standard input for "-".
absl::StatusOr<std::string> ReadInput(const std::string& path);
// Writes `data` to `path` through a temporary file in the same directory and
// a rename, so a failure never leaves a partial file; "-" is standard output.
absl::Status WriteOutputAtomically(const std::string& path, std::string_view data);
// Prints a status message to stderr (prefixed with the tool name unless it
// already starts with a file location).
void ReportError(std::string_view tool, const absl::Status& status);

}  // namespace hlo

#endif  // HLO_CMD_TOOL_COMMON_H_
