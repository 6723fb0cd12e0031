// Shapes and layouts.
#include <cstring>

#include "ir/strings.h"
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

}  // namespace

bool Parser::IsShapeStart() const {
  if (tok_.kind == Tok::kLParen) return true;
  if (tok_.kind != Tok::kName) return false;
  const char* after = tok_.begin + tok_.text.size();
  if (after >= lexer_.buffer().data() + lexer_.buffer().size() || *after != '[') {
    return false;
  }
  return ParsePrimitiveType(tok_.text).has_value();
}

bool Parser::ParseShape(const Shape** out) {
  if (tok_.kind == Tok::kName) {
    const char* buf_end = lexer_.buffer().data() + lexer_.buffer().size();
    const char* end = SimpleShapeEnd(tok_.begin, buf_end);
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
      shape_cache_.emplace(raw, *out);
      return true;
    }
  }
  Shape s;
  if (!ParseShapeValue(&s, 0)) return false;
  *out = pool_->Intern(s);
  return true;
}

// shape ::= '(' [shape (',' shape)*] ')' | type '[' [dim (',' dim)*] ']' [layout]
// dim ::= int | '<=' int | '?'
bool Parser::ParseShapeValue(Shape* out, int depth) {
  if (depth > kMaxDepth) return ErrorHere("shape is nested too deeply");
  if (Consume(Tok::kLParen)) {
    std::vector<const Shape*> elems;
    while (!At(Tok::kRParen)) {
      Shape e;
      if (!ParseShapeValue(&e, depth + 1)) return false;
      elems.push_back(pool_->Intern(e));
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRParen, "')' to close the tuple shape")) return false;
    *out = Shape::Tuple(std::move(elems));
    return true;
  }
  if (!At(Tok::kName)) {
    return ErrorHere(StrCat("expected a shape, found ", Found()));
  }
  std::optional<PrimitiveType> type = ParsePrimitiveType(tok_.text);
  if (!type) {
    return ErrorHere(StrCat("expected a shape, found ", Found(),
                                  " (not an element type)"));
  }
  Advance();
  if (!Expect(Tok::kLSquare, "'[' after the element type")) return false;
  if (*type == PrimitiveType::kToken || *type == PrimitiveType::kOpaque) {
    if (!Expect(Tok::kRSquare, "']' (token and opaque shapes have no dimensions)")) {
      return false;
    }
    *out = *type == PrimitiveType::kToken ? Shape::Token() : Shape::Opaque();
    return true;
  }
  std::vector<int64_t> dims;
  std::vector<int64_t> dynamic;
  while (!At(Tok::kRSquare)) {
    if (Consume(Tok::kQuestion)) {
      dims.push_back(Shape::kUnboundedSize);
    } else {
      bool bounded = false;
      if (At(Tok::kLess)) {
        Advance();
        if (!Expect(Tok::kEqual, "'=' in '<='")) return false;
        bounded = true;
      }
      if (!At(Tok::kNumber)) {
        return ErrorHere(StrCat("expected a dimension size, found ", Found()));
      }
      int64_t d = 0;
      if (!ParseInt64(tok_.text, &d) || d < 0) {
        return ErrorHere(StrCat("bad dimension size '", tok_.text,
                                      "' (a non-negative integer)"));
      }
      Advance();
      if (bounded) dynamic.push_back(static_cast<int64_t>(dims.size()));
      dims.push_back(d);
    }
    if (At(Tok::kRSquare)) break;
    if (!At(Tok::kComma)) {
      return ErrorHere(StrCat("expected ',' or ']' to close the dimensions, found ",
                                    Found()));
    }
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

// layout ::= '{' [int (',' int)*] [':' field*] '}'
// field ::= 'D(' levels ')' | 'T' ('(' dims ')')+ | 'L(' n ')' | '#(' type ')'
//         | '*(' type ')' | 'E(' n ')' | 'S(' n ')' | 'SC' ('(' d ':' i,.. ')')+
//         | 'P(' shape ')' | 'M(' n ')'
bool Parser::ParseLayout(Layout* out, int64_t rank, int depth) {
  Token open = tok_;
  Advance();  // '{'
  while (At(Tok::kNumber)) {
    int64_t d = 0;
    if (!ParseInt64(tok_.text, &d)) {
      return ErrorHere(StrCat("bad layout dimension '", tok_.text, "'"));
    }
    out->minor_to_major.push_back(d);
    Advance();
    if (!Consume(Tok::kComma)) break;
  }
  if (Consume(Tok::kColon)) {
    auto paren_int = [&](int64_t* v) {
      return Expect(Tok::kLParen, "'('") && ParseInt(v) && Expect(Tok::kRParen, "')'");
    };
    auto paren_type = [&](std::optional<PrimitiveType>* t) {
      if (!Expect(Tok::kLParen, "'('")) return false;
      auto pt = At(Tok::kName) ? ParsePrimitiveType(tok_.text) : std::nullopt;
      if (!pt) return ErrorHere(StrCat("expected an element type, found ", Found()));
      *t = pt;
      Advance();
      return Expect(Tok::kRParen, "')'");
    };
    while (!At(Tok::kRBrace)) {
      if (At(Tok::kHash)) {
        Advance();
        if (!paren_type(&out->index_primitive_type)) return false;
        continue;
      }
      if (At(Tok::kStar)) {
        Advance();
        if (!paren_type(&out->pointer_primitive_type)) return false;
        continue;
      }
      if (!At(Tok::kName)) {
        return ErrorHere(StrCat("expected a layout field (T, E, S, …) or '}', found ",
                                      Found()));
      }
      std::string_view f = tok_.text;
      Advance();
      if (f == "T") {
        if (!At(Tok::kLParen)) return ErrorHere("expected '(' after 'T'");
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
          if (!Expect(Tok::kRParen, "')' to close the tile")) return false;
          out->tiles.push_back(std::move(tile));
        }
      } else if (f == "E") {
        if (!paren_int(&out->element_size_in_bits)) return false;
      } else if (f == "S") {
        if (!paren_int(&out->memory_space)) return false;
      } else if (f == "L") {
        if (!paren_int(&out->tail_padding_alignment_in_elements)) return false;
      } else if (f == "M") {
        if (!paren_int(&out->dynamic_shape_metadata_prefix_bytes)) return false;
      } else if (f == "SC") {
        while (Consume(Tok::kLParen)) {
          SplitConfig sc;
          if (!ParseInt(&sc.dimension) || !Expect(Tok::kColon, "':'")) return false;
          while (!At(Tok::kRParen)) {
            int64_t v = 0;
            if (!ParseInt(&v)) return false;
            sc.split_indices.push_back(v);
            if (!Consume(Tok::kComma)) break;
          }
          if (!Expect(Tok::kRParen, "')'")) return false;
          out->split_configs.push_back(std::move(sc));
        }
      } else if (f == "P") {
        if (!Expect(Tok::kLParen, "'('")) return false;
        Shape phys;
        if (!ParseShapeValue(&phys, depth + 1)) return false;
        out->physical_shape = pool_->Intern(phys);
        if (!Expect(Tok::kRParen, "')'")) return false;
      } else if (f == "D") {
        if (!Expect(Tok::kLParen, "'('")) return false;
        while (At(Tok::kName)) {
          Layout::DimLevel level;
          std::string_view t = tok_.text;
          static constexpr std::string_view kLetters = "DCSH";
          size_t k = kLetters.find(t.empty() ? '?' : t[0]);
          if (t.size() != 1 || k == std::string_view::npos) {
            return ErrorHere(StrCat("unknown dimension level type '", t, "'"));
          }
          level.type = static_cast<Layout::DimLevelType>(k);
          Advance();
          out->dim_levels.push_back(level);
          if (!Consume(Tok::kComma)) break;
        }
        if (!Expect(Tok::kRParen, "')'")) return false;
      } else {
        return ErrorAt(tok_, StrCat("unknown layout field '", f, "'"));
      }
    }
  }
  if (!Expect(Tok::kRBrace, "'}' to close the layout")) return false;
  if (static_cast<int64_t>(out->minor_to_major.size()) != rank) {
    return ErrorAt(open, StrCat("layout has ", out->minor_to_major.size(),
                                      " dimensions but the shape has rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : out->minor_to_major) {
    if (d < 0 || d >= rank || seen[d]) {
      return ErrorAt(open, StrCat("layout {", StrJoin(out->minor_to_major, ","),
                                        "} is not a permutation of 0..", rank - 1));
    }
    seen[d] = true;
  }
  return true;
}

absl::StatusOr<Shape> Parser::ParseShapeOnly(ShapePool& pool) {
  pool_ = &pool;
  Advance();
  Shape s;
  if (!ParseShapeValue(&s, 0)) return error_;
  if (!At(Tok::kEof)) {
    ErrorHere(StrCat("unexpected ", Found(), " after the shape"));
    return error_;
  }
  return s;
}

}  // namespace hlo
