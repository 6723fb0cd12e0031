// The format tables (tools/formats.h) and the readers and writers that are
// not functions of their own elsewhere.
#include "tools/formats.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "eval/io/run_io.h"
#include "ir/hlo_graphviz.h"
#include "ir/literal_json.h"
#include "ir/literal_stream.h"
#include "ir/module_json.h"
#include "ir/npy.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/shape_inference.h"
#include "stablehlo/stablehlo.h"
#include "stablehlo/writer.h"
#include "tools/tool_common.h"

namespace hlo {
namespace {

// HLO text: modules separated by `// -----` lines, each parsed on its own
// with the line numbers of the whole file.
absl::StatusOr<std::vector<ModuleParser>> ReadHloText(const ModuleSource& source) {
  std::vector<ModuleParser> parsers;
  for (const TextPiece& p : SplitModules(source.text)) {
    parsers.push_back([p, filename = source.filename, tool = source.tool]() {
      absl::StatusOr<std::unique_ptr<Module>> m =
          ParseModulePiece(p.text, p.first_line, ParseOptions{filename, &InferShape});
      if (m.ok()) return m;
      return absl::StatusOr<std::unique_ptr<Module>>(
          ExplainParseFailure(p.text, filename, tool, m.status()));
    });
  }
  return parsers;
}

absl::StatusOr<std::string> WriteHloText(Module& module, const ModuleWriteOptions& options) {
  return PrintForOutput(module, options.style, *options.pass_flags);
}

// Parsers that hand out modules read in one go.
std::vector<ModuleParser> ParsersOf(std::vector<std::unique_ptr<Module>> modules) {
  auto shared = std::make_shared<std::vector<std::unique_ptr<Module>>>(std::move(modules));
  std::vector<ModuleParser> parsers;
  for (size_t i = 0; i < shared->size(); ++i) {
    parsers.push_back([shared, i]() -> absl::StatusOr<std::unique_ptr<Module>> {
      return std::move((*shared)[i]);
    });
  }
  return parsers;
}

// Module JSON: a sequence of documents, read in one go.
absl::StatusOr<std::vector<ModuleParser>> ReadJson(const ModuleSource& source) {
  auto modules = ModulesFromJson(source.text, source.filename);
  if (!modules.ok()) return modules.status();
  return ParsersOf(*std::move(modules));
}

absl::StatusOr<std::string> WriteJson(Module& module, const ModuleWriteOptions&) {
  return ModuleToJson(module) + "\n";
}

absl::StatusOr<std::string> WriteDot(Module& module, const ModuleWriteOptions&) {
  return PrintGraphviz(module);
}

// StableHLO (MLIR) text: a module per piece of a `// -----` split file (as
// mlir-opt's -split-input-file splits it), each read on its own; written per
// module.
absl::StatusOr<std::vector<ModuleParser>> ReadStableHloText(const ModuleSource& source) {
  std::vector<ModuleParser> parsers;
  for (const TextPiece& p : SplitStableHlo(source.text)) {
    parsers.push_back([p, filename = source.filename]() {
      return ParseStableHloPiece(p.text, p.first_line, ParseOptions{filename, &InferShape});
    });
  }
  return parsers;
}

absl::StatusOr<std::string> WriteStableHloText(Module& module, const ModuleWriteOptions& options) {
  return stablehlo::PrintStableHlo(module, options.print_op_generic);
}

constexpr ModuleFormat kModuleFormats[] = {
    {"hlo", "XLA's HLO text", "", &ReadHloText, &WriteHloText, "// -----\n\n", true},
    {"json", "module JSON (README, Module JSON)", ".json", &ReadJson, &WriteJson, "\n"},
    {"dot", "Graphviz, a digraph per module", "", nullptr, &WriteDot, "\n"},
    {"stablehlo", "StableHLO (MLIR) text, as JAX prints it", ".mlir", &ReadStableHloText,
     &WriteStableHloText, "// -----\n\n"},
};

// The text of each device's result, under its name when there are several,
// written as it is formatted.
absl::Status WriteText(const ResultOutput& out) {
  return WriteOutputInPieces(out.path, [&](ByteSink sink) {
    for (size_t d = 0; d < out.results.size(); ++d) {
      if (out.per_device) {
        if (absl::Status st = sink(StrCat(out.device_names[d], ":\n")); !st.ok()) return st;
      }
      if (absl::Status st = StreamLiteralText(out.results[d], sink); !st.ok()) return st;
      if (absl::Status st = sink("\n"); !st.ok()) return st;
    }
    return absl::OkStatus();
  });
}

// One JSON result, or a list of one per device, written as it is formatted.
absl::Status WriteResultJson(const ResultOutput& out) {
  return WriteOutputInPieces(out.path, [&](ByteSink sink) {
    const size_t devices = out.per_device ? out.results.size() : 1;
    for (size_t d = 0; d < devices; ++d) {
      if (out.per_device) {
        if (absl::Status st = sink(d == 0 ? "[" : ",\n "); !st.ok()) return st;
      }
      if (absl::Status st = StreamLiteralJson(out.results[d], &out.shape, sink); !st.ok()) {
        return st;
      }
    }
    return sink(out.per_device ? "]\n" : "\n");
  });
}

// -o FILE.npy: the one array; else a folder of result_I.npy, a subfolder per
// device when there are several.
absl::Status WriteResultNpyFiles(const ResultOutput& out) {
  if (out.array_file) {
    return WriteOutputInPieces(out.path,
                               [&](ByteSink sink) { return StreamNpy(out.results[0], sink); });
  }
  std::vector<std::string> subdirs;
  for (size_t d = 0; out.per_device && d < out.results.size(); ++d) {
    std::string name = out.device_names[d];
    std::replace(name.begin(), name.end(), ' ', '_');
    subdirs.push_back(std::move(name));
  }
  return WriteResultNpy(out.results, subdirs, out.path);
}

constexpr ResultFormat kResultFormats[] = {
    {"text", "literal text, f32[2] {1, 2}", ".txt", &WriteText},
    {"json", "design.md's result JSON", ".json", &WriteResultJson},
    {"npy", "NumPy .npy: -o FILE.npy for one array, else -o DIR of result_I.npy", ".npy",
     &WriteResultNpyFiles, "DIR (or -o FILE.npy for an array result)", true},
};

template <typename Format>
std::string Help(std::span<const Format> formats, bool (*keep)(const Format&)) {
  std::string help;
  for (const Format& f : formats) {
    if (keep(f)) StrAppend(&help, help.empty() ? "" : "; ", f.name, ": ", f.description);
  }
  return help;
}

}  // namespace

std::span<const ModuleFormat> ModuleFormats() { return kModuleFormats; }

const ModuleFormat* FindModuleFormat(std::string_view name) {
  for (const ModuleFormat& f : kModuleFormats) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ModuleFormat& ModuleFormatOfFile(std::string_view path) {
  for (const ModuleFormat& f : kModuleFormats) {
    if (f.read != nullptr && !f.extension.empty() && path.ends_with(f.extension)) return f;
  }
  return kModuleFormats[0];
}

std::vector<std::string> ModuleFormatNames(bool writable) {
  std::vector<std::string> names;
  for (const ModuleFormat& f : kModuleFormats) {
    if (writable ? f.write != nullptr : f.read != nullptr) names.emplace_back(f.name);
  }
  return names;
}

std::string ModuleFormatHelp(bool writable) {
  if (writable)
    return Help<ModuleFormat>(kModuleFormats, [](auto& f) { return f.write != nullptr; });
  std::string help = Help<ModuleFormat>(kModuleFormats, [](auto& f) { return f.read != nullptr; });
  StrAppend(&help, " (default: ");
  for (const ModuleFormat& f : kModuleFormats) {
    if (f.read != nullptr && !f.extension.empty()) {
      StrAppend(&help, f.name, " for a ", f.extension, " file, ");
    }
  }
  return StrCat(help, "else ", kModuleFormats[0].name, ")");
}

std::span<const ResultFormat> ResultFormats() { return kResultFormats; }

const ResultFormat* FindResultFormat(std::string_view name) {
  for (const ResultFormat& f : kResultFormats) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ResultFormat* ResultFormatOfPath(std::string_view path) {
  for (const ResultFormat& f : kResultFormats) {
    if (!f.extension.empty() && path.ends_with(f.extension)) return &f;
  }
  return nullptr;
}

std::vector<std::string> ResultFormatNames() {
  std::vector<std::string> names;
  for (const ResultFormat& f : kResultFormats) names.emplace_back(f.name);
  return names;
}

std::string ResultFormatHelp() {
  std::string help = Help<ResultFormat>(kResultFormats, [](auto&) { return true; });
  StrAppend(&help, " (default: by -o's extension, ");
  for (const ResultFormat& f : kResultFormats) {
    if (!f.extension.empty()) StrAppend(&help, f.extension, " ", f.name, ", ");
  }
  return StrCat(help, "else ", kResultFormats[0].name, ")");
}

}  // namespace hlo
