// hlo-check: FileCheck's directives and verdicts, on RE2 (check/).
//   hlo-check CHECK_FILE [--input-file FILE] [--check-prefix P]...
// Reads the input (standard input by default) and matches the CHECK lines of
// CHECK_FILE against it. Exit status 0 pass, 1 a check failed, 2 bad usage
// or a malformed check file. FileCheck's single-dash spelling of long
// options (-check-prefix=X) is accepted too.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "check/filecheck.h"

namespace {

bool ReadAll(const std::string& path, std::string* text) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    *text = buffer.str();
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  text->assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  return !file.bad();
}

// -check-prefix=X -> --check-prefix=X (FileCheck accepts both spellings).
std::vector<std::string> NormalizeArguments(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' && std::isalpha(static_cast<unsigned char>(arg[1]))) {
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

}  // namespace

int main(int argc, char** argv) {
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
  try {
    app.parse(NormalizeArguments(argc, argv));
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
  std::string check_text, input_text;
  if (!ReadAll(check_file, &check_text)) {
    std::cerr << "hlo-check: cannot read check file '" << check_file << "'\n";
    return 2;
  }
  if (!ReadAll(input_file, &input_text)) {
    std::cerr << "hlo-check: cannot read input file '" << input_file << "'\n";
    return 2;
  }
  std::string input_name = input_file == "-" ? "<stdin>" : input_file;
  auto result = hlo::check::RunFileCheck(check_file, check_text, input_name, input_text, options);
  std::cerr << result.messages;
  return result.exit_code;
}
