#include "check/filecheck.h"

#include <vector>

#include "check/defines.h"
#include "check/diagnostics.h"
#include "check/directives.h"
#include "check/input_dump.h"
#include "check/matcher.h"
#include "check/source_text.h"

namespace hlo::check {

CheckResult RunFileCheck(const std::string& check_name, const std::string& check_text,
                         const std::string& input_name, const std::string& input_text,
                         const CheckOptions& options) {
  CheckResult result;
  if (!ValidPrefixes(options)) {
    result.exit_code = 2;
    result.messages =
        "hlo-check: supplied check prefix is invalid: prefixes must be unique, start with a "
        "letter and contain only letters, digits, hyphens and underscores\n";
    return result;
  }
  SourceText check_file(check_name, CanonicalizeText(check_text, options.strict_whitespace));
  SourceText command_line("command line", ImplicitCheckNotText(options));
  SourceText defines("Global defines", DefinesText(options.defines));
  Diagnostics diagnostics;
  VariableTable variables;
  VariableNames names;
  if (!DefineCommandLineVariables(options.defines, defines, &variables, &names, &diagnostics)) {
    result.exit_code = 2;
    result.messages = diagnostics.Render();
    return result;
  }
  std::vector<CheckString> checks;
  if (int status =
          ParseCheckFile(check_file, command_line, options, &checks, &diagnostics, &names)) {
    result.exit_code = status;
    result.messages = diagnostics.Render();
    return result;
  }
  if (input_text.empty() && !options.allow_empty_input) {
    result.exit_code = 2;
    result.messages = "hlo-check: error: '" + input_name + "' is empty.\n";
    return result;
  }
  SourceText input(input_name, CanonicalizeText(input_text, options.strict_whitespace));
  Matcher matcher(input, checks, options, &diagnostics, std::move(variables));
  bool passed = matcher.Run();
  result.exit_code = passed ? 0 : 1;
  result.messages = diagnostics.Render();
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
