// Literals: constants' operands and literal text on its own.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <tuple>

#include "ir/float_formats.h"
#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace {

// Mantissa bits of a format whose NaNs carry a payload (IEEE-style: an
// all-ones exponent and any nonzero mantissa), else 0. The 8-bit formats with
// infinities (e5m2, e4m3, e3m4) are such formats; the fn/fnuz ones have a
// single NaN pattern.
int MantissaBitsOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
      return 52;
    case PrimitiveType::kF32:
      return 23;
    case PrimitiveType::kF16:
      return 10;
    case PrimitiveType::kBF16:
      return 7;
    default:
      if (IsSmallFloat(type) && GetSmallFloatInfo(type).has_infinity &&
          GetSmallFloatInfo(type).has_nan) {
        return GetSmallFloatInfo(type).mantissa_bits;
      }
      return 0;
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

std::string Hex(uint64_t v) {
  char buf[20];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, 16);
  return std::string(buf, r.ptr);
}

// For a decimal (digits, '.', exponent; no sign) that does not fit a double:
// true when it is too large, false when it is too small (it rounds to zero).
bool DecimalOverflows(std::string_view t) {
  size_t e = t.find_first_of("eE");
  std::string_view mant = t.substr(0, e);
  int64_t exp = 0;
  if (e != std::string_view::npos) {
    std::string_view et = t.substr(e + 1);
    bool neg = !et.empty() && et[0] == '-';
    if (!et.empty() && (et[0] == '-' || et[0] == '+')) et.remove_prefix(1);
    uint64_t mag = 0;
    auto r = std::from_chars(et.data(), et.data() + et.size(), mag);
    if (r.ec != std::errc() || mag > (uint64_t{1} << 62)) mag = uint64_t{1} << 62;
    exp = neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
  }
  size_t dot = mant.find('.');
  std::string_view ip = mant.substr(0, dot);
  std::string_view fp = dot == std::string_view::npos ? std::string_view() : mant.substr(dot + 1);
  // The value is about 10^(k-1+exp), k counted from the first nonzero digit.
  int64_t k;
  size_t nz = ip.find_first_not_of('0');
  if (nz != std::string_view::npos) {
    k = static_cast<int64_t>(ip.size() - nz);
  } else {
    size_t f = fp.find_first_not_of('0');
    if (f == std::string_view::npos) return false;
    k = -static_cast<int64_t>(f);
  }
  return k + exp > 0;
}

double LargestFinite(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
      return std::numeric_limits<double>::max();
    case PrimitiveType::kF32:
      return std::numeric_limits<float>::max();
    default:
      return IsSmallFloat(type) ? SmallFloatMax(type) : 0;
  }
}

// "an f32 value", "a bf16 value": the article goes by how the name is read.
std::string AValue(PrimitiveType type) {
  std::string_view name = PrimitiveTypeName(type);
  bool an = !name.empty() && (name[0] == 'f' || name[0] == 's');
  return StrCat(an ? "an " : "a ", name, " value");
}

// Number of array elements of a shape and all its tuple elements, saturating
// at INT64_MAX (-1 elements, a dynamic size, counts as 0: Literal::Create
// reports those).
int64_t TotalElements(const Shape& shape, int depth = 0) {
  if (shape.IsTuple()) {
    if (depth > 1000) return 0;
    int64_t n = 0;
    for (const Shape* e : shape.tuple_shapes()) {
      int64_t m = TotalElements(*e, depth + 1);
      n = m > std::numeric_limits<int64_t>::max() - n ? std::numeric_limits<int64_t>::max() : n + m;
    }
    return n;
  }
  if (!shape.IsArray()) return 0;
  return std::max<int64_t>(shape.ElementCount(), 0);
}

}  // namespace

// Creates the zero literal a constant's text fills in. Every element needs at
// least one byte of text, so a shape with more elements than there are bytes
// left cannot be written out: that is reported before anything is allocated
// (a one-line file must not make the parser allocate terabytes).
bool Parser::CreateLiteralFor(const Shape& shape, const Token& at, Literal* out) {
  const char* rest = tok_.begin ? tok_.begin : lexer_.position();
  const int64_t left = static_cast<int64_t>(lexer_.buffer().data() + lexer_.buffer().size() - rest);
  const int64_t needed = TotalElements(shape);
  // Small literals are created anyway, so that a malformed one gets a message
  // about its text.
  if (needed > left && needed > (int64_t{1} << 20)) {
    return ErrorAt(at,
                   StrCat("a literal of shape ", shape.ToString(false), " has ", needed,
                          " elements, more than the ", left, " bytes of text after it could hold"));
  }
  auto lit = Literal::Create(shape);
  if (!lit.ok()) return ErrorAt(at, std::string(lit.status().message()));
  *out = *std::move(lit);
  return true;
}

// constant_operand ::= [shape] literal | '{...}'
bool Parser::ParseConstantOperand(Instruction* inst) {
  if (At(Tok::kLBrace)) {
    // `{...}`: an elided constant.
    Token open = tok_;
    Pos before = PrevEnd();
    Advance();
    if (At(Tok::kElided)) {
      Advance();
      if (!Expect(Tok::kRBrace, "'}' after '...' (an elided constant is written {...})")) {
        return false;
      }
      inst->set_literal_elided(true);
      return true;
    }
    Backtrack(open, before);
  }
  const Shape* shape = inst->shape_ptr();
  Token at = tok_;
  if (IsShapeStart() && !At(Tok::kLParen)) {
    // Old style: the literal carries its shape.
    const Shape* written = nullptr;
    if (!ParseShape(&written)) return false;
    if (!written->Compatible(*shape)) {
      return ErrorAt(at, StrCat("constant is written with shape ", written->ToString(),
                                " but the instruction has shape ", shape->ToString()));
    }
  }
  // A scalar written as one token: the same token and shape always give the
  // same literal, so it is shared.
  const bool one_token_scalar =
      shape->IsArray() && shape->rank() == 0 && (At(Tok::kNumber) || At(Tok::kName));
  Token first = tok_;
  if (one_token_scalar) {
    auto it = scalar_constants_.find({shape, first.text});
    if (it != scalar_constants_.end()) {
      Advance();
      inst->set_literal(it->second);
      return true;
    }
  }
  Literal lit;
  if (!CreateLiteralFor(*shape, shape_tok_, &lit)) return false;
  if (!ParseLiteralForShape(*shape, &lit, 0)) return false;
  auto shared = std::make_shared<const Literal>(std::move(lit));
  if (one_token_scalar && PrevEndsAt(first)) {
    scalar_constants_.emplace(std::make_pair(shape, first.text), shared);
  }
  inst->set_literal(std::move(shared));
  return true;
}

// literal ::= element                      (rank 0)
//           | '{' literal (',' literal)* '}' (one level per dimension)
//           | '(' [shape] literal (',' [shape] literal)* ')'   (tuple)
bool Parser::ParseLiteralForShape(const Shape& shape, Literal* out, int depth) {
  if (depth > kMaxDepth) {
    return ErrorHere(StrCat("literal is nested more than ", kMaxDepth, " levels deep"));
  }
  if (shape.IsTuple()) {
    if (!Expect(Tok::kLParen,
                StrCat("'(' to open a literal of the tuple shape ", shape.ToString(false)))) {
      return false;
    }
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0 && !At(Tok::kComma)) {
        return ErrorExpected(StrCat("',' and element ", i, " of the ", shape.tuple_size(),
                                    "-element tuple literal"));
      }
      if (i > 0) Advance();
      const Shape& es = shape.tuple_shape(i);
      // An element may carry its shape (`s32[] 1`); a '(' opens the element's
      // value (a tuple or a complex number), never a written shape.
      if (IsShapeStart() && !At(Tok::kLParen)) {
        Token at = tok_;
        const Shape* written = nullptr;
        if (!ParseShape(&written)) return false;
        if (!written->Compatible(es)) {
          return ErrorAt(at, StrCat("tuple element ", i, " is written with shape ",
                                    written->ToString(), " but should be ", es.ToString()));
        }
      }
      if (!ParseLiteralForShape(es, &out->elements()[i], depth + 1)) return false;
    }
    return Expect(Tok::kRParen, StrCat("')' to close the tuple literal: its shape ",
                                       shape.ToString(false), " has ", shape.tuple_size(),
                                       " element", shape.tuple_size() == 1 ? "" : "s"));
  }
  if (shape.IsToken() || shape.IsOpaque()) {
    return ErrorHere(
        StrCat("a value of shape ", shape.ToString(false), " cannot be written as a literal"));
  }
  if (shape.rank() == 0) {
    if (At(Tok::kLBrace)) {
      return ErrorHere(StrCat("expected ", AValue(shape.element_type()),
                              ", found '{': a literal of the scalar shape ", shape.ToString(false),
                              " has no braces"));
    }
    return ParseElement(out, 0, shape.element_type());
  }
  return ParseArrayLiteral(shape, out);
}

// Nested braces parsed iteratively: the depth equals the rank.
bool Parser::ParseArrayLiteral(const Shape& shape, Literal* out) {
  const int64_t rank = shape.rank();
  const PrimitiveType type = shape.element_type();
  std::vector<int64_t> counts(rank, 0);
  int64_t index = 0;
  int64_t level = 0;
  const std::string shape_text = shape.ToString(false);
  auto too_many = [&] {
    return ErrorHere(StrCat("too many elements in dimension ", level, " of the ", shape_text,
                            " literal: expected ", shape.dim(level)));
  };
  if (!At(Tok::kLBrace)) {
    return ErrorExpected(StrCat("'{' to open the ", shape_text, " literal"));
  }
  Advance();
  while (true) {
    // Inside `level`, just after its '{' or after a ','.
    if (level + 1 < rank) {
      if (!(counts[level] == 0 && At(Tok::kRBrace))) {
        if (counts[level] >= shape.dim(level)) return too_many();
        if (!At(Tok::kLBrace)) {
          return ErrorExpected(StrCat("'{' to open dimension ", level + 1, " of the ", shape_text,
                                      " literal (one level of braces per "
                                      "dimension)"));
        }
        Advance();
        counts[++level] = 0;
        continue;
      }
    } else if (!At(Tok::kRBrace)) {
      while (true) {
        if (counts[level] >= shape.dim(level)) return too_many();
        if (At(Tok::kLBrace)) {
          return ErrorHere(StrCat("expected ", AValue(type), ", found '{': the ", shape_text,
                                  " literal has rank ", rank, ", so ", rank,
                                  rank == 1 ? " level" : " levels", " of braces"));
        }
        if (!ParseElement(out, index++, type)) return false;
        ++counts[level];
        if (!Consume(Tok::kComma)) break;
      }
    }
    // Close levels until one continues with ','.
    while (true) {
      if (!At(Tok::kRBrace)) {
        return ErrorExpected(
            StrCat("',' or '}' in dimension ", level, " of the ", shape_text, " literal"));
      }
      if (counts[level] != shape.dim(level)) {
        return ErrorHere(StrCat("too few elements in dimension ", level, " of the ", shape_text,
                                " literal: expected ", shape.dim(level), ", found ",
                                counts[level]));
      }
      Advance();
      if (level == 0) return true;
      ++counts[--level];
      if (Consume(Tok::kComma)) break;
    }
  }
}

// Float text: number | [-]inf | [-]nan | [-]nan '(' hex ')'.
bool Parser::ParseFloatText(const Token& tok, bool negate, PrimitiveType type, double* value,
                            uint64_t* bits, bool* has_bits) {
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
        std::from_chars_result r{};
        if (At(Tok::kNumber) && h.substr(0, 2) == "0x") {
          r = std::from_chars(h.data() + 2, h.data() + h.size(), payload, 16);
        }
        if (!At(Tok::kNumber) || h.substr(0, 2) != "0x" || h.size() == 2 ||
            r.ptr != h.data() + h.size()) {
          return ErrorExpected("a hexadecimal NaN payload like 0x7f after 'nan('");
        }
        const int m = MantissaBitsOf(type);
        if (r.ec != std::errc() || payload >= (uint64_t{1} << m)) {
          return ErrorHere(StrCat("NaN payload ", h, " does not fit the ", m, " mantissa bits of ",
                                  PrimitiveTypeName(type), " (at most 0x",
                                  Hex((uint64_t{1} << m) - 1), ")"));
        }
        if (payload == 0) {
          return ErrorHere(StrCat("NaN payload 0x0 is not a NaN (it would be ", neg ? "-" : "",
                                  "inf); a payload is at least 0x1"));
        }
        Advance();
        if (!Expect(Tok::kRParen, "')' after the NaN payload")) return false;
        *bits = NanBits(type, payload, neg);
        *has_bits = true;
      } else if (At(Tok::kLParen)) {
        return ErrorHere(StrCat("NaN payloads are not supported for ", PrimitiveTypeName(type),
                                ", which has a single NaN"));
      }
      return true;
    }
    return ErrorAt(
        tok, StrCat("expected ", AValue(type), " (a number, inf or nan), found '", tok.text, "'"));
  }
  if (tok.kind != Tok::kNumber) {
    return ErrorAt(tok, StrCat("expected ", AValue(type), ", found ", Describe(tok)));
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), *value);
  if (r.ec == std::errc::result_out_of_range && r.ptr == t.data() + t.size()) {
    if (DecimalOverflows(t)) {
      return ErrorAt(tok,
                     StrCat("value ", tok.text, " is out of range for ", PrimitiveTypeName(type),
                            " (largest finite value ", LargestFinite(type), ")"));
    }
    *value = 0;  // underflow: the nearest double is zero
  } else if (r.ec != std::errc() || r.ptr != t.data() + t.size() || t.empty() || t[0] == '+' ||
             t[0] == '-') {
    return ErrorAt(tok, StrCat("bad ", PrimitiveTypeName(type), " value '", tok.text,
                               "'; expected a decimal number like 1.5 or 2e-3"));
  }
  if (neg) *value = -*value;
  return true;
}

// element ::= number | name (true, false, inf, nan, ...) | '(' re ',' im ')'
bool Parser::ParseElement(Literal* lit, int64_t index, PrimitiveType type) {
  if (tok_.kind != Tok::kNumber && tok_.kind != Tok::kName && tok_.kind != Tok::kLParen) {
    return ErrorExpected(AValue(type));
  }
  if (type == PrimitiveType::kPred) return ParsePredElement(lit, index);
  if (IsInteger(type)) return ParseIntElement(lit, index, type);
  if (IsComplex(type)) return ParseComplexElement(lit, index, type);
  return ParseRealElement(lit, index, type);
}

// pred-element ::= 'true' | 'false' | '1' | '0'
bool Parser::ParsePredElement(Literal* lit, int64_t index) {
  const Token tok = tok_;
  if (tok.text == "true" || tok.text == "1") {
    lit->SetInt(index, 1);
  } else if (tok.text == "false" || tok.text == "0") {
    lit->SetInt(index, 0);
  } else {
    return ErrorHere(StrCat("expected true or false (or 1 or 0) for pred, found ", Found()));
  }
  Advance();
  return true;
}

// The range an integer type holds, as "lo..hi" for messages.
static std::string IntRangeText(PrimitiveType type) {
  const int bits = BitWidth(type);
  if (IsUnsignedInt(type)) {
    return StrCat("0..", bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
  }
  return StrCat(-static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1) - 1, "..",
                static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1));
}

// int-element ::= ['-' | '+'] digits
bool Parser::ParseIntElement(Literal* lit, int64_t index, PrimitiveType type) {
  const Token tok = tok_;
  if (tok.kind != Tok::kNumber) {
    return ErrorHere(
        StrCat("expected an integer for ", PrimitiveTypeName(type), ", found ", Found()));
  }
  const int bits = BitWidth(type);
  std::string_view t = tok.text;
  bool neg = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  uint64_t mag = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), mag);
  if (r.ec == std::errc::result_out_of_range && r.ptr == t.data() + t.size()) {
    return ErrorHere(StrCat("value ", tok.text, " is out of range for ", PrimitiveTypeName(type),
                            " (", IntRangeText(type), ")"));
  }
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
    return ErrorHere(
        StrCat("expected an integer for ", PrimitiveTypeName(type), ", found '", tok.text, "'"));
  }
  bool ok;
  int64_t v;
  if (IsUnsignedInt(type) && bits == 64 && neg) {
    // XLA reads a u64 element as an int64 and keeps its bits: -1 is
    // 2^64 - 1 (its parser test ConstantUnsignedUnderflow); narrower
    // unsigned types reject negatives.
    ok = mag <= (uint64_t{1} << 63);
    v = static_cast<int64_t>(0 - mag);
  } else if (IsUnsignedInt(type)) {
    ok = !neg || mag == 0;
    ok = ok && (bits == 64 || mag < (uint64_t{1} << bits));
    v = static_cast<int64_t>(mag);
  } else {
    uint64_t lim = uint64_t{1} << (bits - 1);  // |min|
    ok = neg ? mag <= lim : mag < lim;
    v = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  }
  if (!ok) {
    return ErrorHere(StrCat("value ", tok.text, " is out of range for ", PrimitiveTypeName(type),
                            " (", IntRangeText(type), ")"));
  }
  lit->SetInt(index, v);
  Advance();
  return true;
}

// complex-element ::= '(' real ',' imag ')'
bool Parser::ParseComplexElement(Literal* lit, int64_t index, PrimitiveType type) {
  if (!Expect(Tok::kLParen,
              StrCat("'(' to open ", AValue(type), " (a complex value is written (real, imag))"))) {
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
  const std::complex<double> stored = lit->GetComplex(index);
  for (auto [given, kept, at] :
       {std::tuple{re, stored.real(), re_tok}, std::tuple{im, stored.imag(), im_tok}}) {
    if (std::isfinite(given) && !std::isfinite(kept)) {
      return ErrorAt(at, StrCat("value ", at.text, " is out of range for ", PrimitiveTypeName(part),
                                " (largest finite value ", LargestFinite(part), ")"));
    }
  }
  return true;
}

// real-element ::= number | inf | -inf | nan | nan(0x...) | 0x-bits
bool Parser::ParseRealElement(Literal* lit, int64_t index, PrimitiveType type) {
  const Token tok = tok_;
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
  // A finite value that does not fit the type (it became inf or NaN) is an
  // error, as in XLA; values that round to the largest finite one are fine.
  if (!has_bits && std::isfinite(v) && !std::isfinite(lit->GetDouble(index))) {
    return ErrorAt(tok, StrCat("value ", tok.text, " is out of range for ", PrimitiveTypeName(type),
                               " (largest finite value ", LargestFinite(type), ")"));
  }
  return true;
}

absl::StatusOr<Literal> Parser::ParseLiteralOnly(const Shape* shape) {
  ShapePool pool;
  pool_ = &pool;
  Advance();
  Shape parsed;
  if (shape == nullptr) {
    // `shape literal`, where a tuple may also be written element by element
    // with the elements' shapes: `(f32[2] {1, 2}, pred[] true)`. Try the
    // shape first; when the text is not a shape, read it element by element.
    const Token start = tok_;
    const Pos before = PrevEnd();
    const bool shape_ok = ParseShapeValue(&parsed, 0);
    // `()` alone is the empty tuple, not a shape waiting for its value.
    if (start.kind == Tok::kLParen && (!shape_ok || At(Tok::kEof))) {
      error_ = absl::OkStatus();
      Backtrack(start, before);
      Literal lit;
      if (!ParseShapedLiteral(&lit, 0)) return Failure();
      if (!At(Tok::kEof)) {
        ErrorHere(StrCat("unexpected ", Found(), " after the literal"));
        return Failure();
      }
      return lit;
    }
    if (!shape_ok) return Failure();
    shape = &parsed;
  }
  Literal lit;
  if (!CreateLiteralFor(*shape, tok_, &lit)) return Failure();
  if (!ParseLiteralForShape(*shape, &lit, 0)) return Failure();
  if (!At(Tok::kEof)) {
    ErrorHere(StrCat("unexpected ", Found(), " after the literal"));
    return Failure();
  }
  return lit;
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
