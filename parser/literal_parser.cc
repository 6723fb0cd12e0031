// Literals: constants' operands and literal text on its own.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/strings.h"
#include "ir/float_formats.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace {

int MantissaBitsOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64: return 52;
    case PrimitiveType::kF32: return 23;
    case PrimitiveType::kF16: return 10;
    case PrimitiveType::kBF16: return 7;
    default: return 0;
  }
}

// Bits of a NaN with the given payload and sign in an IEEE-style format.
uint64_t NanBits(PrimitiveType type, uint64_t payload, bool negative) {
  int m = MantissaBitsOf(type);
  int w = BitWidth(type);
  uint64_t exp_mask = ((uint64_t{1} << (w - 1 - m)) - 1) << m;
  uint64_t bits = exp_mask | payload;
  if (negative) bits |= uint64_t{1} << (w - 1);
  return bits;
}

}  // namespace

// constant_operand ::= [shape] literal | '{...}'
bool Parser::ParseConstantOperand(Instruction* inst) {
  if (At(Tok::kLBrace)) {
    // `{...}`: an elided constant.
    Token open = tok_;
    Advance();
    if (At(Tok::kElided)) {
      Advance();
      if (!Expect(Tok::kRBrace, "'}' after '...'")) return false;
      inst->set_literal_elided(true);
      return true;
    }
    lexer_.Reset(open);
    Advance();
  }
  const Shape* shape = inst->shape_ptr();
  if (IsShapeStart() && !At(Tok::kLParen)) {
    // Old style: the literal carries its shape.
    Token at = tok_;
    const Shape* written = nullptr;
    if (!ParseShape(&written)) return false;
    if (!written->Compatible(*shape)) {
      return ErrorAt(at, StrCat("constant is written with shape ", written->ToString(),
                                      " but the instruction has shape ", shape->ToString()));
    }
  }
  auto lit = Literal::Create(*shape);
  if (!lit.ok()) return ErrorHere(std::string(lit.status().message()));
  if (!ParseLiteralForShape(*shape, &*lit, 0)) return false;
  inst->set_literal(std::make_shared<const Literal>(*std::move(lit)));
  return true;
}

// literal ::= element                      (rank 0)
//           | '{' literal (',' literal)* '}' (one level per dimension)
//           | '(' [shape] literal (',' [shape] literal)* ')'   (tuple)
bool Parser::ParseLiteralForShape(const Shape& shape, Literal* out, int depth) {
  if (depth > kMaxDepth) return ErrorHere("literal is nested too deeply");
  if (shape.IsTuple()) {
    if (!Expect(Tok::kLParen, "'(' to open a tuple literal")) return false;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0 && !Expect(Tok::kComma, "',' between tuple elements")) return false;
      const Shape& es = shape.tuple_shape(i);
      if (IsShapeStart() && !(At(Tok::kLParen) && es.IsTuple())) {
        Token at = tok_;
        const Shape* written = nullptr;
        if (!ParseShape(&written)) return false;
        if (!written->Compatible(es)) {
          return ErrorAt(at, StrCat("tuple element ", i, " is written with shape ",
                                          written->ToString(), " but should be ",
                                          es.ToString()));
        }
      }
      if (!ParseLiteralForShape(es, &out->elements()[i], depth + 1)) return false;
    }
    return Expect(Tok::kRParen, StrCat("')' to close the tuple literal of ",
                                             shape.tuple_size(), " elements"));
  }
  if (shape.IsToken() || shape.IsOpaque()) {
    return ErrorHere("a token or opaque value has no literal");
  }
  if (shape.rank() == 0) return ParseElement(out, 0, shape.element_type());
  return ParseArrayLiteral(shape, out);
}

// Nested braces parsed iteratively: the depth equals the rank.
bool Parser::ParseArrayLiteral(const Shape& shape, Literal* out) {
  const int64_t rank = shape.rank();
  const PrimitiveType type = shape.element_type();
  std::vector<int64_t> counts(rank, 0);
  int64_t index = 0;
  int64_t level = 0;
  auto too_many = [&] {
    return ErrorHere(StrCat("too many elements in dimension ", level, " of a ",
                                  shape.ToString(false), " literal (expected ",
                                  shape.dim(level), ")"));
  };
  if (!At(Tok::kLBrace)) {
    return ErrorHere(StrCat("expected '{' to open a ", shape.ToString(false),
                                  " literal, found ", Found()));
  }
  Advance();
  while (true) {
    // Inside `level`, just after its '{' or after a ','.
    if (level + 1 < rank) {
      if (!(counts[level] == 0 && At(Tok::kRBrace))) {
        if (counts[level] >= shape.dim(level)) return too_many();
        if (!At(Tok::kLBrace)) {
          return ErrorHere(StrCat("expected '{' for dimension ", level + 1, " of a ",
                                        shape.ToString(false), " literal, found ", Found()));
        }
        Advance();
        counts[++level] = 0;
        continue;
      }
    } else if (!At(Tok::kRBrace)) {
      while (true) {
        if (counts[level] >= shape.dim(level)) return too_many();
        if (!ParseElement(out, index++, type)) return false;
        ++counts[level];
        if (!Consume(Tok::kComma)) break;
      }
    }
    // Close levels until one continues with ','.
    while (true) {
      if (!At(Tok::kRBrace)) {
        return ErrorHere(StrCat("expected ',' or '}' in dimension ", level,
                                      " of the literal, found ", Found()));
      }
      if (counts[level] != shape.dim(level)) {
        return ErrorHere(StrCat("expected ", shape.dim(level), " elements in dimension ",
                                      level, " of a ", shape.ToString(false),
                                      " literal, found ", counts[level]));
      }
      Advance();
      if (level == 0) return true;
      ++counts[--level];
      if (Consume(Tok::kComma)) break;
    }
  }
}

// Float text: number | [-]inf | [-]nan | [-]nan '(' hex ')'.
bool Parser::ParseFloatText(const Token& tok, bool negate, PrimitiveType type,
                            double* value, uint64_t* bits, bool* has_bits) {
  *has_bits = false;
  std::string_view t = tok.text;
  bool neg = negate;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    neg = neg != (t[0] == '-');
    t.remove_prefix(1);
  }
  if (tok.kind == Tok::kName) {
    if (t == "inf") {
      *value = neg ? -INFINITY : INFINITY;
      return true;
    }
    if (t == "nan") {
      *value = neg ? -NAN : NAN;
      if (At(Tok::kLParen) && MantissaBitsOf(type) > 0) {
        Advance();
        uint64_t payload = 0;
        std::string_view h = tok_.text;
        if (!At(Tok::kNumber) || h.substr(0, 2) != "0x" ||
            std::from_chars(h.data() + 2, h.data() + h.size(), payload, 16).ec !=
                std::errc()) {
          return ErrorHere(StrCat("expected a hex NaN payload like 0x7f, found ",
                                        Found()));
        }
        if (payload == 0 || payload >= (uint64_t{1} << MantissaBitsOf(type))) {
          return ErrorHere(StrCat("NaN payload ", h, " does not fit the ",
                                        MantissaBitsOf(type), " mantissa bits of ",
                                        PrimitiveTypeName(type)));
        }
        Advance();
        if (!Expect(Tok::kRParen, "')' after the NaN payload")) return false;
        *bits = NanBits(type, payload, neg);
        *has_bits = true;
      }
      return true;
    }
    return ErrorAt(tok, StrCat("expected a ", PrimitiveTypeName(type),
                                     " value, found '", tok.text, "'"));
  }
  if (!ParseDouble(t, value)) {
    return ErrorAt(tok, StrCat("bad ", PrimitiveTypeName(type), " value '",
                                     tok.text, "'"));
  }
  if (neg) *value = -*value;
  return true;
}

bool Parser::ParseElement(Literal* lit, int64_t index, PrimitiveType type) {
  Token tok = tok_;
  if (tok.kind != Tok::kNumber && tok.kind != Tok::kName && tok.kind != Tok::kLParen) {
    return ErrorHere(StrCat("expected a ", PrimitiveTypeName(type),
                                  " value, found ", Found()));
  }
  if (type == PrimitiveType::kPred) {
    if (tok.text == "true" || tok.text == "1") {
      lit->SetInt(index, 1);
    } else if (tok.text == "false" || tok.text == "0") {
      lit->SetInt(index, 0);
    } else {
      return ErrorHere(StrCat("expected true or false for pred, found ", Found()));
    }
    Advance();
    return true;
  }
  if (IsInteger(type)) {
    if (tok.kind != Tok::kNumber) {
      return ErrorHere(StrCat("expected an integer for ", PrimitiveTypeName(type),
                                    ", found ", Found()));
    }
    std::string_view t = tok.text;
    bool neg = !t.empty() && t[0] == '-';
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
    uint64_t mag = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), mag);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
      return ErrorHere(StrCat("expected an integer for ", PrimitiveTypeName(type),
                                    ", found '", tok.text, "'"));
    }
    int bits = BitWidth(type);
    bool ok;
    int64_t v;
    if (IsUnsignedInt(type)) {
      ok = !neg || mag == 0;
      ok = ok && (bits == 64 || mag < (uint64_t{1} << bits));
      v = static_cast<int64_t>(mag);
    } else {
      uint64_t lim = uint64_t{1} << (bits - 1);  // |min|
      ok = neg ? mag <= lim : mag < lim;
      v = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
    }
    if (!ok) {
      return ErrorHere(StrCat("value ", tok.text, " is out of range for ",
                                    PrimitiveTypeName(type)));
    }
    lit->SetInt(index, v);
    Advance();
    return true;
  }
  if (IsComplex(type)) {
    if (!Expect(Tok::kLParen, StrCat("'(' to open a ", PrimitiveTypeName(type),
                                           " value like (1, 2)"))) {
      return false;
    }
    PrimitiveType part = ComplexComponentType(type);
    double re = 0, im = 0;
    uint64_t bits;
    bool has_bits;
    Token re_tok = tok_;
    Advance();
    if (!ParseFloatText(re_tok, false, part, &re, &bits, &has_bits)) return false;
    if (!Expect(Tok::kComma, "',' between the real and imaginary parts")) return false;
    Token im_tok = tok_;
    Advance();
    if (!ParseFloatText(im_tok, false, part, &im, &bits, &has_bits)) return false;
    if (!Expect(Tok::kRParen, "')' to close the complex value")) return false;
    lit->SetComplex(index, {re, im});
    return true;
  }
  // Real floats.
  double v = 0;
  uint64_t bits = 0;
  bool has_bits = false;
  Advance();
  if (!ParseFloatText(tok, false, type, &v, &bits, &has_bits)) return false;
  if (has_bits) {
    lit->SetBits(index, bits);
  } else if (type == PrimitiveType::kF32) {
    // Round once from the decimal text to float (from_chars on float).
    std::string_view t = tok.text;
    float f;
    bool neg = !t.empty() && t[0] == '-';
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
    if (tok.kind == Tok::kNumber &&
        std::from_chars(t.data(), t.data() + t.size(), f).ec == std::errc()) {
      lit->typed<float>()[index] = neg ? -f : f;
    } else {
      lit->SetDouble(index, v);
    }
  } else {
    // f64 directly; small floats round once from the double (the decimal
    // text of an f16/bf16/f8 value is exact in double).
    lit->SetDouble(index, v);
  }
  return true;
}

absl::StatusOr<Literal> Parser::ParseLiteralOnly(const Shape* shape) {
  ShapePool pool;
  pool_ = &pool;
  Advance();
  Shape parsed;
  if (shape == nullptr) {
    if (!ParseShapeValue(&parsed, 0)) return error_;
    shape = &parsed;
  }
  auto lit = Literal::Create(*shape);
  if (!lit.ok()) {
    ErrorHere(std::string(lit.status().message()));
    return error_;
  }
  if (!ParseLiteralForShape(*shape, &*lit, 0)) return error_;
  if (!At(Tok::kEof)) {
    ErrorHere(StrCat("unexpected ", Found(), " after the literal"));
    return error_;
  }
  return *std::move(lit);
}

absl::StatusOr<Literal> ParseLiteral(std::string_view text, const ParseOptions& options) {
  Parser parser(text, 1, options);
  return parser.ParseLiteralOnly(nullptr);
}

absl::StatusOr<Literal> ParseLiteralValue(std::string_view text, const Shape& shape,
                                          const ParseOptions& options) {
  Parser parser(text, 1, options);
  return parser.ParseLiteralOnly(&shape);
}

}  // namespace hlo
