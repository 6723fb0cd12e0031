// hlo-run's logic (tools/run_tool.h): evaluates an HLO module's entry
// computation on inputs from files, .npy or a seed, and prints or checks the
// result.
#include "tools/run_tool.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "eval/denormals.h"
#include "eval/evaluator.h"
#include "eval/fusion/fusion_plan.h"
#include "eval/fusion/loop_fusion.h"
#include "eval/fusion/small_fusion.h"
#include "eval/io/compare.h"
#include "eval/io/expect.h"
#include "eval/io/feed_io.h"
#include "eval/io/random_fill.h"
#include "eval/io/run_io.h"
#include "eval/kernels/gemm.h"
#include "eval/replica_runner.h"
#include "eval/runtime/profiler.h"
#include "ir/hlo_printer.h"
#include "ir/interrupt.h"
#include "ir/located_status.h"
#include "ir/npy.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "passes/refine_shapes.h"
#include "passes/shape_inference.h"
#include "passes/verifier.h"
#include "re2/re2.h"
#include "stablehlo/stablehlo.h"
#include "tools/mpi_run.h"
#include "tools/numerics/numerics_run.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

namespace {

using hlo::AsUsage;
using hlo::Resident;
using hlo::ResidentNow;
using hlo::RunFlags;
using hlo::UsageError;

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

// The numerics options (README "hlo-run"; tools/numerics/).
void AddNumericsOptions(CLI::App& app, RunFlags& f) {
  app.add_flag("--find-nonfinite", f.find_nonfinite,
               "stop at the first instruction whose result holds NaN or Inf and describe it "
               "(exit status 3)");
  // The count comes only as --error-report=N, as --profile's file.
  app.add_flag("--error-report", f.error_report_text,
               "run beside the f64 widening and list the N (default 10) instructions that add "
               "the most error")
      ->option_text("[=N]");
  app.add_flag("--json", f.json, "--error-report and --compare-values print JSON");
  app.add_option("--dump-values", f.dump_values,
                 "write the value of every instruction whose name matches RE2 as DIR/NAME.npy")
      ->expected(2)
      ->option_text("RE2 DIR");
  app.add_option("--compare-values", f.compare_values,
                 "compare two --dump-values folders (no module): where the values differ")
      ->expected(2)
      ->option_text("DIR1 DIR2");
}

// --error-report's N and the module --compare-values does without.
std::optional<int> FinishNumericsFlags(CLI::App& app, int argc, char** argv, RunFlags& f) {
  if (app.count("--error-report") > 0) {
    f.error_report = 10;
    for (int i = 1; i < argc; ++i) {
      std::string_view a(argv[i]);
      if (!a.starts_with("--error-report=")) continue;
      int64_t n = 0;
      if (!hlo::ParseInt64(a.substr(15), &n) || n < 1 || n > 1000000) {
        std::cerr << "hlo-run: error: --error-report=N takes a count from 1 to 1000000\n";
        return 2;
      }
      f.error_report = static_cast<int>(n);
    }
  }
  if (f.module_file.empty() && f.compare_values.empty()) {
    std::cerr << "hlo-run: error: input is required; see --help\n";
    return 2;
  }
  if (f.compare_values.empty()) return std::nullopt;
  if (!f.module_file.empty()) {
    std::cerr << "hlo-run: error: --compare-values takes no module (" << f.module_file << ")\n";
    return 2;
  }
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0 || o->get_name() == "--compare-values" || o->get_name() == "--json") {
      continue;
    }
    std::cerr << "hlo-run: error: " << o->get_name() << " conflicts with --compare-values\n";
    return 2;
  }
  return std::nullopt;
}

void AddOptions(CLI::App& app, RunFlags& f) {
  // Required unless --compare-values (ParseFlags checks).
  app.add_option("input", f.module_file, "HLO text file, or - for standard input");
  CLI::Option* input = app.add_option(
      "--input", f.inputs,
      "a value per parameter: a file (.npy, .json or literal text), or literal text itself");
  app.add_flag("--random-inputs", f.random_inputs, "generate every parameter from --seed")
      ->excludes(input);
  app.add_option("--refine-shapes", f.refine_shapes,
                 "run a module with unbounded dimensions (f32[?,4]) for entry parameters of "
                 "these shapes, written as a tuple: '(f32[3,4], s32[])' (else each takes its "
                 "input's shape)");
  app.add_option("--seed", f.seed, "seed for --random-inputs and elided constants")
      ->check(CLI::Validator(
          [](const std::string& s) {
            return s.find('-') == std::string::npos ? std::string()
                                                    : "a seed is a number from 0 to 2^64-1";
          },
          "UINT64"));
  app.add_option("--passes", f.passes,
                 "passes to run before evaluating, instead of the fused mode's own (calls "
                 "without side effects inlined, names kept, then cse and dce: the same "
                 "results; none with --no-fusion, --no-fast-paths, --find-nonfinite, "
                 "--dump-values or --error-report); --passes '' runs none");
  app.add_option("--output-format", f.output_format, hlo::ResultFormatHelp())
      ->check(CLI::IsMember(hlo::ResultFormatNames()));
  app.add_option("-o,--output", f.output,
                 "output file (npy: FILE.npy for an array result, else a folder)");
  app.add_option("--expect", f.expect,
                 "compare the result with this: one file of the whole result, one .npy per "
                 "result array in order, or a folder of result_I.npy / out_I.npy (per device: "
                 "once, or once per device); exit 1 on mismatch");
  app.add_option("--replicas", f.replicas, "replicas to run (default: the module's replica_count)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  app.add_option("--partitions", f.partitions,
                 "partitions to run (default: the module's num_partitions)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  app.add_option("--infeed", f.infeed_files,
                 "values for infeed, read in order (text, .json, .npy)");
  app.add_option("--outfeed", f.outfeed_file, "write what outfeed sends to this file");
  app.add_option("--collective-timeout", f.collective_timeout,
                 "seconds a device waits for the others at a collective")
      ->check(CLI::PositiveNumber);
  app.add_option("--device-scheduling", f.device_scheduling,
                 "how the devices of a multi-device run share the cores: threads (one each), "
                 "fibers (all on one thread, switching at collectives) or auto (default: fibers "
                 "when there are as many devices as cores or more, unless under --mpi)")
      ->check(CLI::IsMember({"auto", "threads", "fibers"}));
  app.add_option("--rtol", f.rtol, "relative tolerance for --expect");
  app.add_option("--atol", f.atol, "absolute tolerance for --expect");
  app.add_option("--bench", f.bench,
                 "time N runs after a first run (whose result --expect and -o take)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-memory", f.max_memory, "largest bytes of live buffers");
  app.add_option("--max-iterations", f.max_iterations, "stop while loops after N trips");
  app.add_flag("--no-verify", f.no_verify, "do not verify the module after parsing");
  app.add_option("--denormals", f.denormals,
                 "keep: IEEE denormals (default); flush: XLA:CPU's flush-to-zero (FTZ/DAZ)")
      ->check(CLI::IsMember({"keep", "flush"}));
  app.add_option("--precision", f.precision,
                 "native: each op in its declared type; f64: floats narrower than f64 computed in "
                 "f64 (c64 in c128), outputs rounded to their types (the widen-floats pass)")
      ->check(CLI::IsMember({"native", "f64"}));
  app.add_option("--dot-default-precision", f.dot_default_precision,
                 "how f32 dots and convolutions of DEFAULT precision compute: f32 (default), "
                 "tf32 (operands rounded to TF32, as NVIDIA GPUs do by default) or bf16 "
                 "(rounded to bf16); products summed in f32")
      ->check(CLI::IsMember({"f32", "tf32", "bf16"}));
  app.add_flag("--no-fast-paths", f.no_fast_paths,
               "apply reducers, comparators and other called computations with the general "
               "evaluator, element by element (a reference for checking the fast paths)");
  app.add_flag("--no-fusion", f.no_fusion,
               "run every instruction through its own kernel: no fused loops, softmax rows or "
               "sibling reductions (the same results, bit for bit)");
  // A flag whose file comes only as --profile=FILE: `--profile model.hlo`
  // must not take the module for the profile's file.
  app.add_flag("--profile", f.profile_json,
               "print each instruction's and opcode's time, calls, bytes and FLOPs "
               "(per run; with --bench, over the timed runs) on stderr, beside the "
               "machine's memcpy and sgemm rates; --profile=FILE also writes them as JSON. "
               "Every device of a multi-device run is profiled (times summed)")
      ->option_text("[=FILE]");
  AddNumericsOptions(app, f);
  app.add_flag("--mpi", f.mpi,
               "spread the devices over the ranks of mpirun -n R (implied when mpirun starts "
               "hlo-run; an error otherwise or in a build without MPI)");
}

}  // namespace

std::optional<int> hlo::ParseRunFlags(int argc, char** argv, RunFlags& f) {
  CLI::App app{"hlo-run: evaluate an XLA HLO module on the CPU"};
  AddOptions(app, f);
  if (auto st = hlo::CheckLongOptions(argc, argv, hlo::LongOptionNames(app)); !st.ok()) {
    hlo::ReportError("hlo-run", st);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = hlo::ReportParseError(app, e, "hlo-run");
    // `--profile FILE`: FILE became the module, the module an extra.
    bool profile_space = false;
    for (int i = 1; i + 1 < argc; ++i) {
      profile_space |= std::string_view(argv[i]) == "--profile" && argv[i + 1][0] != '-';
    }
    if (code != 0 && profile_space) {
      std::cerr << "hlo-run: note: --profile takes its file only as --profile=FILE\n";
    }
    return code == 0 ? 0 : 2;
  }
  f.output_given = app.count("--output") > 0;
  f.passes_given = app.count("--passes") > 0;
  f.profile = app.count("--profile") > 0;
  // A bare flag reads as "true": the file comes only with '='.
  bool profile_file = false;
  for (int i = 1; i < argc; ++i) {
    profile_file |= std::string_view(argv[i]).starts_with("--profile=");
  }
  if (!profile_file) f.profile_json.clear();
  return FinishNumericsFlags(app, argc, argv, f);
}

namespace {

// The numerics options' names given, in the order of the README.
std::vector<std::string> NumericsOptions(const RunFlags& f) {
  std::vector<std::string> on;
  if (f.find_nonfinite) on.push_back("--find-nonfinite");
  if (f.error_report > 0) on.push_back("--error-report");
  if (!f.dump_values.empty()) on.push_back("--dump-values");
  return on;
}

// The numerics options against the others (README "Flags together").
absl::Status CheckNumericsFlags(const RunFlags& f) {
  if (f.json && f.error_report == 0 && f.compare_values.empty()) {
    return UsageError("--json needs --error-report or --compare-values");
  }
  const std::vector<std::string> on = NumericsOptions(f);
  if (on.empty()) return absl::OkStatus();
  if (f.bench > 0) return UsageError(on[0] + " conflicts with --bench");
  if (!f.dump_values.empty()) {
    RE2 re(f.dump_values[0], RE2::Quiet);
    if (!re.ok()) {
      return UsageError(
          hlo::StrCat("--dump-values: bad RE2 '", f.dump_values[0], "': ", re.error()));
    }
  }
  if (f.error_report == 0) return absl::OkStatus();
  // --error-report makes two runs of its own and prints only its report.
  const std::pair<bool, const char*> others[] = {{f.find_nonfinite, "--find-nonfinite"},
                                                 {!f.dump_values.empty(), "--dump-values"},
                                                 {f.precision == "f64", "--precision=f64"},
                                                 {!f.expect.empty(), "--expect"},
                                                 {f.output_given, "-o"},
                                                 {!f.output_format.empty(), "--output-format"},
                                                 {f.profile, "--profile"},
                                                 {!f.infeed_files.empty(), "--infeed"},
                                                 {!f.outfeed_file.empty(), "--outfeed"}};
  for (const auto& [given, name] : others) {
    if (given) return UsageError(hlo::StrCat("--error-report conflicts with ", name));
  }
  return absl::OkStatus();
}

// The flags' contract with each other (README "Flags together").
absl::Status CheckFlags(RunFlags& f) {
  if (auto st = CheckNumericsFlags(f); !st.ok()) return st;
  const hlo::ResultFormat* implied = f.output_given ? hlo::ResultFormatOfPath(f.output) : nullptr;
  const bool format_given = !f.output_format.empty();
  f.format = format_given         ? hlo::FindResultFormat(f.output_format)
             : implied != nullptr ? implied
                                  : &hlo::ResultFormats()[0];
  if (format_given && implied != nullptr && implied != f.format) {
    return UsageError(hlo::StrCat("--output-format=", f.output_format, " conflicts with -o ",
                                  f.output, " (", implied->name, " by its extension)"));
  }
  f.output_format = f.format->name;
  f.npy_file = f.format->array_file && f.output.ends_with(f.format->extension);
  if (!f.format->needs_output.empty() && !f.output_given) {
    return UsageError(
        hlo::StrCat("--output-format=", f.format->name, " needs -o ", f.format->needs_output));
  }
  if (format_given && !f.output_given && (!f.expect.empty() || f.bench > 0)) {
    return UsageError(hlo::StrCat("--output-format without -o beside ",
                                  f.expect.empty() ? "--bench" : "--expect",
                                  ": the result is written only with -o FILE then"));
  }
  if (f.dot_default_precision != "f32" && f.precision == "f64") {
    return UsageError(hlo::StrCat("--dot-default-precision=", f.dot_default_precision,
                                  " conflicts with --precision=f64 (dots rounded to ",
                                  f.dot_default_precision, " cannot also compute in f64)"));
  }
  if ((f.rtol || f.atol) && f.expect.empty()) {
    return UsageError(hlo::StrCat(f.rtol ? "--rtol" : "--atol", " needs --expect"));
  }
  return absl::OkStatus();
}

// The module file's text and the name errors give it.
struct Source {
  std::shared_ptr<const std::string> text;
  std::string filename;
  bool stablehlo = false;
};

absl::StatusOr<Source> ReadSource(const RunFlags& f) {
  auto text = hlo::ReadInput(f.module_file);
  if (!text.ok()) return text.status();
  Source src;
  src.filename = f.module_file == "-" ? "<stdin>" : f.module_file;
  src.text = std::make_shared<const std::string>(*std::move(text));
  src.stablehlo = absl::EndsWith(src.filename, ".mlir") || hlo::LooksLikeStableHlo(*src.text);
  return src;
}

// Puts "parameter I 'NAME' (SHAPE): " before what a reader's error says.
absl::Status NameParameter(const absl::Status& st, int64_t i, const hlo::Instruction& p) {
  return hlo::WithSubject(
      st, hlo::StrCat("parameter ", i, " '", p.name(), "' (", p.shape().ToString(false), "): "));
}

// A module with unbounded dimensions (`f32[?,4]`, a shape-polymorphic
// export) runs refined (passes/refine_shapes.h) for the shapes
// --refine-shapes gives, else for its inputs': a parameter whose shape is
// unbounded takes the shape of its input (an .npy file, or literal text
// that starts with its shape; the first device's when each device has its
// own).
absl::Status RefineForInputs(const RunFlags& f, hlo::Module& m) {
  const hlo::Computation& entry = *m.entry();
  const int64_t params = entry.parameter_count();
  if (!f.refine_shapes.empty()) {
    auto given = hlo::ParseParameterShapes(f.refine_shapes, m.shapes());
    if (!given.ok()) return UsageError(std::string(given.status().message()));
    return hlo::RefineShapes(m, *given);
  }
  std::vector<hlo::Shape> shapes;
  for (int64_t i = 0; i < params; ++i) {
    const hlo::Instruction& p = *entry.parameter(i);
    if (!hlo::HasUnboundedDims(p.shape())) {
      shapes.push_back(p.shape());
      continue;
    }
    const auto given = static_cast<int64_t>(f.inputs.size());
    if (f.random_inputs || given < params || given % params != 0) {
      return UsageError(hlo::StrCat(
          "parameter ", i, " '", p.name(), "' (", p.shape().ToString(false),
          ") has unbounded dimensions: give its values with --input (an .npy file, or literal "
          "text that starts with its shape), or the shapes with --refine-shapes; the module "
          "is refined for them"));
    }
    auto lit = hlo::LoadInputArgument(f.inputs[i], p.shape());
    if (!lit.ok()) return NameParameter(lit.status(), i, p);
    if (hlo::HasUnboundedDims(lit->shape()) || !lit->shape().IsArray()) {
      return NameParameter(absl::InvalidArgumentError("the input gives no shape"), i, p);
    }
    shapes.push_back(lit->shape());
  }
  return hlo::RefineShapes(m, shapes);
}

// Whether the fused mode's own passes run: nothing names another pipeline,
// asks for the reference evaluation, or names instructions as the file has
// them (cse leaves one of two alike instructions).
bool RunsOwnPasses(const RunFlags& f) {
  return !f.passes_given && !f.no_fusion && !f.no_fast_paths && !f.find_nonfinite &&
         f.dump_values.empty() && f.error_report == 0;
}

// The names of the members of the row softmaxes and layer norms that XLA
// split over several fusions, found in a copy of `m` with every fusion
// defused under its own names (none unless a fusion holds an exponential
// or a reduce: the copy costs a print and a parse).
absl::flat_hash_set<std::string> RowPatternMembersAcrossFusions(hlo::Module& m,
                                                                bool flush_denormals) {
  bool row_pattern = false;
  for (const auto& c : m.computations()) {
    if (!c->is_fusion_computation()) continue;
    for (const auto& inst : c->instructions()) {
      row_pattern |= inst->opcode() == hlo::Opcode::kExp || inst->opcode() == hlo::Opcode::kReduce;
    }
  }
  if (!row_pattern) return {};
  absl::StatusOr<std::unique_ptr<hlo::Module>> copy = hlo::ParseModule(hlo::PrintModule(m));
  if (!copy.ok()) return {};
  hlo::DefuserOptions every;
  every.keep_names = true;
  if (!hlo::CreateDefuser(every)->Run(**copy).ok()) return {};
  std::vector<std::string> names = hlo::RowPatternMemberNames(**copy, flush_denormals);
  return absl::flat_hash_set<std::string>(names.begin(), names.end());
}

// JAX's unoptimised modules call small functions (a relu, a batch norm's
// _var, _where): inlined, the executor's fused loops see through them, and
// cse merges what they recompute (each _var sums its input again, as main
// did). The same bits: inlined calls compute what they did (same_results_only),
// and cse merges only alike pure instructions.
//
// XLA:CPU's optimised modules fuse a batch norm's centring (x - mean over a
// large array) into a loop fusion that only reduce fusions read: defused
// with them, the executor folds it into the reduce's loop instead of making
// the array (passes/defuser.cc). Small arrays stay fused: there XLA's fusion
// runs as one program and a step's own cost would be most of an op's time.
absl::Status RunOwnPasses(hlo::Module& m, bool verify, bool flush_denormals) {
  // (fusion-cse first: the fusions that recompute a made value read it, and
  // the defuser sees who reads what. XLA's GPT-2 materialises each layer's
  // residual once and recomputes it in the fusions after; defused first,
  // every layer norm recomputed the whole stream.)
  // (XLA's select-and-scatter expansion goes back to one select-and-scatter
  // first: the iotas and the scatter it leaves then die with dce below.)
  absl::StatusOr<bool> rebuilt = hlo::CreateSelectAndScatterRebuild()->Run(m);
  if (!rebuilt.ok()) return rebuilt.status();
  absl::StatusOr<bool> read = hlo::CreateFusionCse()->Run(m);
  if (!read.ok()) return read.status();
  hlo::DefuserOptions defuse_options;
  defuse_options.reduce_producers_over = int64_t{1} << 14;
  defuse_options.keep_names = true;
  // (Sibling loop fusions computing the same inner values are defused too:
  // cse then computes those once. XLA's threefry loop bodies make rounds
  // 1-3 in two fusions each.)
  defuse_options.defuse_sharing_siblings = true;
  // (A fusion holding a form the executor's own groups run, GELU's tanh
  // form, counts as not one loop: defused, the groups find it. XLA's
  // GPT-2 GELU fusions ran 0.43 ms each as one batched loop.)
  defuse_options.runs_as_one_loop = [flush_denormals](const hlo::Instruction& fusion) {
    for (const hlo::Computation* c : fusion.called_computations()) {
      if (hlo::HoldsPatternKernel(*c)) return false;
    }
    return hlo::CompileLoopFusion(fusion, flush_denormals) != nullptr ||
           hlo::CompileSmallFusion(fusion, flush_denormals) != nullptr;
  };
  // (A fusion holding part of a softmax that XLA split over several, its
  // max and exp, sum, reciprocal and product, is defused: the group runs
  // the whole in one pass over each row. GPT-2's attention: 0.11 -> 0.05 ms.
  // So is one holding part of a layer norm, split over its sum, centring,
  // sum of squares, rsqrt and scaling: gpt_fwd's four took about 0.05 ms
  // each as five fusions.)
  const absl::flat_hash_set<std::string> joined =
      RowPatternMembersAcrossFusions(m, flush_denormals);
  if (!joined.empty()) {
    defuse_options.joins_pattern = [&joined](const hlo::Instruction& fusion) {
      for (const hlo::Computation* c : fusion.called_computations()) {
        for (const auto& inst : c->instructions()) {
          const std::string_view name = inst->name();
          if (joined.contains(absl::string_view(name.data(), name.size()))) return true;
        }
      }
      return false;
    };
  }
  absl::StatusOr<bool> defused = hlo::CreateDefuser(defuse_options)->Run(m);
  if (!defused.ok()) return defused.status();
  hlo::CallInlinerOptions inline_options;
  inline_options.keep_names = true;
  inline_options.same_results_only = true;
  absl::StatusOr<bool> inlined = hlo::CreateCallInliner(inline_options)->Run(m);
  if (!inlined.ok()) return inlined.status();
  if (!*inlined && !*defused && !*read && !*rebuilt) return absl::OkStatus();
  for (auto make : {hlo::CreateCommonSubexpressionElimination, hlo::CreateDeadCodeElimination}) {
    if (auto st = make()->Run(m).status(); !st.ok()) return st;
  }
  return verify ? hlo::VerifyModule(m) : absl::OkStatus();
}

// Refines a module with unbounded dimensions for its inputs, verifies and
// transforms it (--passes, the fused mode's own passes, --precision).
absl::Status PrepareModule(const RunFlags& f, const Source& src, hlo::Module& m) {
  m.set_source(src.filename, src.text);
  if (!f.no_verify) {
    if (auto st = hlo::VerifyModule(m); !st.ok()) return st;
  }
  if (!f.refine_shapes.empty() || hlo::HasUnboundedShapes(m)) {
    if (auto st = RefineForInputs(f, m); !st.ok()) return st;
    if (!f.no_verify) {
      if (auto st = hlo::VerifyModule(m); !st.ok()) return st;
    }
  }
  if (auto st = hlo::CheckPassNames(f.passes); !st.ok()) return AsUsage(st);
  auto pipeline = hlo::BuildPipeline(f.passes);
  if (!pipeline.ok()) return AsUsage(pipeline.status());
  if (auto st = pipeline->Run(m); !st.ok()) return st;
  if (RunsOwnPasses(f)) {
    if (auto st = RunOwnPasses(m, !f.no_verify, f.denormals == "flush"); !st.ok()) return st;
  }
  if (f.precision != "f64") {
    // A dot's algorithm is part of what it computes (the f64 reference
    // rounds no operand: widen-floats drops the algorithm).
    absl::Status st = hlo::CreateDotAlgorithmRewriter()->Run(m).status();
    if (st.ok() && !f.no_verify) st = hlo::VerifyModule(m);
    if (!st.ok()) return st;
  }
  if (f.dot_default_precision != "f32") {
    const int mantissa_bits = f.dot_default_precision == "tf32" ? 10 : 7;
    absl::Status st = hlo::CreateRoundDotOperands(mantissa_bits)->Run(m).status();
    if (st.ok() && !f.no_verify) st = hlo::VerifyModule(m);
    if (!st.ok()) return st;
  }
  if (!f.no_fusion && !f.no_fast_paths) {
    // Fusions read the values they would recompute (the same bits).
    absl::Status st = hlo::CreateFusionCse()->Run(m).status();
    if (st.ok() && !f.no_verify) st = hlo::VerifyModule(m);
    if (!st.ok()) return st;
  }
  if (f.precision == "f64") {
    // Nothing runs after the rewrite (no folding of the wide module).
    absl::Status st = hlo::CreateWidenFloats()->Run(m).status();
    if (st.ok() && !f.no_verify) st = hlo::VerifyModule(m);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// Parses, verifies and transforms the file's one module.
absl::StatusOr<std::unique_ptr<hlo::Module>> LoadModule(const RunFlags& f, const Source& src) {
  absl::StatusOr<std::unique_ptr<hlo::Module>> module;
  const hlo::ParseOptions options{src.filename, &hlo::InferShape};
  if (src.stablehlo) {
    auto modules = hlo::ParseStableHlo(*src.text, options);
    if (!modules.ok()) return modules.status();
    module = std::move(modules->front());
  } else {
    module = hlo::ParseModule(*src.text, options);
  }
  if (!module.ok()) {
    return hlo::ExplainParseFailure(*src.text, src.filename, "hlo-run", module.status());
  }
  if (auto st = PrepareModule(f, src, **module); !st.ok()) return st;
  return module;
}

// The pieces of a file split by `// -----` lines that hold more than blanks
// and `//` comments: the modules it holds.
std::vector<hlo::TextPiece> ModulePieces(const Source& src) {
  std::vector<hlo::TextPiece> pieces;
  for (const hlo::TextPiece& p :
       src.stablehlo ? hlo::SplitStableHlo(*src.text) : hlo::SplitModules(*src.text)) {
    std::string_view t = p.text;
    bool blank = true;
    while (blank) {
      size_t start = t.find_first_not_of(" \t\r\n");
      if (start == std::string_view::npos) break;
      t = t.substr(start);
      blank = t.starts_with("//");
      t = t.substr(std::min(t.size(), t.find('\n')));
    }
    if (!blank) pieces.push_back(p);
  }
  return pieces;
}

absl::Status CheckInputCount(const RunFlags& f, const hlo::Computation& entry, int64_t devices) {
  const int64_t params = entry.parameter_count();
  const auto given = static_cast<int64_t>(f.inputs.size());
  if (f.random_inputs || given == params || (devices > 1 && given == params * devices)) {
    return absl::OkStatus();
  }
  std::string names;
  if (params > 0 && params <= 8) {
    for (int64_t i = 0; i < params; ++i) {
      hlo::StrAppend(&names, i == 0 ? " (" : ", ", entry.parameter(i)->name(), ": ",
                     entry.parameter(i)->shape().ToString(false));
    }
    names += ")";
  }
  return UsageError(hlo::StrCat(
      "the entry computation takes ", params, params == 1 ? " parameter" : " parameters", names,
      "; ", given, " --input given: give one per parameter",
      devices > 1
          ? hlo::StrCat(" (or ", params * devices, ", ", params, " per device in device order)")
          : std::string(),
      " or --random-inputs"));
}

// Device d's inputs (d in [first, first + count): the devices run here):
// its own files when given per device, else the shared ones; random inputs
// from seed + d.
absl::StatusOr<std::vector<std::vector<hlo::Value>>> ReadArguments(const RunFlags& f,
                                                                   const hlo::Computation& entry,
                                                                   int64_t first, int64_t count) {
  const int64_t params = entry.parameter_count();
  std::vector<std::vector<hlo::Value>> args(count);
  for (int64_t d = first; d < first + count; ++d) {
    for (int64_t i = 0; i < params; ++i) {
      const hlo::Shape& shape = entry.parameter(i)->shape();
      size_t file = static_cast<int64_t>(f.inputs.size()) == params ? i : d * params + i;
      if (!f.random_inputs && d > first && file == static_cast<size_t>(i)) {
        args[d - first].push_back(args[0][i]);  // the same input: share the buffer
        continue;
      }
      auto lit = f.random_inputs ? hlo::RandomLiteral(shape, f.seed + static_cast<uint64_t>(d),
                                                      static_cast<uint64_t>(i))
                                 : hlo::LoadInputArgument(f.inputs[file], shape);
      if (!lit.ok()) return NameParameter(lit.status(), i, *entry.parameter(i));
      args[d - first].push_back(hlo::Value::FromLiteral(*std::move(lit)));
    }
  }
  return args;
}

// Says once that elided constants (`constant({...})`) run on generated values.
void NoteElidedConstants(const hlo::Module& m, uint64_t seed) {
  int64_t elided = 0;
  for (const auto& comp : m.computations()) {
    for (const auto& inst : comp->instructions()) elided += inst->literal_elided() ? 1 : 0;
  }
  if (elided == 0) return;
  std::cerr << "hlo-run: note: " << elided << " elided constant" << (elided == 1 ? "" : "s")
            << " (constant({...})) filled with generated values from --seed " << seed << "\n";
}

// Where the result goes: checks that need only the module's shapes.
absl::Status CheckResultFlags(const RunFlags& f, const hlo::Shape& root, int64_t devices) {
  if (!f.npy_file) return absl::OkStatus();
  const int64_t arrays = hlo::ResultArrayCount(root);
  if (arrays == 1 && devices == 1 && root.IsArray()) return absl::OkStatus();
  return UsageError(
      hlo::StrCat("-o ", f.output, " names one .npy file, but the result has ",
                  devices > 1 ? hlo::StrCat(devices, " devices") : hlo::StrCat(arrays, " arrays"),
                  ": give -o DIR --output-format=npy for a folder of result_I.npy"));
}

absl::Status WriteResult(const RunFlags& f, const std::vector<hlo::Literal>& lits,
                         const hlo::Shape& root, hlo::ReplicaRunner& runner) {
  std::vector<std::string> names;
  for (size_t d = 0; d < lits.size(); ++d) names.push_back(runner.DeviceName(d));
  // Per device when the run has several, also those of other MPI ranks.
  return f.format->write(
      hlo::ResultOutput{lits, root, names, f.output, f.npy_file, runner.total_devices() > 1});
}

// Compares each device's result with its --expect files; false on a mismatch.
absl::StatusOr<bool> CheckExpected(const RunFlags& f,
                                   const std::vector<std::vector<std::string>>& expect,
                                   const std::vector<hlo::Literal>& lits, const hlo::Shape& root,
                                   hlo::ReplicaRunner& runner) {
  bool all_match = true;
  const auto devices = static_cast<int64_t>(lits.size());
  for (int64_t d = 0; d < devices; ++d) {
    std::string dir_name = runner.DeviceName(d);
    std::replace(dir_name.begin(), dir_name.end(), ' ', '_');
    const std::vector<std::string>& mine = expect[runner.first_device() + d];
    const bool several = runner.total_devices() > 1;
    auto expected = hlo::LoadExpectedResult(mine, root, several ? dir_name : "");
    if (!expected.ok()) return expected.status();
    std::string report = hlo::CompareLiterals(lits[d], *expected, hlo::Tolerance{f.rtol, f.atol});
    std::string who = several ? hlo::StrCat(" (", runner.DeviceName(d), ")") : "";
    std::string files = hlo::StrJoin(mine, ", ");
    if (!report.empty()) {
      std::cerr << "hlo-run: result" << who << " differs from " << files << ": " << report;
      all_match = false;
    } else {
      std::cerr << "hlo-run: result" << who << " matches " << files << "\n";
    }
  }
  return all_match;
}

// What the first run gives: the outfeed, --expect's verdict and the result
// (-o; standard output unless --expect or --bench). False on a mismatch.
absl::StatusOr<bool> Outputs(const RunFlags& f, const std::vector<std::vector<std::string>>& expect,
                             std::vector<hlo::Value>& result, const hlo::Shape& root,
                             hlo::ReplicaRunner& runner) {
  const auto devices = static_cast<int64_t>(result.size());
  if (!f.outfeed_file.empty()) {
    std::string out;
    for (int64_t d = 0; d < devices; ++d) {
      if (devices > 1) hlo::StrAppend(&out, runner.DeviceName(d), ":\n");
      for (const hlo::Literal& l : runner.outfeed(d)) out += hlo::ResultToText(l);
    }
    if (auto st = hlo::WriteOutputAtomically(f.outfeed_file, out); !st.ok()) return st;
  }
  const bool write = f.output_given || (f.expect.empty() && f.bench == 0);
  if (f.expect.empty() && !write) return true;
  // The result is not used after this: its buffers move into the literals
  // (no second copy of the outputs alive beside them).
  std::vector<hlo::Literal> lits;
  for (hlo::Value& v : result) lits.push_back(std::move(v).TakeLiteral());
  bool match = true;
  if (!f.expect.empty()) {
    auto verdict = CheckExpected(f, expect, lits, root, runner);
    if (!verdict.ok()) return verdict.status();
    match = *verdict;
  }
  if (write) {
    if (auto st = WriteResult(f, lits, root, runner); !st.ok()) return st;
  }
  return match;
}

// --bench: the timed runs after the first, and their figures on stderr and
// stdout.
absl::Status Bench(const RunFlags& f, hlo::ReplicaRunner& runner,
                   const std::vector<std::vector<hlo::Value>>& args, hlo::Profiler* profiler,
                   const std::string& name, const Resident& start) {
  std::vector<double> ms;
  for (int i = 0; i < f.bench; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = runner.Run(args);
    auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) return r.status();
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
  // Below a megabyte of live arrays the ratio is the resident set's own
  // noise (a few pages of heap over nearly nothing: 54272 for an MPI
  // latency loop), so it is not given.
  constexpr double kLeastLiveMb = 1.0;
  char ratio[32] = "n/a";
  if (live_mb >= kLeastLiveMb) std::snprintf(ratio, sizeof(ratio), "%.2f", added_mb / live_mb);
  // The times' line ends at max_ms (../shared/bench/compare.sh matches it
  // whole); the memory has a line of its own.
  char line[400];
  std::snprintf(line, sizeof(line),
                "bench: %s runs=%d min_ms=%.3f median_ms=%.3f max_ms=%.3f\n"
                "bench: %s peak_rss_mb=%.1f peak_data_mb=%.1f start_data_mb=%.1f "
                "peak_live_mb=%.1f added_over_live=%s\n",
                name.c_str(), f.bench, ms.front(), ms[ms.size() / 2], ms.back(), name.c_str(),
                rss_mb, peak_data_mb, start.data_mb(), live_mb, ratio);
  // On stderr as documented, and on stdout where compare.sh reads it.
  std::fputs(line, stderr);
  std::fputs(line, stdout);
  return absl::OkStatus();
}

absl::Status LoadInfeed(const RunFlags& f, hlo::ReplicaRunner& runner) {
  if (f.infeed_files.empty()) return absl::OkStatus();
  std::vector<hlo::FeedItem> feed;
  for (const std::string& file : f.infeed_files) {
    auto items = hlo::LoadFeedFile(file);
    if (!items.ok()) return items.status();
    for (hlo::FeedItem& item : *items) feed.push_back(std::move(item));
  }
  for (int64_t d = 0; d < runner.devices(); ++d) runner.SetInfeed(d, feed);
  return absl::OkStatus();
}

// The devices a module runs on: the flags', else the module's.
absl::Status DeviceCounts(const RunFlags& f, const hlo::Module& m, int64_t* replicas,
                          int64_t* partitions) {
  *replicas = f.replicas == 0 ? std::max<int64_t>(1, m.replica_count()) : f.replicas;
  *partitions = f.partitions == 0 ? std::max<int64_t>(1, m.num_partitions()) : f.partitions;
  if (*replicas * *partitions > 1024) {
    return UsageError(hlo::StrCat(*replicas, " replicas x ", *partitions,
                                  " partitions is more than the 1024 devices hlo-run runs"));
  }
  return absl::OkStatus();
}

hlo::EvalOptions MakeEvalOptions(const RunFlags& f) {
  hlo::EvalOptions options;
  options.max_memory_bytes = f.max_memory;
  options.max_iterations = f.max_iterations;
  options.seed = f.seed;
  options.flush_denormals = f.denormals == "flush";
  options.fast_paths = !f.no_fast_paths;
  options.fusion = !f.no_fusion;
  using Scheduling = hlo::EvalOptions::DeviceScheduling;
  options.device_scheduling = f.device_scheduling == "threads"  ? Scheduling::kThreads
                              : f.device_scheduling == "fibers" ? Scheduling::kFibers
                                                                : Scheduling::kAuto;
  if (options.flush_denormals) {
    hlo::SetBlasDenormalMode(true);
  } else {
    hlo::gemm::ParkBlasThreads();
  }
  return options;
}

// A file of several modules: the options that name one module's values or
// one run's outputs do not apply (README "hlo-run", split files).
absl::Status CheckSplitFlags(const RunFlags& f, size_t modules) {
  const std::pair<bool, const char*> single[] = {{!f.inputs.empty(), "--input"},
                                                 {!f.expect.empty(), "--expect"},
                                                 {f.output_given, "-o"},
                                                 {f.bench > 0, "--bench"},
                                                 {!f.infeed_files.empty(), "--infeed"},
                                                 {!f.outfeed_file.empty(), "--outfeed"},
                                                 {f.profile, "--profile"},
                                                 {f.find_nonfinite, "--find-nonfinite"},
                                                 {f.error_report > 0, "--error-report"},
                                                 {!f.dump_values.empty(), "--dump-values"},
                                                 {f.mpi || hlo::LaunchedByMpirun(), "--mpi"}};
  for (const auto& [given, name] : single) {
    if (!given) continue;
    return UsageError(hlo::StrCat(name, " conflicts with a file of ", modules,
                                  " modules (split by `// -----`): it applies to one module"));
  }
  return absl::OkStatus();
}

// One module of a split file, parsed, run and its result printed.
absl::Status RunPiece(const RunFlags& f, const Source& src, const hlo::TextPiece& piece) {
  const hlo::ParseOptions parse{src.filename, &hlo::InferShape};
  auto module = src.stablehlo ? hlo::ParseStableHloPiece(piece.text, piece.first_line, parse)
                              : hlo::ParseModulePiece(piece.text, piece.first_line, parse);
  if (!module.ok()) return module.status();
  hlo::Module& m = **module;
  if (auto st = PrepareModule(f, src, m); !st.ok()) return st;
  const hlo::Computation& entry = *m.entry();
  if (entry.parameter_count() > 0 && !f.random_inputs) {
    return hlo::MarkLocated(absl::InvalidArgumentError(hlo::StrCat(
        src.filename, ":", entry.loc().line, ":", entry.loc().col,
        ": error: the entry computation takes ", entry.parameter_count(),
        entry.parameter_count() == 1 ? " parameter" : " parameters",
        ": in a file of several modules each runs without inputs, or with --random-inputs")));
  }
  int64_t replicas = 0, partitions = 0;
  if (auto st = DeviceCounts(f, m, &replicas, &partitions); !st.ok()) return st;
  if (auto st = hlo::CheckInputsFit(m, f.max_memory); !st.ok()) return st;
  auto args = ReadArguments(f, entry, 0, replicas * partitions);
  if (!args.ok()) return args.status();
  NoteElidedConstants(m, f.seed);
  hlo::ReplicaRunner runner(
      m, MakeEvalOptions(f), replicas, partitions,
      std::chrono::milliseconds(static_cast<int64_t>(f.collective_timeout * 1000)), nullptr);
  auto result = runner.Run(*args);
  if (!result.ok()) return result.status();
  std::vector<hlo::Literal> lits;
  for (const hlo::Value& v : *result) lits.push_back(v.ToLiteral());
  return WriteResult(f, lits, entry.root()->shape(), runner);
}

// A file of several modules (`// -----` lines, as mlir-opt's
// -split-input-file reads them): each runs in turn, its result printed after
// a `// -----` line (none before the first); an error is reported and the
// rest still run (exit status 1).
absl::Status RunSplit(const RunFlags& f, const Source& src,
                      const std::vector<hlo::TextPiece>& pieces) {
  if (auto st = CheckSplitFlags(f, pieces.size()); !st.ok()) return st;
  bool any_error = false;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) {
      std::fputs("// -----\n", stdout);
      std::fflush(stdout);
    }
    if (absl::Status st = RunPiece(f, src, pieces[i]); !st.ok()) {
      // Every error names its module: at least the line the module starts on.
      if (!hlo::IsLocated(st)) {
        st = hlo::MarkLocated(
            absl::Status(st.code(), hlo::StrCat(src.filename, ":", pieces[i].first_line,
                                                ":1: error: ", std::string(st.message()))));
      }
      hlo::ReportError("hlo-run", st);
      any_error = true;
    }
  }
  return any_error ? hlo::AlreadyReported("a module failed") : absl::OkStatus();
}

// The module's devices and the flags that depend on them and on its
// signature (device counts, input count, --expect files, result flags,
// sizes), checked before any input is read or generated.
absl::Status CheckModuleRun(RunFlags& f, hlo::Module& m, int64_t* replicas, int64_t* partitions,
                            std::vector<std::vector<std::string>>* expect) {
  const hlo::Computation& entry = *m.entry();
  const hlo::Shape& root = entry.root()->shape();
  if (auto st = DeviceCounts(f, m, replicas, partitions); !st.ok()) return st;
  const int64_t devices = *replicas * *partitions;
  if (std::vector<std::string> on = NumericsOptions(f); !on.empty() && devices > 1) {
    return UsageError(hlo::StrCat(
        on[0], " runs one device: it conflicts with ",
        f.replicas > 1 ? "--replicas" : (f.partitions > 1 ? "--partitions" : "the module's"),
        f.replicas > 1 || f.partitions > 1 ? "" : " replica_count/num_partitions", " (", devices,
        " devices)"));
  }
  if (auto st = CheckInputCount(f, entry, devices); !st.ok()) return st;
  auto assigned = hlo::AssignExpectFiles(f.expect, root, devices);
  if (!assigned.ok()) return AsUsage(assigned.status());
  *expect = *std::move(assigned);
  if (auto st = CheckResultFlags(f, root, devices); !st.ok()) return st;
  return hlo::CheckInputsFit(m, f.max_memory);
}

// The first run and what follows it: outputs and --expect, the --bench
// runs, the profile. *matched: whether the result matched --expect.
absl::Status RunAndReport(RunFlags& f, hlo::Module& m, hlo::ReplicaRunner& runner,
                          hlo::NumericsSession* numerics, hlo::Profiler* profiler,
                          const std::vector<std::vector<std::string>>& expect,
                          const std::vector<std::vector<hlo::Value>>& args, const Resident& start,
                          bool* matched) {
  if (auto st = LoadInfeed(f, runner); !st.ok()) return st;
  auto first_start = std::chrono::steady_clock::now();
  auto result = runner.Run(args);
  if (numerics) {
    if (auto st = numerics->Finish(result.status()); !st.ok()) return st;
  }
  if (!result.ok()) return result.status();
  // The profile covers the timed runs of --bench, else this one.
  if (profiler && f.bench == 0) {
    profiler->AddRun(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_start)
            .count());
  }
  if (profiler && f.bench > 0) profiler->Reset();
  auto outputs = Outputs(f, expect, *result, m.entry()->root()->shape(), runner);
  if (!outputs.ok()) return outputs.status();
  *matched = *outputs;
  if (f.bench > 0) {
    // The first result is written: free it, so that the timed runs' results
    // are not a second set of outputs alive beside it.
    result->clear();
    result->shrink_to_fit();
    if (auto st = Bench(f, runner, args, profiler, m.name(), start); !st.ok()) return st;
  }
  if (!profiler) return absl::OkStatus();
  profiler->set_limits(hlo::MeasureMachineLimits());
  return hlo::ReportProfile(*profiler, m.name(), f.profile_json);
}

}  // namespace

// Everything after the flags. A result that differs from --expect is not an
// error: *matched says so (exit 1 after the --bench runs).
absl::Status RunTool(RunFlags& f, const Resident& start, bool* matched,
                     std::unique_ptr<hlo::MpiTransport>& mpi) {
  if (auto st = CheckFlags(f); !st.ok()) return st;
  if (!f.compare_values.empty()) {
    auto same = hlo::RunCompareValues(f.compare_values[0], f.compare_values[1], f.json);
    if (!same.ok()) return same.status();
    *matched = *same;
    return absl::OkStatus();
  }
  auto src = ReadSource(f);
  if (!src.ok()) return src.status();
  if (std::vector<hlo::TextPiece> pieces = ModulePieces(*src); pieces.size() > 1) {
    return RunSplit(f, *src, pieces);
  }
  auto module = LoadModule(f, *src);
  if (!module.ok()) return module.status();
  hlo::Module& m = **module;
  int64_t replicas = 0, partitions = 0;
  std::vector<std::vector<std::string>> expect;
  if (auto st = CheckModuleRun(f, m, &replicas, &partitions, &expect); !st.ok()) return st;
  const int64_t devices = replicas * partitions;
  if ((f.mpi || hlo::LaunchedByMpirun()) && f.device_scheduling == "fibers") {
    return UsageError(
        "--device-scheduling fibers conflicts with --mpi: devices on other processes are "
        "reached through threads that wait");
  }
  auto want_mpi = hlo::WantMpi(f);
  if (!want_mpi.ok()) return want_mpi.status();
  if (*want_mpi) {
    auto started = hlo::StartMpi(f, devices);
    if (!started.ok()) return started.status();
    mpi = *std::move(started);
  }
  // Under MPI each rank reads only its own devices' inputs.
  auto args = ReadArguments(f, *m.entry(), mpi ? mpi->first_device() : 0,
                            mpi ? mpi->local_devices() : devices);
  if (!args.ok()) return args.status();
  NoteElidedConstants(m, f.seed);

  hlo::EvalOptions options = MakeEvalOptions(f);
  if (f.bench == 0) options.progress = ProgressPrinter();
  if (f.error_report > 0) {
    RunFlags wide = f;
    wide.precision = "f64";
    auto wide_module = LoadModule(wide, *src);
    if (!wide_module.ok()) return wide_module.status();
    return hlo::RunErrorReport(m, **wide_module, (*args)[0], options, f.error_report, f.json);
  }
  std::unique_ptr<hlo::NumericsSession> numerics;
  if (f.find_nonfinite || !f.dump_values.empty()) {
    auto session = hlo::NumericsSession::Start(m, f.find_nonfinite, f.dump_values);
    if (!session.ok()) return session.status();
    numerics = *std::move(session);
    options.observer = numerics->observer();
  }
  std::unique_ptr<hlo::Profiler> profiler;
  if (f.profile) {
    profiler = std::make_unique<hlo::Profiler>();
    options.profiler = profiler.get();
  }
  hlo::ReplicaRunner runner(
      m, options, replicas, partitions,
      std::chrono::milliseconds(static_cast<int64_t>(f.collective_timeout * 1000)), mpi.get());
  return RunAndReport(f, m, runner, numerics.get(), profiler.get(), expect, *args, start, matched);
}

namespace hlo {

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

int64_t DefaultMaxMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{8} << 30;
  return static_cast<int64_t>(pages) * page / 4 * 3;
}

absl::Status RunHloRun(RunFlags& flags, const Resident& start, bool* matched) {
  PrepareMpiProcess();
  std::unique_ptr<MpiTransport> mpi;
  absl::Status st = RunTool(flags, start, matched, mpi);
  // Under MPI an error ends every rank; one before MPI started is the same
  // on every rank: rank 0 says it.
  if (!st.ok() && mpi) EndMpiJob(*mpi, st);
  if (!st.ok() && LaunchedByMpirun() && MpiBuilt() && MpirunRank() > 0) {
    return AlreadyReported(std::string(st.message()));
  }
  return st;
}

}  // namespace hlo
