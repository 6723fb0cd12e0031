#include "golden/runner.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <system_error>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "check/check_status.h"
#include "check/check_tool.h"
#include "check/filecheck.h"
#include "check/source_text.h"
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

void Fail(TestOutcome* outcome, std::string reason, std::string details = "") {
  outcome->passed = false;
  outcome->reason = std::move(reason);
  // Kept until the summary for every test: a megabytes-long stderr would
  // only be cut to its first lines there.
  constexpr size_t kMaxDetails = 65536;
  if (details.size() > kMaxDetails) {
    details.resize(kMaxDetails);
    details += "\n...\n";
  }
  outcome->details = std::move(details);
}

// Compares `actual` with the expected file; on a difference fails `outcome`
// or, under --update, rewrites the file.
bool CompareWithFile(const TestFile& test, const std::string& relative, const std::string& what,
                     const std::string& actual, const RunnerOptions& options,
                     TestOutcome* outcome) {
  std::string path = (fs::path(test.root) / relative).string();
  std::string expected, error;
  bool exists = ReadFile(path, &expected, &error);
  std::error_code ec;
  if (!exists && fs::exists(fs::symlink_status(path, ec))) {
    Fail(outcome, absl::StrCat(what, ": cannot read ", error));
    return false;
  }
  if (exists && SameText(expected, actual)) return true;
  if (options.update) {
    if (!WriteFile(path, actual, &error)) {
      Fail(outcome, absl::StrCat(what, " differs; --update cannot write ", error));
      return false;
    }
    outcome->updated.push_back(relative);
    return true;
  }
  if (!exists) {
    Fail(outcome, absl::StrCat(what, ": ", relative, " is missing (--update writes it)"));
    if (test.text.find("CHECK") != std::string::npos) {
      absl::StrAppend(&outcome->reason, "; to match the file's CHECK lines instead, end the RUN ",
                      "line with `| hlo-check %s`");
    }
    return false;
  }
  std::string reason = absl::StrCat(what, " differs from ", relative);
  std::vector<int> cases = DifferingCases(expected, actual);
  if (!cases.empty()) {
    absl::StrAppend(&reason, " (case", cases.size() > 1 ? "s " : " ", absl::StrJoin(cases, ", "),
                    ")");
  }
  Fail(outcome, reason, UnifiedDiff(expected, actual, relative, "actual"));
  return false;
}

enum class Update { kNone, kWritten, kFailed };

// The value of `--NAME=V`, `-NAME=V`, `--NAME V` or `-NAME V` at argv[*k].
bool OptionValue(const std::vector<std::string>& argv, size_t* k, std::string_view name,
                 std::string* value) {
  const std::string& arg = argv[*k];
  for (std::string_view dashes : {"--", "-"}) {
    std::string flag = std::string(dashes) + std::string(name);
    if (arg.rfind(flag + "=", 0) == 0) {
      *value = arg.substr(flag.size() + 1);
      return true;
    }
    if (arg == flag && *k + 1 < argv.size()) {
      *value = argv[++*k];
      return true;
    }
  }
  return false;
}

// --update of a checker's CHECK lines: the prefix it checks, the file it
// reads (--input-file, else its standard input).
Update UpdateCheckLines(TestFile* test, const ShellResult& result, const Command& command,
                        TestOutcome* outcome) {
  std::vector<std::string> prefixes;
  std::string input_file;
  bool checks_this_file = false;
  for (size_t k = 1; k < command.argv.size(); ++k) {
    std::string value;
    if (OptionValue(command.argv, &k, "check-prefix", &value)) {
      prefixes.push_back(value);
    } else if (OptionValue(command.argv, &k, "check-prefixes", &value)) {
      for (absl::string_view p : absl::StrSplit(value, ',')) prefixes.emplace_back(p);
    } else if (OptionValue(command.argv, &k, "input-file", &value)) {
      input_file = value;
    } else if (command.argv[k] == test->relative) {
      checks_this_file = true;
    }
  }
  if (!checks_this_file) return Update::kNone;
  if (prefixes.size() > 1) {
    Fail(outcome,
         absl::StrCat("--update writes one prefix per command, not ", absl::StrJoin(prefixes, ","),
                      ": give each prefix a RUN line of its own"));
    return Update::kFailed;
  }
  std::string output = result.last_input, error;
  if (!input_file.empty() &&
      !ReadFile((fs::path(test->root) / input_file).string(), &output, &error)) {
    return Update::kNone;
  }
  std::string text =
      RewriteCheckLines(test->text, output, prefixes.empty() ? "CHECK" : prefixes[0]);
  if (!WriteFile((fs::path(test->root) / test->relative).string(), text, &error)) {
    Fail(outcome, absl::StrCat("--update cannot write ", error));
    return Update::kFailed;
  }
  test->text = text;
  outcome->updated.push_back(test->relative);
  return Update::kWritten;
}

// Whether hlo-check, run as `command`, finds no check strings in the test's
// file: the check library's verdict on the file (read with the command's own
// flags), not the wording of hlo-check's message.
bool NoCheckStrings(const TestFile& test, const Command& command) {
  std::ostringstream ignored;
  auto flags = check::ParseCheckFlags(command.argv, ignored, ignored);
  if (!flags.ok() || !flags->has_value() || (*flags)->check_file != test.relative) return false;
  absl::Status verdict = check::ReadCheckFile(test.relative, test.text, (*flags)->options);
  return check::VerdictOf(verdict) == check::CheckVerdict::kNoCheckStrings;
}

// --update for a failed checker: new CHECK lines or a new expected file,
// only when every other command succeeded and the checker came to a verdict.
Update UpdateChecker(TestFile* test, const ShellResult& result, size_t command_count,
                     const Command& command, TestOutcome* outcome) {
  if (result.commands.size() != command_count || command.negate ||
      result.commands.back().redirect_failed) {
    return Update::kNone;
  }
  for (size_t k = 0; k + 1 < result.commands.size(); ++k) {
    if (!result.commands[k].ok) return Update::kNone;
  }
  const std::string& program = command.argv[0];
  std::string error;
  if (program == "diff" && !result.diff_expected_file.empty()) {
    std::string path = (fs::path(test->root) / result.diff_expected_file).string();
    std::error_code ec;
    bool missing = !fs::exists(fs::symlink_status(path, ec));
    if (result.status != 1 && !(result.status == 2 && missing)) return Update::kNone;
    std::string target = result.diff_expected_file == test->relative
                             ? SiblingPath(*test, ".expected.hlo")
                             : result.diff_expected_file;
    if (!WriteFile((fs::path(test->root) / target).string(), result.last_input, &error)) {
      Fail(outcome, absl::StrCat("--update cannot write ", error));
      return Update::kFailed;
    }
    outcome->updated.push_back(target);
    return Update::kWritten;
  }
  bool is_check = program == "hlo-check" || program == "FileCheck";
  // A failed check, or a new test with no CHECK lines yet.
  if (!is_check ||
      (result.status != 1 && !(result.status == 2 && NoCheckStrings(*test, command)))) {
    return Update::kNone;
  }
  return UpdateCheckLines(test, result, command, outcome);
}

// The failure's one-line reason and details.
void DescribeFailure(const ShellResult& result, const RunLine& run, const std::string& where,
                     const std::string& command, TestOutcome* outcome) {
  const CommandResult* failed = &result.commands.back();
  for (const CommandResult& done : result.commands) {
    if (!done.ok) {
      failed = &done;
      break;
    }
  }
  bool checker = failed->program == "hlo-check" || failed->program == "FileCheck";
  std::string reason;
  if (checker && failed->status == 1) {
    reason = absl::StrCat(failed->program, " failed", where);
  } else if (failed->program == "diff" && failed->status == 1) {
    reason = absl::StrCat("diff found a difference", where);
  } else {
    reason =
        absl::StrCat(failed->program, " exited ", failed->status,
                     run.expect_error && failed == &result.commands.back() ? ", expected 1" : "",
                     where, ": $ ", command);
  }
  // hlo-test's own word on the command (killed, a redirection that failed)
  // ends its stderr, which may be long: it goes into the reason.
  const std::string& err = failed->stderr_text;
  if (!failed->note.empty()) absl::StrAppend(&reason, ": ", failed->note);
  bool diff_output = failed->program == "diff" && failed->status == 1;
  Fail(outcome, reason, diff_output ? result.stdout_text : err);
}

bool RunOne(TestFile* test, const RunLine& run, const RunnerOptions& options,
            TestOutcome* outcome) {
  std::string where = run.line > 0 ? absl::StrCat(" (RUN line ", run.line, ")") : "";
  std::string command = Substitute(run.command, *test, options.temp_directory);
  auto pipelines = ParseCommandLine(command);
  if (!pipelines.ok()) {
    Fail(outcome, absl::StrCat("bad RUN line", where, ": ", pipelines.status().message()));
    return false;
  }
  ShellOptions shell{test->root, options.tool_directory, options.timeout_seconds,
                     options.max_output_bytes};
  ShellResult result = RunCommandLine(*pipelines, shell);
  size_t command_count = 0;
  for (const Pipeline& pipeline : *pipelines) command_count += pipeline.size();
  // RUN-ERROR: the last command must exit 1; the others as usual.
  bool ok = result.ok;
  if (run.expect_error) {
    ok = result.status == 1 && result.commands.size() == command_count;
    for (size_t k = 0; k + 1 < result.commands.size(); ++k) ok = ok && result.commands[k].ok;
  }
  if (!ok) {
    Update update = Update::kNone;
    if (options.update && result.last_checks) {
      update = UpdateChecker(test, result, command_count, pipelines->back().back(), outcome);
    }
    if (update == Update::kFailed) return false;
    if (update == Update::kWritten) {
      // The new lines must pass: run the line again, without --update.
      RunnerOptions again = options;
      again.update = false;
      if (RunOne(test, run, again, outcome)) return true;
      outcome->reason = absl::StrCat("still failing after --update: ", outcome->reason);
      return false;
    }
    DescribeFailure(result, run, where, command, outcome);
    return false;
  }
  if (result.last_checks) return true;
  bool same = true;
  std::string out_file = SiblingPath(*test, ".out");
  std::error_code ec;
  if (!run.expect_error || fs::exists(fs::symlink_status(fs::path(test->root) / out_file, ec))) {
    same = CompareWithFile(*test, out_file, "stdout", result.stdout_text, options, outcome);
  }
  if (same && run.expect_error) {
    same = CompareWithFile(*test, SiblingPath(*test, ".err"), "stderr", result.stderr_text, options,
                           outcome);
  }
  return same;
}

}  // namespace

TestOutcome RunTest(const TestFile& file, const RunnerOptions& options) {
  TestOutcome outcome;
  outcome.name = file.relative;
  TestFile test = file;  // --update may rewrite its text between RUN lines
  RunnerOptions run_options = options;
  if (test.xfail) run_options.update = false;  // a failure is what it expects
  if (test.runs.empty()) {
    // A broken test, not the failure an XFAIL expects.
    Fail(&outcome, "no RUN line, and no run: line in an hlo-test.cfg above it");
    outcome.verdict = Verdict::kFail;
    return outcome;
  }
  for (const RunLine& run : test.runs) {
    if (!RunOne(&test, run, run_options, &outcome)) break;
  }
  outcome.verdict = outcome.passed ? Verdict::kPass : Verdict::kFail;
  if (test.xfail) {
    outcome.verdict = outcome.passed ? Verdict::kXPass : Verdict::kXFail;
    if (outcome.passed) {
      outcome.reason = "passed, but it is marked `XFAIL: *` (expected to fail)";
    }
  }
  return outcome;
}

namespace {

struct Job {
  std::string file, root;
};

TestOutcome LoadAndRun(const Job& job, const RunnerOptions& options) {
  try {
    auto test = LoadTestFile(job.file, job.root);
    if (test.ok()) return RunTest(*test, options);
    TestOutcome outcome;
    outcome.name = job.file;
    outcome.verdict = Verdict::kFail;
    Fail(&outcome, std::string(test.status().message()));
    return outcome;
  } catch (const std::exception& e) {
    TestOutcome outcome;
    outcome.name = job.file;
    outcome.verdict = Verdict::kFail;
    Fail(&outcome, absl::StrCat("hlo-test: internal error: ", e.what()));
    return outcome;
  } catch (...) {
    TestOutcome outcome;
    outcome.name = job.file;
    outcome.verdict = Verdict::kFail;
    Fail(&outcome, "hlo-test: internal error");
    return outcome;
  }
}

// Runs `work` on `count` threads, or on as many as the system gives (at
// least this one).
// Address space left under RLIMIT_AS (`ulimit -v`), or INT64_MAX without one.
int64_t AddressSpaceLeft() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return INT64_MAX;
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  if (!(statm >> pages)) return INT64_MAX;
  return static_cast<int64_t>(limit.rlim_cur) - pages * sysconf(_SC_PAGESIZE);
}

// A new thread's stack reservation (glibc takes RLIMIT_STACK's, else 8 MiB).
int64_t ThreadStackBytes() {
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 8 << 20;
  return static_cast<int64_t>(limit.rlim_cur);
}

// What the tests' work needs besides the stacks (files read, outputs,
// matching): under a memory limit, threads stop before they take it, or a
// worker's read fails as "does not fit in memory" (or a thread's
// allocation aborts) with hundreds of idle stacks holding the room.
constexpr int64_t kWorkHeadroom = int64_t{256} << 20;

void RunOnThreads(int count, const std::function<void()>& work, std::ostream& out) {
  std::vector<std::thread> threads;
  const int64_t stack = ThreadStackBytes();
#if defined(M_ARENA_MAX)
  // Under a memory limit, every thread sharing malloc's main arena: an arena
  // of a thread's own reserves 64 MiB of address space when the thread first
  // allocates, after the check below, and four of them take all of
  // kWorkHeadroom (a selftest under 600 MiB failed reads late in its run).
  if (count > 1 && AddressSpaceLeft() != INT64_MAX) mallopt(M_ARENA_MAX, 1);
#endif
  for (int t = 0; t < count; ++t) {
    if (t > 0 && AddressSpaceLeft() < kWorkHeadroom + stack) {
      out << "hlo-test: note: -j " << count << ": the system gave " << t
          << " threads (the memory limit leaves room for no more stacks); running on " << t << "\n";
      break;
    }
    try {
      threads.emplace_back(work);
    } catch (const std::system_error& e) {
      out << "hlo-test: note: -j " << count << ": the system gave " << t << " threads (" << e.what()
          << "); running on " << std::max(t, 1) << "\n";
      break;
    }
  }
  if (threads.empty()) work();
  for (std::thread& thread : threads) thread.join();
}

int PrintSummary(const std::vector<TestOutcome>& outcomes, const RunnerOptions& options,
                 std::ostream& out) {
  int passed = 0, failed = 0, xfailed = 0;
  for (const TestOutcome& outcome : outcomes) {
    for (const std::string& file : outcome.updated) out << "updated " << file << "\n";
    switch (outcome.verdict) {
      case Verdict::kPass:
        ++passed;
        if (options.verbose) out << "PASS: " << outcome.name << "\n";
        continue;
      case Verdict::kXFail:
        ++xfailed;
        if (options.verbose) out << "XFAIL: " << outcome.name << ": " << outcome.reason << "\n";
        continue;
      case Verdict::kFail:
      case Verdict::kXPass:
        ++failed;
        out << (outcome.verdict == Verdict::kXPass ? "XPASS: " : "FAIL: ") << outcome.name << ": "
            << outcome.reason << "\n";
        if (!outcome.details.empty()) out << Indent(outcome.details);
    }
  }
  out << passed << " passed, " << failed << " failed";
  if (xfailed > 0) out << ", " << xfailed << " xfail";
  out << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int RunTests(const std::vector<std::string>& paths, const RunnerOptions& options,
             std::ostream& out) {
  std::vector<Job> jobs;
  std::unique_ptr<RE2> filter;
  if (!options.filter.empty()) {
    filter = std::make_unique<RE2>(options.filter, RE2::Quiet);
    if (!filter->ok()) {
      out << "hlo-test: --filter: bad regex '" << options.filter << "': " << filter->error()
          << "\n";
      return 2;
    }
  }
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      out << "hlo-test: " << path << ": " << (ec ? ec.message() : "no such file or directory")
          << "\n";
      return 2;
    }
    if (!fs::is_regular_file(path, ec) && !fs::is_directory(path, ec)) {
      out << "hlo-test: " << path << ": not a test file or folder\n";
      return 2;
    }
    auto files = FindTestFiles(path);
    if (!files.ok()) {
      out << "hlo-test: " << files.status().message() << "\n";
      return 2;
    }
    for (const std::string& file : *files) {
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
    for (size_t k = next++; k < jobs.size(); k = next++) outcomes[k] = LoadAndRun(jobs[k], options);
  };
  RunOnThreads(std::max(1, std::min<int>(options.jobs, static_cast<int>(jobs.size()))), work, out);
  return PrintSummary(outcomes, options, out);
}

}  // namespace hlo::golden
