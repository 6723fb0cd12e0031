#include "stablehlo/attributes.h"

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/types.h"

namespace hlo::stablehlo {

const Attr* Attr::Find(std::string_view key) const {
  for (const auto& [k, v] : dict) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

absl::Status TooDeep(Lexer& lex) {
  return lex.ErrorHere(StrCat("attributes nested more than ", kMaxNesting, " deep"));
}

// An optional `: type` after a number or string.
absl::Status ParseOptionalType(Lexer& lex, Attr* a) {
  if (!lex.Eat(":")) return absl::OkStatus();
  // `: i64`, `: f32` or a tensor type.
  std::string_view id = lex.PeekIdent();
  if (!id.empty() && id != "tensor" && id != "tuple" && id != "complex") {
    std::string name;
    lex.EatIdent(&name);
    a->type.element = HloElementType(name);
    if (a->type.element.empty()) {
      return lex.Error(a->pos, StrCat("unknown type '", name, "' of an attribute value"));
    }
    return absl::OkStatus();
  }
  return ParseType(lex, &a->type);
}

// dense-element ::= number | 'true' | 'false' | '(' number ',' number ')' | string
absl::Status ParseDenseElement(Lexer& lex, Attr* a) {
  std::string_view num;
  if (lex.EatNumberText(&num)) {
    a->elems.emplace_back(num);
    return absl::OkStatus();
  }
  if (lex.Eat("true")) {
    a->elems.emplace_back("1");
    return absl::OkStatus();
  }
  if (lex.Eat("false")) {
    a->elems.emplace_back("0");
    return absl::OkStatus();
  }
  if (lex.Eat("(")) {
    for (int k = 0; k < 2; ++k) {
      if (!lex.EatNumberText(&num)) return lex.ErrorExpected("a number of a complex element");
      a->elems.emplace_back(num);
      if (k == 0) HLO_RETURN_IF_ERROR(lex.Expect(",", "between a complex element's parts"));
    }
    return lex.Expect(")", "to close a complex element");
  }
  return lex.ErrorExpected("a dense element (a number, true, false or (re, im))");
}

// dense-list ::= '[' (dense-list | dense-element) (',' ...)* ']'
absl::Status ParseDenseList(Lexer& lex, Attr* a, int depth) {
  if (depth > kMaxNesting) return TooDeep(lex);
  if (!lex.Eat("[")) return ParseDenseElement(lex, a);
  if (lex.Eat("]")) return absl::OkStatus();
  do {
    HLO_RETURN_IF_ERROR(ParseDenseList(lex, a, depth + 1));
  } while (lex.Eat(","));
  return lex.Expect("]", "to close a dense list");
}

// dense ::= 'dense' '<' (string-hex | dense-list | dense-element)? '>' ':' type
absl::Status ParseDense(Lexer& lex, Attr* a, int depth) {
  a->kind = Attr::Kind::kDense;
  HLO_RETURN_IF_ERROR(lex.Expect("<", "after 'dense'"));
  if (lex.PeekChar() == '"') {
    std::string hex;
    Pos pos = lex.Here();
    if (!lex.EatString(&hex)) return lex.ErrorExpected("a string");
    if (!hex.starts_with("0x") || hex.size() % 2 != 0) {
      return lex.Error(pos, "a dense string must be hexadecimal bytes like \"0x0000803F\"");
    }
    a->dense_hex = true;
    for (size_t i = 2; i < hex.size(); i += 2) {
      auto nib = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
      };
      int hi = nib(hex[i]), lo = nib(hex[i + 1]);
      if (hi < 0 || lo < 0) return lex.Error(pos, "bad hexadecimal digit in a dense string");
      a->s.push_back(static_cast<char>(hi * 16 + lo));
    }
  } else if (lex.PeekChar() != '>') {
    a->dense_nested = lex.PeekChar() == '[';
    HLO_RETURN_IF_ERROR(ParseDenseList(lex, a, depth + 1));
  }
  HLO_RETURN_IF_ERROR(lex.Expect(">", "to close 'dense<'"));
  HLO_RETURN_IF_ERROR(lex.Expect(":", "and the type of a dense attribute"));
  return ParseType(lex, &a->type);
}

// dense-array ::= 'array' '<' element-type (':' int (',' int)*)? '>'
absl::Status ParseDenseArray(Lexer& lex, Attr* a) {
  a->kind = Attr::Kind::kDenseArray;
  HLO_RETURN_IF_ERROR(lex.Expect("<", "after 'array'"));
  std::string elem;
  HLO_RETURN_IF_ERROR(lex.ExpectIdent(&elem, "the element type of an array"));
  a->type.element = HloElementType(elem);
  if (lex.Eat(":")) {
    do {
      Attr e;
      e.kind = Attr::Kind::kInt;
      e.pos = lex.Here();
      if (lex.Eat("true")) {
        e.i = 1;
      } else if (lex.Eat("false")) {
        e.i = 0;
      } else {
        HLO_RETURN_IF_ERROR(lex.ExpectInt(&e.i, "an integer"));
      }
      a->list.push_back(std::move(e));
    } while (lex.Eat(","));
  }
  return lex.Expect(">", "to close 'array<'");
}

// dialect-attr ::= '#' name ('<' (params | text) '>')?
absl::Status ParseDialectAttr(Lexer& lex, Attr* a, int depth) {
  a->kind = Attr::Kind::kDialect;
  if (!lex.EatSigilName('#', &a->s)) return lex.ErrorExpected("a dialect attribute name");
  if (lex.PeekChar() != '<') return absl::OkStatus();  // an alias such as #loc3
  size_t start = lex.offset();
  // Try `key = value, ...` first; else keep the text only.
  Lexer trial = lex;
  trial.Eat("<");
  std::vector<NamedAttr> params;
  bool ok = true;
  if (!trial.Eat(">")) {
    do {
      std::string key;
      if (!trial.EatIdent(&key) || !trial.Eat("=")) {
        ok = false;
        break;
      }
      Attr v;
      if (!ParseAttr(trial, &v, depth + 1).ok()) {
        ok = false;
        break;
      }
      params.emplace_back(std::move(key), std::move(v));
    } while (trial.Eat(","));
    ok = ok && trial.Eat(">");
  }
  if (ok) {
    lex = trial;
    a->dict = std::move(params);
  } else {
    std::string_view skipped;
    HLO_RETURN_IF_ERROR(lex.SkipBalanced(&skipped));
    // `#stablehlo<precision DEFAULT>`: the words.
    Lexer words(skipped.substr(1, skipped.size() - 2), lex.filename());
    std::string w;
    while (words.EatIdent(&w)) {
      Attr word;
      word.kind = Attr::Kind::kWord;
      word.s = w;
      a->list.push_back(std::move(word));
    }
  }
  a->text = std::string(lex.text().substr(start, lex.offset() - start));
  return absl::OkStatus();
}

}  // namespace

// attr ::= number (':' type)? | string (':' type)? | 'true' | 'false' | 'unit'
//        | '@' symbol | '[' (attr (',' attr)*)? ']' | dict | dense | dense-array
//        | dialect-attr | type | word
absl::Status ParseAttr(Lexer& lex, Attr* out, int depth, bool typed) {
  if (depth > kMaxNesting) return TooDeep(lex);
  *out = Attr();
  out->pos = lex.Here();
  char c = lex.PeekChar();
  std::string_view num;
  if ((c >= '0' && c <= '9') || c == '-') {
    if (!lex.EatNumberText(&num)) return lex.ErrorExpected("an attribute value");
    std::string t(num);
    bool is_float = !t.starts_with("0x") && !t.starts_with("-0x") &&
                    t.find_first_of(".eE") != std::string::npos;
    if (is_float) {
      out->kind = Attr::Kind::kFloat;
      if (!ParseDouble(t, &out->f)) return lex.Error(out->pos, StrCat("bad number '", t, "'"));
    } else {
      out->kind = Attr::Kind::kInt;
      Lexer n(t, "");
      if (!n.EatInt(&out->i)) return lex.Error(out->pos, StrCat("integer '", t, "' out of range"));
    }
    out->text = t;
    return typed ? ParseOptionalType(lex, out) : absl::OkStatus();
  }
  if (c == '"') {
    out->kind = Attr::Kind::kString;
    if (!lex.EatString(&out->s)) return lex.ErrorExpected("a closed string");
    return typed ? ParseOptionalType(lex, out) : absl::OkStatus();
  }
  if (c == '@') {
    out->kind = Attr::Kind::kSymbol;
    if (!lex.EatSigilName('@', &out->s)) return lex.ErrorExpected("a symbol name");
    return absl::OkStatus();
  }
  if (c == '#') return ParseDialectAttr(lex, out, depth);
  if (c == '[') {
    lex.Eat("[");
    out->kind = Attr::Kind::kArray;
    if (lex.Eat("]")) return absl::OkStatus();
    do {
      out->list.emplace_back();
      HLO_RETURN_IF_ERROR(ParseAttr(lex, &out->list.back(), depth + 1));
    } while (lex.Eat(","));
    return lex.Expect("]", "to close an array");
  }
  if (c == '{') {
    out->kind = Attr::Kind::kDict;
    size_t start = lex.offset();
    HLO_RETURN_IF_ERROR(ParseDict(lex, &out->dict, depth + 1));
    out->text = std::string(lex.text().substr(start, lex.offset() - start));
    return absl::OkStatus();
  }
  std::string_view id = lex.PeekIdent();
  if (id == "true" || id == "false") {
    lex.Eat(id);
    out->kind = Attr::Kind::kBool;
    out->i = id == "true";
    return absl::OkStatus();
  }
  if (id == "unit") {
    lex.Eat(id);
    out->kind = Attr::Kind::kUnit;
    return absl::OkStatus();
  }
  if (id == "dense") {
    lex.Eat(id);
    return ParseDense(lex, out, depth);
  }
  if (id == "array") {
    lex.Eat(id);
    return ParseDenseArray(lex, out);
  }
  if (id == "tensor" || id == "tuple" || c == '!') {
    out->kind = Attr::Kind::kType;
    return ParseType(lex, &out->type);
  }
  if (!id.empty()) {
    out->kind = Attr::Kind::kWord;
    lex.EatIdent(&out->s);
    if (!HloElementType(out->s).empty()) {  // a type such as i32 or f32
      out->kind = Attr::Kind::kType;
      out->type.element = HloElementType(out->s);
    }
    return absl::OkStatus();
  }
  return lex.ErrorExpected("an attribute value");
}

absl::Status ParseDict(Lexer& lex, std::vector<NamedAttr>* out, int depth) {
  if (depth > kMaxNesting) return TooDeep(lex);
  HLO_RETURN_IF_ERROR(lex.Expect("{"));
  if (lex.Eat("}")) return absl::OkStatus();
  do {
    std::string key;
    Pos pos = lex.Here();
    if (!lex.EatIdent(&key) && !lex.EatString(&key)) {
      return lex.ErrorExpected("an attribute name");
    }
    Attr v;
    v.pos = pos;
    if (lex.Eat("=")) {
      HLO_RETURN_IF_ERROR(ParseAttr(lex, &v, depth + 1));
    } else {
      v.kind = Attr::Kind::kUnit;
    }
    out->emplace_back(std::move(key), std::move(v));
  } while (lex.Eat(","));
  return lex.Expect("}", "to close an attribute dictionary");
}

absl::Status AttrInt(const Lexer& lex, const Attr& a, std::string_view what, int64_t* out) {
  if (a.kind == Attr::Kind::kInt || a.kind == Attr::Kind::kBool) {
    *out = a.i;
    return absl::OkStatus();
  }
  return lex.Error(a.pos, StrCat(what, " must be an integer"));
}

absl::Status AttrInts(const Lexer& lex, const Attr& a, std::string_view what,
                      std::vector<int64_t>* out) {
  out->clear();
  if (a.kind == Attr::Kind::kArray || a.kind == Attr::Kind::kDenseArray) {
    for (const Attr& e : a.list) {
      int64_t v = 0;
      HLO_RETURN_IF_ERROR(AttrInt(lex, e, what, &v));
      out->push_back(v);
    }
    return absl::OkStatus();
  }
  if (a.kind == Attr::Kind::kDense && !a.dense_hex) {
    int64_t n = a.type.ElementCount();
    if (n < 0) return lex.Error(a.pos, StrCat(what, " must have a static shape"));
    if (a.elems.size() != 1 && static_cast<int64_t>(a.elems.size()) != n) {
      return lex.Error(a.pos, StrCat(what, ": ", a.elems.size(), " elements for ", n));
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = 0;
      Lexer e(a.elems[a.elems.size() == 1 ? 0 : i], "");
      if (!e.EatInt(&v)) return lex.Error(a.pos, StrCat(what, " must hold integers"));
      out->push_back(v);
    }
    return absl::OkStatus();
  }
  return lex.Error(a.pos, StrCat(what, " must be a list of integers"));
}

absl::Status AttrIntMatrix(const Lexer& lex, const Attr& a, std::string_view what,
                           std::vector<std::vector<int64_t>>* out) {
  out->clear();
  if (a.kind == Attr::Kind::kArray) {
    for (const Attr& row : a.list) {
      out->emplace_back();
      HLO_RETURN_IF_ERROR(AttrInts(lex, row, what, &out->back()));
    }
    return absl::OkStatus();
  }
  if (a.kind == Attr::Kind::kDense && a.type.dims.size() == 2) {
    std::vector<int64_t> flat;
    HLO_RETURN_IF_ERROR(AttrInts(lex, a, what, &flat));
    const int64_t cols = a.type.dims[1];
    for (int64_t r = 0; r < a.type.dims[0]; ++r) {
      out->emplace_back(flat.begin() + r * cols, flat.begin() + (r + 1) * cols);
    }
    return absl::OkStatus();
  }
  return lex.Error(a.pos, StrCat(what, " must be a 2-D list of integers"));
}

absl::Status AttrWord(const Lexer& lex, const Attr& a, std::string_view what, std::string* out) {
  if (a.kind == Attr::Kind::kWord) {
    *out = a.s;
    return absl::OkStatus();
  }
  if (a.kind == Attr::Kind::kDialect && !a.list.empty()) {
    *out = a.list.back().s;
    return absl::OkStatus();
  }
  return lex.Error(a.pos, StrCat(what, " must be a word such as DEFAULT"));
}

}  // namespace hlo::stablehlo
