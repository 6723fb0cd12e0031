// hlo-opt: reads HLO text (or module JSON), runs passes, prints the result.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "cmd/tool_common.h"
#include "eval/kernels/gemm.h"
#include "ir/hlo_graphviz.h"
#include "ir/hlo_printer.h"
#include "ir/interrupt.h"
#include "ir/module_json.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/shape_inference.h"
#include "passes/verifier.h"

int main(int argc, char** argv) {
  hlo::interrupt::InstallHandlers();  // SIGINT, SIGTERM, SIGHUP
  CLI::App app{"hlo-opt: parse, transform and print XLA HLO modules"};
  std::string input = "-";
  std::string output = "-";
  std::string emit = "hlo";
  std::string input_format;  // empty: from the file name
  std::string print_style;
  std::string compact_gte;  // "true" / "false"; empty keeps the style read
  bool print_metadata = true;
  bool list_passes = false;
  bool no_verify = false;
  bool time_phases = false;
  hlo::PassFlags pass_flags;
  app.add_option("input", input,
                 "HLO text file (module JSON if it ends in .json), or - for standard input");
  app.add_option("-o,--output", output, "output file (written atomically), - for stdout");
  app.add_option("--passes", pass_flags.passes,
                 "comma-separated passes to run in order; fixed-point(a,b) repeats a group "
                 "until nothing changes");
  app.add_flag("-O", pass_flags.optimize, "run the default pipeline (see --list-passes)");
  app.add_flag("--verify-each", pass_flags.options.verify_each, "verify after every pass");
  app.add_flag("--print-after-all", pass_flags.options.print_after_all,
               "print the module to stderr after every pass");
  app.add_option("--print-after", pass_flags.print_after,
                 "print the module to stderr after the passes named (comma-separated)")
      ->delimiter(',');
  app.add_option("--dump-dir", pass_flags.options.dump_dir,
                 "write what --print-after* prints to numbered files in this directory "
                 "(alone: after every pass)");
  app.add_flag("--stats", pass_flags.stats,
               "print instructions per opcode before and after, and time per pass, to stderr");
  auto* filter_opt = app.add_option(
      "--filter", pass_flags.filter, "print only instructions whose text matches this RE2 pattern");
  app.add_option("--emit", emit, "output format")
      ->check(CLI::IsMember({"hlo", "json", "dot"}));
  app.add_option("--input-format", input_format,
                 "input format (default: json for a .json file, else hlo)")
      ->check(CLI::IsMember({"hlo", "json"}));
  app.add_option("--print-style", print_style, "force long or short HLO text")
      ->check(CLI::IsMember({"long", "short"}));
  app.add_option("--print-metadata", print_metadata, "print metadata={...} attributes");
  app.add_option("--compact-gte", compact_gte,
                 "write get-tuple-element operands as %t#1 and leave their lines out, as "
                 "XLA's dumps do (default: as the input)")
      ->check(CLI::IsMember({"true", "false"}));
  app.add_flag("--list-passes", list_passes, "list the passes and exit");
  app.add_flag("--no-verify", no_verify, "do not verify modules after reading them");
  // Benchmark output (scripts/bench-parse); hidden from --help.
  app.add_flag("--time", time_phases,
               "print parse/print times and memory to stderr as one line")
      ->group("");
  if (auto st = hlo::CheckLongOptions(argc, argv, hlo::LongOptionNames(app)); !st.ok()) {
    hlo::ReportError("hlo-opt", st);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return hlo::ReportParseError(app, e, "hlo-opt");
  }
  if (input_format.empty()) {
    input_format = absl::EndsWith(input, ".json") ? "json" : "hlo";
  }
  // The options that shape HLO text do nothing for JSON or dot output unless
  // --print-after* or --dump-dir print HLO text too.
  const bool prints_steps = pass_flags.options.print_after_all ||
                            !pass_flags.print_after.empty() ||
                            !pass_flags.options.dump_dir.empty();
  if (emit != "hlo" && !prints_steps) {
    for (const char* name : {"--filter", "--print-style", "--compact-gte", "--print-metadata"}) {
      if (app.count(name) == 0) continue;
      std::cerr << "hlo-opt: error: " << name << " shapes HLO text, and --emit=" << emit
                << " prints none (only --print-after*, --dump-dir would)\n";
      return 2;
    }
  }
  // Constant folding is the only evaluation here: no BLAS worker threads.
  hlo::gemm::StopBlasThreads();
  if (list_passes) {
    std::cout << hlo::ListPasses() << "\n-O runs: " << hlo::kDefaultPipeline << "\n";
    return 0;
  }
  pass_flags.filter_given = filter_opt->count() > 0;
  pass_flags.count_runs = time_phases;
  auto pipeline = hlo::PreparePipeline(pass_flags);
  if (!pipeline.ok()) {
    hlo::ReportError("hlo-opt", pipeline.status());
    return 2;
  }

  auto read = hlo::ReadInput(input);
  if (!read.ok()) {
    hlo::ReportError("hlo-opt", read.status());
    return 1;
  }
  // Shared with the modules so verifier messages can quote source lines.
  auto text = std::make_shared<const std::string>(*std::move(read));
  std::string filename = input == "-" ? "<stdin>" : input;
  // --time: parse and print seconds (reading, passes and writing excluded),
  // and the heap and resident memory the parsed modules add.
  hlo::PhaseTimer parse_timer, print_timer, pass_timer;
  int64_t ir_heap_bytes = 0, ir_resident_bytes = 0, instructions = 0;
  int64_t instructions_after = 0;  // after the passes
  parse_timer.Start();
  // Each module of a `// -----` separated file is handled in turn; an error
  // in one is reported and the others still run.
  std::vector<std::string_view> pieces;
  std::vector<uint32_t> first_lines;
  // JSON input holds one module or a list of them, read in one go.
  std::vector<std::unique_ptr<hlo::Module>> json_modules;
  if (input_format == "json") {
    auto ms = hlo::ModulesFromJson(*text, filename);
    if (!ms.ok()) {
      hlo::ReportError("hlo-opt", ms.status());
      return 1;
    }
    json_modules = *std::move(ms);
    pieces.assign(json_modules.size(), std::string_view());
    first_lines.assign(json_modules.size(), 1);
  } else {
    for (const hlo::TextPiece& p : hlo::SplitModules(*text)) {
      pieces.push_back(p.text);
      first_lines.push_back(p.first_line);
    }
  }
  parse_timer.Stop();
  std::string out;
  bool any_error = false;
  size_t printed = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    hlo::MemoryUsage before;
    if (time_phases) before = hlo::CurrentMemoryUsage();
    parse_timer.Start();
    absl::StatusOr<std::unique_ptr<hlo::Module>> m =
        input_format == "json" ? std::move(json_modules[i])
                               : hlo::ParseModulePiece(
                                     pieces[i], first_lines[i],
                                     hlo::ParseOptions{filename, &hlo::InferShape});
    parse_timer.Stop();
    if (time_phases && m.ok()) {
      hlo::MemoryUsage after = hlo::CurrentMemoryUsage();
      ir_heap_bytes += static_cast<int64_t>(after.heap_bytes - before.heap_bytes);
      ir_resident_bytes +=
          static_cast<int64_t>(after.resident_bytes - before.resident_bytes);
      for (const auto& c : (*m)->computations()) instructions += c->instruction_count();
    }
    if (!m.ok()) {
      if (absl::IsNotFound(m.status()) && pieces.size() > 1) continue;  // empty piece
      hlo::ReportError("hlo-opt",
                       input_format == "json"
                           ? m.status()
                           : hlo::ExplainParseFailure(pieces[i], filename, "hlo-opt", m.status()));
      any_error = true;
      continue;
    }
    (*m)->set_source(filename, text);
    if (!no_verify) {
      if (auto st = hlo::VerifyModule(**m); !st.ok()) {
        hlo::ReportError("hlo-opt", st);
        any_error = true;
        continue;
      }
    }
    hlo::PrintStyle style = (*m)->style();
    if (print_style == "long") style = hlo::PrintStyle::Long();
    if (print_style == "short") style = hlo::PrintStyle::Short();
    if (!compact_gte.empty()) style.compact_gte = compact_gte == "true";
    else if (!print_style.empty()) style.compact_gte = (*m)->style().compact_gte;
    style.print_metadata = print_metadata;
    std::string label = pieces.size() > 1 ? hlo::StrCat((*m)->name(), ".", i) : (*m)->name();
    pass_timer.Start();
    absl::Status run = hlo::RunPasses(*pipeline, **m, style, pass_flags, label);
    pass_timer.Stop();
    if (!run.ok()) {
      hlo::ReportError("hlo-opt", run);
      any_error = true;
      continue;
    }
    if (time_phases) {
      for (const auto& c : (*m)->computations()) instructions_after += c->instruction_count();
    }
    if (printed++ > 0) out += emit == "hlo" ? "// -----\n\n" : "\n";
    if (emit == "json") {
      out += hlo::ModuleToJson(**m);
      out += '\n';
      continue;
    }
    if (emit == "dot") {
      out += hlo::PrintGraphviz(**m);
      continue;
    }
    print_timer.Start();
    std::string printed_text = hlo::PrintForOutput(**m, style, pass_flags);
    print_timer.Stop();
    if (out.empty()) {
      out = std::move(printed_text);
    } else {
      out += printed_text;
    }
  }
  if (time_phases) {
    std::fprintf(stderr,
                 "hlo-opt-time: input_bytes=%zu parse_seconds=%.6f "
                 "parse_cpu_seconds=%.6f print_seconds=%.6f print_cpu_seconds=%.6f "
                 "output_bytes=%zu ir_heap_bytes=%lld ir_rss_bytes=%lld "
                 "peak_rss_bytes=%llu instructions=%lld pass_seconds=%.6f "
                 "pass_cpu_seconds=%.6f instructions_after=%lld pass_rounds=%lld "
                 "pass_runs=%lld\n",
                 text->size(), parse_timer.wall_seconds(), parse_timer.cpu_seconds(),
                 print_timer.wall_seconds(), print_timer.cpu_seconds(), out.size(),
                 static_cast<long long>(ir_heap_bytes),
                 static_cast<long long>(ir_resident_bytes),
                 static_cast<unsigned long long>(hlo::PeakResidentBytes()),
                 static_cast<long long>(instructions), pass_timer.wall_seconds(),
                 pass_timer.cpu_seconds(), static_cast<long long>(instructions_after),
                 static_cast<long long>(pass_flags.most_runs),
                 static_cast<long long>(pass_flags.total_runs));
  }
  // --dump-dir's files appear together once every module has run.
  if (auto st = hlo::PublishDumps(pass_flags); !st.ok()) {
    hlo::ReportError("hlo-opt", st);
    return 1;
  }
  if (printed == 0 && !any_error) {
    // Only separators, blanks and comments: there is nothing to print.
    std::cerr << filename << ":1:1: error: the input holds no module\n";
    return 1;
  }
  // The modules that worked are written even when others failed (exit 1).
  if (printed > 0) {
    if (auto st = hlo::WriteOutputAtomically(output, out); !st.ok()) {
      hlo::ReportError("hlo-opt", st);
      return 1;
    }
  }
  return any_error ? 1 : 0;
}
