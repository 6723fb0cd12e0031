// hlo-opt's logic (cmd/hlo_opt.cc is its thin main): the flags as a struct,
// their parsing, and the run over every module of the input as a function
// returning a status whose payload says the exit code (tools/tool_status.h).
#ifndef HLO_TOOLS_OPT_TOOL_H_
#define HLO_TOOLS_OPT_TOOL_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/formats.h"
#include "tools/tool_common.h"

namespace hlo {

struct OptFlags {
  std::string input = "-";
  std::string output = "-";
  std::string emit = "hlo";
  std::string input_format;  // empty: from the file name
  // The formats the two name (tools/formats.h), set by ParseOptFlags.
  const ModuleFormat* reader = nullptr;
  const ModuleFormat* writer = nullptr;
  std::string print_style;  // "long" / "short"; empty keeps the style read
  std::string compact_gte;  // "true" / "false"; empty keeps the style read
  bool print_metadata = true;
  bool list_passes = false;
  bool print_op_generic = false;  // --emit=stablehlo in the generic form
  bool no_verify = false;
  std::string refine_shapes;  // the entry parameters' shapes, `(f32[3,4], s32[])`
  bool time_phases = false;   // --time (scripts/bench-parse)
  std::string bisect;         // never set: reduce/bisect_tool.cc runs --bisect
  PassFlags pass_flags;
};

// Parses the command line; returns the exit status when the tool should stop
// there (--help: 0; a usage error, already reported: 2).
std::optional<int> ParseOptFlags(int argc, char** argv, OptFlags& flags);

// hlo-opt's long option names (--bisect's parser names them in conflicts).
std::vector<std::string> OptOptionNames();

// Reads the input's modules and handles each in turn: parse, verify, the
// passes, print. An error in one module goes to `report` and the others
// still run; the modules that worked are written, and the result is then
// AlreadyReported (exit status 1). Other errors are returned unreported.
absl::Status RunHloOpt(OptFlags& flags, const std::function<void(const absl::Status&)>& report);

}  // namespace hlo

#endif  // HLO_TOOLS_OPT_TOOL_H_
