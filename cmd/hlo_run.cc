// hlo-run: evaluates an HLO module's entry computation on inputs from files,
// .npy or a seed, and prints or checks the result.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cmd/tool_common.h"
#include "eval/replica_runner.h"
#include "eval/denormals.h"
#include "eval/evaluator.h"
#include "eval/io/compare.h"
#include "eval/io/feed_io.h"
#include "eval/io/random_fill.h"
#include "eval/io/run_io.h"
#include "eval/runtime/profiler.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "passes/shape_inference.h"
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

namespace {

// The resident set in MiB, whole and its file-backed part (the code and
// libraries' pages), from /proc/self/status; zeros where it is missing.
struct Resident {
  double total_mb = 0;
  double file_mb = 0;  // RssFile + RssShmem
  double data_mb() const { return total_mb - file_mb; }
};
Resident ResidentNow() {
  Resident r;
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return r;
  char line[256];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    long kb = 0;
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) r.total_mb = kb / 1024.0;
    if (std::sscanf(line, "RssFile: %ld kB", &kb) == 1) r.file_mb += kb / 1024.0;
    if (std::sscanf(line, "RssShmem: %ld kB", &kb) == 1) r.file_mb += kb / 1024.0;
  }
  std::fclose(f);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any module, input or buffer: what --bench's peak data is
  // measured from.
  const Resident start = ResidentNow();
  CLI::App app{"hlo-run: evaluate an XLA HLO module on the CPU"};
  std::string input;
  std::vector<std::string> inputs;
  bool random_inputs = false;
  uint64_t seed = 0;
  std::string passes;
  std::string output_format = "text";
  std::string output = "-";
  std::vector<std::string> expect;
  int64_t replicas = 0, partitions = 0;
  std::vector<std::string> infeed_files;
  std::string outfeed_file;
  double collective_timeout = 60;
  std::optional<double> rtol, atol;
  int bench = 0;
  int64_t max_memory = DefaultMaxMemory();
  int64_t max_iterations = -1;
  bool no_verify = false;
  std::string denormals = "keep";
  std::string precision = "native";
  bool no_fast_paths = false;
  bool no_fusion = false;
  std::string profile_json;
  app.add_option("input", input, "HLO text file, or - for standard input")->required();
  app.add_option("--input", inputs, "a value per parameter: literal text, .json or .npy");
  app.add_flag("--random-inputs", random_inputs, "generate every parameter from --seed");
  app.add_option("--seed", seed, "seed for --random-inputs and elided constants");
  app.add_option("--passes", passes, "passes to run before evaluating");
  app.add_option("--output-format", output_format, "text, json or npy")
      ->check(CLI::IsMember({"text", "json", "npy"}));
  app.add_option("-o,--output", output, "output file (npy: a directory)");
  app.add_option("--expect", expect,
                 "compare the result with this file (once, or once per device); exit 1 on "
                 "mismatch");
  app.add_option("--replicas", replicas, "replicas to run (default: the module's replica_count)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  app.add_option("--partitions", partitions,
                 "partitions to run (default: the module's num_partitions)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  app.add_option("--infeed", infeed_files, "values for infeed, read in order (text, .json, .npy)");
  app.add_option("--outfeed", outfeed_file, "write what outfeed sends to this file");
  app.add_option("--collective-timeout", collective_timeout,
                 "seconds a device waits for the others at a collective")
      ->check(CLI::PositiveNumber);
  app.add_option("--rtol", rtol, "relative tolerance for --expect");
  app.add_option("--atol", atol, "absolute tolerance for --expect");
  app.add_option("--bench", bench, "time N runs after a warm-up run");
  app.add_option("--max-memory", max_memory, "largest bytes of live buffers");
  app.add_option("--max-iterations", max_iterations, "stop while loops after N trips");
  app.add_flag("--no-verify", no_verify, "do not verify the module after parsing");
  app.add_option("--denormals", denormals,
                 "keep: IEEE denormals (default); flush: XLA:CPU's flush-to-zero (FTZ/DAZ)")
      ->check(CLI::IsMember({"keep", "flush"}));
  app.add_option("--precision", precision,
                 "native: each op in its declared type; f64: floats narrower than f64 computed in "
                 "f64 (c64 in c128), outputs rounded to their types (the widen-floats pass)")
      ->check(CLI::IsMember({"native", "f64"}));
  app.add_flag("--no-fast-paths", no_fast_paths,
               "apply reducers, comparators and other called computations with the general "
               "evaluator, element by element (a reference for checking the fast paths)");
  app.add_flag("--no-fusion", no_fusion,
               "run every instruction through its own kernel: no fused loops, softmax rows or "
               "sibling reductions (the same results, bit for bit)");
  CLI::Option* profile =
      app.add_option("--profile", profile_json,
                     "print each instruction's and opcode's time, calls, bytes and FLOPs "
                     "(per run; with --bench, over the timed runs) on stderr, beside the "
                     "machine's memcpy and sgemm rates; =FILE also writes them as JSON. "
                     "Every device of a multi-device run is profiled (times summed)")
          ->expected(0, 1);
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
  auto module = hlo::ParseModule(*shared_text, hlo::ParseOptions{filename, &hlo::InferShape});
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
  if (precision == "f64") {
    // Nothing runs after the rewrite (no folding of the wide module).
    absl::Status st = hlo::CreateWidenFloats()->Run(m).status();
    if (st.ok() && !no_verify) st = hlo::VerifyModule(m);
    if (!st.ok()) {
      hlo::ReportError("hlo-run", st);
      return 1;
    }
  }

  const hlo::Computation& entry = *m.entry();
  if (replicas == 0) replicas = std::max<int64_t>(1, m.replica_count());
  if (partitions == 0) partitions = std::max<int64_t>(1, m.num_partitions());
  if (replicas * partitions > 1024) {
    std::cerr << "hlo-run: error: " << replicas << " replicas x " << partitions
              << " partitions is more than the 1024 devices hlo-run runs\n";
    return 2;
  }
  const int64_t devices = replicas * partitions;
  const int64_t params = entry.parameter_count();
  if (!random_inputs && static_cast<int64_t>(inputs.size()) != params &&
      (devices == 1 || static_cast<int64_t>(inputs.size()) != params * devices)) {
    std::cerr << "hlo-run: error: the entry computation takes " << params
              << " parameters; give one --input per parameter"
              << (devices > 1 ? hlo::StrCat(" (or ", params * devices, ", ", params,
                                            " per device in device order)")
                              : std::string())
              << " or --random-inputs\n";
    return 2;
  }
  if (expect.size() > 1 && static_cast<int64_t>(expect.size()) != devices) {
    std::cerr << "hlo-run: error: give --expect once, or once per device (" << devices << ")\n";
    return 2;
  }
  // Sizes are checked before any input is read or generated.
  if (auto st = hlo::CheckInputsFit(m, max_memory); !st.ok()) {
    hlo::ReportError("hlo-run", st);
    return 1;
  }
  // Device d's inputs: its own files when given per device, else the
  // shared ones; random inputs from seed + d.
  std::vector<std::vector<hlo::Value>> args(devices);
  for (int64_t d = 0; d < devices; ++d) {
    for (int64_t i = 0; i < params; ++i) {
      const hlo::Shape& shape = entry.parameter(i)->shape();
      size_t file = static_cast<int64_t>(inputs.size()) == params ? i : d * params + i;
      if (!random_inputs && d > 0 && file == static_cast<size_t>(i)) {
        args[d].push_back(args[0][i]);  // the same input: share the buffer
        continue;
      }
      auto lit = random_inputs ? hlo::RandomLiteral(shape, seed + static_cast<uint64_t>(d),
                                                    static_cast<uint64_t>(i))
                               : hlo::LoadLiteralFile(inputs[file], shape);
      if (!lit.ok()) {
        hlo::ReportError("hlo-run", lit.status());
        return 1;
      }
      args[d].push_back(hlo::Value::FromLiteral(*std::move(lit)));
    }
  }

  hlo::EvalOptions options;
  options.max_memory_bytes = max_memory;
  options.max_iterations = max_iterations;
  options.seed = seed;
  options.flush_denormals = denormals == "flush";
  options.fast_paths = !no_fast_paths;
  options.fusion = !no_fusion;
  if (options.flush_denormals) hlo::SetBlasDenormalMode(true);
  if (bench == 0) options.progress = ProgressPrinter();
  std::unique_ptr<hlo::Profiler> profiler;
  if (profile->count() > 0) {
    profiler = std::make_unique<hlo::Profiler>();
    options.profiler = profiler.get();
  }
  hlo::ReplicaRunner runner(m, options, replicas, partitions,
                            std::chrono::milliseconds(static_cast<int64_t>(collective_timeout * 1000)));
  if (!infeed_files.empty()) {
    std::vector<hlo::FeedItem> feed;
    for (const std::string& f : infeed_files) {
      auto items = hlo::LoadFeedFile(f);
      if (!items.ok()) {
        hlo::ReportError("hlo-run", items.status());
        return 1;
      }
      for (hlo::FeedItem& item : *items) feed.push_back(std::move(item));
    }
    for (int64_t d = 0; d < devices; ++d) runner.SetInfeed(d, feed);
  }
  auto first_start = std::chrono::steady_clock::now();
  auto result = runner.Run(args);
  if (!result.ok()) {
    hlo::ReportError("hlo-run", result.status());
    return 1;
  }
  // The profile covers the timed runs of --bench, else this one.
  if (profiler && bench == 0) {
    profiler->AddRun(std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - first_start).count());
  }
  if (profiler && bench > 0) profiler->Reset();
  auto report_profile = [&] {
    if (!profiler) return true;
    profiler->set_limits(hlo::MeasureMachineLimits());
    absl::Status st = hlo::ReportProfile(*profiler, m.name(), profile_json);
    if (!st.ok()) hlo::ReportError("hlo-run", st);
    return st.ok();
  };
  if (bench > 0) {
    // The warm-up's result is not printed: free it, so that the timed runs'
    // results are not a second set of outputs alive beside it.
    result->clear();
    result->shrink_to_fit();
    std::vector<double> ms;
    for (int i = 0; i < bench; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = runner.Run(args);
      auto t1 = std::chrono::steady_clock::now();
      if (!r.ok()) {
        hlo::ReportError("hlo-run", r.status());
        return 1;
      }
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (profiler) profiler->AddRun(ms.back());
    }
    std::sort(ms.begin(), ms.end());
    // Memory beside the times: the process's peak resident set; its data
    // part (the peak less the file-backed pages resident now: code and
    // libraries are paged in as they first run, and are not buffers); what
    // the data grew by since the start; and the evaluator's peak of live
    // buffers (inputs, outputs and the largest set of intermediates alive at
    // once), the least any plan could hold.
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const double rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
    const double peak_data_mb = std::max(0.0, rss_mb - ResidentNow().file_mb);
    const double live_mb = static_cast<double>(runner.PeakLiveBytes()) / (1024.0 * 1024.0);
    const double added_mb = std::max(0.0, peak_data_mb - start.data_mb());
    // The times' line ends at max_ms (../shared/bench/compare.sh matches it
    // whole); the memory has a line of its own.
    char line[400];
    std::snprintf(line, sizeof(line),
                  "bench: %s runs=%d min_ms=%.3f median_ms=%.3f max_ms=%.3f\n"
                  "bench: %s peak_rss_mb=%.1f peak_data_mb=%.1f start_data_mb=%.1f "
                  "peak_live_mb=%.1f added_over_live=%.2f\n",
                  m.name().c_str(), bench, ms.front(), ms[ms.size() / 2], ms.back(),
                  m.name().c_str(), rss_mb, peak_data_mb, start.data_mb(), live_mb,
                  live_mb > 0 ? added_mb / live_mb : 0.0);
    // On stderr as documented, and on stdout where compare.sh reads it.
    std::fputs(line, stderr);
    std::fputs(line, stdout);
    return report_profile() ? 0 : 1;
  }
  if (!report_profile()) return 1;

  if (!outfeed_file.empty()) {
    std::string out;
    for (int64_t d = 0; d < devices; ++d) {
      if (devices > 1) hlo::StrAppend(&out, runner.DeviceName(d), ":\n");
      for (const hlo::Literal& l : runner.outfeed(d)) out += hlo::ResultToText(l);
    }
    if (auto st = hlo::WriteOutputAtomically(outfeed_file, out); !st.ok()) {
      hlo::ReportError("hlo-run", st);
      return 1;
    }
  }
  std::vector<hlo::Literal> lits;
  for (const hlo::Value& v : *result) lits.push_back(v.ToLiteral());
  if (!expect.empty()) {
    bool all_match = true;
    for (int64_t d = 0; d < devices; ++d) {
      const std::string& file = expect[expect.size() == 1 ? 0 : d];
      auto expected = hlo::LoadExpected(file, entry.root()->shape());
      if (!expected.ok()) {
        hlo::ReportError("hlo-run", expected.status());
        return 1;
      }
      std::string report = hlo::CompareLiterals(lits[d], *expected, hlo::Tolerance{rtol, atol});
      std::string who = devices > 1 ? hlo::StrCat(" (", runner.DeviceName(d), ")") : "";
      if (!report.empty()) {
        std::cerr << "hlo-run: result" << who << " differs from " << file << ": " << report;
        all_match = false;
      } else {
        std::cerr << "hlo-run: result" << who << " matches " << file << "\n";
      }
    }
    return all_match ? 0 : 1;
  }
  absl::Status st;
  if (output_format == "npy") {
    for (int64_t d = 0; d < devices && st.ok(); ++d) {
      std::string dir = output;
      if (devices > 1) {
        if (mkdir(output.c_str(), 0777) != 0 && errno != EEXIST) {
          st = absl::PermissionDeniedError(hlo::StrCat(output, ": error: cannot create"));
          break;
        }
        std::string name = runner.DeviceName(d);
        std::replace(name.begin(), name.end(), ' ', '_');
        dir = hlo::StrCat(output, "/", name);
      }
      st = hlo::WriteResultNpy(lits[d], dir);
    }
  } else if (output_format == "json") {
    std::string out;
    for (int64_t d = 0; d < devices; ++d) {
      std::string one = hlo::ResultToJson(lits[d], entry.root()->shape());
      if (devices == 1) {
        out = one;
        break;
      }
      one.pop_back();  // the newline
      hlo::StrAppend(&out, d == 0 ? "[" : ",\n ", one, d + 1 == devices ? "]\n" : "");
    }
    st = hlo::WriteOutputAtomically(output, out);
  } else {
    std::string out;
    for (int64_t d = 0; d < devices; ++d) {
      if (devices > 1) hlo::StrAppend(&out, runner.DeviceName(d), ":\n");
      out += hlo::ResultToText(lits[d]);
    }
    st = hlo::WriteOutputAtomically(output, out);
  }
  if (!st.ok()) {
    hlo::ReportError("hlo-run", st);
    return 1;
  }
  return 0;
}
