#include "stablehlo/types.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo::stablehlo {

std::string Type::Hlo() const {
  if (kind == Kind::kToken) return "token[]";
  if (kind == Kind::kTuple) {
    std::string out = "(";
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i) out += ", ";
      out += elements[i].Hlo();
    }
    return out + ")";
  }
  std::string out = element;
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    if (is_unbounded(i)) {
      out += '?';
    } else {
      StrAppend(&out, is_dynamic(i) ? "<=" : "", dims[i]);
    }
  }
  out += ']';
  return out;
}

std::string Type::Mlir() const {
  if (kind == Kind::kToken) return "!stablehlo.token";
  if (kind == Kind::kTuple) {
    std::string out = "tuple<";
    for (size_t i = 0; i < elements.size(); ++i) StrAppend(&out, i ? ", " : "", elements[i].Mlir());
    return out + ">";
  }
  std::string e = element;
  if (quant) {
    e = quant->Mlir();
  } else if (e == "pred") {
    e = "i1";
  } else if (e == "c64" || e == "c128") {
    e = e == "c64" ? "complex<f32>" : "complex<f64>";
  } else if (e[0] == 's') {
    e[0] = 'i';
  } else if (e[0] == 'u') {
    e = "ui" + e.substr(1);
  } else if (e.starts_with("f8") || e.starts_with("f4")) {
    for (size_t i = 2; i < e.size(); ++i) e[i] = static_cast<char>(std::toupper(e[i]));
  }
  std::string out = "tensor<";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (is_dynamic(i)) {
      out += "?x";
    } else {
      StrAppend(&out, dims[i], "x");
    }
  }
  out += e;
  bool bounded = false;
  for (size_t i = 0; i < dims.size(); ++i) bounded |= is_dynamic(i) && !is_unbounded(i);
  if (bounded) {
    out += ", #stablehlo.bounds<";
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i) out += ", ";
      if (is_dynamic(i) && !is_unbounded(i)) {
        StrAppend(&out, dims[i]);
      } else {
        out += "?";
      }
    }
    out += ">";
  }
  return out + ">";
}

int64_t Type::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

namespace {

// i8 -> s8, ui8 -> u8: the MLIR spelling of an HLO integer or float type.
std::string MlirElementName(const std::string& hlo) {
  if (hlo.empty()) return hlo;
  if (hlo[0] == 's') {
    std::string out = hlo;
    out[0] = 'i';
    return out;
  }
  return hlo;  // u8 (the quant dialect's spelling), f32, bf16
}

// The values a storage type holds: s8 -> -128..127, u4 -> 0..15.
void StorageRange(std::string_view storage, int64_t* lo, int64_t* hi) {
  const int bits = std::atoi(std::string(storage.substr(1)).c_str());
  const bool is_signed = storage[0] == 's';
  *lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  *hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
}

}  // namespace

std::string QuantParams::Mlir() const {
  auto pair = [&](size_t i) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.17g", scales[i]);
    std::string out = buf;
    if (zero_points[i] != 0) StrAppend(&out, ":", zero_points[i]);
    return out;
  };
  std::string out = StrCat("!quant.uniform<", MlirElementName(storage));
  int64_t lo = 0, hi = 0;
  StorageRange(storage, &lo, &hi);
  if (lo != storage_min || hi != storage_max)
    StrAppend(&out, "<", storage_min, ":", storage_max, ">");
  StrAppend(&out, ":", MlirElementName(expressed));
  if (!per_axis()) return StrCat(out, ", ", pair(0), ">");
  StrAppend(&out, ":", axis, ", {");
  for (size_t i = 0; i < scales.size(); ++i) StrAppend(&out, i ? "," : "", pair(i));
  return out + "}>";
}

std::string HloElementType(std::string_view m) {
  if (m == "i1") return "pred";
  if (m == "index") return "s64";
  if (m.starts_with("ui")) {
    std::string n(m.substr(2));
    if (n == "1" || n == "2" || n == "4" || n == "8" || n == "16" || n == "32" || n == "64") {
      return "u" + n;
    }
    return "";
  }
  if (m.starts_with("si")) m.remove_prefix(1);
  if (m.starts_with("i")) {
    std::string n(m.substr(1));
    if (n == "2" || n == "4" || n == "8" || n == "16" || n == "32" || n == "64") return "s" + n;
    return "";
  }
  std::string lower;
  for (char c : m) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  auto t = ParsePrimitiveType(lower);
  if (t && IsFloat(*t)) return lower;
  return "";
}

namespace {

// scale-zp ::= float (':' integer)?
absl::Status ParseScaleZeroPoint(Lexer& lex, QuantParams* q) {
  Pos pos = lex.Here();
  std::string_view num;
  if (!lex.EatNumberText(&num)) return lex.ErrorExpected("a scale");
  std::string text(num);
  char* end = nullptr;
  const double scale = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(scale) || scale <= 0) {
    return lex.Error(pos, StrCat("a scale must be a positive finite number, not ", text));
  }
  int64_t zp = 0;
  if (lex.Eat(":")) HLO_RETURN_IF_ERROR(lex.ExpectInt(&zp, "a zero point"));
  q->scales.push_back(scale);
  q->zero_points.push_back(zp);
  return absl::OkStatus();
}

// The storage type of a quantized type: i8 (signed), u8 (unsigned), with the
// range of its values.
absl::Status ParseStorageType(Lexer& lex, QuantParams* q) {
  Pos pos = lex.Here();
  std::string name;
  if (!lex.EatIdent(&name)) return lex.ErrorExpected("a storage type like i8");
  int64_t bits = 0;
  const bool is_signed = name[0] == 'i';
  if ((name[0] == 'i' || name[0] == 'u') && name.size() <= 3) {
    for (size_t i = 1; i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') bits = -1;
      if (bits >= 0) bits = bits * 10 + (name[i] - '0');
    }
  }
  if (bits != 2 && bits != 4 && bits != 8 && bits != 16 && bits != 32) {
    return lex.Error(pos, StrCat("unknown storage type '", name,
                                 "' (i2, i4, i8, i16, i32 or the unsigned u2 ... u32)"));
  }
  q->storage = StrCat(is_signed ? "s" : "u", bits);
  int64_t lo = 0, hi = 0;
  StorageRange(q->storage, &lo, &hi);
  q->storage_min = lo;
  q->storage_max = hi;
  if (!lex.EatRaw('<')) return absl::OkStatus();
  Pos range = lex.Here();
  HLO_RETURN_IF_ERROR(lex.ExpectInt(&q->storage_min, "the least storage value"));
  HLO_RETURN_IF_ERROR(lex.Expect(":", "between the storage range's bounds"));
  HLO_RETURN_IF_ERROR(lex.ExpectInt(&q->storage_max, "the greatest storage value"));
  HLO_RETURN_IF_ERROR(lex.Expect(">", "to close the storage range"));
  if (q->storage_min < lo || q->storage_max > hi || q->storage_min >= q->storage_max) {
    return lex.Error(range,
                     StrCat("the storage range ", q->storage_min, ":", q->storage_max,
                            " is not an increasing range within ", name, "'s ", lo, ":", hi));
  }
  return absl::OkStatus();
}

// quant-type ::= '!quant.uniform' '<' storage ('<' int ':' int '>')? ':' float-type
//                (':' axis)? ',' (scale-zp | '{' scale-zp (',' scale-zp)* '}') '>'
absl::Status ParseQuantType(Lexer& lex, QuantParams* q) {
  Pos pos = lex.Here();
  if (!lex.Eat("!quant.uniform")) {
    return lex.Error(pos, "only uniform quantized types (!quant.uniform<...>) are supported");
  }
  HLO_RETURN_IF_ERROR(lex.Expect("<", "after '!quant.uniform'"));
  HLO_RETURN_IF_ERROR(ParseStorageType(lex, q));
  HLO_RETURN_IF_ERROR(lex.Expect(":", "after the storage type"));
  Pos expressed_pos = lex.Here();
  std::string expressed;
  HLO_RETURN_IF_ERROR(lex.ExpectIdent(&expressed, "the expressed type"));
  q->expressed = HloElementType(expressed);
  if (q->expressed.empty() || q->expressed[0] == 's' || q->expressed[0] == 'u' ||
      q->expressed == "pred") {
    return lex.Error(expressed_pos,
                     StrCat("the expressed type must be a float type, not '", expressed, "'"));
  }
  if (lex.Eat(":")) {
    if (lex.PeekChar() == '{') {
      return lex.ErrorHere("sub-channel (blockwise) quantization is not supported");
    }
    HLO_RETURN_IF_ERROR(lex.ExpectInt(&q->axis, "the quantized dimension"));
    if (q->axis < 0) return lex.ErrorHere("the quantized dimension must be non-negative");
  }
  HLO_RETURN_IF_ERROR(lex.Expect(",", "before the scale"));
  if (lex.Eat("{")) {
    if (!q->per_axis()) return lex.ErrorHere("a list of scales needs a quantized dimension");
    do {
      HLO_RETURN_IF_ERROR(ParseScaleZeroPoint(lex, q));
    } while (lex.Eat(","));
    HLO_RETURN_IF_ERROR(lex.Expect("}", "to close the scales"));
  } else {
    if (q->per_axis()) return lex.ErrorExpected("'{' and a scale per index of the axis");
    HLO_RETURN_IF_ERROR(ParseScaleZeroPoint(lex, q));
  }
  for (int64_t zp : q->zero_points) {
    if (zp < q->storage_min || zp > q->storage_max) {
      return lex.Error(pos, StrCat("the zero point ", zp, " is outside the storage range ",
                                   q->storage_min, ":", q->storage_max));
    }
  }
  return lex.Expect(">", "to close '!quant.uniform<'");
}

// element ::= integer-type | float-type | 'complex' '<' float-type '>' | quant-type
absl::Status ParseElementType(Lexer& lex, Type* type) {
  std::string* out = &type->element;
  Pos pos = lex.Here();
  if (lex.Eat("complex")) {
    HLO_RETURN_IF_ERROR(lex.Expect("<", "after 'complex'"));
    std::string inner;
    HLO_RETURN_IF_ERROR(lex.ExpectIdent(&inner, "the element type of a complex type"));
    HLO_RETURN_IF_ERROR(lex.Expect(">", "to close 'complex<'"));
    if (inner == "f32") {
      *out = "c64";
    } else if (inner == "f64") {
      *out = "c128";
    } else {
      return lex.Error(pos, StrCat("complex<", inner,
                                   "> has no HLO type (complex<f32> or "
                                   "complex<f64>)"));
    }
    return absl::OkStatus();
  }
  if (lex.PeekChar() == '!') {
    std::string_view rest = lex.text().substr(lex.offset());
    if (!rest.starts_with("!quant.")) return lex.ErrorExpected("an element type");
    auto q = std::make_shared<QuantParams>();
    HLO_RETURN_IF_ERROR(ParseQuantType(lex, q.get()));
    *out = q->storage;
    if (q->per_axis()) {
      if (q->axis >= static_cast<int64_t>(type->dims.size())) {
        return lex.Error(pos, StrCat("the quantized dimension ", q->axis, " of a tensor of rank ",
                                     type->dims.size()));
      }
      if (static_cast<int64_t>(q->scales.size()) != type->dims[q->axis]) {
        return lex.Error(pos, StrCat(q->scales.size(), " scales for dimension ", q->axis,
                                     " of size ", type->dims[q->axis]));
      }
    }
    type->quant = std::move(q);
    return absl::OkStatus();
  }
  std::string name;
  if (!lex.EatIdent(&name)) return lex.ErrorExpected("an element type like f32 or i32");
  *out = HloElementType(name);
  if (out->empty()) return lex.Error(pos, StrCat("unknown element type '", name, "'"));
  return absl::OkStatus();
}

// bounds ::= '#stablehlo.bounds' '<' ('?' | int) (',' ('?' | int))* '>'
// The bounds of the dynamic dimensions (-1 in `out->dims`); '?' for a
// static dimension, or for a dynamic one that stays unbounded.
absl::Status ParseBounds(Lexer& lex, Type* out) {
  Pos pos = lex.Here();
  if (!lex.Eat("#stablehlo.bounds")) {
    return lex.ErrorHere(
        "tensor encodings other than #stablehlo.bounds (sparsity) are not supported");
  }
  HLO_RETURN_IF_ERROR(lex.Expect("<", "after '#stablehlo.bounds'"));
  for (size_t i = 0; i < out->dims.size(); ++i) {
    if (i > 0) HLO_RETURN_IF_ERROR(lex.Expect(",", "between the bounds"));
    Pos at = lex.Here();
    const bool dynamic = out->dims[i] < 0;
    if (lex.Eat("?")) continue;
    int64_t bound = 0;
    HLO_RETURN_IF_ERROR(lex.ExpectInt(&bound, "a bound or '?'"));
    if (!dynamic) return lex.Error(at, StrCat("a bound for the static dimension ", i));
    if (bound < 0) return lex.Error(at, "a bound must be non-negative");
    out->dims[i] = bound;
  }
  HLO_RETURN_IF_ERROR(lex.Expect(">", "to close the bounds (one per dimension)"));
  int64_t count = 1;
  for (int64_t d : out->dims) {
    if (d < 0) continue;  // unbounded
    if (d != 0 && count > (int64_t{1} << 62) / d) {
      return lex.Error(pos, "the tensor has more than 2^62 elements");
    }
    count *= d;
  }
  return absl::OkStatus();
}

// tensor-type ::= 'tensor' '<' ((dim | '?') 'x')* element (',' bounds)? '>'
// A '?' without a bound is unbounded (`f32[?]` in HLO): runnable once
// hlo-run refines it to its input's shape (passes/refine_shapes.cc).
absl::Status ParseTensorBody(Lexer& lex, Type* out) {
  out->kind = Type::Kind::kTensor;
  lex.Here();
  while (true) {
    int64_t d = 0;
    Pos pos = lex.Here();
    if (out->dims.size() >= 64 && (lex.PeekChar() == '?' || std::isdigit(lex.PeekChar()))) {
      return lex.Error(pos, "a tensor has at most 64 dimensions");
    }
    if (lex.EatRaw('?')) {
      out->dynamic |= uint64_t{1} << out->dims.size();
      out->dims.push_back(-1);
    } else if (lex.EatDigitsRaw(&d)) {
      if (d != 0 && out->ElementCount() > (int64_t{1} << 62) / d) {
        return lex.Error(pos, "the tensor has more than 2^62 elements");
      }
      out->dims.push_back(d);
    } else {
      break;
    }
    if (!lex.EatRaw('x')) return lex.ErrorExpected("'x' after a dimension size");
  }
  HLO_RETURN_IF_ERROR(ParseElementType(lex, out));
  if (lex.Eat(",")) HLO_RETURN_IF_ERROR(ParseBounds(lex, out));
  return lex.Expect(">", "to close 'tensor<'");
}

}  // namespace

// type ::= tensor-type | 'tuple' '<' type-list? '>' | '!stablehlo.token' | element
absl::Status ParseType(Lexer& lex, Type* out, int depth) {
  *out = Type();
  if (depth > 100) return lex.ErrorHere("tuple types nested more than 100 deep");
  if (lex.Eat("tensor")) {
    HLO_RETURN_IF_ERROR(lex.Expect("<", "after 'tensor'"));
    return ParseTensorBody(lex, out);
  }
  if (lex.Eat("tuple")) {
    out->kind = Type::Kind::kTuple;
    HLO_RETURN_IF_ERROR(lex.Expect("<", "after 'tuple'"));
    if (lex.Eat(">")) return absl::OkStatus();
    HLO_RETURN_IF_ERROR(ParseTypeList(lex, &out->elements, depth + 1));
    return lex.Expect(">", "to close 'tuple<'");
  }
  if (lex.Eat("!stablehlo.token")) {
    out->kind = Type::Kind::kToken;
    return absl::OkStatus();
  }
  std::string_view id = lex.PeekIdent();
  if (!id.empty() && !HloElementType(id).empty()) {
    return lex.ErrorHere(StrCat("expected a tensor type like tensor<", id, ">, found '", id,
                                "' (StableHLO values are tensors)"));
  }
  return lex.ErrorExpected("a type like tensor<2xf32>");
}

absl::Status ParseTypeList(Lexer& lex, std::vector<Type>* out, int depth) {
  do {
    out->emplace_back();
    HLO_RETURN_IF_ERROR(ParseType(lex, &out->back(), depth));
  } while (lex.Eat(","));
  return absl::OkStatus();
}

// result-types ::= '(' type-list? ')' | type
absl::Status ParseResultTypes(Lexer& lex, std::vector<Type>* out) {
  if (lex.Eat("(")) {
    if (lex.Eat(")")) return absl::OkStatus();
    HLO_RETURN_IF_ERROR(ParseTypeList(lex, out));
    return lex.Expect(")", "to close the result types");
  }
  out->emplace_back();
  return ParseType(lex, &out->back());
}

// function-type ::= '(' type-list? ')' '->' result-types | type-list ('->' result-types)?
absl::Status ParseFunctionType(Lexer& lex, std::vector<Type>* inputs, std::vector<Type>* results) {
  if (lex.Eat("(")) {
    if (!lex.Eat(")")) {
      HLO_RETURN_IF_ERROR(ParseTypeList(lex, inputs));
      HLO_RETURN_IF_ERROR(lex.Expect(")", "to close the operand types"));
    }
  } else {
    HLO_RETURN_IF_ERROR(ParseTypeList(lex, inputs));
  }
  if (!lex.Eat("->")) return absl::OkStatus();
  return ParseResultTypes(lex, results);
}

}  // namespace hlo::stablehlo
