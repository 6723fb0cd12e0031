#include "tools/tool_common.h"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "CLI/CLI.hpp"
#include "ir/hlo_printer.h"
#include "ir/located_status.h"
#include "ir/output_file.h"
#include "ir/read_file.h"
#include "ir/slab_pool.h"
#include "ir/strings.h"
#include "re2/re2.h"

namespace hlo {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path == "-") return ReadRestOfFile(stdin, "<stdin>");  // bounded, as files are
  return ReadWholeFile(path);
}

absl::Status WriteOutputAtomically(const std::string& path, std::string_view data) {
  return WriteOutputInPieces(path, [&](ByteSink sink) { return sink(data); });
}

absl::Status WriteOutputInPieces(const std::string& path,
                                 absl::FunctionRef<absl::Status(ByteSink)> produce) {
  if (path == "-" || path.empty()) {
    absl::Status st = produce([](std::string_view piece) {
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      return std::ferror(stdout) ? absl::DataLossError("error writing standard output")
                                 : absl::OkStatus();
    });
    std::fflush(stdout);
    if (st.ok() && std::ferror(stdout)) st = absl::DataLossError("error writing standard output");
    return st;
  }
  return WriteFileInPieces(path, produce);
}

void ReportError(std::string_view tool, const absl::Status& status) {
  std::string_view msg(status.message().data(), status.message().size());
  // Diagnostics already carry "FILE:LINE:COL: error:" (ir/located_status.h).
  // One write: under mpirun, text that arrives in pieces can be interleaved
  // with mpirun's own banner mid-line.
  std::string line = IsLocated(status) ? std::string(msg) : StrCat(tool, ": error: ", msg);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

std::string ClosestName(std::string_view word, const std::vector<std::string>& names) {
  size_t best = std::max<size_t>(1, word.size() / 3) + 1;
  std::string closest;
  for (const std::string& name : names) {
    // Levenshtein distance, one row at a time.
    std::vector<size_t> row(name.size() + 1);
    for (size_t j = 0; j <= name.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= name.size(); ++j) {
        size_t up = row[j];
        row[j] =
            std::min({row[j] + 1, row[j - 1] + 1, diagonal + (word[i - 1] == name[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    if (row[name.size()] < best) {
      best = row[name.size()];
      closest = name;
    }
  }
  return closest;
}

std::vector<std::string> LongOptionNames(const CLI::App& app) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  return names;
}

int ReportParseError(CLI::App& app, const CLI::ParseError& e, std::string_view tool) {
  if (e.get_exit_code() == 0) return app.exit(e);
  std::cerr << tool << ": error: " << e.what() << "; see --help\n";
  return 2;
}

absl::Status CheckLongOptions(int argc, const char* const* argv,
                              const std::vector<std::string>& known) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    std::string_view name = arg.substr(0, arg.find('='));
    const bool known_name = std::find(known.begin(), known.end(), name) != known.end();
    // CLI11 would take the next argument for `--passes=`'s empty value.
    if (known_name && arg.size() == name.size() + 1) {
      return absl::InvalidArgumentError(
          StrCat(arg, " has no value after '=': write ", name, " '' for an empty one"));
    }
    if (known_name) continue;
    std::string msg = StrCat("unknown option ", name);
    std::string close = ClosestName(name, known);
    if (!close.empty()) StrAppend(&msg, " (did you mean ", close, "?)");
    return absl::InvalidArgumentError(StrCat(msg, "; see --help"));
  }
  return absl::OkStatus();
}

absl::Status CheckPassNames(std::string_view passes) {
  std::vector<std::string> names;
  for (const PassInfo& p : AllPasses()) names.emplace_back(p.name);
  std::string word;
  for (size_t i = 0; i <= passes.size(); ++i) {
    char c = i < passes.size() ? passes[i] : ',';
    if (c != ',' && c != '(' && c != ')') {
      if (c != ' ') word += c;
      continue;
    }
    if (!word.empty() && word != "fixed-point" && !CreatePass(word)) {
      std::string msg = StrCat("--passes: unknown pass '", word, "'");
      std::string close = ClosestName(word, names);
      if (!close.empty()) StrAppend(&msg, " (did you mean '", close, "'?)");
      return absl::InvalidArgumentError(StrCat(msg, "; --list-passes names them"));
    }
    word.clear();
  }
  return absl::OkStatus();
}

absl::Status ExplainParseFailure(std::string_view text, std::string_view filename,
                                 std::string_view tool, const absl::Status& status) {
  // Past blank lines and `//` comments (MLIR's and HLO's alike).
  std::string_view t = text;
  while (true) {
    size_t start = t.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return status;
    t = t.substr(start);
    if (!t.starts_with("//")) break;
    size_t end = t.find('\n');
    if (end == std::string_view::npos) return status;
    t = t.substr(end);
  }
  const size_t line = 1 + std::count(text.begin(), text.begin() + (t.data() - text.data()), '\n');
  bool mlir = t.starts_with("module @") || t.starts_with("module {") ||
              t.starts_with("module attributes") || t.starts_with("func.func") ||
              t.starts_with("#loc") || t.starts_with("\"builtin.module\"");
  if (!mlir) return status;
  return MarkLocated(absl::InvalidArgumentError(
      StrCat(filename, ":", line, ":1: error: this looks like StableHLO/MLIR text; ", tool,
             " reads HLO text (as XLA dumps it with --xla_dump_hlo_as_text)")));
}

namespace {
// The calling thread's CPU time: parsing, printing and the passes run on
// the main thread, while OpenBLAS's worker threads (linked in for constant
// folding) may spin at start-up and would be counted by the process clock.
double ThreadCpuSeconds() {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

void PhaseTimer::Start() {
  cpu_start_ = ThreadCpuSeconds();
  wall_start_ = std::chrono::steady_clock::now();
}

void PhaseTimer::Stop() {
  wall_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  cpu_ += ThreadCpuSeconds() - cpu_start_;
}

MemoryUsage CurrentMemoryUsage() {
  MemoryUsage usage;
  struct mallinfo2 mi = mallinfo2();
  usage.heap_bytes = mi.uordblks + mi.hblkhd + slab_pool_internal::SlabBytes();
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long size = 0, resident = 0;
    if (std::fscanf(f, "%llu %llu", &size, &resident) == 2) {
      usage.resident_bytes = resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  return usage;
}

uint64_t PeakResidentBytes() {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // kilobytes on Linux
}

}  // namespace hlo

// ---- hlo-opt output helpers -------------------------------------------------

namespace hlo {

absl::StatusOr<std::string> FilterInstructionLines(std::string_view text,
                                                   std::string_view pattern) {
  RE2 re(re2::StringPiece(pattern.data(), pattern.size()), RE2::Quiet);
  if (!re.ok()) {
    return absl::InvalidArgumentError(
        StrCat("--filter: invalid regular expression '", pattern, "': ", re.error()));
  }
  std::string out;
  std::string header;  // the current computation's header line
  std::string kept;    // its matching instruction lines
  for (std::string_view line : StrSplit(text, '\n')) {
    if (line.starts_with("HloModule")) {
      StrAppend(&out, line, "\n\n");
    } else if (line.starts_with("  ")) {
      std::string_view body = line.substr(2);
      if (RE2::PartialMatch(re2::StringPiece(body.data(), body.size()), re)) {
        StrAppend(&kept, line, "\n");
      }
    } else if (line.starts_with("}")) {
      if (!kept.empty()) StrAppend(&out, header, "\n", kept, line, "\n\n");
      header.clear();
      kept.clear();
    } else if (!line.empty()) {
      header = std::string(line);
    }
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
    out.pop_back();
  }
  return out;
}

std::vector<std::pair<std::string, int64_t>> OpcodeCounts(const Module& module) {
  std::map<std::string, int64_t> counts;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) ++counts[inst->OpcodeText()];
  }
  return {counts.begin(), counts.end()};
}

std::string StatsReport(std::string_view label,
                        const std::vector<std::pair<std::string, int64_t>>& before,
                        const std::vector<std::pair<std::string, int64_t>>& after,
                        const std::vector<PassTiming>& timings) {
  std::string out = StrCat("hlo-opt stats for ", label, "\n");
  char line[160];
  double total_seconds = 0;
  std::snprintf(line, sizeof(line), "  %-26s %6s %8s %12s\n", "pass", "runs", "changed", "seconds");
  out += line;
  for (const PassTiming& t : timings) {
    std::snprintf(line, sizeof(line), "  %-26s %6lld %8lld %12.6f\n", t.name.c_str(),
                  static_cast<long long>(t.runs), static_cast<long long>(t.changed), t.seconds);
    out += line;
    total_seconds += t.seconds;
  }
  std::snprintf(line, sizeof(line), "  %-26s %6s %8s %12.6f\n", "total", "", "", total_seconds);
  out += line;
  std::map<std::string, std::pair<int64_t, int64_t>> rows;
  int64_t total_before = 0, total_after = 0;
  for (const auto& [op, n] : before) {
    rows[op].first = n;
    total_before += n;
  }
  for (const auto& [op, n] : after) {
    rows[op].second = n;
    total_after += n;
  }
  std::snprintf(line, sizeof(line), "  %-26s %10s %10s\n", "opcode", "before", "after");
  out += line;
  for (const auto& [op, n] : rows) {
    std::snprintf(line, sizeof(line), "  %-26s %10lld %10lld\n", op.c_str(),
                  static_cast<long long>(n.first), static_cast<long long>(n.second));
    out += line;
  }
  std::snprintf(line, sizeof(line), "  %-26s %10lld %10lld\n", "total",
                static_cast<long long>(total_before), static_cast<long long>(total_after));
  out += line;
  return out;
}

absl::StatusOr<Pipeline> PreparePipeline(PassFlags& flags) {
  if (flags.optimize && !flags.passes.empty()) {
    return absl::InvalidArgumentError("give either -O or --passes, not both");
  }
  if (flags.optimize) flags.passes = std::string(kDefaultPipeline);
  if (auto st = CheckPassNames(flags.passes); !st.ok()) return st;
  for (const std::string& name : flags.print_after) {
    if (auto st = CheckPassNames(name); !st.ok()) {
      return absl::InvalidArgumentError("--print-after" + std::string(st.message()).substr(8));
    }
  }
  flags.options.print_after = flags.print_after;
  if (!flags.options.dump_dir.empty() && flags.print_after.empty()) {
    flags.options.print_after_all = true;  // --dump-dir alone: every step
  }
  if (flags.filter_given) {
    if (auto st = FilterInstructionLines("", flags.filter); !st.ok()) return st.status();
  }
  return BuildPipeline(flags.passes);
}

std::string PrintForOutput(Module& module, const PrintStyle& style, const PassFlags& flags) {
  std::string text = PrintModule(module, style);
  if (!flags.filter_given) return text;
  return *FilterInstructionLines(text, flags.filter);
}

absl::Status RunPasses(Pipeline& pipeline, Module& module, const PrintStyle& style,
                       PassFlags& flags, std::string_view label) {
  if (!flags.options.dump_dir.empty() && !flags.dumps) {
    auto dumps = OutputDir::Open(flags.options.dump_dir, /*make_parents=*/true);
    if (!dumps.ok()) return dumps.status();
    flags.dumps = *std::move(dumps);
    flags.options.dump_files = flags.dumps.get();
  }
  flags.options.printer = [&](Module& m) { return PrintForOutput(m, style, flags); };
  std::vector<std::pair<std::string, int64_t>> before;
  if (flags.stats) before = OpcodeCounts(module);
  std::vector<PassTiming> timings;
  bool timed = flags.stats || flags.count_runs;
  auto run = pipeline.Run(module, flags.options, label, timed ? &timings : nullptr);
  flags.options.printer = nullptr;
  if (!run.ok()) return run.status();
  for (const PassTiming& t : timings) {
    flags.most_runs = std::max(flags.most_runs, t.runs);
    flags.total_runs += t.runs;
  }
  if (flags.stats) {
    std::string report = StatsReport(label, before, OpcodeCounts(module), timings);
    std::fwrite(report.data(), 1, report.size(), stderr);
  }
  return absl::OkStatus();
}

absl::Status PublishDumps(PassFlags& flags) {
  return flags.dumps ? flags.dumps->Commit() : absl::OkStatus();
}

}  // namespace hlo
