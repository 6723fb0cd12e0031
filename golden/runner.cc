#include "check/source_text.h"
#include "golden/runner.h"

#include <atomic>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "golden/check_generator.h"
#include "golden/compare.h"
#include "golden/shell.h"
#include "re2/re2.h"

namespace hlo::golden {

namespace fs = std::filesystem;

namespace {

std::string Indent(std::string_view text, size_t max_lines = 60) {
  std::string out;
  size_t count = 0;
  for (std::string_view line : check::SplitLines(text)) {
    if (line.empty() && count > 0 && &line.back() + 1 == text.data() + text.size()) break;
    if (++count > max_lines) {
      out += "    ...\n";
      break;
    }
    absl::StrAppend(&out, "    ", std::string(line), "\n");
  }
  return out;
}

// Compares `actual` with the expected file; on a difference fails `outcome`
// or, under --update, rewrites the file.
bool CompareWithFile(const TestFile& test, const std::string& relative, const std::string& what,
                     const std::string& actual, const RunnerOptions& options,
                     TestOutcome* outcome) {
  std::string path = (fs::path(test.root) / relative).string();
  std::string expected;
  bool exists = ReadFile(path, &expected);
  if (exists && SameText(expected, actual)) return true;
  if (options.update) {
    if (WriteFile(path, actual)) {
      outcome->updated.push_back(relative);
      return true;
    }
  }
  outcome->passed = false;
  if (!exists) {
    outcome->reason = absl::StrCat(what, ": ", relative, " is missing (--update writes it)");
    if (test.text.find("CHECK") != std::string::npos) {
      absl::StrAppend(&outcome->reason, "; to match the file's CHECK lines instead, end the RUN ",
                      "line with `| hlo-check %s`");
    }
    return false;
  }
  outcome->reason = absl::StrCat(what, " differs from ", relative);
  std::vector<int> cases = DifferingCases(expected, actual);
  if (!cases.empty()) {
    absl::StrAppend(&outcome->reason, " (case", cases.size() > 1 ? "s " : " ",
                    absl::StrJoin(cases, ", "), ")");
  }
  outcome->details = UnifiedDiff(expected, actual, relative, "actual");
  return false;
}

// --update for a failed checker: new CHECK lines or a new expected file.
bool UpdateChecker(const TestFile& test, const ShellResult& result, const Pipeline& last,
                   TestOutcome* outcome) {
  const Command& command = last.back();
  if (command.argv[0] == "diff" && !result.diff_expected_file.empty()) {
    std::string target = result.diff_expected_file == test.relative
                             ? SiblingPath(test, ".expected.hlo")
                             : result.diff_expected_file;
    if (!WriteFile((fs::path(test.root) / target).string(), result.last_input)) return false;
    outcome->updated.push_back(target);
    return true;
  }
  bool is_check = command.argv[0] == "hlo-check" || command.argv[0] == "FileCheck";
  // A failed check, or a new test with no CHECK lines yet.
  bool no_checks =
      result.commands.back().stderr_text.find("no check strings found") != std::string::npos;
  if (!is_check || (result.status != 1 && !no_checks)) return false;
  std::string prefix = "CHECK";
  bool checks_this_file = false;
  for (size_t k = 1; k < command.argv.size(); ++k) {
    const std::string& arg = command.argv[k];
    if (arg == test.relative) checks_this_file = true;
    for (std::string_view option : {"--check-prefix=", "-check-prefix="}) {
      if (arg.rfind(option, 0) == 0) prefix = arg.substr(option.size());
    }
  }
  if (!checks_this_file) return false;
  std::string text = RewriteCheckLines(test.text, result.last_input, prefix);
  if (!WriteFile((fs::path(test.root) / test.relative).string(), text)) return false;
  outcome->updated.push_back(test.relative);
  return true;
}

bool RunOne(const TestFile& test, const RunLine& run, const RunnerOptions& options,
            TestOutcome* outcome) {
  std::string where = run.line > 0 ? absl::StrCat(" (RUN line ", run.line, ")") : "";
  std::string command = Substitute(run.command, test, options.temp_directory);
  auto pipelines = ParseCommandLine(command);
  if (!pipelines.ok()) {
    outcome->passed = false;
    outcome->reason = absl::StrCat("bad RUN line", where, ": ", pipelines.status().message());
    return false;
  }
  ShellOptions shell{test.root, options.tool_directory, options.timeout_seconds};
  ShellResult result = RunCommandLine(*pipelines, shell);
  // RUN-ERROR: the last command must exit 1; the others as usual.
  bool ok = result.ok;
  if (run.expect_error) {
    ok = result.status == 1 && result.commands.size() ==
                                   pipelines->size() - 1 + pipelines->back().size();
    for (size_t k = 0; k + 1 < result.commands.size(); ++k) ok = ok && result.commands[k].ok;
  }
  if (!ok) {
    if (options.update && result.last_checks && result.commands.size() > 0 &&
        UpdateChecker(test, result, pipelines->back(), outcome)) {
      return true;
    }
    outcome->passed = false;
    const CommandResult* failed = &result.commands.back();
    for (const CommandResult& done : result.commands) {
      if (!done.ok) {
        failed = &done;
        break;
      }
    }
    bool checker = failed->program == "hlo-check" || failed->program == "FileCheck";
    if (checker && failed->status == 1) {
      outcome->reason = absl::StrCat(failed->program, " failed", where);
    } else if (failed->program == "diff" && failed->status == 1) {
      outcome->reason = absl::StrCat("diff found a difference", where);
    } else {
      outcome->reason = absl::StrCat(failed->program, " exited ", failed->status,
                                     run.expect_error && failed == &result.commands.back()
                                         ? ", expected 1"
                                         : "",
                                     where, ": $ ", command);
    }
    outcome->details = failed->program == "diff" ? result.stdout_text : failed->stderr_text;
    return false;
  }
  if (result.last_checks) return true;
  bool same = true;
  std::string out_file = SiblingPath(test, ".out");
  if (!run.expect_error || fs::exists(fs::path(test.root) / out_file)) {
    same = CompareWithFile(test, out_file, "stdout", result.stdout_text, options, outcome);
  }
  if (same && run.expect_error) {
    same = CompareWithFile(test, SiblingPath(test, ".err"), "stderr", result.stderr_text,
                           options, outcome);
  }
  return same;
}

}  // namespace

TestOutcome RunTest(const TestFile& test, const RunnerOptions& options) {
  TestOutcome outcome;
  outcome.name = test.relative;
  if (test.runs.empty()) {
    outcome.passed = false;
    outcome.reason = "no RUN line, and no run: line in an hlo-test.cfg above it";
    return outcome;
  }
  for (const RunLine& run : test.runs) {
    if (!RunOne(test, run, options, &outcome)) break;
  }
  return outcome;
}

int RunTests(const std::vector<std::string>& paths, const RunnerOptions& options,
             std::ostream& out) {
  struct Job {
    std::string file, root;
  };
  std::vector<Job> jobs;
  std::unique_ptr<RE2> filter;
  if (!options.filter.empty()) filter = std::make_unique<RE2>(options.filter);
  for (const std::string& path : paths) {
    if (!fs::exists(path)) {
      out << "hlo-test: " << path << ": no such file or directory\n";
      return 2;
    }
    for (const std::string& file : FindTestFiles(path)) {
      std::string root = SuiteRoot(file, path);
      if (filter && !RE2::PartialMatch(fs::path(file).lexically_relative(root).string(), *filter)) {
        continue;
      }
      jobs.push_back({file, root});
    }
  }
  std::vector<TestOutcome> outcomes(jobs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < jobs.size(); k = next++) {
      auto test = LoadTestFile(jobs[k].file, jobs[k].root);
      if (!test.ok()) {
        outcomes[k] = {jobs[k].file, false, std::string(test.status().message()), "", {}};
        continue;
      }
      outcomes[k] = RunTest(*test, options);
    }
  };
  std::vector<std::thread> threads;
  int count = std::max(1, std::min<int>(options.jobs, static_cast<int>(jobs.size())));
  for (int t = 0; t < count; ++t) threads.emplace_back(work);
  for (std::thread& thread : threads) thread.join();
  int passed = 0, failed = 0;
  for (const TestOutcome& outcome : outcomes) {
    for (const std::string& file : outcome.updated) out << "updated " << file << "\n";
    if (outcome.passed) {
      ++passed;
      if (options.verbose) out << "PASS: " << outcome.name << "\n";
      continue;
    }
    ++failed;
    out << "FAIL: " << outcome.name << ": " << outcome.reason << "\n";
    if (!outcome.details.empty()) out << Indent(outcome.details);
  }
  out << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace hlo::golden
