#include "ir/primitive_type.h"

#include <array>

namespace hlo {
namespace {

enum Kind : uint8_t { P, S, U, F, C, T, O };

struct TypeInfo {
  std::string_view name;
  int bits;
  Kind kind;
};

constexpr std::array<TypeInfo, kNumPrimitiveTypes> kTypes = {{
#define HLO_PT_INFO(e, name, bits, kind) {name, bits, kind},
    HLO_PRIMITIVE_TYPES(HLO_PT_INFO)
#undef HLO_PT_INFO
}};

const TypeInfo& Info(PrimitiveType t) { return kTypes[static_cast<int>(t)]; }

}  // namespace

std::string_view PrimitiveTypeName(PrimitiveType type) { return Info(type).name; }

namespace {

// Type names by a hash of their length and four characters, collision-free
// over today's names (checked when the table is built; a collision falls
// back to the linear search). The parser asks for a type at every shape.
constexpr size_t kTypeSlots = 512;
size_t TypeSlot(std::string_view n) {
  auto at = [&](size_t i) { return static_cast<size_t>(static_cast<uint8_t>(n[i])); };
  return (n.size() * 131 + at(0) * 31 + at(1) * 5 + at(n.size() - 1) + at(n.size() / 2) * 19) %
         kTypeSlots;
}

struct TypeTable {
  std::array<int8_t, kTypeSlots> slot;
  bool collision = false;
  TypeTable() {
    slot.fill(-1);
    for (int i = 0; i < kNumPrimitiveTypes; ++i) {
      std::string_view n = kTypes[i].name;
      if (n.size() < 2) continue;
      int8_t& s = slot[TypeSlot(n)];
      if (s != -1) collision = true;
      s = static_cast<int8_t>(i);
    }
  }
};
const TypeTable kTypeTable;

}  // namespace

std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name) {
  if (name.size() >= 2 && !kTypeTable.collision) {
    int8_t i = kTypeTable.slot[TypeSlot(name)];
    if (i >= 0 && kTypes[i].name == name) return static_cast<PrimitiveType>(i);
    return std::nullopt;
  }
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    if (kTypes[i].name == name) return static_cast<PrimitiveType>(i);
  }
  return std::nullopt;
}

int BitWidth(PrimitiveType type) { return Info(type).bits; }

int ByteWidth(PrimitiveType type) {
  if (type == PrimitiveType::kPred) return 1;
  return (Info(type).bits + 7) / 8;
}

bool IsPred(PrimitiveType type) { return Info(type).kind == P; }
bool IsSignedInt(PrimitiveType type) { return Info(type).kind == S; }
bool IsUnsignedInt(PrimitiveType type) { return Info(type).kind == U; }
bool IsInteger(PrimitiveType type) { return Info(type).kind == S || Info(type).kind == U; }
bool IsFloat(PrimitiveType type) { return Info(type).kind == F; }
bool IsComplex(PrimitiveType type) { return Info(type).kind == C; }
bool IsArrayType(PrimitiveType type) { return Info(type).kind != T && Info(type).kind != O; }
bool IsSmallFloat(PrimitiveType type) { return Info(type).kind == F && Info(type).bits <= 16; }
PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (type == PrimitiveType::kC128) return PrimitiveType::kF64;
  return type;
}

}  // namespace hlo
