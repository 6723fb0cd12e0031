#include "reduce/reduce_tool.h"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "reduce/bisect.h"
#include "reduce/candidate.h"
#include "reduce/reducer.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

namespace hlo::reduce {
namespace {

std::string DeltaNames() {
  std::string names;
  for (const DeltaInfo& d : AllDeltas()) StrAppend(&names, names.empty() ? "" : ", ", d.name);
  return names;
}

void AddOptions(CLI::App& app, ReduceFlags& f) {
  app.add_option("input", f.input, "HLO text module to reduce");
  app.add_option("-o,--output", f.output, "output file (written atomically), - for stdout");
  app.add_option("--test", f.test,
                 "interestingness test: a shell command run with the candidate's path in place "
                 "of {} (or after it); exit 0 means interesting");
  app.add_flag("--crash", f.crash,
               "built-in test: the tool (--crash-tool) dies or reports an "
               "internal error");
  app.add_option("--crash-tool", f.builtin.crash_tool, "hlo-run (default) or hlo-opt")
      ->check(CLI::IsMember({"hlo-run", "hlo-opt"}));
  app.add_option("--error-matches", f.error_matches,
                 "built-in test: hlo-run fails with a message matching this RE2");
  app.add_flag("--nonfinite", f.nonfinite, "built-in test: a result holds NaN or Inf");
  app.add_option("--mismatch", f.mismatch,
                 "built-in test: results differ before and after this hlo-opt pipeline");
  app.add_option("--slower-than", f.slower_than,
                 "built-in test: hlo-run takes more than this many milliseconds")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--run-args", f.builtin.run_args,
                 "hlo-run's arguments in the built-in tests (default: --random-inputs --seed 1)");
  app.add_option("--opt-args", f.builtin.opt_args, "hlo-opt's arguments for --crash-tool=hlo-opt");
  app.add_option("--rtol", f.builtin.rtol, "--mismatch's relative tolerance");
  app.add_option("--atol", f.builtin.atol, "--mismatch's absolute tolerance");
  app.add_option("-j,--jobs", f.jobs, "tests run side by side (default: one per core)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--timeout", f.timeout,
                 "seconds a test may run (default 60); past it the candidate is not interesting")
      ->check(CLI::PositiveNumber);
  app.add_option("--reductions", f.reductions,
                 "only these reductions (comma-separated): " + DeltaNames());
  app.add_option("--skip", f.skip, "reductions not to run (comma-separated)");
  app.add_flag("--list-reductions", f.list_reductions, "list the reductions and exit");
  app.add_option("--passes", f.passes,
                 "bisect this hlo-opt pipeline instead of reducing: the first pass after which "
                 "the test turns true");
  app.add_flag("--check-minimal", f.check_minimal,
               "after reducing, check that no single change of any reduction still keeps the "
               "test true (exit 1 if one does)");
}

// The selected reductions, in table order.
absl::StatusOr<std::vector<const DeltaInfo*>> SelectDeltas(const ReduceFlags& f) {
  std::vector<std::string> names;
  for (const DeltaInfo& d : AllDeltas()) names.emplace_back(d.name);
  auto parse = [&](const std::string& list, std::vector<std::string>& out) -> absl::Status {
    for (absl::string_view n : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      std::string name(n);
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string close = ClosestName(name, names);
        return UsageError("unknown reduction '" + name + "'" +
                          (close.empty() ? "" : " (did you mean '" + close + "'?)") +
                          "; see --list-reductions");
      }
      out.push_back(name);
    }
    return absl::OkStatus();
  };
  std::vector<std::string> only, skip;
  HLO_RETURN_IF_ERROR(parse(f.reductions, only));
  HLO_RETURN_IF_ERROR(parse(f.skip, skip));
  std::vector<const DeltaInfo*> out;
  for (const DeltaInfo& d : AllDeltas()) {
    std::string n(d.name);
    if (!only.empty() && std::find(only.begin(), only.end(), n) == only.end()) continue;
    if (std::find(skip.begin(), skip.end(), n) != skip.end()) continue;
    out.push_back(&d);
  }
  return out;
}

// Exactly one test; the options of a test only with it.
absl::Status CheckFlags(const CLI::App& app, ReduceFlags& f) {
  std::vector<std::string> tests;
  if (!f.test.empty()) tests.push_back("--test");
  if (f.crash) tests.push_back("--crash");
  if (app.count("--error-matches")) tests.push_back("--error-matches");
  if (f.nonfinite) tests.push_back("--nonfinite");
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
  const bool builtin = f.test.empty();
  HLO_RETURN_IF_ERROR(only_with("--crash-tool", f.crash, "--crash"));
  HLO_RETURN_IF_ERROR(only_with("--opt-args", f.crash && f.builtin.crash_tool == "hlo-opt",
                                "--crash --crash-tool=hlo-opt"));
  HLO_RETURN_IF_ERROR(only_with("--run-args", builtin, "a built-in test, not --test"));
  HLO_RETURN_IF_ERROR(only_with("--rtol", !f.mismatch.empty(), "--mismatch"));
  HLO_RETURN_IF_ERROR(only_with("--atol", !f.mismatch.empty(), "--mismatch"));
  if (!f.passes.empty() && f.check_minimal) {
    return UsageError("--passes and --check-minimal conflict: bisection does not reduce");
  }
  if (!f.passes.empty() && (app.count("--reductions") || app.count("--skip"))) {
    return UsageError(StrCat("--passes and ", app.count("--reductions") ? "--reductions" : "--skip",
                             " conflict: bisection does not reduce"));
  }
  if (f.input.empty()) return UsageError("no input module");
  if (!f.mismatch.empty()) HLO_RETURN_IF_ERROR(AsUsage(CheckPassNames(f.mismatch)));
  if (!f.passes.empty()) HLO_RETURN_IF_ERROR(AsUsage(CheckPassNames(f.passes)));
  if (!f.passes.empty() && !f.mismatch.empty() && f.mismatch != f.passes) {
    return UsageError(
        "--passes and --mismatch name different pipelines: in bisection --mismatch compares each "
        "pass's module with the input, so give it the same pipeline");
  }
  if (!f.passes.empty() && !f.mismatch.empty() && f.input == "-") {
    return UsageError("--passes with --mismatch runs the input again: give it as a file, not -");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Oracle>> MakeOracle(ReduceFlags& f) {
  if (!f.test.empty()) return MakeScriptOracle(f.test, f.timeout);
  BuiltinTest& t = f.builtin;
  if (f.crash) t.kind = BuiltinTest::Kind::kCrash;
  if (f.nonfinite) t.kind = BuiltinTest::Kind::kNonfinite;
  if (!f.error_matches.empty()) {
    t.kind = BuiltinTest::Kind::kErrorMatches;
    t.pattern = f.error_matches;
  }
  if (!f.mismatch.empty()) {
    t.kind = BuiltinTest::Kind::kMismatch;
    t.pipeline = f.mismatch;
    if (!f.passes.empty()) t.reference = f.input;
  }
  if (f.slower_than >= 0) {
    t.kind = BuiltinTest::Kind::kSlowerThan;
    t.slower_ms = f.slower_than;
  }
  // hlo-run and hlo-opt beside hlo-reduce, else on PATH.
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    std::string dir(self, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    if (access((dir + "/hlo-run").c_str(), X_OK) == 0) t.bin_dir = dir;
  }
  return MakeBuiltinOracle(t, f.timeout);
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

absl::Status RunBisect(ReduceFlags& f, Module& module, const Candidate& start, Tester& tester) {
  auto steps = RunPassSteps(module, f.passes, module.style());
  if (!steps.ok()) return steps.status();
  BisectResult r = Bisect(start.text, *steps, tester);
  if (!r.found) {
    return absl::NotFoundError(StrCat(
        "the test stays false after every pass of --passes=", f.passes, " (", r.steps,
        " passes changed the module); a test past --timeout (", f.timeout, " s) counts as false"));
  }
  std::string out = StrCat("// hlo-reduce: the test turns true after pass ", r.step + 1, " of ",
                           r.steps, " that changed the module: ", r.pass, "\n// ----- before ",
                           r.pass, "\n", r.before, "// ----- after ", r.pass, "\n", r.after);
  std::cerr << "hlo-reduce: first pass after which the test is true: " << r.pass << " (step "
            << r.step + 1 << " of " << r.steps << ", " << tester.tests_run() << " tests)\n";
  return WriteOutputAtomically(f.output, out);
}

}  // namespace

std::optional<int> ParseReduceFlags(int argc, char** argv, ReduceFlags& f) {
  CLI::App app{"hlo-reduce: shrink an HLO module while a test stays true"};
  AddOptions(app, f);
  if (auto st = CheckLongOptions(argc, argv, LongOptionNames(app)); !st.ok()) {
    ReportError("hlo-reduce", st);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = ReportParseError(app, e, "hlo-reduce");
    return code == 0 ? 0 : 2;
  }
  if (f.list_reductions) {
    for (const DeltaInfo& d : AllDeltas()) {
      std::cout << d.name << std::string(d.name.size() < 22 ? 22 - d.name.size() : 1, ' ')
                << d.description << "\n";
    }
    return 0;
  }
  if (auto st = CheckFlags(app, f); !st.ok()) {
    ReportError("hlo-reduce", st);
    return 2;
  }
  return std::nullopt;
}

absl::Status RunHloReduce(ReduceFlags& f) {
  auto start_time = std::chrono::steady_clock::now();
  auto deltas = SelectDeltas(f);
  if (!deltas.ok()) return deltas.status();
  auto oracle = MakeOracle(f);
  if (!oracle.ok()) return oracle.status();
  auto text = ReadInput(f.input);
  if (!text.ok()) return text.status();
  auto module = ReadModule(*text, f.input == "-" ? "<stdin>" : f.input);
  if (!module.ok()) return ExplainParseFailure(*text, f.input, "hlo-reduce", module.status());
  const PrintStyle style = (*module)->style();
  const Candidate start = Canonical(**module, style);
  int jobs = f.jobs > 0 ? f.jobs : std::max(1u, std::thread::hardware_concurrency());
  auto tester = Tester::Create(**oracle, jobs);
  if (!tester.ok()) return tester.status();
  const bool interesting = (*tester)->Test(start.text);
  if (!f.passes.empty()) {
    if (interesting) {
      return absl::FailedPreconditionError(
          "the test is already true on the input, before any pass: nothing to bisect");
    }
    return RunBisect(f, **module, start, **tester);
  }
  if (!interesting) {
    return absl::FailedPreconditionError(
        StrCat("the input is not interesting: the test is false on it (as printed), so there is "
               "nothing to reduce; nothing written. The test: ",
               (*tester)->Explain(start.text)));
  }
  ReduceStats stats;
  Candidate result = Reduce(start, *deltas, style, **tester, &stats);
  std::string applied;
  for (const auto& [name, n] : stats.applied)
    StrAppend(&applied, applied.empty() ? "" : ", ", name, " ", n);
  if (result.text == start.text) {
    std::cerr << "hlo-reduce: no reduction keeps the test true: the output is the input unchanged ("
              << start.size.instructions << " instructions; " << (*tester)->tests_run()
              << " tests, " << Since(start_time) << " s)\n";
  } else {
    std::cerr << "hlo-reduce: " << start.size.instructions << " -> " << result.size.instructions
              << " instructions, " << start.size.bytes << " -> " << result.size.bytes << " bytes; "
              << (*tester)->tests_run() << " tests, " << stats.rounds << " rounds, "
              << Since(start_time) << " s (" << applied << ")\n";
  }
  HLO_RETURN_IF_ERROR(WriteOutputAtomically(f.output, result.text));
  if (f.check_minimal) {
    // Every reduction, not only those selected: a single one of any kind
    // that still applies means the output is not 1-minimal.
    std::vector<const DeltaInfo*> all;
    for (const DeltaInfo& d : AllDeltas()) all.push_back(&d);
    std::string failing;
    if (!IsOneMinimal(result, all, style, **tester, &failing)) {
      return absl::FailedPreconditionError("the output is not 1-minimal: reduction '" + failing +
                                           "' still applies to it");
    }
    std::cerr << "hlo-reduce: the output is 1-minimal: no single reduction applies\n";
  }
  return absl::OkStatus();
}

}  // namespace hlo::reduce
