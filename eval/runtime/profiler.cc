#include "eval/runtime/profiler.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "eval/blas_api.h"
#include "eval/runtime/fibers.h"
#include "eval/value.h"
#include "ir/output_file.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// memcpy of half of a touched buffer onto the other half, best of 4. The
// buffer is mapped with transparent huge pages where the kernel gives them:
// touching 64 MiB then takes 32 faults instead of 16384 (on a VM whose host
// backs fresh memory lazily, each 4 KiB fault costs tens of microseconds).
void MeasureMemcpy(MachineLimits& limits) {
  constexpr size_t kBytes = size_t{64} << 20, kHuge = size_t{2} << 20;
  void* map =
      mmap(nullptr, kBytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return;
  char* buffer = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(map) + kHuge - 1) &
                                         ~uintptr_t{kHuge - 1});
#ifdef MADV_HUGEPAGE
  madvise(buffer, kBytes, MADV_HUGEPAGE);
#endif
  std::memset(buffer, 1, kBytes);  // every page mapped before timing
  double best_ms = 1e30;
  for (int i = 0; i < 4; ++i) {
    auto start = Clock::now();
    std::memcpy(buffer + kBytes / 2, buffer, kBytes / 2);
    best_ms = std::min(best_ms, MsSince(start));
  }
  munmap(map, kBytes + kHuge);
  limits.memcpy_bytes = static_cast<int64_t>(kBytes);
  limits.memcpy_gbps = best_ms > 0 ? static_cast<double>(kBytes) / (best_ms * 1e6) : 0;
}

// cblas_sgemm n^3 with OpenBLAS's threads, best of `tries` after a warm-up;
// returns the best time in ms.
double TimeSgemm(int n, int tries, MachineLimits& limits) {
  std::vector<float> a(static_cast<size_t>(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
  double best_ms = 1e30;
  for (int i = 0; i <= tries; ++i) {
    auto start = Clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    if (i > 0) best_ms = std::min(best_ms, MsSince(start));
  }
  double gflops = 2.0 * n * n * n / (best_ms * 1e6);
  if (gflops > limits.sgemm_gflops) {
    limits.sgemm_gflops = gflops;
    limits.sgemm_size = n;
  }
  return best_ms;
}

bool IsScalarShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape* e : shape.tuple_shapes()) {
      if (!IsScalarShape(*e)) return false;
    }
    return true;
  }
  return !shape.IsArray() || shape.rank() == 0;
}

int64_t ElementCount(const Shape& shape) {
  return shape.IsArray() ? std::max<int64_t>(shape.ElementCount(), 0) : 0;
}

bool MovesNoData(Opcode op) {
  switch (op) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kOptimizationBarrier:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return true;
    default:
      return false;
  }
}

int64_t DotFlops(const Instruction& inst) {
  if (inst.operand_count() < 1 || !inst.operand(0)->shape().IsArray()) return 0;
  const Shape& lhs = inst.operand(0)->shape();
  int64_t contracted = 1;
  for (int64_t d : inst.GetInts(AttrKind::kLhsContractingDims)) {
    if (d >= 0 && d < lhs.rank()) contracted *= lhs.dim(d);
  }
  return 2 * ElementCount(inst.shape()) * contracted;
}

int64_t ConvolutionFlops(const Instruction& inst) {
  const ConvDims* dims = inst.conv_dims();
  if (dims == nullptr || inst.operand_count() < 2) return 0;
  const Shape& kernel = inst.operand(1)->shape();
  if (!kernel.IsArray()) return 0;
  auto dim = [&](int64_t d) { return d >= 0 && d < kernel.rank() ? kernel.dim(d) : 1; };
  int64_t per_output = dim(dims->kernel_input_feature);  // input features per group
  for (int64_t d : dims->kernel_spatial) per_output *= dim(d);
  return 2 * ElementCount(inst.shape()) * per_output;
}

// What a row (an instruction, or an opcode's instructions) took per run.
struct RowAmounts {
  double ms = 0, calls = 0, bytes_read = 0, bytes_written = 0, flops = 0;
  double min_ms = 0;  // the smallest of one run (opcodes: the sum of their instructions')
};

std::string Fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, x);
  return buf;
}

// An amount per run: an integer when it is one (calls, bytes and FLOPs of
// deterministic runs), else a double.
nlohmann::ordered_json Amount(double x) {
  if (std::nearbyint(x) == x && std::fabs(x) < 9e15) return static_cast<int64_t>(x);
  return x;
}

std::string Shorten(std::string text, size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

}  // namespace

MachineLimits MeasureMachineLimits() {
  MachineLimits limits;
  auto start = Clock::now();
  MeasureMemcpy(limits);
  limits.blas_kernels = blas::CoreName();  // (opens OpenBLAS, whose count follows)
  limits.blas_kernels_widened = blas::KernelsWidened();
  limits.blas_threads = blas::Threads();
  // 512^3 is 0.27 GFLOP; with many cores it finishes too soon to reach the
  // peak, so 1024^3 (2.1 GFLOP, under 16 ms at that rate) follows when it
  // took under 2 ms.
  if (TimeSgemm(512, 2, limits) < 2) TimeSgemm(1024, 2, limits);
  limits.probe_ms = MsSince(start);
  return limits;
}

int64_t InstructionFlops(const Instruction& inst) {
  const Opcode op = inst.opcode();
  switch (op) {
    case Opcode::kDot:
      return DotFlops(inst);
    case Opcode::kConvolution:
      return ConvolutionFlops(inst);
    case Opcode::kReduce:
      return inst.operand_count() > 0 ? ElementCount(inst.operand(0)->shape()) : 0;
    case Opcode::kReduceWindow: {
      const Window* window = inst.window();
      int64_t size = 1;
      if (window != nullptr) {
        for (const WindowDim& d : *window) size *= d.size;
      }
      const Shape& out = inst.shape().IsTuple() && inst.shape().tuple_size() > 0
                             ? inst.shape().tuple_shape(0)
                             : inst.shape();
      return ElementCount(out) * size;
    }
    case Opcode::kCopy:
    case Opcode::kBitcastConvert:
      return 0;
    default:
      return IsElementwise(op) ? ElementCount(inst.shape()) : 0;
  }
}

int64_t InstructionBytesRead(const Instruction& inst) {
  if (MovesNoData(inst.opcode())) return 0;
  int64_t bytes = 0;
  for (const Instruction* op : inst.operands())
    bytes += std::max<int64_t>(ShapeBytes(op->shape()), 0);
  return bytes;
}

int64_t InstructionBytesWritten(const Instruction& inst) {
  if (MovesNoData(inst.opcode())) return 0;
  return std::max<int64_t>(ShapeBytes(inst.shape()), 0);
}

namespace {
// visit(i) for each instruction of the computations `inst` calls, and of
// those called by each instruction for which visit returns true.
template <typename F>
void VisitCalled(const Instruction& inst, F&& visit) {
  std::vector<const Computation*> pending;
  for (const Computation* c : inst.called_computations()) pending.push_back(c);
  while (!pending.empty()) {
    const Computation* comp = pending.back();
    pending.pop_back();
    for (const auto& i : comp->instructions()) {
      if (visit(*i)) {
        for (const Computation* c : i->called_computations()) pending.push_back(c);
      }
    }
  }
}
}  // namespace

int64_t FusedFlops(const Instruction& fusion) {
  int64_t flops = 0;
  VisitCalled(fusion, [&](const Instruction& i) {
    if (i.opcode() == Opcode::kFusion) return true;
    flops += InstructionFlops(i);
    return false;
  });
  return flops;
}

int64_t FusionBytesRead(const Instruction& fusion) {
  int64_t bytes = 0;
  for (const Instruction* op : fusion.operands())
    bytes += std::max<int64_t>(ShapeBytes(op->shape()), 0);
  return bytes;
}

bool Profiler::Covers(const Computation& comp) {
  if (comp.is_entry()) return true;
  for (int64_t i = 0; i < comp.parameter_count(); ++i) {
    if (!IsScalarShape(comp.parameter(i)->shape())) return true;
  }
  return comp.root() != nullptr && !IsScalarShape(comp.root()->shape());
}

namespace {
// Time of the timed instructions that ran on this thread (this device's
// fiber, where devices share a thread) inside the one being timed now (its
// called computations').
int64_t& ChildNs() { return Fibers::LocalCounter(Fibers::Local::kProfilerChildNs); }
}  // namespace

Profiler::Frame Profiler::Enter() {
  int64_t& child_ns = ChildNs();
  Frame frame{Clock::now(), child_ns};
  child_ns = 0;
  return frame;
}

void Profiler::Leave(const Instruction& inst, const Frame& frame) {
  int64_t& child_ns = ChildNs();
  const int64_t inclusive =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - frame.start).count();
  const int64_t exclusive = std::max<int64_t>(inclusive - child_ns, 0);
  child_ns = frame.outer_child_ns + inclusive;
  std::lock_guard<std::mutex> lock(mu_);
  Stats& s = stats_[&inst];
  s.ns += exclusive;
  ++s.calls;
}

void Profiler::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.clear();
  run_ms_.clear();
}

void Profiler::AddRun(double wall_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  run_ms_.push_back(wall_ms);
  for (auto& [inst, s] : stats_) {
    const int64_t run_ns = s.ns - s.ns_before_run;
    s.min_run_ns = s.runs_counted == 0 ? run_ns : std::min(s.min_run_ns, run_ns);
    s.ns_before_run = s.ns;
    ++s.runs_counted;
  }
}

struct Profiler::Row {
  std::string name, computation, opcode, shape;
  int64_t instructions = 1;
  RowAmounts per_run;
  double share = 0, gbps = 0, gflops = 0, memory_fraction = 0, compute_fraction = 0;
};

void Profiler::FillRates(Row& row, double total_ms) const {
  const RowAmounts& a = row.per_run;
  row.share = total_ms > 0 ? a.ms / total_ms : 0;
  if (a.ms > 0) {
    row.gbps = (a.bytes_read + a.bytes_written) / (a.ms * 1e6);
    row.gflops = a.flops / (a.ms * 1e6);
  }
  if (limits_.memcpy_gbps > 0) row.memory_fraction = row.gbps / limits_.memcpy_gbps;
  if (limits_.sgemm_gflops > 0) row.compute_fraction = row.gflops / limits_.sgemm_gflops;
}

bool Profiler::InnerTimed(const Instruction& fusion) const {
  bool timed = false;
  VisitCalled(fusion, [&](const Instruction& i) {
    timed = timed || stats_.contains(&i);
    return !timed;
  });
  return timed;
}

std::vector<Profiler::Row> Profiler::InstructionRows() const {
  std::lock_guard<std::mutex> lock(mu_);
  const double runs = std::max<double>(1, static_cast<double>(run_ms_.size()));
  std::vector<Row> rows;
  rows.reserve(stats_.size());
  double total_ms = 0;
  for (const auto& [inst, stats] : stats_) {
    Row row;
    const Computation* comp = inst->parent();
    row.computation = comp != nullptr ? comp->name() : "";
    row.name = comp == nullptr || comp->is_entry() ? std::string(inst->name())
                                                   : StrCat(comp->name(), "/", inst->name());
    row.opcode = inst->OpcodeText();
    row.shape = inst->shape().ToString(false);
    const double calls = static_cast<double>(stats.calls);
    row.per_run.ms = static_cast<double>(stats.ns) / 1e6 / runs;
    // An instruction first run after some runs took 0 in those.
    row.per_run.min_ms = run_ms_.empty() ? row.per_run.ms
                         : stats.runs_counted == static_cast<int64_t>(run_ms_.size())
                             ? static_cast<double>(stats.min_run_ns) / 1e6
                             : 0;
    row.per_run.calls = calls / runs;
    // A fusion run as one loop (its own instructions not timed) does their
    // work: their FLOPs, its operands read and its result written, as XLA's
    // cost analysis counts a fusion. One run instruction by instruction has
    // its instructions' rows instead.
    const bool whole_fusion = inst->opcode() == Opcode::kFusion && !InnerTimed(*inst);
    row.per_run.bytes_read =
        static_cast<double>(whole_fusion ? FusionBytesRead(*inst) : InstructionBytesRead(*inst)) *
        calls / runs;
    row.per_run.bytes_written =
        static_cast<double>(whole_fusion ? std::max<int64_t>(ShapeBytes(inst->shape()), 0)
                                         : InstructionBytesWritten(*inst)) *
        calls / runs;
    row.per_run.flops =
        static_cast<double>(whole_fusion ? FusedFlops(*inst) : InstructionFlops(*inst)) * calls /
        runs;
    total_ms += row.per_run.ms;
    rows.push_back(std::move(row));
  }
  for (Row& row : rows) FillRates(row, total_ms);
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.per_run.ms != b.per_run.ms) return a.per_run.ms > b.per_run.ms;
    return a.name < b.name;
  });
  return rows;
}

std::vector<Profiler::Row> Profiler::OpcodeRows(const std::vector<Row>& instructions) const {
  absl::flat_hash_map<std::string, Row> by_opcode;
  double total_ms = 0;
  for (const Row& r : instructions) {
    Row& o = by_opcode[r.opcode];
    if (o.opcode.empty()) {
      o.opcode = o.name = r.opcode;
      o.instructions = 0;
    }
    ++o.instructions;
    o.per_run.ms += r.per_run.ms;
    o.per_run.min_ms += r.per_run.min_ms;
    o.per_run.calls += r.per_run.calls;
    o.per_run.bytes_read += r.per_run.bytes_read;
    o.per_run.bytes_written += r.per_run.bytes_written;
    o.per_run.flops += r.per_run.flops;
    total_ms += r.per_run.ms;
  }
  std::vector<Row> rows;
  for (auto& [opcode, row] : by_opcode) {
    FillRates(row, total_ms);
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.per_run.ms != b.per_run.ms) return a.per_run.ms > b.per_run.ms;
    return a.opcode < b.opcode;
  });
  return rows;
}

Profiler::RunSummary Profiler::Summary(const std::vector<Row>& rows) const {
  RunSummary summary;
  for (const Row& r : rows) summary.ms += r.per_run.ms;
  std::lock_guard<std::mutex> lock(mu_);
  for (double ms : run_ms_) summary.wall_ms += ms;
  if (!run_ms_.empty()) summary.wall_ms /= static_cast<double>(run_ms_.size());
  summary.runs = std::max<int64_t>(static_cast<int64_t>(run_ms_.size()), 1);
  return summary;
}

namespace {

constexpr char kColumns[] =
    "      ms  min ms      %     calls   MB read  MB write     GFLOP     GB/s  %mem   GFLOP/s  "
    "%peak";

std::string RowColumns(const RowAmounts& a, double share, double gbps, double memory_fraction,
                       double gflops, double compute_fraction) {
  char buf[256];
  std::snprintf(
      buf, sizeof(buf), "%8.3f %7.3f %6.2f %9s %9.3f %9.3f %9.4f %8.2f %5.0f %9.2f %6.1f", a.ms,
      a.min_ms, 100 * share,
      (std::nearbyint(a.calls) == a.calls ? Fixed(a.calls, 0) : Fixed(a.calls, 1)).c_str(),
      a.bytes_read / 1e6, a.bytes_written / 1e6, a.flops / 1e9, gbps, 100 * memory_fraction, gflops,
      100 * compute_fraction);
  return buf;
}

}  // namespace

std::string Profiler::Table(std::string_view module_name, int top) const {
  std::vector<Row> rows = InstructionRows();
  std::vector<Row> opcodes = OpcodeRows(rows);
  const RunSummary runs = Summary(rows);
  std::string out =
      StrCat("profile: ", module_name, ", ", runs.runs, runs.runs == 1 ? " run" : " runs",
             "; per run ", Fixed(runs.ms, 3), " ms in ", rows.size(), " instructions (wall ",
             Fixed(runs.wall_ms, 3), " ms, with the profiler's own cost)\n");
  StrAppend(&out, "machine: memcpy ", Fixed(limits_.memcpy_gbps, 1),
            " GB/s (read + write, one thread, ", limits_.memcpy_bytes >> 20, " MiB), sgemm ",
            limits_.sgemm_size, "^3 ", Fixed(limits_.sgemm_gflops, 1), " GFLOP/s (",
            limits_.blas_threads, " OpenBLAS threads, ", limits_.blas_kernels, " kernels",
            limits_.blas_kernels_widened ? ", forced over OpenBLAS's Prescott fallback" : "",
            "); measured in ", Fixed(limits_.probe_ms, 0), " ms\n");
  const size_t shown = std::min<size_t>(rows.size(), static_cast<size_t>(std::max(top, 0)));
  StrAppend(&out, "top ", shown,
            " instructions by exclusive time (per run: the mean, the "
            "smallest; %mem of memcpy, %peak of sgemm):\n",
            kColumns,
            "  opcode               shape                         "
            "   name\n");
  for (size_t i = 0; i < shown; ++i) {
    const Row& r = rows[i];
    char tail[256];
    std::snprintf(tail, sizeof(tail), "  %-20s %-32s ", Shorten(r.opcode, 20).c_str(),
                  Shorten(r.shape, 32).c_str());
    StrAppend(
        &out,
        RowColumns(r.per_run, r.share, r.gbps, r.memory_fraction, r.gflops, r.compute_fraction),
        tail, r.name, "\n");
  }
  StrAppend(&out, "opcodes (per run):\n", kColumns, "  opcode               instructions\n");
  for (const Row& r : opcodes) {
    char tail[64];
    std::snprintf(tail, sizeof(tail), "  %-20s %lld", Shorten(r.opcode, 20).c_str(),
                  static_cast<long long>(r.instructions));
    StrAppend(
        &out,
        RowColumns(r.per_run, r.share, r.gbps, r.memory_fraction, r.gflops, r.compute_fraction),
        tail, "\n");
  }
  return out;
}

std::string Profiler::Json(std::string_view module_name) const {
  using J = nlohmann::ordered_json;
  std::vector<Row> rows = InstructionRows();
  std::vector<Row> opcodes = OpcodeRows(rows);
  const RunSummary runs = Summary(rows);
  // The deterministic fields first, so that a test can match them.
  auto row_json = [](const Row& r, bool instruction) {
    J j;
    j["name"] = r.name;
    if (instruction) {
      j["computation"] = r.computation;
      j["opcode"] = r.opcode;
      j["shape"] = r.shape;
    } else {
      j["instructions"] = r.instructions;
    }
    j["calls"] = Amount(r.per_run.calls);
    j["bytes_read"] = Amount(r.per_run.bytes_read);
    j["bytes_written"] = Amount(r.per_run.bytes_written);
    j["flops"] = Amount(r.per_run.flops);
    j["ms"] = r.per_run.ms;
    j["min_ms"] = r.per_run.min_ms;
    j["share"] = r.share;
    j["gbps"] = r.gbps;
    j["gflops"] = r.gflops;
    j["memory_fraction"] = r.memory_fraction;
    j["compute_fraction"] = r.compute_fraction;
    return j.dump();
  };
  J head;
  head["module"] = std::string(module_name);
  head["runs"] = runs.runs;
  head["ms_per_run"] = runs.ms;
  head["wall_ms_per_run"] = runs.wall_ms;
  J machine;
  machine["memcpy_gbps"] = limits_.memcpy_gbps;
  machine["memcpy_bytes"] = limits_.memcpy_bytes;
  machine["sgemm_gflops"] = limits_.sgemm_gflops;
  machine["sgemm_size"] = limits_.sgemm_size;
  machine["blas_threads"] = limits_.blas_threads;
  machine["blas_kernels"] = limits_.blas_kernels;
  machine["blas_kernels_widened"] = limits_.blas_kernels_widened;
  machine["probe_ms"] = limits_.probe_ms;
  head["machine"] = machine;
  std::string out = "{\n";
  for (auto it = head.begin(); it != head.end(); ++it) {
    StrAppend(&out, "  ", J(it.key()).dump(), ": ", it.value().dump(), ",\n");
  }
  auto list = [&](std::string_view key, const std::vector<Row>& list_rows, bool instruction) {
    StrAppend(&out, "  \"", key, "\": [");
    for (size_t i = 0; i < list_rows.size(); ++i) {
      StrAppend(&out, i == 0 ? "\n    " : ",\n    ", row_json(list_rows[i], instruction));
    }
    out += list_rows.empty() ? "]" : "\n  ]";
  };
  list("instructions", rows, true);
  out += ",\n";
  list("opcodes", opcodes, false);
  out += "\n}\n";
  return out;
}

absl::Status ReportProfile(const Profiler& profiler, std::string_view module_name,
                           const std::string& json_path) {
  std::string table = profiler.Table(module_name);
  std::fputs(table.c_str(), stderr);
  if (json_path.empty()) return absl::OkStatus();
  return WriteFileAtomically(json_path, profiler.Json(module_name));
}

}  // namespace hlo
