#include "stablehlo/mlir_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "ir/strings.h"

namespace hlo::stablehlo::writing {
namespace {

// Arrays up to this many elements are written as lists, larger ones (of
// whole-byte types) as a hex string: smaller text and faster to read.
constexpr int64_t kMostListElements = 32;

// An MLIR float literal needs a '.' in its mantissa ("1e+20" is an integer).
std::string MlirFloat(std::string text) {
  if (text.find_first_of(".") != std::string::npos) return text;
  size_t e = text.find_first_of("eE");
  if (e == std::string::npos) return text + ".0";
  return text.insert(e, ".0");
}

// `v`, an element of a float type of `bits` bits with raw encoding
// `encoding`: the shortest decimal that reads back as the same value, or the
// bit pattern for NaN and infinities.
std::string FloatElement(double v, int bits, uint64_t encoding) {
  if (!std::isfinite(v)) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    std::string out = "0x";
    for (int shift = (bits + 3) / 4 * 4 - 4; shift >= 0; shift -= 4) {
      out += kDigits[(encoding >> shift) & 15];
    }
    return out;
  }
  char buf[64];
  std::to_chars_result r = bits <= 32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                                      : std::to_chars(buf, buf + sizeof buf, v);
  return MlirFloat(std::string(buf, r.ptr));
}

std::string Element(const Literal& lit, int64_t i) {
  PrimitiveType t = lit.element_type();
  if (IsPred(t)) return lit.GetInt(i) != 0 ? "true" : "false";
  if (IsUnsignedInt(t)) return StrCat(static_cast<uint64_t>(lit.GetInt(i)));
  if (IsInteger(t)) return StrCat(lit.GetInt(i));
  if (IsComplex(t)) {
    std::complex<double> c = lit.GetComplex(i);
    int bits = BitWidth(t) / 2;
    auto part = [&](double v) {
      uint64_t enc = 0;
      if (bits == 32) {
        float f = static_cast<float>(v);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        enc = u;
      } else {
        std::memcpy(&enc, &v, 8);
      }
      return FloatElement(v, bits, enc);
    };
    return StrCat("(", part(c.real()), ",", part(c.imag()), ")");
  }
  return FloatElement(lit.GetDouble(i), BitWidth(t), lit.GetBits(i));
}

bool IsSplat(const Literal& lit) {
  const int64_t width = ByteWidth(lit.element_type());
  const uint8_t* d = lit.data();
  for (int64_t i = 1; i < lit.element_count(); ++i) {
    if (std::memcmp(d, d + i * width, width) != 0) return false;
  }
  return true;
}

// Elements [begin, begin + count) of dimension `dim` onward, nested.
void AppendList(const Literal& lit, int64_t dim, int64_t begin, std::string& out) {
  const Shape& s = lit.shape();
  if (dim == s.rank()) {
    out += Element(lit, begin);
    return;
  }
  int64_t stride = 1;
  for (int64_t d = dim + 1; d < s.rank(); ++d) stride *= s.dim(d);
  out += '[';
  for (int64_t i = 0; i < s.dim(dim); ++i) {
    if (i > 0) out += ", ";
    AppendList(lit, dim + 1, begin + i * stride, out);
  }
  out += ']';
}

}  // namespace

absl::StatusOr<std::string_view> ElementTypeText(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kPred:
      return "i1";
    case PrimitiveType::kS1:
      return "i1";
    case PrimitiveType::kS2:
      return "i2";
    case PrimitiveType::kS4:
      return "i4";
    case PrimitiveType::kS8:
      return "i8";
    case PrimitiveType::kS16:
      return "i16";
    case PrimitiveType::kS32:
      return "i32";
    case PrimitiveType::kS64:
      return "i64";
    case PrimitiveType::kU1:
      return "ui1";
    case PrimitiveType::kU2:
      return "ui2";
    case PrimitiveType::kU4:
      return "ui4";
    case PrimitiveType::kU8:
      return "ui8";
    case PrimitiveType::kU16:
      return "ui16";
    case PrimitiveType::kU32:
      return "ui32";
    case PrimitiveType::kU64:
      return "ui64";
    case PrimitiveType::kF16:
      return "f16";
    case PrimitiveType::kBF16:
      return "bf16";
    case PrimitiveType::kF32:
      return "f32";
    case PrimitiveType::kF64:
      return "f64";
    case PrimitiveType::kC64:
      return "complex<f32>";
    case PrimitiveType::kC128:
      return "complex<f64>";
    case PrimitiveType::kF8E5M2:
      return "f8E5M2";
    case PrimitiveType::kF8E4M3:
      return "f8E4M3";
    case PrimitiveType::kF8E4M3FN:
      return "f8E4M3FN";
    case PrimitiveType::kF8E4M3B11FNUZ:
      return "f8E4M3B11FNUZ";
    case PrimitiveType::kF8E5M2FNUZ:
      return "f8E5M2FNUZ";
    case PrimitiveType::kF8E4M3FNUZ:
      return "f8E4M3FNUZ";
    case PrimitiveType::kF8E3M4:
      return "f8E3M4";
    case PrimitiveType::kF4E2M1FN:
      return "f4E2M1FN";
    case PrimitiveType::kF8E8M0FNU:
      return "f8E8M0FNU";
    case PrimitiveType::kF6E2M3FN:
      return "f6E2M3FN";
    case PrimitiveType::kF6E3M2FN:
      return "f6E3M2FN";
    case PrimitiveType::kToken:
    case PrimitiveType::kOpaque:
      break;
  }
  return absl::InvalidArgumentError(
      StrCat("StableHLO has no tensor element type for ", PrimitiveTypeName(type)));
}

absl::StatusOr<std::string> TypeText(const Shape& shape) {
  if (shape.IsToken()) return std::string("!stablehlo.token");
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (const Shape* e : shape.tuple_shapes()) {
      absl::StatusOr<std::string> t = TypeText(*e);
      if (!t.ok()) return t.status();
      parts.push_back(*std::move(t));
    }
    return StrCat("tuple<", StrJoin(parts, ", "), ">");
  }
  if (!shape.IsArray()) return absl::InvalidArgumentError("StableHLO has no opaque type");
  absl::StatusOr<std::string_view> element = ElementTypeText(shape.element_type());
  if (!element.ok()) return element.status();
  std::string out = "tensor<";
  bool bounded = false;  // a bound to write (unbounded dimensions have none)
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.is_dynamic_dim(i) || shape.is_unbounded_dim(i)) {
      out += "?x";
      bounded |= !shape.is_unbounded_dim(i);
    } else {
      StrAppend(&out, shape.dim(i), "x");
    }
  }
  out += *element;
  if (bounded) {
    std::vector<std::string> bounds;
    for (int64_t i = 0; i < shape.rank(); ++i) {
      bool bounded = shape.is_dynamic_dim(i) && !shape.is_unbounded_dim(i);
      bounds.push_back(bounded ? StrCat(shape.dim(i)) : "?");
    }
    StrAppend(&out, ", #stablehlo.bounds<", StrJoin(bounds, ", "), ">");
  }
  return out + ">";
}

absl::StatusOr<std::string> DenseText(const Literal& lit) {
  if (lit.IsTuple()) return absl::InvalidArgumentError("a tuple constant has no dense form");
  PrimitiveType t = lit.element_type();
  if (lit.element_count() == 0) return std::string("dense<>");
  if (lit.shape().rank() == 0 || IsSplat(lit)) return StrCat("dense<", Element(lit, 0), ">");
  const bool whole_bytes = !IsPred(t) && BitWidth(t) == ByteWidth(t) * 8;
  if (lit.element_count() > kMostListElements && whole_bytes) {
    // Storage is row-major with each element's bytes in the machine's
    // (little-endian) order: MLIR's hex form.
    static constexpr char kDigits[] = "0123456789ABCDEF";
    std::string out = "dense<\"0x";
    out.reserve(out.size() + lit.size_bytes() * 2 + 3);
    for (size_t i = 0; i < lit.size_bytes(); ++i) {
      out += kDigits[lit.data()[i] >> 4];
      out += kDigits[lit.data()[i] & 15];
    }
    return out + "\">";
  }
  std::string out = "dense<";
  AppendList(lit, 0, 0, out);
  return out + ">";
}

std::string I64Array(absl::Span<const int64_t> values) {
  if (values.empty()) return "array<i64>";
  return StrCat("array<i64: ", StrJoin(values, ", "), ">");
}

std::string I64List(absl::Span<const int64_t> values) {
  return StrCat("[", StrJoin(values, ", "), "]");
}

std::string I64Matrix(const std::vector<std::vector<int64_t>>& rows, size_t width) {
  std::vector<std::string> parts;
  for (const auto& r : rows) parts.push_back(I64List(r));
  if (rows.empty()) return StrCat("dense<> : tensor<0x", width, "xi64>");
  return StrCat("dense<[", StrJoin(parts, ", "), "]> : tensor<", rows.size(), "x", width, "xi64>");
}

std::string Enum(std::string_view kind, std::string_view value) {
  return StrCat("#stablehlo<", kind, " ", value, ">");
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Quoted(std::string_view text) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += '\\';
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace hlo::stablehlo::writing
