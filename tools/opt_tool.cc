// hlo-opt's logic (tools/opt_tool.h): reads HLO text (or module JSON), runs
// passes, prints the result.
#include "tools/opt_tool.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "eval/kernels/gemm.h"
#include "ir/located_status.h"
#include "ir/strings.h"
#include "passes/pipeline.h"
#include "passes/refine_shapes.h"
#include "passes/verifier.h"
#include "stablehlo/stablehlo.h"
#include "tools/tool_status.h"

namespace hlo {
namespace {

void AddOptions(CLI::App& app, OptFlags& f) {
  PassFlags& p = f.pass_flags;
  app.add_option("input", f.input,
                 "HLO text file (module JSON if it ends in .json), or - for standard input");
  app.add_option("-o,--output", f.output, "output file (written atomically), - for stdout");
  app.add_option("--passes", p.passes,
                 "comma-separated passes to run in order; fixed-point(a,b) repeats a group "
                 "until nothing changes");
  app.add_flag("-O", p.optimize, "run the default pipeline (see --list-passes)");
  app.add_flag("--verify-each", p.options.verify_each, "verify after every pass");
  app.add_flag("--print-after-all", p.options.print_after_all,
               "print the module to stderr after every pass");
  app.add_option("--print-after", p.print_after,
                 "print the module to stderr after the passes named (comma-separated)")
      ->delimiter(',');
  app.add_option("--dump-dir", p.options.dump_dir,
                 "write what --print-after* prints to numbered files in this directory "
                 "(alone: after every pass)");
  app.add_flag("--stats", p.stats,
               "print instructions per opcode before and after, and time per pass, to stderr");
  app.add_option("--filter", p.filter,
                 "print only instructions whose text matches this RE2 pattern");
  app.add_option("--emit", f.emit, "output format: " + ModuleFormatHelp(/*writable=*/true))
      ->check(CLI::IsMember(ModuleFormatNames(/*writable=*/true)));
  app.add_option("--input-format", f.input_format,
                 "input format: " + ModuleFormatHelp(/*writable=*/false))
      ->check(CLI::IsMember(ModuleFormatNames(/*writable=*/false)));
  app.add_option("--print-style", f.print_style, "force long or short HLO text")
      ->check(CLI::IsMember({"long", "short"}));
  app.add_option("--print-metadata", f.print_metadata, "print metadata={...} attributes");
  app.add_option("--compact-gte", f.compact_gte,
                 "write get-tuple-element operands as %t#1 and leave their lines out, as "
                 "XLA's dumps do (default: as the input)")
      ->check(CLI::IsMember({"true", "false"}));
  app.add_flag("--print-op-generic", f.print_op_generic,
               "with --emit=stablehlo: every op in MLIR's generic form");
  app.add_flag("--list-passes", f.list_passes, "list the passes and exit");
  // cmd/hlo_opt.cc hands a command line with --bisect to reduce/bisect_tool.cc;
  // the option is here for --help.
  app.add_option("--bisect", f.bisect,
                 "find the first pass of this pipeline, and the first rewrite within it, after "
                 "which a test turns true; the test is hlo-reduce's (--test=CMD, --crash, "
                 "--nonfinite, --mismatch, ...: hlo-opt --bisect=PIPELINE --help)");
  app.add_flag("--no-verify", f.no_verify, "do not verify modules after reading them");
  app.add_option("--refine-shapes", f.refine_shapes,
                 "make unbounded dimensions (f32[?,4]) static for entry parameters of these "
                 "shapes, written as a tuple: '(f32[3,4], s32[])' (before the passes)");
  // Benchmark output (scripts/bench-parse); hidden from --help.
  app.add_flag("--time", f.time_phases, "print parse/print times and memory to stderr as one line")
      ->group("");
}

// The options that shape HLO text do nothing for JSON or dot output unless
// --print-after* or --dump-dir print HLO text too.
absl::Status CheckEmitFlags(const CLI::App& app, const OptFlags& f) {
  const PassFlags& p = f.pass_flags;
  if (app.count("--print-op-generic") > 0 && f.emit != "stablehlo") {
    return UsageError(
        StrCat("--print-op-generic shapes StableHLO text, and --emit=", f.emit, " prints none"));
  }
  const bool prints_steps =
      p.options.print_after_all || !p.print_after.empty() || !p.options.dump_dir.empty();
  if (f.writer->styled || prints_steps) return absl::OkStatus();
  for (const char* name : {"--filter", "--print-style", "--compact-gte", "--print-metadata"}) {
    if (app.count(name) == 0) continue;
    return UsageError(StrCat(name, " shapes HLO text, and --emit=", f.emit,
                             " prints none (only --print-after*, --dump-dir would)"));
  }
  return absl::OkStatus();
}

// The modules of the input, each parsed when its turn comes (as its format
// reads them: tools/formats.h).
struct InputModules {
  std::shared_ptr<const std::string> text;  // shared with the modules (verifier quotes)
  std::string filename;
  std::vector<ModuleParser> parsers;  // one per module
};

// `parse_timer` counts the split (and JSON's parse), not the reading.
absl::StatusOr<InputModules> ReadModules(const OptFlags& f, PhaseTimer& parse_timer) {
  auto read = ReadInput(f.input);
  if (!read.ok()) return read.status();
  parse_timer.Start();
  struct StopAtReturn {
    PhaseTimer& timer;
    ~StopAtReturn() { timer.Stop(); }
  } stop{parse_timer};
  InputModules in;
  in.text = std::make_shared<const std::string>(*std::move(read));
  in.filename = f.input == "-" ? "<stdin>" : f.input;
  // With no --input-format and no telling extension, MLIR text is StableHLO.
  const ModuleFormat* reader = f.reader;
  if (f.input_format.empty() && reader->name == "hlo" && LooksLikeStableHlo(*in.text)) {
    reader = FindModuleFormat("stablehlo");
  }
  auto parsers = reader->read(ModuleSource{*in.text, in.filename, "hlo-opt"});
  if (!parsers.ok()) return parsers.status();
  in.parsers = *std::move(parsers);
  return in;
}

// What one run over the modules gathers: the output and --time's figures.
struct OptRun {
  std::string out;
  size_t printed = 0;
  bool any_error = false;
  // --time: parse and print seconds (reading, passes and writing excluded),
  // and the heap and resident memory the parsed modules add.
  PhaseTimer parse_timer, print_timer, pass_timer;
  int64_t ir_heap_bytes = 0, ir_resident_bytes = 0, instructions = 0;
  int64_t instructions_after = 0;  // after the passes
};

int64_t InstructionCount(const Module& m) {
  int64_t n = 0;
  for (const auto& c : m.computations()) n += c->instruction_count();
  return n;
}

absl::StatusOr<std::unique_ptr<Module>> ParseOne(const OptFlags& f, InputModules& in, size_t i,
                                                 OptRun& run) {
  MemoryUsage before;
  if (f.time_phases) before = CurrentMemoryUsage();
  run.parse_timer.Start();
  absl::StatusOr<std::unique_ptr<Module>> m = in.parsers[i]();
  run.parse_timer.Stop();
  if (f.time_phases && m.ok()) {
    MemoryUsage after = CurrentMemoryUsage();
    run.ir_heap_bytes += static_cast<int64_t>(after.heap_bytes - before.heap_bytes);
    run.ir_resident_bytes += static_cast<int64_t>(after.resident_bytes - before.resident_bytes);
    run.instructions += InstructionCount(**m);
  }
  return m;
}

PrintStyle OutputStyle(const OptFlags& f, const Module& m) {
  PrintStyle style = m.style();
  if (f.print_style == "long") style = PrintStyle::Long();
  if (f.print_style == "short") style = PrintStyle::Short();
  if (!f.compact_gte.empty()) {
    style.compact_gte = f.compact_gte == "true";
  } else if (!f.print_style.empty()) {
    style.compact_gte = m.style().compact_gte;
  }
  style.print_metadata = f.print_metadata;
  return style;
}

// --refine-shapes: the entry parameters take the shapes written.
absl::Status RefineModule(const std::string& text, Module& m) {
  absl::StatusOr<std::vector<Shape>> params = ParseParameterShapes(text, m.shapes());
  if (!params.ok()) return UsageError(std::string(params.status().message()));
  return RefineShapes(m, *params);
}

// Verifies, runs the passes on and prints module `i` into run.out.
absl::Status HandleModule(OptFlags& f, Pipeline& pipeline, InputModules& in, size_t i, Module& m,
                          OptRun& run) {
  m.set_source(in.filename, in.text);
  if (!f.no_verify) {
    if (auto st = VerifyModule(m); !st.ok()) return st;
  }
  if (!f.refine_shapes.empty()) {
    if (auto st = RefineModule(f.refine_shapes, m); !st.ok()) return st;
    if (!f.no_verify) {
      if (auto st = VerifyModule(m); !st.ok()) return st;
    }
  }
  PrintStyle style = OutputStyle(f, m);
  std::string label = in.parsers.size() > 1 ? StrCat(m.name(), ".", i) : m.name();
  run.pass_timer.Start();
  absl::Status passes = RunPasses(pipeline, m, style, f.pass_flags, label);
  run.pass_timer.Stop();
  if (!passes.ok()) return passes;
  if (f.time_phases) run.instructions_after += InstructionCount(m);
  run.print_timer.Start();
  absl::StatusOr<std::string> text =
      f.writer->write(m, ModuleWriteOptions{style, &f.pass_flags, f.print_op_generic});
  run.print_timer.Stop();
  if (!text.ok()) return text.status();
  if (run.printed++ > 0) run.out += f.writer->separator;
  run.out += *text;
  return absl::OkStatus();
}

void PrintTimes(const OptFlags& f, const InputModules& in, const OptRun& run) {
  std::fprintf(stderr,
               "hlo-opt-time: input_bytes=%zu parse_seconds=%.6f "
               "parse_cpu_seconds=%.6f print_seconds=%.6f print_cpu_seconds=%.6f "
               "output_bytes=%zu ir_heap_bytes=%lld ir_rss_bytes=%lld "
               "peak_rss_bytes=%llu instructions=%lld pass_seconds=%.6f "
               "pass_cpu_seconds=%.6f instructions_after=%lld pass_rounds=%lld "
               "pass_runs=%lld\n",
               in.text->size(), run.parse_timer.wall_seconds(), run.parse_timer.cpu_seconds(),
               run.print_timer.wall_seconds(), run.print_timer.cpu_seconds(), run.out.size(),
               static_cast<long long>(run.ir_heap_bytes),
               static_cast<long long>(run.ir_resident_bytes),
               static_cast<unsigned long long>(PeakResidentBytes()),
               static_cast<long long>(run.instructions), run.pass_timer.wall_seconds(),
               run.pass_timer.cpu_seconds(), static_cast<long long>(run.instructions_after),
               static_cast<long long>(f.pass_flags.most_runs),
               static_cast<long long>(f.pass_flags.total_runs));
}

}  // namespace

std::vector<std::string> OptOptionNames() {
  CLI::App app;
  OptFlags f;
  AddOptions(app, f);
  return LongOptionNames(app);
}

std::optional<int> ParseOptFlags(int argc, char** argv, OptFlags& f) {
  CLI::App app{"hlo-opt: parse, transform and print XLA HLO modules"};
  AddOptions(app, f);
  if (auto st = CheckLongOptions(argc, argv, LongOptionNames(app)); !st.ok()) {
    ReportError("hlo-opt", st);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ReportParseError(app, e, "hlo-opt");
  }
  f.reader =
      f.input_format.empty() ? &ModuleFormatOfFile(f.input) : FindModuleFormat(f.input_format);
  f.writer = FindModuleFormat(f.emit);
  if (auto st = CheckEmitFlags(app, f); !st.ok()) {
    ReportError("hlo-opt", st);
    return 2;
  }
  f.pass_flags.filter_given = app.count("--filter") > 0;
  f.pass_flags.count_runs = f.time_phases;
  return std::nullopt;
}

absl::Status RunHloOpt(OptFlags& f, const std::function<void(const absl::Status&)>& report) {
  // Constant folding is the only evaluation here: no BLAS worker threads.
  gemm::StopBlasThreads();
  if (f.list_passes) {
    std::cout << ListPasses() << "\n-O runs: " << kDefaultPipeline << "\n";
    return absl::OkStatus();
  }
  auto pipeline = PreparePipeline(f.pass_flags);
  if (!pipeline.ok()) return AsUsage(pipeline.status());
  if (!f.refine_shapes.empty()) {
    ShapePool pool;  // the text is checked once, before any module is read
    if (auto shapes = ParseParameterShapes(f.refine_shapes, pool); !shapes.ok()) {
      return UsageError(std::string(shapes.status().message()));
    }
  }
  OptRun run;
  absl::StatusOr<InputModules> in = ReadModules(f, run.parse_timer);
  if (!in.ok()) return in.status();
  for (size_t i = 0; i < in->parsers.size(); ++i) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseOne(f, *in, i, run);
    if (!m.ok() && absl::IsNotFound(m.status()) && in->parsers.size() > 1) continue;  // empty
    absl::Status st = m.ok() ? HandleModule(f, *pipeline, *in, i, **m, run) : m.status();
    if (!st.ok()) {
      report(st);
      run.any_error = true;
    }
  }
  if (f.time_phases) PrintTimes(f, *in, run);
  // --dump-dir's files appear together once every module has run.
  if (auto st = PublishDumps(f.pass_flags); !st.ok()) return st;
  if (run.printed == 0 && !run.any_error) {
    // Only separators, blanks and comments: there is nothing to print.
    return MarkLocated(
        absl::InvalidArgumentError(StrCat(in->filename, ":1:1: error: the input holds no module")));
  }
  // The modules that worked are written even when others failed (exit 1).
  if (run.printed > 0) {
    if (auto st = WriteOutputAtomically(f.output, run.out); !st.ok()) return st;
  }
  return run.any_error ? AlreadyReported("a module failed") : absl::OkStatus();
}

}  // namespace hlo
