// The formats the tools read and write, each named once with a line about it:
// module formats (hlo-opt's --input-format and --emit) and result formats
// (hlo-run's --output-format). The flags' allowed values, their help texts
// and the format a file's extension implies all come from these tables;
// tools/formats_test.cc holds them to README's table and synopses.
//
// Adding a module format takes its functions
//
//   absl::StatusOr<std::unique_ptr<Module>> Read(std::string_view text,
//                                                std::string_view filename);
//   absl::StatusOr<std::string> Write(const Module& module);  // or std::string
//
// (either may be missing: nullptr in its place), one line in kModuleFormats
// (tools/formats.cc), its library in hlo_tools' link line (CMakeLists.txt)
// and its row in README's format table:
//
//   {"name", "what it is", ".ext", &ReadWhole<Read>, &WriteWith<Write>, "\n"},
//
// A result format is a line in kResultFormats with a ResultWriteFn.
#ifndef HLO_TOOLS_FORMATS_H_
#define HLO_TOOLS_FORMATS_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

struct PassFlags;

// ---- Module formats ---------------------------------------------------------

// The input as a reader sees it; `text` outlives the parsers it returns.
struct ModuleSource {
  std::string_view text;
  std::string filename;   // for messages: "<stdin>" for standard input
  std::string_view tool;  // "hlo-opt": for messages that name the tool
};

// One module of an input, parsed when called, so that a file of many
// modules holds one at a time. A piece with no module (blanks, comments)
// gives NotFound.
using ModuleParser = std::function<absl::StatusOr<std::unique_ptr<Module>>()>;
// Splits an input into its modules, in order.
using ModuleReadFn = absl::StatusOr<std::vector<ModuleParser>> (*)(const ModuleSource& source);

// What shapes a written module. Only HLO text (styled formats) reads these.
struct ModuleWriteOptions {
  PrintStyle style;
  const PassFlags* pass_flags = nullptr;  // --filter
  bool print_op_generic = false;          // StableHLO: every op in the generic form
};
using ModuleWriteFn = absl::StatusOr<std::string> (*)(Module& module,
                                                      const ModuleWriteOptions& options);

struct ModuleFormat {
  std::string_view name;         // the flags' value: "hlo"
  std::string_view description;  // one line, for --help and README
  std::string_view extension;    // an input named so is read in this format ("" none)
  ModuleReadFn read;             // nullptr: not an input format
  ModuleWriteFn write;           // nullptr: not an output format
  std::string_view separator;    // written between two modules
  bool styled = false;           // --print-style, --compact-gte, --filter, ... shape it
};

std::span<const ModuleFormat> ModuleFormats();
// The format named `name`, or nullptr.
const ModuleFormat* FindModuleFormat(std::string_view name);
// The input format of a file: the one its extension names, else HLO text.
const ModuleFormat& ModuleFormatOfFile(std::string_view path);
// The names of the formats that can be read (writable = false) or written.
std::vector<std::string> ModuleFormatNames(bool writable);
// "hlo (HLO text), json (module JSON, ...)": the names with their lines.
std::string ModuleFormatHelp(bool writable);

// Adapters for a reader of one whole input and a writer of one module.
template <absl::StatusOr<std::unique_ptr<Module>> (*Read)(std::string_view, std::string_view)>
absl::StatusOr<std::vector<ModuleParser>> ReadWhole(const ModuleSource& source) {
  std::string_view text = source.text;
  std::string filename = source.filename;
  return std::vector<ModuleParser>{[text, filename] { return Read(text, filename); }};
}
template <auto Write>
absl::StatusOr<std::string> WriteWith(Module& module, const ModuleWriteOptions&) {
  return Write(module);
}

// ---- Result formats ---------------------------------------------------------

// The result of a run, one literal per device, and where it goes.
struct ResultOutput {
  const std::vector<Literal>& results;
  const Shape& shape;                            // the entry's result (its layout)
  const std::vector<std::string>& device_names;  // one per device
  const std::string& path;                       // -o: a file, a folder or "-"
  bool array_file = false;                       // ResultFormat::array_file applies
  // Each device's result under its name: the run has several devices (also
  // when the others are on other MPI ranks).
  bool per_device = false;
};
using ResultWriteFn = absl::Status (*)(const ResultOutput& output);

struct ResultFormat {
  std::string_view name;         // --output-format's value: "text"
  std::string_view description;  // one line, for --help and README
  std::string_view extension;    // -o's extension that implies it ("" none)
  ResultWriteFn write;
  // Non-empty: standard output will not do, and this says what -o names.
  std::string_view needs_output = {};
  // -o FILE.EXTENSION is one file of one array (the result's only one).
  bool array_file = false;
};

std::span<const ResultFormat> ResultFormats();
const ResultFormat* FindResultFormat(std::string_view name);
// The format -o's extension implies, or nullptr.
const ResultFormat* ResultFormatOfPath(std::string_view path);
std::vector<std::string> ResultFormatNames();
std::string ResultFormatHelp();

}  // namespace hlo

#endif  // HLO_TOOLS_FORMATS_H_
