#include "check/filecheck.h"

#include <memory>
#include <utility>
#include <vector>

#include "check/defines.h"
#include "check/diagnostics.h"
#include "check/directives.h"
#include "check/input_dump.h"
#include "check/matcher.h"
#include "check/source_text.h"
#include "ir/status_macros.h"

namespace hlo::check {

namespace {

// The check file read, with what its diagnostics point into.
struct ReadChecks {
  ReadChecks(const std::string& check_name, const std::string& check_text,
             const CheckOptions& options)
      : check_file(check_name, CanonicalizeText(check_text, options.strict_whitespace)),
        command_line("command line", ImplicitCheckNotText(options)),
        defines("Global defines", DefinesText(options.defines)) {}

  // Prefixes, -D and the directives: OK, or the verdict (reported to
  // `diagnostics` where it has a place).
  absl::Status Read(const CheckOptions& options) {
    if (!ValidPrefixes(options)) {
      std::string message =
          "supplied check prefix is invalid: prefixes must be unique, start with a letter and "
          "contain only letters, digits, hyphens and underscores";
      diagnostics.Plain("hlo-check: " + message);
      return CheckError(CheckVerdict::kBadPrefix, message);
    }
    HLO_RETURN_IF_ERROR(
        DefineCommandLineVariables(options.defines, defines, &variables, &names, &diagnostics));
    absl::StatusOr<std::vector<CheckString>> parsed =
        ParseCheckFile(check_file, command_line, options, &diagnostics, &names);
    if (!parsed.ok()) return parsed.status();
    checks = *std::move(parsed);
    return absl::OkStatus();
  }

  SourceText check_file, command_line, defines;
  Diagnostics diagnostics;
  VariableTable variables;
  VariableNames names;
  std::vector<CheckString> checks;
};

}  // namespace

absl::Status ReadCheckFile(const std::string& check_name, const std::string& check_text,
                           const CheckOptions& options) {
  ReadChecks read(check_name, check_text, options);
  return read.Read(options);
}

CheckResult RunFileCheck(const std::string& check_name, const std::string& check_text,
                         const std::string& input_name, const std::string& input_text,
                         const CheckOptions& options) {
  CheckResult result;
  ReadChecks read(check_name, check_text, options);
  result.status = read.Read(options);
  if (!result.status.ok()) {
    result.messages = read.diagnostics.Render();
    return result;
  }
  if (input_text.empty() && !options.allow_empty_input) {
    std::string message = "'" + input_name + "' is empty.";
    result.status = CheckError(CheckVerdict::kEmptyInput, message);
    result.messages = "hlo-check: error: " + message + "\n";
    return result;
  }
  SourceText input(input_name, CanonicalizeText(input_text, options.strict_whitespace));
  Matcher matcher(input, read.checks, options, &read.diagnostics, std::move(read.variables));
  bool passed = matcher.Run();
  if (!passed) result.status = CheckError(CheckVerdict::kMatchFailed, "a check failed");
  result.messages = read.diagnostics.Render();
  bool dump = options.dump_input == DumpInput::kAlways ||
              (options.dump_input == DumpInput::kFail && !passed);
  if (dump) {
    result.messages +=
        RenderInputDump(input, check_name, matcher.annotations(),
                        options.dump_input == DumpInput::kAlways ? -1 : options.dump_input_context);
  }
  return result;
}

}  // namespace hlo::check
