#include "stablehlo/dense.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "ir/float_formats.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo::stablehlo {

namespace {

// Bytes per element in MLIR's hex form (sub-byte types take a byte each).
int HexBytes(PrimitiveType t) {
  if (IsComplex(t)) return BitWidth(t) / 8;
  return BitWidth(t) <= 8 ? 1 : BitWidth(t) / 8;
}

std::string FormatFloat(double v, PrimitiveType t, uint64_t bits, bool have_bits) {
  if (std::isnan(v)) {
    std::string sign = std::signbit(v) ? "-" : "";
    if (have_bits && (t == PrimitiveType::kF32 || t == PrimitiveType::kF64)) {
      const int m = t == PrimitiveType::kF32 ? 23 : 52;
      uint64_t mant = bits & ((uint64_t{1} << m) - 1);
      if (mant != (uint64_t{1} << (m - 1))) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "nan(0x%llx)", static_cast<unsigned long long>(mant));
        return sign + buf;
      }
    }
    return sign + "nan";
  }
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, t == PrimitiveType::kF32 ? "%.9g" : "%.17g", v);
  return buf;
}

// A float from its bit pattern.
std::string FloatFromBits(PrimitiveType t, uint64_t bits) {
  double v = 0;
  if (t == PrimitiveType::kF32) {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    v = f;
  } else if (t == PrimitiveType::kF64) {
    std::memcpy(&v, &bits, 8);
  } else {
    v = DecodeSmallFloat(t, static_cast<uint32_t>(bits));
  }
  return FormatFloat(v, t, bits, true);
}

uint64_t LoadLittle(const std::string& bytes, size_t at, int n) {
  uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(bytes[at + k]);
  return v;
}

// One scalar's text from the hex bytes at `at`.
std::string ScalarFromBytes(PrimitiveType t, const std::string& bytes, size_t at) {
  if (IsComplex(t)) {
    PrimitiveType c = ComplexComponentType(t);
    int w = BitWidth(c) / 8;
    return StrCat("(", FloatFromBits(c, LoadLittle(bytes, at, w)), ", ",
                  FloatFromBits(c, LoadLittle(bytes, at + w, w)), ")");
  }
  const int n = HexBytes(t);
  uint64_t raw = LoadLittle(bytes, at, n);
  if (t == PrimitiveType::kPred) return raw ? "true" : "false";
  if (IsFloat(t)) return FloatFromBits(t, raw);
  const int bits = BitWidth(t);
  if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
  if (IsSignedInt(t) && bits < 64 && (raw >> (bits - 1)) & 1) {
    return StrCat(static_cast<int64_t>(raw) - static_cast<int64_t>(uint64_t{1} << bits));
  }
  if (IsSignedInt(t)) return StrCat(static_cast<int64_t>(raw));
  return StrCat(raw);
}

// One scalar's text from its written text (a decimal, or hex bits of a float).
absl::Status ScalarFromText(const Lexer& lex, const Attr& a, PrimitiveType t, std::string_view s,
                            std::string* out) {
  bool hex = s.starts_with("0x") || s.starts_with("-0x");
  if (t == PrimitiveType::kPred) {
    *out = s == "0" || s == "false" ? "false" : "true";
    return absl::OkStatus();
  }
  if (IsFloat(t) || IsComplex(t)) {
    PrimitiveType c = IsComplex(t) ? ComplexComponentType(t) : t;
    if (hex) {
      uint64_t bits = 0;
      if (s[0] == '-' || std::sscanf(std::string(s).c_str(), "%llx",
                                     reinterpret_cast<unsigned long long*>(&bits)) != 1) {
        return lex.Error(a.pos, StrCat("bad hexadecimal float bits '", s, "'"));
      }
      *out = FloatFromBits(c, bits);
    } else {
      *out = std::string(s);
      // `1.` is MLIR's; HLO wants digits after the point.
      if (out->back() == '.') out->push_back('0');
    }
    return absl::OkStatus();
  }
  int64_t v = 0;
  Lexer n(s, "");
  if (!n.EatInt(&v)) return lex.Error(a.pos, StrCat("bad integer '", s, "'"));
  *out = StrCat(v);
  return absl::OkStatus();
}

// Writes `{...}` nesting over `dims` around the flat scalar texts.
void Nest(const std::vector<std::string>& flat, const absl::InlinedVector<int64_t, 6>& dims,
          size_t dim, size_t* next, std::string* out) {
  if (dim == dims.size()) {
    *out += flat[(*next)++];
    return;
  }
  *out += '{';
  for (int64_t i = 0; i < dims[dim]; ++i) {
    if (i) *out += ", ";
    Nest(flat, dims, dim + 1, next, out);
  }
  *out += '}';
}

}  // namespace

absl::Status DenseToHloLiteral(const Lexer& lex, const Attr& a, const Type& type, DenseText* out) {
  auto pt = ParsePrimitiveType(type.element);
  if (type.kind != Type::Kind::kTensor || !pt) {
    return lex.Error(a.pos, "a dense attribute must have a tensor type");
  }
  const PrimitiveType t = *pt;
  const int64_t n = type.ElementCount();
  if (n < 0) return lex.Error(a.pos, "a dense constant must have a static shape");
  if (n > (int64_t{1} << 31))
    return lex.Error(a.pos, "a dense constant of more than 2^31 elements");
  std::vector<std::string> flat;
  if (a.dense_hex) {
    const size_t w = HexBytes(t);
    const size_t count = a.s.size() / w;
    if (a.s.size() % w != 0 || (count != 1 && count != static_cast<size_t>(n))) {
      return lex.Error(a.pos, StrCat("dense hex data of ", a.s.size(), " bytes does not fill ",
                                     type.Mlir(), " (", n, " elements of ", w, " bytes)"));
    }
    flat.reserve(count);
    for (size_t i = 0; i < count; ++i) flat.push_back(ScalarFromBytes(t, a.s, i * w));
  } else {
    const size_t per = IsComplex(t) ? 2 : 1;
    const size_t count = a.elems.size() / per;
    if (a.elems.size() % per != 0 || (count != static_cast<size_t>(n) && count != 1) ||
        (count == 1 && a.dense_nested && n != 1)) {
      return lex.Error(a.pos, StrCat("dense data of ", count, " elements does not fill ",
                                     type.Mlir(), " (", n, " elements)"));
    }
    flat.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      std::string s;
      HLO_RETURN_IF_ERROR(ScalarFromText(lex, a, t, a.elems[i * per], &s));
      if (per == 2) {
        std::string im;
        HLO_RETURN_IF_ERROR(ScalarFromText(lex, a, t, a.elems[i * per + 1], &im));
        s = StrCat("(", s, ", ", im, ")");
      }
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1 && n != 1) {
    out->splat = true;
    out->text = std::move(flat[0]);
    return absl::OkStatus();
  }
  out->splat = false;
  out->text.clear();
  size_t next = 0;
  Nest(flat, type.dims, 0, &next, &out->text);
  return absl::OkStatus();
}

}  // namespace hlo::stablehlo
