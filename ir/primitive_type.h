// Every XLA primitive (element) type, as one X-macro table.
#ifndef HLO_IR_PRIMITIVE_TYPE_H_
#define HLO_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlo {

// X(enum, text name, bit width, kind)
// kind: P pred, S signed int, U unsigned int, F float, C complex, T token,
//       O opaque. Bit width is the storage width of one element in memory
//       (sub-byte types are stored one per byte in literals; see Literal).
#define HLO_PRIMITIVE_TYPES(X)             \
  X(kPred, "pred", 8, P)                   \
  X(kS1, "s1", 1, S)                       \
  X(kS2, "s2", 2, S)                       \
  X(kS4, "s4", 4, S)                       \
  X(kS8, "s8", 8, S)                       \
  X(kS16, "s16", 16, S)                    \
  X(kS32, "s32", 32, S)                    \
  X(kS64, "s64", 64, S)                    \
  X(kU1, "u1", 1, U)                       \
  X(kU2, "u2", 2, U)                       \
  X(kU4, "u4", 4, U)                       \
  X(kU8, "u8", 8, U)                       \
  X(kU16, "u16", 16, U)                    \
  X(kU32, "u32", 32, U)                    \
  X(kU64, "u64", 64, U)                    \
  X(kF16, "f16", 16, F)                    \
  X(kBF16, "bf16", 16, F)                  \
  X(kF32, "f32", 32, F)                    \
  X(kF64, "f64", 64, F)                    \
  X(kC64, "c64", 64, C)                    \
  X(kC128, "c128", 128, C)                 \
  X(kF8E5M2, "f8e5m2", 8, F)               \
  X(kF8E4M3, "f8e4m3", 8, F)               \
  X(kF8E4M3FN, "f8e4m3fn", 8, F)           \
  X(kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, F) \
  X(kF8E5M2FNUZ, "f8e5m2fnuz", 8, F)       \
  X(kF8E4M3FNUZ, "f8e4m3fnuz", 8, F)       \
  X(kF8E3M4, "f8e3m4", 8, F)               \
  X(kF4E2M1FN, "f4e2m1fn", 4, F)           \
  X(kF8E8M0FNU, "f8e8m0fnu", 8, F)         \
  X(kF6E2M3FN, "f6e2m3fn", 6, F)           \
  X(kF6E3M2FN, "f6e3m2fn", 6, F)           \
  X(kToken, "token", 0, T)                 \
  X(kOpaque, "opaque", 0, O)

enum class PrimitiveType : uint8_t {
#define HLO_PT_ENUM(e, name, bits, kind) e,
  HLO_PRIMITIVE_TYPES(HLO_PT_ENUM)
#undef HLO_PT_ENUM
};

inline constexpr int kNumPrimitiveTypes = 0
#define HLO_PT_COUNT(e, name, bits, kind) +1
    HLO_PRIMITIVE_TYPES(HLO_PT_COUNT)
#undef HLO_PT_COUNT
    ;

// The text name ("f32").
std::string_view PrimitiveTypeName(PrimitiveType type);
// Parses a text name; nullopt when it is not a type name.
std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name);

// Logical bit width of one element: 1 for s1/u1, 4 for s4 and f4e2m1fn, 8 for
// pred, 64 for c64, 0 for token and opaque.
int BitWidth(PrimitiveType type);
// Bytes one element occupies in a dense buffer (sub-byte types take a byte).
int ByteWidth(PrimitiveType type);

bool IsPred(PrimitiveType type);
bool IsSignedInt(PrimitiveType type);
bool IsUnsignedInt(PrimitiveType type);
bool IsInteger(PrimitiveType type);  // signed or unsigned, not pred
bool IsFloat(PrimitiveType type);    // every real floating-point type
bool IsComplex(PrimitiveType type);
bool IsArrayType(PrimitiveType type);  // not token, not opaque
// f16, bf16 and the f8/f4 formats: types computed through float.
bool IsSmallFloat(PrimitiveType type);
// For c64 gives f32, for c128 gives f64; otherwise the type itself.
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace hlo

#endif  // HLO_IR_PRIMITIVE_TYPE_H_
