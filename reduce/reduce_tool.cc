#include "reduce/reduce_tool.h"

#include <chrono>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "reduce/bisect_tool.h"
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
  AddTestOptions(app, f.tests);
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

// The test's options, and those of reduction or bisection.
absl::Status CheckFlags(const CLI::App& app, ReduceFlags& f) {
  HLO_RETURN_IF_ERROR(CheckTestOptions(app, f.tests));
  if (!f.passes.empty() && f.check_minimal) {
    return UsageError("--passes and --check-minimal conflict: bisection does not reduce");
  }
  if (!f.passes.empty() && (app.count("--reductions") || app.count("--skip"))) {
    return UsageError(StrCat("--passes and ", app.count("--reductions") ? "--reductions" : "--skip",
                             " conflict: bisection does not reduce"));
  }
  if (f.input.empty()) return UsageError("no input module");
  if (!f.passes.empty()) HLO_RETURN_IF_ERROR(AsUsage(CheckPassNames(f.passes)));
  if (!f.passes.empty() && !f.tests.mismatch.empty() && f.tests.mismatch != f.passes) {
    return UsageError(
        "--passes and --mismatch name different pipelines: in bisection --mismatch compares each "
        "pass's module with the input, so give it the same pipeline");
  }
  if (!f.passes.empty() && !f.tests.mismatch.empty() && f.input == "-") {
    return UsageError("--passes with --mismatch runs the input again: give it as a file, not -");
  }
  return absl::OkStatus();
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  auto oracle = MakeOracle(f.tests, f.passes.empty() ? "" : f.input);
  if (!oracle.ok()) return oracle.status();
  auto text = ReadInput(f.input);
  if (!text.ok()) return text.status();
  auto module = ReadModule(*text, f.input == "-" ? "<stdin>" : f.input);
  if (!module.ok()) return ExplainParseFailure(*text, f.input, "hlo-reduce", module.status());
  const PrintStyle style = (*module)->style();
  const Candidate start = Canonical(**module, style);
  auto tester = Tester::Create(**oracle, JobCount(f.tests));
  if (!tester.ok()) return tester.status();
  const bool interesting = (*tester)->Test(start.text);
  if (!f.passes.empty()) {
    if (interesting) {
      return absl::FailedPreconditionError(
          "the test is already true on the input, before any pass: nothing to bisect");
    }
    return RunBisection("hlo-reduce", **module, start, f.passes, f.tests.timeout, **tester,
                        f.output);
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
