#include "stablehlo/types.h"

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
    StrAppend(&out, dims[i]);
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
  if (e == "pred") {
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
  for (int64_t d : dims) StrAppend(&out, d, "x");
  return out + e + ">";
}

int64_t Type::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
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

// element ::= integer-type | float-type | 'complex' '<' float-type '>'
absl::Status ParseElementType(Lexer& lex, std::string* out) {
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
    if (rest.starts_with("!quant.")) {
      return lex.Error(pos, "quantized element types (!quant.uniform) are not supported yet");
    }
    return lex.ErrorExpected("an element type");
  }
  std::string name;
  if (!lex.EatIdent(&name)) return lex.ErrorExpected("an element type like f32 or i32");
  *out = HloElementType(name);
  if (out->empty()) return lex.Error(pos, StrCat("unknown element type '", name, "'"));
  return absl::OkStatus();
}

// tensor-type ::= 'tensor' '<' (dim 'x')* element (',' encoding)? '>'
absl::Status ParseTensorBody(Lexer& lex, Type* out) {
  out->kind = Type::Kind::kTensor;
  lex.Here();
  while (true) {
    int64_t d = 0;
    Pos pos = lex.Here();
    if (lex.EatRaw('?')) {
      return lex.Error(pos, "dynamic dimensions ('?') are not supported: shapes must be static");
    }
    if (!lex.EatDigitsRaw(&d)) break;
    if (out->dims.size() >= 64) return lex.Error(pos, "a tensor has at most 64 dimensions");
    if (d != 0 && out->ElementCount() > (int64_t{1} << 62) / d) {
      return lex.Error(pos, "the tensor has more than 2^62 elements");
    }
    out->dims.push_back(d);
    if (!lex.EatRaw('x')) return lex.ErrorExpected("'x' after a dimension size");
  }
  HLO_RETURN_IF_ERROR(ParseElementType(lex, &out->element));
  if (lex.Eat(",")) {
    std::string_view enc;
    return lex.ErrorHere("tensor encodings (sparsity, bounds) are not supported");
    (void)enc;
  }
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
