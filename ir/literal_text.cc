// Literal printing: XLA's HLO constant style and design.md's compact style.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string_view>
#include <type_traits>

#include "ir/float_formats.h"
#include "ir/literal.h"
#include "ir/literal_stream.h"
#include "ir/plain_numbers.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// Decimal digits that always survive text->type (digits10) and that always
// identify a value (max_digits10), per float type.
struct Digits {
  int digits10;
  int max_digits10;
};

Digits FloatDigits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
      return {15, 17};
    case PrimitiveType::kF32:
      return {6, 9};
    case PrimitiveType::kF16:
      return {3, 5};
    case PrimitiveType::kBF16:
      return {2, 4};
    default: {
      // max_digits10 = ceil(1 + precision * log10(2)), precision counting
      // the implicit bit.
      int p = GetSmallFloatInfo(type).mantissa_bits + 1;
      return {0, static_cast<int>(std::ceil(1 + p * 0.30102999566398120))};
    }
  }
}

// Rounds `v` to the type (what reading its text back would give).
double RoundToType(double v, PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
      return v;
    case PrimitiveType::kF32:
      return static_cast<float>(v);
    default:
      return DecodeSmallFloat(type, EncodeSmallFloat(type, v));
  }
}

bool AppendNonFinite(std::string& out, double value) {
  if (std::isnan(value)) {
    out += std::signbit(value) ? "-nan" : "nan";
    return true;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return true;
  }
  return false;
}

void AppendG(std::string& out, double value, int precision) {
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
  out.append(buf, n);
}

// NaN payload (mantissa bits other than the quiet bit) of an IEEE-style
// f16/bf16/f32/f64 NaN, or 0 for a plain NaN.
uint64_t NanPayload(uint64_t bits, int mantissa_bits) {
  uint64_t mant = bits & ((uint64_t{1} << mantissa_bits) - 1);
  uint64_t quiet = uint64_t{1} << (mantissa_bits - 1);
  return mant == quiet ? 0 : mant;
}

// Mantissa width of formats whose NaNs carry a payload (IEEE-like formats
// with infinities); 0 for the others.
int MantissaBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
      return 52;
    case PrimitiveType::kF32:
      return 23;
    default:
      if (IsSmallFloat(type) && GetSmallFloatInfo(type).has_infinity) {
        return GetSmallFloatInfo(type).mantissa_bits;
      }
      return 0;
  }
}

void AppendFloatElement(std::string& out, double value, uint64_t bits, PrimitiveType type,
                        LiteralStyle style) {
  int mbits = MantissaBits(type);
  if (std::isnan(value) && mbits > 0) {
    uint64_t payload = NanPayload(bits, mbits);
    if (std::signbit(value)) out += '-';
    out += "nan";
    if (payload != 0) {
      char buf[32];
      int n = std::snprintf(buf, sizeof(buf), "(0x%llx)", static_cast<unsigned long long>(payload));
      out.append(buf, n);
    }
    return;
  }
  if (style == LiteralStyle::kHloConstant) {
    AppendXlaFloat(out, value, type);
  } else {
    AppendShortestFloat(out, value, type);
  }
}

}  // namespace

void AppendXlaFloat(std::string& out, double value, PrimitiveType type) {
  if (AppendNonFinite(out, value)) return;
  Digits d = FloatDigits(type);
  if (type != PrimitiveType::kF32 && type != PrimitiveType::kF64) {
    // XLA prints the narrow formats with max_digits10 straight away.
    AppendG(out, value, d.max_digits10);
    return;
  }
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.*g", d.digits10, value);
  if (RoundToType(std::strtod(buf, nullptr), type) == value) {
    out.append(buf, n);
    return;
  }
  AppendG(out, value, d.max_digits10);
}

void AppendShortestFloat(std::string& out, double value, PrimitiveType type) {
  if (AppendNonFinite(out, value)) return;
  char buf[64];
  if (type == PrimitiveType::kF64) {
    auto r = std::to_chars(buf, buf + sizeof(buf), value);
    out.append(buf, r.ptr);
    return;
  }
  if (type == PrimitiveType::kF32) {
    auto r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value));
    out.append(buf, r.ptr);
    return;
  }
  // Small formats: the shortest text that reads back to the same value, chosen
  // as std::to_chars chooses for float and double: fewest characters, then
  // closest to the value, then fixed over scientific notation. Each number p
  // of significant digits whose rounding reads back gives two spellings;
  // no text with more than best.size() digits can be shorter.
  std::string best;
  double best_err = 0;
  for (int p = 1; p <= 17 && (best.empty() || p <= static_cast<int>(best.size())); ++p) {
    int n = std::snprintf(buf, sizeof(buf), "%.*e", p - 1, value);
    const double decimal = std::strtod(buf, nullptr);
    if (RoundToType(decimal, type) != value) continue;
    // In a format without infinity, a text past the largest finite value
    // reads back only by rounding down or saturating (7.5 as "8" in
    // f6e2m3fn); a reader that range-checks the text refuses it, so the
    // text stays within the range.
    if (IsSmallFloat(type) && !GetSmallFloatInfo(type).has_infinity &&
        std::fabs(decimal) > SmallFloatMax(type)) {
      continue;
    }
    const double err = std::fabs(decimal - value);
    std::string_view sci(buf, n);
    const size_t e = sci.find('e');
    const int exp10 = std::atoi(buf + e + 1);
    const bool neg = buf[0] == '-';
    std::string digits;
    for (char c : sci.substr(neg, e - neg)) {
      if (c != '.') digits += c;
    }
    std::string fixed = neg ? "-" : "";
    if (exp10 >= p - 1) {
      fixed += digits;
      fixed.append(exp10 - (p - 1), '0');
    } else if (exp10 >= 0) {
      fixed += digits.substr(0, exp10 + 1);
      fixed += '.';
      fixed += digits.substr(exp10 + 1);
    } else {
      fixed += "0.";
      fixed.append(-exp10 - 1, '0');
      fixed += digits;
    }
    for (std::string_view text : {std::string_view(fixed), sci}) {
      if (best.empty() || text.size() < best.size() ||
          (text.size() == best.size() && err < best_err)) {
        best = std::string(text);
        best_err = err;
      }
    }
  }
  if (best.empty()) {
    AppendG(out, value, 17);
    return;
  }
  out += best;
}

void AppendElement(std::string& out, const Literal& lit, int64_t i, LiteralStyle style) {
  PrimitiveType t = lit.element_type();
  if (t == PrimitiveType::kPred) {
    // XLA prints pred array elements as 1/0 and scalars as true/false.
    if (style == LiteralStyle::kHloConstant && lit.shape().rank() > 0) {
      out += lit.GetInt(i) ? '1' : '0';
    } else {
      out += lit.GetInt(i) ? "true" : "false";
    }
  } else if (IsUnsignedInt(t)) {
    StrAppend(&out, static_cast<uint64_t>(lit.GetInt(i)));
  } else if (IsSignedInt(t)) {
    StrAppend(&out, lit.GetInt(i));
  } else if (IsComplex(t)) {
    std::complex<double> c = lit.GetComplex(i);
    PrimitiveType part = ComplexComponentType(t);
    out += '(';
    AppendFloatElement(out, c.real(), 0, part, style);
    out += ", ";
    AppendFloatElement(out, c.imag(), 0, part, style);
    out += ')';
  } else {
    uint64_t bits = lit.GetBits(i);
    AppendFloatElement(out, lit.GetDouble(i), bits, t, style);
  }
}

namespace {

// The compact row [first, first + n) a block at a time when its type has a
// typed path (ir/plain_numbers.h), as AppendElement writes it; false
// otherwise. With `drain`, the text is offered after each block but the
// row's last (a row's end drains in AppendCompactArray).
bool AppendCompactRowFast(std::string& out, const Literal& lit, int64_t first, int64_t n,
                          const std::function<void(std::string&)>* drain) {
  return VisitPlainNumberType(lit.element_type(), [&](auto zero) {
    using T = decltype(zero);
    auto digits_only = [](char*, char* end) { return end; };
    auto slow = [&](std::string& text, int64_t k) {
      AppendElement(text, lit, first + k, LiteralStyle::kCompact);
    };
    AppendPlainNumbers(out, lit.typed<T>() + first, n, digits_only, slow, drain);
  });
}

// design.md's compact form: {{1, 2}, {3, 4}}. With `drain`, the text so far
// is handed to it after each innermost row (it may empty `out`).
void AppendCompactArray(std::string& out, const Literal& lit, int64_t dim, int64_t& index,
                        const std::function<void(std::string&)>* drain = nullptr) {
  const Shape& shape = lit.shape();
  out += '{';
  if (dim + 1 == shape.rank() && AppendCompactRowFast(out, lit, index, shape.dim(dim), drain)) {
    index += shape.dim(dim);
  } else {
    for (int64_t k = 0; k < shape.dim(dim); ++k) {
      if (k) out += ", ";
      if (dim + 1 == shape.rank()) {
        AppendElement(out, lit, index++, LiteralStyle::kCompact);
      } else {
        AppendCompactArray(out, lit, dim + 1, index, drain);
      }
    }
  }
  out += '}';
  if (drain != nullptr && dim + 1 == shape.rank()) (*drain)(out);
}

// XLA's one-line form: rank 1 `{1, 2}`; higher ranks `{ { 1, 2 }, { 3, 4 } }`
// with rows of at most one element unspaced (`{1}`), and from rank 4 on an
// index comment after each inner brace (`{ /*i0=1*/ ...`).
void AppendHloArray(std::string& out, const Literal& lit, int64_t dim, int64_t position,
                    int64_t& index) {
  const Shape& shape = lit.shape();
  const int64_t rank = shape.rank();
  const int64_t n = shape.dim(dim);
  if (dim + 1 == rank) {
    bool spaced = rank > 1 && n > 1;
    out += spaced ? "{ " : "{";
    for (int64_t k = 0; k < n; ++k) {
      if (k) out += ", ";
      AppendElement(out, lit, index++, LiteralStyle::kHloConstant);
    }
    out += spaced ? " }" : "}";
    return;
  }
  out += '{';
  bool comment = rank >= 4 && dim > 0;
  if (comment) StrAppend(&out, " /*i", dim - 1, "=", position, "*/");
  if (n == 0) {
    // XLA opens with "{ " (no space after a comment when the level is
    // empty) and closes with " }": `{  }`, `{ /*i0=0*/ }`.
    out += comment ? " }" : "  }";
    return;
  }
  out += ' ';
  for (int64_t k = 0; k < n; ++k) {
    if (k) out += ", ";
    AppendHloArray(out, lit, dim + 1, k, index);
  }
  out += " }";
}

// The compact text of `lit` (with its shape first when `with_shape`; a
// tuple's array elements always with theirs), handed to `drain` after each
// row when there is one.
void AppendCompact(std::string& out, const Literal& lit, bool with_shape,
                   const std::function<void(std::string&)>* drain) {
  if (lit.IsTuple()) {
    out += '(';
    for (size_t i = 0; i < lit.elements().size(); ++i) {
      if (i) out += ", ";
      AppendCompact(out, lit.elements()[i], !lit.elements()[i].IsTuple(), drain);
    }
    out += ')';
    return;
  }
  if (with_shape) {
    lit.shape().AppendTo(out, false);
    out += ' ';
  }
  if (!lit.shape().IsArray()) return;
  if (lit.shape().rank() == 0) {
    AppendElement(out, lit, 0, LiteralStyle::kCompact);
    return;
  }
  int64_t index = 0;
  AppendCompactArray(out, lit, 0, index, drain);
}

}  // namespace

void AppendLiteralValue(std::string& out, const Literal& lit, LiteralStyle style) {
  if (style == LiteralStyle::kCompact) {
    AppendCompact(out, lit, /*with_shape=*/false, nullptr);
    return;
  }
  if (lit.IsTuple()) {
    out += "( ";
    for (size_t i = 0; i < lit.elements().size(); ++i) {
      if (i) out += ", ";
      AppendLiteralValue(out, lit.elements()[i], style);
    }
    out += " )";
    return;
  }
  if (!lit.shape().IsArray()) return;
  if (lit.shape().rank() == 0) {
    AppendElement(out, lit, 0, style);
    return;
  }
  int64_t index = 0;
  AppendHloArray(out, lit, 0, 0, index);
}

absl::Status StreamLiteralText(const Literal& lit,
                               absl::FunctionRef<absl::Status(std::string_view)> sink,
                               size_t chunk) {
  std::string buf;
  absl::Status status;
  const std::function<void(std::string&)> drain = [&](std::string& out) {
    if (out.size() < chunk || !status.ok()) return;
    status = sink(out);
    out.clear();
  };
  AppendCompact(buf, lit, /*with_shape=*/!lit.IsTuple(), &drain);
  if (status.ok() && !buf.empty()) status = sink(buf);
  return status;
}

std::string LiteralToString(const Literal& lit, LiteralStyle style) {
  std::string out;
  if (style == LiteralStyle::kCompact) {
    AppendCompact(out, lit, /*with_shape=*/!lit.IsTuple(), nullptr);  // element shapes included
    return out;
  }
  if (lit.IsTuple()) {
    // XLA's one-line literal with shapes: `( s32[2] {1, 2}, pred[] true )`.
    out += "( ";
    for (size_t i = 0; i < lit.elements().size(); ++i) {
      if (i) out += ", ";
      out += LiteralToString(lit.elements()[i], style);
    }
    out += " )";
    return out;
  }
  lit.shape().AppendTo(out, false);
  out += ' ';
  AppendLiteralValue(out, lit, style);
  return out;
}

}  // namespace hlo
