// hlo-check: FileCheck's directives and verdicts, on RE2 (check/).
//   hlo-check CHECK_FILE [--input-file FILE] [--check-prefix P]...
// Reads the input (standard input by default) and matches the CHECK lines of
// CHECK_FILE against it. Exit status 0 pass, 1 a check failed, 2 bad usage
// or a malformed check file. FileCheck's single-dash spelling of long
// options (-check-prefix=X) is accepted too, and its -DNAME=VALUE.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "check/filecheck.h"
#include "ir/read_file.h"

namespace {

// Reads `path` ("-": standard input) into `text`. Returns 0, or prints why
// not and returns FileCheck's status 2: a file that cannot be opened as
// FileCheck words it ("Could not open check file 'X': Is a directory"), an
// input past hlo-run's bound (ir/read_file.h: half of the memory the
// process may use; /dev/zero) located as hlo-run's ("PATH: error: cannot
// read: ... exceeds the input limit of N bytes").
int ReadAll(const std::string& path, const char* what, std::string* text) {
  std::FILE* in = stdin;
  if (path != "-") {
    std::error_code error;
    int reason = 0;
    if (std::filesystem::is_directory(path, error)) {
      reason = EISDIR;
    } else if ((in = std::fopen(path.c_str(), "rb")) == nullptr) {
      reason = errno != 0 ? errno : ENOENT;
    }
    if (reason != 0) {
      std::cerr << "hlo-check: Could not open " << what << " file '" << path
                << "': " << std::strerror(reason) << "\n";
      return 2;
    }
  }
  absl::StatusOr<std::string> data = hlo::ReadRestOfFile(in, path == "-" ? "<stdin>" : path);
  if (in != stdin) std::fclose(in);
  if (!data.ok()) {
    std::cerr << data.status().message() << "\n";
    return 2;
  }
  *text = std::move(*data);
  return 0;
}

// -check-prefix=X -> --check-prefix=X (FileCheck accepts both spellings);
// -DNAME=VALUE go to `defines` (FileCheck's -D takes its value attached).
// Returns false on a -D without one.
bool NormalizeArguments(int argc, char** argv, std::vector<std::string>* args,
                        std::vector<std::string>* defines) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.starts_with("-D")) {
      if (arg.size() == 2) return false;
      defines->push_back(arg.substr(2));
      continue;
    }
    if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' &&
        std::isalpha(static_cast<unsigned char>(arg[1]))) {
      arg = "-" + arg;
    }
    args->push_back(arg);
  }
  std::reverse(args->begin(), args->end());  // CLI11 parses a reversed vector
  return true;
}

constexpr const char* kDumpInputHelp =
    "The input dump shows the input with line numbers; under a line, each\n"
    "directive that matched or failed there is marked with the check file line:\n"
    "  ^~~  the directive's match\n"
    "  X~~  the directive failed (scanning from here)\n"
    "  !~~  a CHECK-NOT pattern found (it must not be there)\n"
    "  ?    the closest near miss of a failed directive\n";

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"hlo-check: match CHECK lines against an input (LLVM FileCheck's semantics, RE2)"};
  hlo::check::CheckOptions options;
  std::string check_file;
  std::string input_file = "-";
  std::vector<std::string> prefixes, prefix_lists, comment_prefixes;
  std::string dump_input = "fail";
  app.add_option("check-file", check_file, "file holding the CHECK lines")->required();
  app.add_option("--input-file", input_file, "the input to check (default: standard input)");
  app.add_option("--check-prefix", prefixes, "prefix of the directives (default CHECK)");
  app.add_option("--check-prefixes", prefix_lists, "comma-separated prefixes")->delimiter(',');
  app.add_option("--comment-prefixes", comment_prefixes,
                 "comma-separated prefixes that make a line a comment (default COM,RUN)")
      ->delimiter(',');
  app.add_option("--implicit-check-not", options.implicit_check_not,
                 "a pattern that must not occur anywhere a CHECK-NOT could look");
  app.add_flag("--match-full-lines", options.match_full_lines,
               "a pattern must match a whole line (blanks at its ends aside)");
  app.add_flag("--strict-whitespace", options.strict_whitespace,
               "do not fold runs of blanks into one space");
  app.add_flag("--allow-empty", options.allow_empty_input, "accept an empty input");
  app.add_flag("--allow-unused-prefixes", options.allow_unused_prefixes,
               "accept prefixes that no directive uses");
  app.add_flag("--enable-var-scope", options.enable_var_scope,
               "forget variables not starting with $ at each CHECK-LABEL block");
  app.add_option("--dump-input", dump_input, "print the annotated input: never, fail, always, help")
      ->check(CLI::IsMember({"never", "fail", "always", "help"}));
  app.add_option("--dump-input-context", options.dump_input_context,
                 "lines shown around each error in the input dump");
  app.add_flag("--ignore-case", options.ignore_case, "match without regard to case");
  int verbose = 0;
  bool very_verbose = false, color = false;
  app.add_flag("-v", verbose, "print a remark for each match (FileCheck's -v)");
  app.add_flag("--vv", very_verbose, "also for each CHECK-NOT that found nothing (-vv)");
  app.add_flag("--color", color, "accepted for FileCheck's sake; hlo-check does not colour");
  std::vector<std::string> args;
  if (!NormalizeArguments(argc, argv, &args, &options.defines)) {
    std::cerr << "hlo-check: for the -D option: requires a value (-DNAME=VALUE)\n";
    return 2;
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (dump_input == "help") {
      std::cout << kDumpInputHelp;
      return 0;
    }
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (dump_input == "help") {
    std::cout << kDumpInputHelp;
    return 0;
  }
  options.dump_input = dump_input == "never"    ? hlo::check::DumpInput::kNever
                       : dump_input == "always" ? hlo::check::DumpInput::kAlways
                                                : hlo::check::DumpInput::kFail;
  options.check_prefixes = prefixes;
  options.check_prefixes.insert(options.check_prefixes.end(), prefix_lists.begin(),
                                prefix_lists.end());
  if (!comment_prefixes.empty()) options.comment_prefixes = comment_prefixes;
  options.verbose = very_verbose ? 2 : verbose > 0 ? 1 : 0;
  std::string check_text, input_text;
  if (int status = ReadAll(check_file, "check", &check_text); status != 0) return status;
  if (int status = ReadAll(input_file, "input", &input_text); status != 0) return status;
  std::string input_name = input_file == "-" ? "<stdin>" : input_file;
  auto result = hlo::check::RunFileCheck(check_file, check_text, input_name, input_text, options);
  std::cerr << result.messages;
  return result.exit_code;
}

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "hlo-check: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "hlo-check: " << e.what() << "\n";
  }
  return 2;
}
