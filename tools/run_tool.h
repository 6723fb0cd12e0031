// hlo-run's logic (cmd/hlo_run.cc is its thin main): the flags as a struct,
// their parsing, and the run itself as a function returning a status whose
// payload says the exit code (tools/tool_status.h).
#ifndef HLO_TOOLS_RUN_TOOL_H_
#define HLO_TOOLS_RUN_TOOL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/formats.h"

namespace hlo {

// The resident set in MiB, whole and its file-backed part (the code and
// libraries' pages), from /proc/self/status; zeros where it is missing.
struct Resident {
  double total_mb = 0;
  double file_mb = 0;  // RssFile + RssShmem
  double data_mb() const { return total_mb - file_mb; }
};
Resident ResidentNow();

// Three quarters of the machine's memory: --max-memory's default.
int64_t DefaultMaxMemory();

// The flags, checked against each other by CheckFlags.
struct RunFlags {
  std::string module_file;
  std::vector<std::string> inputs;
  bool random_inputs = false;
  uint64_t seed = 0;
  std::string refine_shapes;  // the entry parameters' shapes, `(f32[3,4], s32[])`
  std::string passes;
  bool passes_given = false;  // --passes, even empty: no pipeline of the fused mode's own
  std::string output_format;  // as given; CheckFlags fills it
  const ResultFormat* format = nullptr;  // the one it names (tools/formats.h)
  std::string output = "-";
  bool output_given = false;
  bool npy_file = false;  // -o FILE.npy: one .npy file, not a folder
  std::vector<std::string> expect;
  int64_t replicas = 0, partitions = 0;
  std::vector<std::string> infeed_files;
  std::string outfeed_file;
  double collective_timeout = 60;
  std::string device_scheduling = "auto";  // threads, fibers or auto (ReplicaRunner)
  std::optional<double> rtol, atol;
  int bench = 0;
  int64_t max_memory = DefaultMaxMemory();
  int64_t max_iterations = -1;
  bool no_verify = false;
  std::string denormals = "keep";
  std::string precision = "native";
  std::string dot_default_precision = "f32";  // f32, tf32, bf16
  bool no_fast_paths = false;
  bool no_fusion = false;
  bool profile = false;
  std::string profile_json;  // --profile=FILE
  // Numerics (tools/numerics/numerics_run.h).
  bool find_nonfinite = false;
  int error_report = 0;  // --error-report[=N]: N; 0: off
  std::string error_report_text;
  bool json = false;
  std::vector<std::string> dump_values;     // {RE2, DIR}
  std::vector<std::string> compare_values;  // {DIR1, DIR2}
  bool mpi = false;                         // --mpi (also implied under mpirun)
};

// Parses the command line; returns the exit status when the tool should
// stop there (--help: 0, a usage error, already reported: 2).
std::optional<int> ParseRunFlags(int argc, char** argv, RunFlags& flags);

// Runs the module as the flags say. `start` is the resident set before any
// module or buffer (what --bench's peak data is measured from); *matched is
// false when --expect found a difference (reported; exit status 1).
absl::Status RunHloRun(RunFlags& flags, const Resident& start, bool* matched);

}  // namespace hlo

#endif  // HLO_TOOLS_RUN_TOOL_H_
