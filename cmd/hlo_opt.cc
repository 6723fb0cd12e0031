// hlo-opt: reads HLO text (or module JSON), runs passes, prints the result.
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cmd/tool_common.h"
#include "ir/hlo_printer.h"
#include "ir/module_json.h"
#include "parser/parser.h"
#include "passes/pipeline.h"

int main(int argc, char** argv) {
  CLI::App app{"hlo-opt: parse, transform and print XLA HLO modules"};
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  std::string emit = "hlo";
  std::string input_format = "hlo";
  std::string print_style;
  bool print_metadata = true;
  bool list_passes = false;
  app.add_option("input", input, "HLO text file, or - for standard input");
  app.add_option("-o,--output", output, "output file (written atomically), - for stdout");
  app.add_option("--passes", passes, "comma-separated passes to run in order");
  app.add_option("--emit", emit, "output format")->check(CLI::IsMember({"hlo", "json"}));
  app.add_option("--input-format", input_format, "input format")
      ->check(CLI::IsMember({"hlo", "json"}));
  app.add_option("--print-style", print_style, "force long or short HLO text")
      ->check(CLI::IsMember({"long", "short"}));
  app.add_option("--print-metadata", print_metadata, "print metadata={...} attributes");
  app.add_flag("--list-passes", list_passes, "list the passes and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (list_passes) {
    std::cout << hlo::ListPasses();
    return 0;
  }

  auto text = hlo::ReadInput(input);
  if (!text.ok()) {
    hlo::ReportError("hlo-opt", text.status());
    return 1;
  }
  std::string filename = input == "-" ? "<stdin>" : input;
  std::vector<std::unique_ptr<hlo::Module>> modules;
  if (input_format == "json") {
    auto m = hlo::ModuleFromJson(*text, filename);
    if (!m.ok()) {
      hlo::ReportError("hlo-opt", m.status());
      return 1;
    }
    modules.push_back(*std::move(m));
  } else {
    auto ms = hlo::ParseModules(*text, hlo::ParseOptions{filename});
    if (!ms.ok()) {
      hlo::ReportError("hlo-opt", ms.status());
      return 1;
    }
    modules = *std::move(ms);
  }
  auto pipeline = hlo::BuildPipeline(passes);
  if (!pipeline.ok()) {
    hlo::ReportError("hlo-opt", pipeline.status());
    return 2;
  }
  std::string out;
  for (size_t i = 0; i < modules.size(); ++i) {
    hlo::Module& m = *modules[i];
    if (auto st = pipeline->Run(m); !st.ok()) {
      hlo::ReportError("hlo-opt", st);
      return 1;
    }
    if (i > 0) out += emit == "json" ? "\n" : "// -----\n\n";
    if (emit == "json") {
      out += hlo::ModuleToJson(m);
      out += '\n';
      continue;
    }
    hlo::PrintStyle style = m.style();
    if (print_style == "long") style = hlo::PrintStyle::Long();
    if (print_style == "short") style = hlo::PrintStyle::Short();
    style.print_metadata = print_metadata;
    out += hlo::PrintModule(m, style);
  }
  if (auto st = hlo::WriteOutputAtomically(output, out); !st.ok()) {
    hlo::ReportError("hlo-opt", st);
    return 1;
  }
  return 0;
}
