// Helpers shared by the command-line tools: reading input, writing output
// atomically, and reporting errors.
#ifndef HLO_TOOLS_TOOL_COMMON_H_
#define HLO_TOOLS_TOOL_COMMON_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/output_dir.h"
#include "passes/pipeline.h"

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace hlo {

// Reads a file, or standard input for "-".
absl::StatusOr<std::string> ReadInput(const std::string& path);
// Writes `data` to `path` through a temporary file in the same directory and
// a rename, so a failure never leaves a partial file; "-" is standard output.
absl::Status WriteOutputAtomically(const std::string& path, std::string_view data);
// The same for bytes handed over in pieces (ir/output_file.h's
// WriteFileInPieces): a large result need not be in memory at once.
absl::Status WriteOutputInPieces(const std::string& path,
                                 absl::FunctionRef<absl::Status(ByteSink)> produce);
// Prints a status message to stderr, prefixed with the tool name unless the
// status is marked located (ir/located_status.h: it names its place).
void ReportError(std::string_view tool, const absl::Status& status);

// ---- Usage help -------------------------------------------------------------

// The name of `names` closest to `word` (Levenshtein distance, at most a
// third of the word's length and at least 1), or empty.
std::string ClosestName(std::string_view word, const std::vector<std::string>& names);
// Checks every `--name` argument before CLI11 parses them (up to a bare
// `--`) against the long option names of `known`: an unknown one is an
// InvalidArgument error naming it, with "did you mean --x?" when one is close;
// so is a known one written `--name=` with nothing after the '=' (CLI11
// would take the next argument for its value).
std::vector<std::string> LongOptionNames(const CLI::App& app);
// A CLI11 parse error as `TOOL: error: WHAT; see --help` (exit status 2);
// --help and --version print as CLI11 does (0).
int ReportParseError(CLI::App& app, const CLI::ParseError& e, std::string_view tool);
// (CheckLongOptions: see above.)
absl::Status CheckLongOptions(int argc, const char* const* argv,
                              const std::vector<std::string>& known);
// The pass names of a --passes list (fixed-point groups opened) must exist:
// an unknown one is an InvalidArgument error with the closest name.
absl::Status CheckPassNames(std::string_view passes);
// When a parse failed on text that looks like StableHLO / MLIR (`module @`,
// `func.func`, `stablehlo.` ops), an error that says so; else `status`.
absl::Status ExplainParseFailure(std::string_view text, std::string_view filename,
                                 std::string_view tool, const absl::Status& status);

// ---- Benchmark figures (hlo-opt --time) ----------------------------------

// Wall-clock and CPU seconds of a phase, summed over its Start/Stop pairs.
class PhaseTimer {
 public:
  void Start();
  void Stop();
  double wall_seconds() const { return wall_; }
  double cpu_seconds() const { return cpu_; }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_ = 0;
  double wall_ = 0;
  double cpu_ = 0;
};

struct MemoryUsage {
  uint64_t heap_bytes = 0;      // malloc'ed and not yet freed (mallinfo2), plus IR slabs
  uint64_t resident_bytes = 0;  // resident set size (/proc/self/statm)
};
MemoryUsage CurrentMemoryUsage();
// The process's peak resident set size so far (getrusage ru_maxrss).
uint64_t PeakResidentBytes();

// ---- hlo-opt output helpers -------------------------------------------------

// --filter: keeps, of printed HLO text, the instruction lines in which the
// RE2 pattern matches somewhere (RE2::PartialMatch on the line without its
// indentation), with the header of each computation that keeps one; the
// HloModule line stays. An invalid pattern is an InvalidArgument error.
absl::StatusOr<std::string> FilterInstructionLines(std::string_view text, std::string_view pattern);

// Instructions per opcode text over every computation, sorted by opcode.
std::vector<std::pair<std::string, int64_t>> OpcodeCounts(const Module& module);

// --stats: the per-pass time table and the opcode counts before and after.
std::string StatsReport(std::string_view label,
                        const std::vector<std::pair<std::string, int64_t>>& before,
                        const std::vector<std::pair<std::string, int64_t>>& after,
                        const std::vector<PassTiming>& timings);

// hlo-opt's pass flags.
struct PassFlags {
  bool optimize = false;                 // -O
  std::string passes;                    // --passes
  std::vector<std::string> print_after;  // --print-after
  bool filter_given = false;
  std::string filter;       // --filter
  bool stats = false;       // --stats
  PipelineOptions options;  // --verify-each, --print-after-all, --dump-dir
  // --dump-dir's files, staged by the first RunPasses until PublishDumps.
  std::unique_ptr<OutputDir> dumps;
  // Set by RunPasses when count_runs, for hlo-opt --time: the most runs of
  // any one pass (the rounds of the -O pipeline's fixed-point group), and the
  // runs of all passes together (each run walks the module once).
  bool count_runs = false;
  int64_t most_runs = 0;
  int64_t total_runs = 0;
};

// Checks the pass flags (usage errors are InvalidArgument: exit status 2)
// and builds the pipeline; fills flags.options but its printer.
absl::StatusOr<Pipeline> PreparePipeline(PassFlags& flags);

// The text hlo-opt prints for a module: --filter applied (already checked).
std::string PrintForOutput(Module& module, const PrintStyle& style, const PassFlags& flags);

// Runs the pipeline on one module: --print-after* with the output's style,
// and the --stats report on stderr.
absl::Status RunPasses(Pipeline& pipeline, Module& module, const PrintStyle& style,
                       PassFlags& flags, std::string_view label);
// Makes --dump-dir's files of every module appear together (ir/output_dir.h;
// none after a failed write); nothing when no module was run.
absl::Status PublishDumps(PassFlags& flags);

}  // namespace hlo

#endif  // HLO_TOOLS_TOOL_COMMON_H_
