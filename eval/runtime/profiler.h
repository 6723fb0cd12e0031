// hlo-run --profile: time, calls, bytes and FLOPs per instruction and per
// opcode, set against the machine's memory bandwidth and sgemm rate measured
// after the runs. The evaluator times each instruction it evaluates
// (EvalOptions::profiler); an instruction's time is exclusive: the time of
// the profiled instructions of the computations it calls is theirs, so the
// shares add up to 100%.
#ifndef HLO_EVAL_RUNTIME_PROFILER_H_
#define HLO_EVAL_RUNTIME_PROFILER_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "ir/computation.h"
#include "ir/instruction.h"

namespace hlo {

// What the machine reaches, measured briefly (well under 100 ms).
struct MachineLimits {
  double memcpy_gbps = 0;    // bytes read + written per second by memcpy, one thread
  int64_t memcpy_bytes = 0;  // the size of the buffer copied (half of it to the other half)
  double sgemm_gflops = 0;   // cblas_sgemm's rate on n x n x n
  int64_t sgemm_size = 0;    // that n
  int blas_threads = 0;      // OpenBLAS's threads during the probe
  std::string blas_kernels;  // OpenBLAS's kernel set (blas::CoreName)
  bool blas_kernels_widened = false;  // forced over its fallback (blas::KernelsWidened)
  double probe_ms = 0;                // how long measuring took
};

// A memcpy over an already-touched 64 MiB buffer and cblas_sgemm 512^3
// (and 1024^3 when 512^3 is fast), each the best of a few tries.
MachineLimits MeasureMachineLimits();

// FLOPs of one evaluation of `inst`: dot 2 x result elements x contracted
// size; convolution 2 x output elements x kernel spatial size x input
// features per group; elementwise ops (copy and bitcast-convert aside),
// compare, select, clamp 1 per element produced; reduce 1 per element of its
// first input; reduce-window 1 per output element and window element; others 0.
int64_t InstructionFlops(const Instruction& inst);
// Bytes one evaluation reads (its operands' arrays) and writes (its result's
// arrays). Instructions that only name or pass on values (parameter,
// constant, tuple, get-tuple-element, bitcast, optimization-barrier,
// after-all, add-dependency, domain) and those whose called computations do
// the work (call, fusion, while, conditional, async-*) count none (for a
// fusion that ran as one loop the report counts FusedFlops and
// FusionBytesRead instead).
int64_t InstructionBytesRead(const Instruction& inst);
int64_t InstructionBytesWritten(const Instruction& inst);
// A fusion's FLOPs: its fused instructions' (nested fusions' too), and the
// bytes of its operands; the profile gives a fusion these and its result's
// bytes when it ran as one loop (its own instructions not timed).
int64_t FusedFlops(const Instruction& fusion);
int64_t FusionBytesRead(const Instruction& fusion);

class Profiler {
 public:
  // The machine's limits are set before the report (measured after the
  // runs: the probe's 64 MiB buffer would otherwise count in --bench's
  // peak memory).
  Profiler() = default;
  void set_limits(const MachineLimits& limits) { limits_ = limits; }

  // Whether the instructions of `comp` are timed one by one: not for a
  // scalar computation (parameters and root scalars or tuples of scalars,
  // not the entry), which reducers, comparators and combiners are: their
  // time is the calling instruction's.
  static bool Covers(const Computation& comp);

  // Runs `evaluate` (which evaluates `inst`) and records its time less that
  // of the instructions timed meanwhile on this thread (those of called
  // computations). Thread-safe: devices running in threads may share one.
  template <typename F>
  auto Time(const Instruction& inst, F&& evaluate) {
    const Frame frame = Enter();
    auto result = evaluate();
    Leave(inst, frame);
    return result;
  }

  // Forgets what was recorded (the warm-up run of --bench).
  void Reset();
  // Ends a run the profile covers, with its wall time; times, calls,
  // bytes and FLOPs are reported per run (the mean), and each instruction's
  // smallest time in one run.
  void AddRun(double wall_ms);

  // The table hlo-run prints: the `top` slowest instructions, then the
  // totals per opcode.
  std::string Table(std::string_view module_name, int top = 25) const;
  // The same data as JSON (every instruction), one instruction a line.
  std::string Json(std::string_view module_name) const;

 private:
  struct Frame {
    std::chrono::steady_clock::time_point start;
    int64_t outer_child_ns;
  };
  struct Stats {
    int64_t ns = 0;
    int64_t calls = 0;
    // The smallest time of one run (a loaded machine's preemptions land on
    // whichever instruction runs then; the minimum over runs leaves them out).
    int64_t min_run_ns = 0;
    int64_t ns_before_run = 0;  // `ns` when the current run started
    int64_t runs_counted = 0;   // runs ended since this instruction first ran
  };
  struct Row;
  struct RunSummary {
    int64_t runs = 1;    // the runs covered (at least 1)
    double ms = 0;       // time in instructions per run
    double wall_ms = 0;  // wall time per run
  };

  static Frame Enter();
  void Leave(const Instruction& inst, const Frame& frame);
  // Whether an instruction of the fusion's computations (nested ones too)
  // was timed: it ran instruction by instruction. Called with mu_ held.
  bool InnerTimed(const Instruction& fusion) const;
  std::vector<Row> InstructionRows() const;
  std::vector<Row> OpcodeRows(const std::vector<Row>& instructions) const;
  void FillRates(Row& row, double total_ms) const;
  RunSummary Summary(const std::vector<Row>& rows) const;

  MachineLimits limits_;
  mutable std::mutex mu_;
  absl::flat_hash_map<const Instruction*, Stats> stats_;
  std::vector<double> run_ms_;
};

// Prints the profile's table on stderr and, when `json_path` is not empty,
// writes its JSON there (atomically).
absl::Status ReportProfile(const Profiler& profiler, std::string_view module_name,
                           const std::string& json_path);

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_PROFILER_H_
