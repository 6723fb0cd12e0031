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

std::string_view PrimitiveTypeName(PrimitiveType type) {
  return Info(type).name;
}

std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name) {
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
bool IsInteger(PrimitiveType type) {
  return Info(type).kind == S || Info(type).kind == U;
}
bool IsFloat(PrimitiveType type) { return Info(type).kind == F; }
bool IsComplex(PrimitiveType type) { return Info(type).kind == C; }
bool IsArrayType(PrimitiveType type) {
  return Info(type).kind != T && Info(type).kind != O;
}
bool IsSmallFloat(PrimitiveType type) {
  return Info(type).kind == F && Info(type).bits <= 16;
}
PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (type == PrimitiveType::kC128) return PrimitiveType::kF64;
  return type;
}

}  // namespace hlo
