#include "reduce/bisect_tool.h"

#include <algorithm>
#include <cstring>
#include <iostream>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "reduce/bisect.h"
#include "reduce/test_options.h"
#include "tools/opt_tool.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

namespace hlo::reduce {
namespace {

struct BisectFlags {
  std::string input;
  std::string output = "-";
  std::string pipeline;  // --bisect
  TestOptions tests;
};

// hlo-opt's other options are an error naming both, not "unknown".
absl::Status CheckOnlyBisectOptions(int argc, char** argv, const std::vector<std::string>& own) {
  const std::vector<std::string> opt = OptOptionNames();
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.substr(0, 2) != "--" &&
        !(arg.size() == 2 && arg[0] == '-' && arg[1] != 'o' && arg[1] != 'j' && arg[1] != 'h')) {
      continue;
    }
    std::string name(arg.substr(0, arg.find('=')));
    if (std::find(own.begin(), own.end(), name) != own.end()) continue;
    if (name == "-O" || std::find(opt.begin(), opt.end(), name) != opt.end()) {
      return UsageError("--bisect and " + name +
                        " conflict: bisection takes the input, -o and one test's options");
    }
  }
  return CheckLongOptions(argc, argv, own);
}

absl::Status ParseBisectFlags(int argc, char** argv, BisectFlags& f, bool& help) {
  CLI::App app{
      "hlo-opt --bisect: the first pass of a pipeline, and the first rewrite within it, "
      "after which a test turns true"};
  app.add_option("input", f.input, "HLO text module")->required();
  app.add_option("-o,--output", f.output, "output file (written atomically), - for stdout");
  app.add_option("--bisect", f.pipeline, "the pipeline to bisect (as --passes)")->required();
  AddTestOptions(app, f.tests);
  HLO_RETURN_IF_ERROR(CheckOnlyBisectOptions(argc, argv, LongOptionNames(app)));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = ReportParseError(app, e, "hlo-opt");
    help = code == 0;
    return AsUsage(AlreadyReported("usage"));  // exit status 2
  }
  HLO_RETURN_IF_ERROR(AsUsage(CheckPassNames(f.pipeline)));
  HLO_RETURN_IF_ERROR(CheckTestOptions(app, f.tests));
  if (!f.tests.mismatch.empty() && f.tests.mismatch != f.pipeline) {
    return UsageError(
        "--bisect and --mismatch name different pipelines: in bisection --mismatch compares "
        "each pass's module with the input, so give it the same pipeline");
  }
  if (!f.tests.mismatch.empty() && f.input == "-") {
    return UsageError("--bisect with --mismatch runs the input again: give it as a file, not -");
  }
  return absl::OkStatus();
}

absl::Status RunHloOptBisect(BisectFlags& f) {
  auto oracle = MakeOracle(f.tests, f.input);
  if (!oracle.ok()) return oracle.status();
  auto text = ReadInput(f.input);
  if (!text.ok()) return text.status();
  auto module = ReadModule(*text, f.input == "-" ? "<stdin>" : f.input);
  if (!module.ok()) return ExplainParseFailure(*text, f.input, "hlo-opt", module.status());
  const Candidate start = Canonical(**module, (*module)->style());
  auto tester = Tester::Create(**oracle, JobCount(f.tests));
  if (!tester.ok()) return tester.status();
  if ((*tester)->Test(start.text)) {
    return absl::FailedPreconditionError(
        "the test is already true on the input, before any pass: nothing to bisect");
  }
  return RunBisection("hlo-opt", **module, start, f.pipeline, f.tests.timeout, **tester, f.output);
}

}  // namespace

bool WantsBisect(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--bisect") == 0 || std::strncmp(argv[i], "--bisect=", 9) == 0) {
      return true;
    }
  }
  return false;
}

int HloOptBisectMain(int argc, char** argv) {
  BisectFlags flags;
  bool help = false;
  absl::Status st = ParseBisectFlags(argc, argv, flags, help);
  if (help) return 0;
  if (st.ok()) st = RunHloOptBisect(flags);
  if (!st.ok() && !IsReported(st)) ReportError("hlo-opt", st);
  return ExitCode(st);
}

absl::Status RunBisection(std::string_view tool, Module& module, const Candidate& start,
                          const std::string& pipeline, double timeout, Tester& tester,
                          const std::string& output) {
  auto steps = RunPassSteps(module, pipeline, module.style());
  if (!steps.ok()) return steps.status();
  BisectResult r = Bisect(start.text, *steps, module.style(), tester);
  if (!r.found) {
    return absl::NotFoundError(StrCat(
        "the test stays false after every pass of ", pipeline, " (", r.steps,
        " passes changed the module); a test past --timeout (", timeout, " s) counts as false"));
  }
  std::cerr << tool << ": first pass after which the test is true: " << r.pass << " (step "
            << r.step + 1 << " of " << r.steps;
  if (r.rewrite > 0) {
    std::cerr << "), its rewrite " << r.rewrite << " of " << r.rewrites << " (of %" << r.rewrite_at;
  }
  std::cerr << "; " << tester.tests_run() << " tests)\n";
  return WriteOutputAtomically(output, BisectReport(r, tool));
}

}  // namespace hlo::reduce
