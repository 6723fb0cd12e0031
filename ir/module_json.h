// The module JSON format (hlo-opt --emit=json / --input-format=json): every
// computation, instruction, shape and attribute of a module as JSON that a
// script can read without an HLO parser, and that reads back to the same
// module. The schema is in docs/module-json.md.
//
// module_json_write.cc writes it, module_json_read.cc reads and validates
// it; module_json.cc holds the names both sides share.
#ifndef HLO_IR_MODULE_JSON_H_
#define HLO_IR_MODULE_JSON_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attribute.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

inline constexpr std::string_view kModuleJsonFormat = "hlo-module-json";
inline constexpr int kModuleJsonVersion = 1;

// One JSON document: the module fields on the first line, then one line per
// computation header and one per instruction; no trailing newline.
std::string ModuleToJson(Module& module);

// Reads exactly one module document. Errors are
// `FILENAME: error: module JSON: <json pointer>: <what>`.
absl::StatusOr<std::unique_ptr<Module>> ModuleFromJson(std::string_view json,
                                                       std::string_view filename);

// Reads a sequence of module documents separated by whitespace (what
// `hlo-opt multi.hlo --emit=json` writes for a `// -----` file).
absl::StatusOr<std::vector<std::unique_ptr<Module>>> ModulesFromJson(std::string_view json,
                                                                     std::string_view filename);

// ---- Names shared by the writer and the reader ------------------------------
namespace module_json {

// "int", "int_list", "window", ... (the AttrType in snake case).
std::string_view AttrTypeName(AttrType type);
std::optional<AttrType> ParseAttrTypeName(std::string_view name);

// "replicated", "maximal", "manual", "unknown", "unreduced", "tiled", "tuple".
std::string_view ShardingTypeName(Sharding::Type type);
std::optional<Sharding::Type> ParseShardingTypeName(std::string_view name);

// "dense", "compressed", "singleton", "loose_compressed".
std::string_view DimLevelTypeName(Layout::DimLevelType type);
std::optional<Layout::DimLevelType> ParseDimLevelTypeName(std::string_view name);

// The value type an attribute holds on an instruction: the table's type,
// except collective-permute's slice_sizes, one list per operand.
AttrType StoredAttrType(AttrKind kind, Opcode opcode);

// JSON strings must be UTF-8; other byte strings are written as
// {"hex": "..."}.
bool IsValidUtf8(std::string_view text);

// Raw bits of the real (part 0) or imaginary (part 1) component of complex
// element i (Literal::GetBits covers only 8 bytes, not a c128 element).
uint64_t ComplexComponentBits(const Literal& lit, int64_t i, int part);
void SetComplexComponentBits(Literal& lit, int64_t i, int part, uint64_t bits);

}  // namespace module_json
}  // namespace hlo

#endif  // HLO_IR_MODULE_JSON_H_
