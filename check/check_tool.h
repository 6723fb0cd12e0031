// hlo-check's logic (cmd/hlo_check.cc is its thin main): the command line
// parsed into CheckFlags, and the run returning its verdict as a status
// (check/check_status.h), from which the main takes the exit status.
#ifndef HLO_CHECK_CHECK_TOOL_H_
#define HLO_CHECK_CHECK_TOOL_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "check/check_options.h"

namespace hlo::check {

struct CheckFlags {
  CheckOptions options;
  std::string check_file;
  std::string input_file = "-";
};

// Parses hlo-check's arguments (args[0] is the program's name). --help and
// --dump-input=help print to `out` and give nullopt (exit 0); a bad command
// line prints CLI11's message to `err` and is a kUsage error.
absl::StatusOr<std::optional<CheckFlags>> ParseCheckFlags(const std::vector<std::string>& args,
                                                          std::ostream& out, std::ostream& err);

// Reads a file ("-": standard input); a kCannotRead error says why, as
// FileCheck words it ("Is a directory", "No such file or directory").
absl::StatusOr<std::string> ReadCheckInput(const std::string& path);

// The whole run: the flags, the files, the checks; messages to `err`. OK
// when every check passed (or help was printed), else the verdict.
absl::Status RunHloCheck(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err);

}  // namespace hlo::check

#endif  // HLO_CHECK_CHECK_TOOL_H_
