// Shapes and layouts.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "ir/opcode.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace {

// The end of the raw text of a non-tuple shape starting at `p` (a type name),
// or null when it is not simple to delimit (then the slow path parses it).
const char* SimpleShapeEnd(const char* p, const char* end) {
  while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) ++p;
  if (p >= end || *p != '[') return nullptr;
  while (p < end && *p != ']') {
    if (*p == '\n') return nullptr;
    ++p;
  }
  if (p >= end) return nullptr;
  ++p;
  if (p < end && *p == '{') {
    int depth = 0;
    while (p < end) {
      if (*p == '\n') return nullptr;
      if (*p == '{') ++depth;
      if (*p == '}' && --depth == 0) return p + 1;
      ++p;
    }
    return nullptr;
  }
  return p;
}

// Can `c` follow a whole shape (so a shape text that matches up to it is
// the whole shape, not a prefix of a longer one like `f32[2]` of `f32[2]{0}`)?
bool EndsShape(char c) {
  return c == ' ' || c == ',' || c == ')' || c == '\n' || c == '\r' || c == '\t' || c == '}';
}

}  // namespace

bool Parser::IsShapeStart() const {
  if (tok_.kind == Tok::kLParen) return true;
  if (tok_.kind != Tok::kName) return false;
  const char* after = tok_.begin + tok_.text.size();
  if (after >= lexer_.buffer().data() + lexer_.buffer().size() || *after != '[') {
    return false;
  }
  // Type names are 2 to 13 lowercase characters.
  if (tok_.text.size() < 2 || tok_.text.size() > 13 || tok_.text[0] < 'a' || tok_.text[0] > 'z') {
    return false;
  }
  return ParsePrimitiveType(tok_.text).has_value();
}

bool Parser::ParseShape(const Shape** out) {
  // Tuple shapes repeat too (get-tuple-element operands, while state): look
  // up their raw text when it ends on the same line.
  if (tok_.kind == Tok::kLParen) {
    const char* buf_end = lexer_.buffer().data() + lexer_.buffer().size();
    const char* end = nullptr;
    int depth = 0;
    for (const char* p = tok_.begin; p < buf_end && *p != '\n' && *p != '"'; ++p) {
      if (*p == '(') ++depth;
      if (*p == ')' && --depth == 0) {
        end = p + 1;
        break;
      }
    }
    if (end) {
      std::string_view raw(tok_.begin, end - tok_.begin);
      auto it = shape_cache_.find(raw);
      if (it != shape_cache_.end()) {
        *out = it->second;
        lexer_.SkipTo(end);
        Advance();
        return true;
      }
      Shape s;
      if (!ParseShapeValue(&s, 0)) return false;
      *out = pool_->Intern(s);
      if (lexer_.position() >= end) shape_cache_.emplace(raw, *out);
      return true;
    }
  }
  if (tok_.kind == Tok::kName) {
    const char* buf_end = lexer_.buffer().data() + lexer_.buffer().size();
    const char* end = nullptr;
    // Shapes mostly repeat the one just read (an elementwise op's result and
    // operands): compare the text with it before scanning and hashing.
    const size_t last_size = last_shape_text_.size();
    if (last_size != 0 && static_cast<size_t>(buf_end - tok_.begin) > last_size &&
        std::memcmp(tok_.begin, last_shape_text_.data(), last_size) == 0 &&
        EndsShape(tok_.begin[last_size])) {
      *out = last_shape_;
      end = tok_.begin + last_size;
    } else if ((end = SimpleShapeEnd(tok_.begin, buf_end)) != nullptr) {
      std::string_view raw(tok_.begin, end - tok_.begin);
      auto it = shape_cache_.find(raw);
      if (it == shape_cache_.end()) {
        Shape s;
        if (!ParseShapeValue(&s, 0)) return false;
        *out = pool_->Intern(s);
        shape_cache_.emplace(raw, *out);
        last_shape_text_ = raw;
        last_shape_ = *out;
        return true;
      }
      *out = it->second;
      last_shape_text_ = raw;
      last_shape_ = *out;
    }
    if (end) {
      // The cached text is on one line (SimpleShapeEnd stops at newlines).
      const uint32_t end_line = tok_.line;
      const uint32_t end_col = tok_.col + static_cast<uint32_t>(end - tok_.begin);
      lexer_.SkipTo(end);
      AdvanceAfter(end_line, end_col);
      return true;
    }
  }
  Shape s;
  if (!ParseShapeValue(&s, 0)) return false;
  *out = pool_->Intern(s);
  return true;
}

// shape ::= '(' [shape (',' shape)*] ')' | type '[' [dim (',' dim)*] ']' [layout]
bool Parser::ParseShapeValue(Shape* out, int depth) {
  if (depth > kMaxDepth) {
    return ErrorHere(StrCat("shape is nested more than ", kMaxDepth, " levels deep"));
  }
  if (At(Tok::kLParen)) return ParseTupleShape(out, depth);
  if (!At(Tok::kName)) return ErrorExpected("a shape");
  std::optional<PrimitiveType> type = ParsePrimitiveType(tok_.text);
  if (!type) return ErrorNotElementType();
  Advance();
  if (!Expect(Tok::kLSquare,
              StrCat("'[' after the element type '", PrimitiveTypeName(*type), "'"))) {
    return false;
  }
  if (*type == PrimitiveType::kToken || *type == PrimitiveType::kOpaque) {
    if (!Expect(Tok::kRSquare,
                StrCat("']' (", PrimitiveTypeName(*type), " shapes have no dimensions)"))) {
      return false;
    }
    *out = *type == PrimitiveType::kToken ? Shape::Token() : Shape::Opaque();
    return true;
  }
  std::vector<int64_t> dims;
  std::vector<int64_t> dynamic;
  while (!At(Tok::kRSquare)) {
    // Code that walks a shape's dimensions (literal text, kernels) may recurse
    // per dimension, and a literal has one level of braces per dimension.
    if (static_cast<int64_t>(dims.size()) >= kMaxDepth) {
      return ErrorHere(StrCat("shape has more than ", kMaxDepth, " dimensions"));
    }
    int64_t d = 0;
    bool bounded = false;
    if (!ParseDim(&d, &bounded)) return false;
    if (bounded) dynamic.push_back(static_cast<int64_t>(dims.size()));
    dims.push_back(d);
    if (At(Tok::kRSquare)) break;
    if (!At(Tok::kComma)) return ErrorExpected("',' or ']' to close the dimensions");
    Advance();
  }
  const char* after_dims = tok_.begin + 1;
  Advance();  // ']'
  Shape s = Shape::Array(*type, dims);
  for (int64_t i : dynamic) s = s.WithDynamicDim(i, true);
  Layout layout;
  // A layout follows ']' directly; a '{' after a space opens something else
  // (a computation body after a signature's result shape).
  if (At(Tok::kLBrace) && tok_.begin == after_dims) {
    if (!ParseLayout(&layout, s.rank(), depth)) return false;
  } else {
    layout = DefaultLayout(s.rank());
  }
  *out = s.WithLayout(std::move(layout));
  return true;
}

// tuple-shape ::= '(' [shape (',' shape)*] ')'
bool Parser::ParseTupleShape(Shape* out, int depth) {
  Advance();  // '('
  std::vector<const Shape*> elems;
  while (!At(Tok::kRParen)) {
    Shape e;
    if (!ParseShapeValue(&e, depth + 1)) return false;
    elems.push_back(pool_->Intern(e));
    if (!Consume(Tok::kComma)) break;
    if (At(Tok::kRParen)) return ErrorExpected("a shape after ','");
  }
  if (!Expect(Tok::kRParen, "',' or ')' after an element of the tuple shape")) {
    return false;
  }
  *out = Shape::Tuple(std::move(elems));
  return true;
}

// A name where a shape's element type belongs: an opcode (the shape left
// out) or a misspelt type, with the closest type suggested.
bool Parser::ErrorNotElementType() {
  if (ParseOpcode(tok_.text).has_value()) {
    return ErrorHere(StrCat("expected a shape before the opcode '", tok_.text, "', like f32[2,3]"));
  }
  std::vector<std::string_view> types;
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    types.push_back(PrimitiveTypeName(static_cast<PrimitiveType>(i)));
  }
  std::string msg = StrCat("expected a shape, found ", Found(), ", which is not an element type");
  std::string_view close = ClosestMatch(tok_.text, types);
  if (!close.empty()) StrAppend(&msg, "; did you mean '", close, "'?");
  return ErrorHere(std::move(msg));
}

// dim ::= int | '<=' int | '?'
bool Parser::ParseDim(int64_t* size, bool* bounded) {
  if (Consume(Tok::kQuestion)) {
    *size = Shape::kUnboundedSize;
    return true;
  }
  if (At(Tok::kLess)) {
    Advance();
    if (!Expect(Tok::kEqual, "'=' after '<' (a bounded dimension is written <=N)")) return false;
    *bounded = true;
  }
  if (!At(Tok::kNumber)) {
    return ErrorExpected(*bounded ? "the bound of the dimension after '<='"
                                  : "a dimension size (a number, <=N or ?)");
  }
  if (!ParseInt64(tok_.text, size)) {
    std::string_view t = tok_.text;
    bool digits = !t.empty() && std::all_of(t.begin() + (t[0] == '-' || t[0] == '+'), t.end(),
                                            [](char c) { return c >= '0' && c <= '9'; });
    return ErrorHere(
        digits ? StrCat("dimension size '", t, "' is out of range (at most 9223372036854775807)")
               : StrCat("bad dimension size '", t, "'; expected a non-negative integer"));
  }
  if (*size < 0) return ErrorHere(StrCat("dimension size ", *size, " is negative"));
  Advance();
  return true;
}

// layout ::= '{' [int (',' int)*] [':' field*] '}'
bool Parser::ParseLayout(Layout* out, int64_t rank, int depth) {
  Token open = tok_;
  Advance();  // '{'
  if (!ParseLayoutDimensions(out)) return false;
  Token physical_tok;  // the P of a physical shape, when given
  if (Consume(Tok::kColon)) {
    while (!At(Tok::kRBrace)) {
      if (!ParseLayoutField(out, depth, &physical_tok)) return false;
    }
  }
  if (!Expect(Tok::kRBrace, "'}' to close the layout")) return false;
  return CheckLayout(*out, rank, open, physical_tok);
}

// The minor-to-major dimension numbers, up to the ':' or '}' after them.
bool Parser::ParseLayoutDimensions(Layout* out) {
  bool after_comma = false;
  while (At(Tok::kNumber)) {
    int64_t d = 0;
    if (!ParseInt64(tok_.text, &d)) {
      return ErrorHere(StrCat("bad layout dimension '", tok_.text, "'"));
    }
    out->minor_to_major.push_back(d);
    Advance();
    after_comma = Consume(Tok::kComma);
    if (!after_comma) break;
  }
  if (At(Tok::kColon) || At(Tok::kRBrace)) return true;
  return ErrorExpected(after_comma ? "a dimension number after ',' in the layout"
                       : out->minor_to_major.empty()
                           ? "a dimension number, ':' or '}' in the layout"
                           : "',', ':' or '}' after a dimension number in the layout");
}

// field ::= 'D(' levels ')' | 'T' ('(' dims ')')+ | 'L(' n ')' | '#(' type ')'
//         | '*(' type ')' | 'E(' n ')' | 'S(' n ')' | 'SC' ('(' d ':' i,.. ')')+
//         | 'P(' shape ')' | 'M(' n ')'
// `physical_tok` becomes the P of a physical shape.
bool Parser::ParseLayoutField(Layout* out, int depth, Token* physical_tok) {
  std::string_view f;  // the field being read
  auto paren_int = [&](int64_t* v) {
    return Expect(Tok::kLParen, StrCat("'(' after '", f, "'")) && ParseInt(v) &&
           Expect(Tok::kRParen, StrCat("')' to close '", f, "('"));
  };
  auto paren_type = [&](std::optional<PrimitiveType>* t) {
    if (!Expect(Tok::kLParen, StrCat("'(' after '", f, "'"))) return false;
    auto pt = At(Tok::kName) ? ParsePrimitiveType(tok_.text) : std::nullopt;
    if (!pt) return ErrorExpected(StrCat("an element type in '", f, "(...)'"));
    *t = pt;
    Advance();
    return Expect(Tok::kRParen, StrCat("')' to close '", f, "('"));
  };
  if (At(Tok::kHash) || At(Tok::kStar)) {
    const bool index = At(Tok::kHash);
    f = index ? "#" : "*";
    Advance();
    return paren_type(index ? &out->index_primitive_type : &out->pointer_primitive_type);
  }
  if (!At(Tok::kName)) {
    return ErrorExpected("a layout field (T, E, S, L, M, SC, P, D, #, *) or '}'");
  }
  Token field = tok_;
  f = tok_.text;
  Advance();
  if (f == "T") return ParseLayoutTiles(out);
  if (f == "E") return paren_int(&out->element_size_in_bits);
  if (f == "S") return paren_int(&out->memory_space);
  if (f == "L") return paren_int(&out->tail_padding_alignment_in_elements);
  if (f == "M") return paren_int(&out->dynamic_shape_metadata_prefix_bytes);
  if (f == "SC") return ParseLayoutSplitConfigs(out);
  if (f == "P") {
    *physical_tok = field;
    if (!Expect(Tok::kLParen, "'(' after 'P'")) return false;
    Shape phys;
    if (!ParseShapeValue(&phys, depth + 1)) return false;
    out->physical_shape = pool_->Intern(phys);
    return Expect(Tok::kRParen, "')' to close 'P('");
  }
  if (f == "D") {
    if (!At(Tok::kLParen)) return ErrorExpected("'(' after 'D'");
    return ParseDimLevels(&out->dim_levels);
  }
  return ErrorAt(field, StrCat("unknown layout field '", f,
                               "'; the fields are T(tile), E(bits), S(memory space), "
                               "L(alignment), M(bytes), SC(split), P(shape), D(levels), "
                               "#(index type) and *(pointer type)"));
}

// After 'T': ('(' dims ')')+, a dimension being a number or '*'.
bool Parser::ParseLayoutTiles(Layout* out) {
  if (!At(Tok::kLParen)) return ErrorExpected("'(' after 'T', like T(8,128)");
  while (Consume(Tok::kLParen)) {
    Tile tile;
    while (!At(Tok::kRParen)) {
      if (Consume(Tok::kStar)) {
        tile.dims.push_back(Tile::kCombineDimension);
      } else {
        int64_t v = 0;
        if (!ParseInt(&v)) return false;
        tile.dims.push_back(v);
      }
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRParen, "',' or ')' to close the tile")) return false;
    out->tiles.push_back(std::move(tile));
  }
  return true;
}

// After 'SC': ('(' dimension ':' index (',' index)* ')')*.
bool Parser::ParseLayoutSplitConfigs(Layout* out) {
  while (Consume(Tok::kLParen)) {
    SplitConfig sc;
    if (!ParseInt(&sc.dimension) ||
        !Expect(Tok::kColon, "':' after the dimension of SC(dim:indices)")) {
      return false;
    }
    while (!At(Tok::kRParen)) {
      int64_t v = 0;
      if (!ParseInt(&v)) return false;
      sc.split_indices.push_back(v);
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRParen, "',' or ')' in SC(dim:indices)")) return false;
    out->split_configs.push_back(std::move(sc));
  }
  return true;
}

// What XLA's layout check asks of a layout read for a shape of `rank`: a
// permutation of the dimensions, and a physical shape only when sparse.
bool Parser::CheckLayout(const Layout& layout, int64_t rank, const Token& open,
                         const Token& physical_tok) {
  if (layout.physical_shape != nullptr &&
      std::all_of(layout.dim_levels.begin(), layout.dim_levels.end(),
                  [](const Layout::DimLevel& d) { return d.type == Layout::kDense; })) {
    return ErrorAt(physical_tok,
                   "the layout has a physical shape P(...) but is not sparse "
                   "(no dimension level in D(...) is compressed or singleton)");
  }
  const auto& dims = layout.minor_to_major;
  if (static_cast<int64_t>(dims.size()) != rank) {
    return ErrorAt(open, StrCat("layout {", StrJoin(dims, ","), "} has ", dims.size(), " dimension",
                                dims.size() == 1 ? "" : "s", " but the shape has rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) {
      return ErrorAt(open, StrCat("layout {", StrJoin(dims, ","), "} is not a permutation of 0..",
                                  rank - 1, ": ",
                                  d < 0 || d >= rank ? StrCat("dimension ", d, " is out of range")
                                                     : StrCat("dimension ", d, " appears twice")));
    }
    seen[d] = true;
  }
  return true;
}

// levels ::= '(' [level (',' level)*] ')' ; level ::= ('D'|'C'|'S'|'H') ('+'|'~')*
// Read from the bytes: '+' (not unique) and '~' (not ordered) are not tokens.
bool Parser::ParseDimLevels(std::vector<Layout::DimLevel>* out) {
  const char* const line_begin = tok_.begin - (tok_.col - 1);
  const char* p = tok_.end;  // just after '('
  const char* const end = lexer_.buffer().data() + lexer_.buffer().size();
  auto skip_spaces = [&] {
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
  };
  auto found = [&]() -> std::string {
    if (p >= end) return "end of input";
    if (*p == '\n' || *p == '\r') return "the end of the line";
    return StrCat("'", *p, "'");
  };
  auto error_at_p = [&](std::string message) {
    return ErrorAt(tok_.line, static_cast<uint32_t>(p - line_begin) + 1, std::move(message));
  };
  static constexpr std::string_view kLetters = "DCSH";
  skip_spaces();
  if (p < end && *p == ')') {
    ++p;
  } else {
    while (true) {
      skip_spaces();
      size_t k = p < end ? kLetters.find(*p) : std::string_view::npos;
      const char* word = p;
      while (p < end && (std::isalnum(static_cast<unsigned char>(*p)) || *p == '_')) ++p;
      if (k == std::string_view::npos || p - word != 1) {
        std::string_view w(word, p - word);
        p = word;
        return error_at_p(w.empty() ? StrCat("expected a dimension level type (D, C, S or H), "
                                             "found ",
                                             found())
                                    : StrCat("unknown dimension level type '", w,
                                             "'; expected D, C, S or H, optionally "
                                             "followed by + (not unique) or ~ (not "
                                             "ordered)"));
      }
      Layout::DimLevel level;
      level.type = static_cast<Layout::DimLevelType>(k);
      while (p < end && (*p == '+' || *p == '~')) {
        (*p == '+' ? level.unique : level.ordered) = false;
        ++p;
      }
      out->push_back(level);
      skip_spaces();
      if (p < end && *p == ',') {
        ++p;
        continue;
      }
      if (p < end && *p == ')') {
        ++p;
        break;
      }
      return error_at_p(StrCat("expected ',' or ')' in D(...), found ", found()));
    }
  }
  const uint32_t end_col = static_cast<uint32_t>(p - line_begin) + 1;
  lexer_.SkipTo(p);
  AdvanceAfter(tok_.line, end_col);
  return true;
}

absl::StatusOr<Shape> Parser::ParseShapeOnly(ShapePool& pool) {
  pool_ = &pool;
  Advance();
  Shape s;
  if (!ParseShapeValue(&s, 0)) return Failure();
  if (!At(Tok::kEof)) {
    ErrorHere(StrCat("unexpected ", Found(), " after the shape"));
    return Failure();
  }
  return s;
}

}  // namespace hlo
