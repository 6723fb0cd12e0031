// hlo-check's logic (check/check_tool.h).
#include "check/check_tool.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "check/check_status.h"
#include "check/filecheck.h"
#include "ir/located_status.h"
#include "ir/read_file.h"

namespace hlo::check {

namespace {

// -check-prefix=X -> --check-prefix=X (FileCheck accepts both spellings);
// -DNAME=VALUE go to `defines` (FileCheck's -D takes its value attached).
// The arguments for CLI11, reversed as it parses them; a -D without a value
// is a usage error.
absl::StatusOr<std::vector<std::string>> NormalizeArguments(const std::vector<std::string>& argv,
                                                            std::vector<std::string>* defines) {
  std::vector<std::string> args;
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string arg = argv[i];
    if (arg.starts_with("-D")) {
      if (arg.size() == 2) {
        return CheckError(CheckVerdict::kUsage,
                          "for the -D option: requires a value (-DNAME=VALUE)");
      }
      defines->push_back(arg.substr(2));
      continue;
    }
    if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' &&
        std::isalpha(static_cast<unsigned char>(arg[1]))) {
      arg = "-" + arg;
    }
    args.push_back(arg);
  }
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  return args;
}

constexpr const char* kDumpInputHelp =
    "The input dump shows the input with line numbers; under a line, each\n"
    "directive that matched or failed there is marked with the check file line:\n"
    "  ^~~  the directive's match\n"
    "  X~~  the directive failed (scanning from here)\n"
    "  !~~  a CHECK-NOT pattern found (it must not be there)\n"
    "  ?    the closest near miss of a failed directive\n";

// The command line's raw values, before they become CheckOptions.
struct RawFlags {
  std::vector<std::string> prefixes, prefix_lists, comment_prefixes;
  std::string dump_input = "fail";
  int verbose = 0;
  bool very_verbose = false;
  bool color = false;
};

void AddOptions(CLI::App& app, CheckFlags& f, RawFlags& raw) {
  CheckOptions& o = f.options;
  app.add_option("check-file", f.check_file, "file holding the CHECK lines")->required();
  app.add_option("--input-file", f.input_file, "the input to check (default: standard input)");
  app.add_option("--check-prefix", raw.prefixes, "prefix of the directives (default CHECK)");
  app.add_option("--check-prefixes", raw.prefix_lists, "comma-separated prefixes")->delimiter(',');
  app.add_option("--comment-prefixes", raw.comment_prefixes,
                 "comma-separated prefixes that make a line a comment (default COM,RUN)")
      ->delimiter(',');
  app.add_option("--implicit-check-not", o.implicit_check_not,
                 "a pattern that must not occur anywhere a CHECK-NOT could look");
  app.add_flag("--match-full-lines", o.match_full_lines,
               "a pattern must match a whole line (blanks at its ends aside)");
  app.add_flag("--strict-whitespace", o.strict_whitespace,
               "do not fold runs of blanks into one space");
  app.add_flag("--allow-empty", o.allow_empty_input, "accept an empty input");
  app.add_flag("--allow-unused-prefixes", o.allow_unused_prefixes,
               "accept prefixes that no directive uses");
  app.add_flag("--enable-var-scope", o.enable_var_scope,
               "forget variables not starting with $ at each CHECK-LABEL block");
  app.add_option("--dump-input", raw.dump_input,
                 "print the annotated input: never, fail, always, help")
      ->check(CLI::IsMember({"never", "fail", "always", "help"}));
  app.add_option("--dump-input-context", o.dump_input_context,
                 "lines shown around each error in the input dump");
  app.add_flag("--ignore-case", o.ignore_case, "match without regard to case");
  app.add_flag("-v", raw.verbose, "print a remark for each match (FileCheck's -v)");
  app.add_flag("--vv", raw.very_verbose, "also for each CHECK-NOT that found nothing (-vv)");
  app.add_flag("--color", raw.color, "accepted for FileCheck's sake; hlo-check does not colour");
}

// The raw values into the options.
void FinishOptions(const RawFlags& raw, CheckOptions& o) {
  o.dump_input = raw.dump_input == "never"    ? DumpInput::kNever
                 : raw.dump_input == "always" ? DumpInput::kAlways
                                              : DumpInput::kFail;
  o.check_prefixes = raw.prefixes;
  o.check_prefixes.insert(o.check_prefixes.end(), raw.prefix_lists.begin(), raw.prefix_lists.end());
  if (!raw.comment_prefixes.empty()) o.comment_prefixes = raw.comment_prefixes;
  o.verbose = raw.very_verbose ? 2 : raw.verbose > 0 ? 1 : 0;
}

}  // namespace

absl::StatusOr<std::optional<CheckFlags>> ParseCheckFlags(const std::vector<std::string>& argv,
                                                          std::ostream& out, std::ostream& err) {
  CLI::App app{"hlo-check: match CHECK lines against an input (LLVM FileCheck's semantics, RE2)"};
  CheckFlags f;
  RawFlags raw;
  AddOptions(app, f, raw);
  absl::StatusOr<std::vector<std::string>> args = NormalizeArguments(argv, &f.options.defines);
  if (!args.ok()) {
    err << "hlo-check: " << args.status().message() << "\n";
    return args.status();
  }
  try {
    app.parse(*args);
  } catch (const CLI::ParseError& e) {
    if (raw.dump_input == "help") {
      out << kDumpInputHelp;
      return std::nullopt;
    }
    if (app.exit(e, out, err) == 0) return std::nullopt;
    return CheckError(CheckVerdict::kUsage, e.what());
  }
  if (raw.dump_input == "help") {
    out << kDumpInputHelp;
    return std::nullopt;
  }
  FinishOptions(raw, f.options);
  return f;
}

// `path` ("-": standard input), read within hlo-run's bound (ir/read_file.h:
// half of the memory the process may use). Not opening it is FileCheck's
// "Could not open" (RunHloCheck words it); an input past the bound is a
// located error, as hlo-run words it ("PATH: error: cannot read: ...
// exceeds the input limit of N bytes").
absl::StatusOr<std::string> ReadCheckInput(const std::string& path) {
  std::FILE* in = stdin;
  if (path != "-") {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      return CheckError(CheckVerdict::kCannotRead, std::strerror(EISDIR));
    }
    if ((in = std::fopen(path.c_str(), "rb")) == nullptr) {
      return CheckError(CheckVerdict::kCannotRead, std::strerror(errno != 0 ? errno : ENOENT));
    }
  }
  absl::StatusOr<std::string> data = ReadRestOfFile(in, path == "-" ? "<stdin>" : path);
  if (in != stdin) std::fclose(in);
  if (!data.ok()) {
    return MarkLocated(CheckError(CheckVerdict::kCannotRead, std::string(data.status().message())));
  }
  return data;
}

namespace {

// FileCheck's "Could not open check file 'X': REASON", or a located error
// (an input past the bound) as it is.
absl::Status ReportUnreadable(const char* what, const std::string& path, const absl::Status& st,
                              std::ostream& err) {
  if (IsLocated(st)) {
    err << st.message() << "\n";
  } else {
    err << "hlo-check: Could not open " << what << " file '" << path << "': " << st.message()
        << "\n";
  }
  return st;
}

}  // namespace

absl::Status RunHloCheck(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err) {
  absl::StatusOr<std::optional<CheckFlags>> flags = ParseCheckFlags(args, out, err);
  if (!flags.ok()) return flags.status();
  if (!flags->has_value()) return absl::OkStatus();  // help
  const CheckFlags& f = **flags;
  absl::StatusOr<std::string> check_text = ReadCheckInput(f.check_file);
  if (!check_text.ok()) return ReportUnreadable("check", f.check_file, check_text.status(), err);
  absl::StatusOr<std::string> input_text = ReadCheckInput(f.input_file);
  if (!input_text.ok()) return ReportUnreadable("input", f.input_file, input_text.status(), err);
  std::string input_name = f.input_file == "-" ? "<stdin>" : f.input_file;
  CheckResult result = RunFileCheck(f.check_file, *check_text, input_name, *input_text, f.options);
  err << result.messages;
  return result.status;
}

}  // namespace hlo::check
