#include "reduce/test_options.h"

#include <algorithm>

#include "ir/cpu_count.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "reduce/subprocess.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

namespace hlo::reduce {

void AddTestOptions(CLI::App& app, TestOptions& t) {
  app.add_option("--test", t.test,
                 "interestingness test: a shell command run with the candidate's path in place "
                 "of {} (or after it); exit 0 means interesting");
  app.add_flag("--crash", t.crash,
               "built-in test: the tool (--crash-tool) dies or reports an "
               "internal error");
  app.add_option("--crash-tool", t.builtin.crash_tool, "hlo-run (default) or hlo-opt")
      ->check(CLI::IsMember({"hlo-run", "hlo-opt"}));
  app.add_option("--error-matches", t.error_matches,
                 "built-in test: hlo-run fails with a message matching this RE2");
  app.add_flag("--nonfinite", t.nonfinite, "built-in test: a result holds NaN or Inf");
  app.add_option("--mismatch", t.mismatch,
                 "built-in test: results differ before and after this hlo-opt pipeline");
  app.add_option("--slower-than", t.slower_than,
                 "built-in test: hlo-run takes more than this many milliseconds")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--run-args", t.builtin.run_args,
                 "hlo-run's arguments in the built-in tests (default: --random-inputs --seed 1)");
  app.add_option("--opt-args", t.builtin.opt_args, "hlo-opt's arguments for --crash-tool=hlo-opt");
  app.add_option("--rtol", t.builtin.rtol, "--mismatch's relative tolerance");
  app.add_option("--atol", t.builtin.atol, "--mismatch's absolute tolerance");
  app.add_option("-j,--jobs", t.jobs, "tests run side by side (default: one per core)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--timeout", t.timeout,
                 "seconds a test may run (default 60); past it the candidate is not interesting")
      ->check(CLI::PositiveNumber);
}

absl::Status CheckTestOptions(const CLI::App& app, const TestOptions& t) {
  std::vector<std::string> tests;
  if (!t.test.empty()) tests.push_back("--test");
  if (t.crash) tests.push_back("--crash");
  if (app.count("--error-matches")) tests.push_back("--error-matches");
  if (t.nonfinite) tests.push_back("--nonfinite");
  if (app.count("--mismatch")) tests.push_back("--mismatch");
  if (app.count("--slower-than")) tests.push_back("--slower-than");
  if (tests.size() > 1)
    return UsageError(tests[0] + " and " + tests[1] + " conflict: give one test");
  if (tests.empty()) {
    return UsageError(
        "no test: give --test=CMD or one of --crash, --error-matches, --nonfinite, --mismatch, "
        "--slower-than");
  }
  auto only_with = [&](const char* option, bool ok, const char* needs) -> absl::Status {
    if (app.count(option) && !ok) return UsageError(StrCat(option, " needs ", needs));
    return absl::OkStatus();
  };
  const bool builtin = t.test.empty();
  HLO_RETURN_IF_ERROR(only_with("--crash-tool", t.crash, "--crash"));
  HLO_RETURN_IF_ERROR(only_with("--opt-args", t.crash && t.builtin.crash_tool == "hlo-opt",
                                "--crash --crash-tool=hlo-opt"));
  HLO_RETURN_IF_ERROR(only_with("--run-args", builtin, "a built-in test, not --test"));
  HLO_RETURN_IF_ERROR(only_with("--rtol", !t.mismatch.empty(), "--mismatch"));
  HLO_RETURN_IF_ERROR(only_with("--atol", !t.mismatch.empty(), "--mismatch"));
  if (!t.mismatch.empty()) HLO_RETURN_IF_ERROR(AsUsage(CheckPassNames(t.mismatch)));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Oracle>> MakeOracle(TestOptions& t, const std::string& reference) {
  if (!t.test.empty()) return MakeScriptOracle(t.test, t.timeout);
  BuiltinTest& b = t.builtin;
  if (t.crash) b.kind = BuiltinTest::Kind::kCrash;
  if (t.nonfinite) b.kind = BuiltinTest::Kind::kNonfinite;
  if (!t.error_matches.empty()) {
    b.kind = BuiltinTest::Kind::kErrorMatches;
    b.pattern = t.error_matches;
  }
  if (!t.mismatch.empty()) {
    b.kind = BuiltinTest::Kind::kMismatch;
    b.pipeline = t.mismatch;
    b.reference = reference;
  }
  if (t.slower_than >= 0) {
    b.kind = BuiltinTest::Kind::kSlowerThan;
    b.slower_ms = t.slower_than;
  }
  b.bin_dir = ToolDirBesideSelf();  // hlo-run and hlo-opt beside this tool, else on PATH
  return MakeBuiltinOracle(b, t.timeout);
}

int JobCount(const TestOptions& t) {
  return t.jobs > 0 ? t.jobs : static_cast<int>(UsableCpuCount());
}

}  // namespace hlo::reduce
