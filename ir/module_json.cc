// Names shared by the module JSON writer and reader (see module_json.h).
#include "ir/module_json.h"

#include <array>
#include <cstring>

namespace hlo::module_json {
namespace {

// Looks `name` up in a table indexed by enum value.
template <typename E, size_t N>
std::optional<E> FindName(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

// In AttrType order.
constexpr std::array<std::string_view, 26> kAttrTypeNames = {"int",
                                                             "float",
                                                             "bool",
                                                             "string",
                                                             "ident",
                                                             "int_list",
                                                             "bool_list",
                                                             "ident_list",
                                                             "int_list_list",
                                                             "shape",
                                                             "shape_list",
                                                             "computation",
                                                             "computation_list",
                                                             "instruction_list",
                                                             "slice",
                                                             "window",
                                                             "conv_dims",
                                                             "padding",
                                                             "replica_groups",
                                                             "sharding",
                                                             "key_values",
                                                             "string_map",
                                                             "backend_config",
                                                             "aliasing",
                                                             "literal",
                                                             "raw"};
static_assert(static_cast<size_t>(AttrType::kRaw) + 1 == kAttrTypeNames.size());

// In Sharding::Type order.
constexpr std::array<std::string_view, 8> kShardingTypeNames = {
    "replicated", "maximal", "manual", "unknown", "unreduced", "tiled", "tuple", "named"};
static_assert(static_cast<size_t>(Sharding::Type::kNamed) + 1 == kShardingTypeNames.size());

// In Layout::DimLevelType order.
constexpr std::array<std::string_view, 4> kDimLevelNames = {"dense", "compressed", "singleton",
                                                            "loose_compressed"};

}  // namespace

std::string_view AttrTypeName(AttrType type) { return kAttrTypeNames[static_cast<size_t>(type)]; }

std::optional<AttrType> ParseAttrTypeName(std::string_view name) {
  return FindName<AttrType>(kAttrTypeNames, name);
}

std::string_view ShardingTypeName(Sharding::Type type) {
  return kShardingTypeNames[static_cast<size_t>(type)];
}

std::optional<Sharding::Type> ParseShardingTypeName(std::string_view name) {
  return FindName<Sharding::Type>(kShardingTypeNames, name);
}

std::string_view DimLevelTypeName(Layout::DimLevelType type) {
  return kDimLevelNames[static_cast<size_t>(type)];
}

std::optional<Layout::DimLevelType> ParseDimLevelTypeName(std::string_view name) {
  return FindName<Layout::DimLevelType>(kDimLevelNames, name);
}

AttrType StoredAttrType(AttrKind kind, Opcode opcode) {
  // The parser reads collective-permute's slice_sizes as one list per
  // operand (see ParseAttrValue); everything else follows the table.
  if (kind == AttrKind::kSliceSizes &&
      (opcode == Opcode::kCollectivePermute || opcode == Opcode::kCollectivePermuteStart)) {
    return AttrType::kIntListList;
  }
  return AttrValueType(kind);
}

bool IsValidUtf8(std::string_view text) {
  // RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF
  // (what nlohmann::json accepts when it dumps).
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 0;
    if (extra == 0 || i + extra >= text.size()) return false;
    uint32_t cp = c & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

namespace {
size_t ComponentOffset(const Literal& lit, int64_t i, int part, size_t* width) {
  *width = static_cast<size_t>(BitWidth(ComplexComponentType(lit.element_type())) / 8);
  return (static_cast<size_t>(i) * 2 + static_cast<size_t>(part)) * *width;
}
}  // namespace

uint64_t ComplexComponentBits(const Literal& lit, int64_t i, int part) {
  size_t width = 0;
  size_t offset = ComponentOffset(lit, i, part, &width);
  uint64_t bits = 0;
  std::memcpy(&bits, lit.data() + offset, width);
  return bits;
}

void SetComplexComponentBits(Literal& lit, int64_t i, int part, uint64_t bits) {
  size_t width = 0;
  size_t offset = ComponentOffset(lit, i, part, &width);
  std::memcpy(lit.data() + offset, &bits, width);
}

}  // namespace hlo::module_json
