// hlo-run: evaluates an HLO module's entry computation on inputs from files,
// .npy or a seed, and prints or checks the result.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cmd/tool_common.h"
#include "eval/compare.h"
#include "eval/evaluator.h"
#include "eval/random_fill.h"
#include "eval/run_io.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/verifier.h"

namespace {

int64_t DefaultMaxMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{8} << 30;
  return static_cast<int64_t>(pages) * page / 4 * 3;
}

// Progress on a terminal: instructions done of total and elapsed time.
std::function<void(int64_t, int64_t)> ProgressPrinter() {
  if (!isatty(STDERR_FILENO)) return nullptr;
  auto start = std::chrono::steady_clock::now();
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(start);
  return [start, last](int64_t done, int64_t total) {
    auto now = std::chrono::steady_clock::now();
    if (done < total && now - *last < std::chrono::milliseconds(200)) return;
    *last = now;
    double s = std::chrono::duration<double>(now - start).count();
    std::fprintf(stderr, "\r[%lld/%lld instructions] %.1fs%s", static_cast<long long>(done),
                 static_cast<long long>(total), s, done == total ? "\n" : "");
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hlo-run: evaluate an XLA HLO module on the CPU"};
  std::string input;
  std::vector<std::string> inputs;
  bool random_inputs = false;
  uint64_t seed = 0;
  std::string passes;
  std::string output_format = "text";
  std::string output = "-";
  std::string expect;
  std::optional<double> rtol, atol;
  int bench = 0;
  int64_t max_memory = DefaultMaxMemory();
  int64_t max_iterations = -1;
  bool no_verify = false;
  app.add_option("input", input, "HLO text file, or - for standard input")->required();
  app.add_option("--input", inputs, "a value per parameter: literal text, .json or .npy");
  app.add_flag("--random-inputs", random_inputs, "generate every parameter from --seed");
  app.add_option("--seed", seed, "seed for --random-inputs and elided constants");
  app.add_option("--passes", passes, "passes to run before evaluating");
  app.add_option("--output-format", output_format, "text, json or npy")
      ->check(CLI::IsMember({"text", "json", "npy"}));
  app.add_option("-o,--output", output, "output file (npy: a directory)");
  app.add_option("--expect", expect, "compare the result with this file; exit 1 on mismatch");
  app.add_option("--rtol", rtol, "relative tolerance for --expect");
  app.add_option("--atol", atol, "absolute tolerance for --expect");
  app.add_option("--bench", bench, "time N runs after a warm-up run");
  app.add_option("--max-memory", max_memory, "largest bytes of live buffers");
  app.add_option("--max-iterations", max_iterations, "stop while loops after N trips");
  app.add_flag("--no-verify", no_verify, "do not verify the module after parsing");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (output_format == "npy" && output == "-") {
    std::cerr << "hlo-run: error: --output-format=npy needs -o DIR\n";
    return 2;
  }

  auto text = hlo::ReadInput(input);
  if (!text.ok()) {
    hlo::ReportError("hlo-run", text.status());
    return 1;
  }
  std::string filename = input == "-" ? "<stdin>" : input;
  auto shared_text = std::make_shared<const std::string>(*std::move(text));
  auto module = hlo::ParseModule(*shared_text, hlo::ParseOptions{filename});
  if (!module.ok()) {
    hlo::ReportError("hlo-run", module.status());
    return 1;
  }
  hlo::Module& m = **module;
  m.set_source(filename, shared_text);
  if (!no_verify) {
    if (auto st = hlo::VerifyModule(m); !st.ok()) {
      hlo::ReportError("hlo-run", st);
      return 1;
    }
  }
  auto pipeline = hlo::BuildPipeline(passes);
  if (!pipeline.ok()) {
    hlo::ReportError("hlo-run", pipeline.status());
    return 2;
  }
  if (auto st = pipeline->Run(m); !st.ok()) {
    hlo::ReportError("hlo-run", st);
    return 1;
  }

  const hlo::Computation& entry = *m.entry();
  std::vector<hlo::Value> args;
  if (!random_inputs && static_cast<int64_t>(inputs.size()) != entry.parameter_count()) {
    std::cerr << "hlo-run: error: the entry computation takes " << entry.parameter_count()
              << " parameters; give one --input per parameter or --random-inputs\n";
    return 2;
  }
  for (int64_t i = 0; i < entry.parameter_count(); ++i) {
    const hlo::Shape& shape = entry.parameter(i)->shape();
    auto lit = random_inputs ? hlo::RandomLiteral(shape, seed, static_cast<uint64_t>(i))
                             : hlo::LoadLiteralFile(inputs[i], shape);
    if (!lit.ok()) {
      hlo::ReportError("hlo-run", lit.status());
      return 1;
    }
    args.push_back(hlo::Value::FromLiteral(*std::move(lit)));
  }

  hlo::EvalOptions options;
  options.max_memory_bytes = max_memory;
  options.max_iterations = max_iterations;
  options.seed = seed;
  if (bench == 0) options.progress = ProgressPrinter();
  hlo::Evaluator evaluator(m, options);
  auto result = evaluator.Run(args);
  if (!result.ok()) {
    hlo::ReportError("hlo-run", result.status());
    return 1;
  }
  if (bench > 0) {
    std::vector<double> ms;
    for (int i = 0; i < bench; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = evaluator.Run(args);
      auto t1 = std::chrono::steady_clock::now();
      if (!r.ok()) {
        hlo::ReportError("hlo-run", r.status());
        return 1;
      }
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    char line[256];
    std::snprintf(line, sizeof(line), "bench: %s runs=%d min_ms=%.3f median_ms=%.3f max_ms=%.3f\n",
                  m.name().c_str(), bench, ms.front(), ms[ms.size() / 2], ms.back());
    // On stderr as documented, and on stdout where compare.sh reads it.
    std::fputs(line, stderr);
    std::fputs(line, stdout);
    return 0;
  }

  hlo::Literal lit = result->ToLiteral();
  if (!expect.empty()) {
    auto expected = hlo::LoadExpected(expect, entry.root()->shape());
    if (!expected.ok()) {
      hlo::ReportError("hlo-run", expected.status());
      return 1;
    }
    std::string report = hlo::CompareLiterals(lit, *expected, hlo::Tolerance{rtol, atol});
    if (!report.empty()) {
      std::cerr << "hlo-run: result differs from " << expect << ": " << report;
      return 1;
    }
    std::cerr << "hlo-run: result matches " << expect << "\n";
    return 0;
  }
  absl::Status st;
  if (output_format == "npy") {
    st = hlo::WriteResultNpy(lit, output);
  } else {
    std::string out = output_format == "json" ? hlo::ResultToJson(lit, entry.root()->shape())
                                              : hlo::ResultToText(lit);
    st = hlo::WriteOutputAtomically(output, out);
  }
  if (!st.ok()) {
    hlo::ReportError("hlo-run", st);
    return 1;
  }
  return 0;
}
