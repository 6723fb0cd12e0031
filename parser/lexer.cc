#include "parser/lexer.h"

namespace hlo {
namespace {

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '$';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) {
  return IsNameStart(c) || IsDigit(c) || c == '.' || c == '-';
}

}  // namespace

std::string_view TokName(Tok kind) {
  switch (kind) {
    case Tok::kEof: return "end of input";
    case Tok::kError: return "invalid token";
    case Tok::kName: return "name";
    case Tok::kNumber: return "number";
    case Tok::kString: return "string";
    case Tok::kEqual: return "'='";
    case Tok::kComma: return "','";
    case Tok::kColon: return "':'";
    case Tok::kLParen: return "'('";
    case Tok::kRParen: return "')'";
    case Tok::kLBrace: return "'{'";
    case Tok::kRBrace: return "'}'";
    case Tok::kLSquare: return "'['";
    case Tok::kRSquare: return "']'";
    case Tok::kLess: return "'<'";
    case Tok::kGreater: return "'>'";
    case Tok::kArrow: return "'->'";
    case Tok::kStar: return "'*'";
    case Tok::kHash: return "'#'";
    case Tok::kQuestion: return "'?'";
    case Tok::kElided: return "'...'";
  }
  return "token";
}

Lexer::Lexer(std::string_view buf, uint32_t first_line)
    : buf_(buf), p_(buf.data()), end_(buf.data() + buf.size()),
      line_start_(buf.data()), line_(first_line), first_line_(first_line) {}

Token Lexer::Make(Tok kind, const char* begin, const char* end) {
  Token t;
  t.kind = kind;
  t.text = std::string_view(begin, end - begin);
  t.line = line_;
  t.col = static_cast<uint32_t>(begin - line_start_) + 1;
  t.begin = begin;
  return t;
}

void Lexer::SkipSpaceAndComments(Token* error) {
  while (p_ < end_) {
    char c = *p_;
    if (c == '\n') {
      ++p_;
      ++line_;
      line_start_ = p_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++p_;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
      while (p_ < end_ && *p_ != '\n') ++p_;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
      const char* start = p_;
      uint32_t start_line = line_;
      const char* start_line_begin = line_start_;
      p_ += 2;
      while (p_ + 1 < end_ && !(p_[0] == '*' && p_[1] == '/')) {
        if (*p_ == '\n') {
          ++line_;
          line_start_ = p_ + 1;
        }
        ++p_;
      }
      if (p_ + 1 >= end_) {
        error->kind = Tok::kError;
        error->text = "unterminated /* comment";
        error->line = start_line;
        error->col = static_cast<uint32_t>(start - start_line_begin) + 1;
        error->begin = start;
        p_ = end_;
        return;
      }
      p_ += 2;
    } else {
      return;
    }
  }
}

Token Lexer::Next() {
  Token err;
  SkipSpaceAndComments(&err);
  if (err.kind == Tok::kError) return err;
  if (p_ >= end_) return Make(Tok::kEof, p_, p_);
  const char* start = p_;
  char c = *p_;
  if (c == '%' || IsNameStart(c)) {
    ++p_;
    // A name runs over name characters but stops before "->".
    while (p_ < end_ && IsNameChar(*p_) &&
           !(*p_ == '-' && p_ + 1 < end_ && p_[1] == '>')) {
      ++p_;
    }
    if (c == '%' && p_ == start + 1) {
      Token t = Make(Tok::kError, start, p_);
      t.text = "expected a name after '%'";
      return t;
    }
    return Make(Tok::kName, start, p_);
  }
  if (c == '-' && p_ + 1 < end_ && IsNameStart(p_[1])) {
    // -inf, -nan: a name with its sign.
    ++p_;
    while (p_ < end_ && IsNameChar(*p_) &&
           !(*p_ == '-' && p_ + 1 < end_ && p_[1] == '>')) {
      ++p_;
    }
    return Make(Tok::kName, start, p_);
  }
  if (IsDigit(c) || ((c == '-' || c == '+') && p_ + 1 < end_ && IsDigit(p_[1]))) {
    ++p_;
    while (p_ < end_) {
      char d = *p_;
      if (IsDigit(d) || IsNameStart(d) || d == '.') {
        ++p_;
      } else if ((d == '-' || d == '+') &&
                 !(d == '-' && p_ + 1 < end_ && p_[1] == '>')) {
        ++p_;
      } else {
        break;
      }
    }
    return Make(Tok::kNumber, start, p_);
  }
  if (c == '"') {
    ++p_;
    while (p_ < end_ && *p_ != '"') {
      if (*p_ == '\\' && p_ + 1 < end_) ++p_;
      if (*p_ == '\n') {
        ++line_;
        line_start_ = p_ + 1;
      }
      ++p_;
    }
    if (p_ >= end_) {
      // Report at the opening quote.
      Token t = Make(Tok::kError, start, p_);
      t.text = "unterminated string";
      return t;
    }
    ++p_;
    Token t = Make(Tok::kString, start, p_);
    t.text = std::string_view(start + 1, p_ - start - 2);
    return t;
  }
  ++p_;
  switch (c) {
    case '=': return Make(Tok::kEqual, start, p_);
    case ',': return Make(Tok::kComma, start, p_);
    case ':': return Make(Tok::kColon, start, p_);
    case '(': return Make(Tok::kLParen, start, p_);
    case ')': return Make(Tok::kRParen, start, p_);
    case '{': return Make(Tok::kLBrace, start, p_);
    case '}': return Make(Tok::kRBrace, start, p_);
    case '[': return Make(Tok::kLSquare, start, p_);
    case ']': return Make(Tok::kRSquare, start, p_);
    case '<': return Make(Tok::kLess, start, p_);
    case '>': return Make(Tok::kGreater, start, p_);
    case '*': return Make(Tok::kStar, start, p_);
    case '#': return Make(Tok::kHash, start, p_);
    case '?': return Make(Tok::kQuestion, start, p_);
    case '-':
      if (p_ < end_ && *p_ == '>') {
        ++p_;
        return Make(Tok::kArrow, start, p_);
      }
      break;
    case '.':
      if (end_ - p_ >= 2 && p_[0] == '.' && p_[1] == '.') {
        p_ += 2;
        return Make(Tok::kElided, start, p_);
      }
      break;
    default:
      break;
  }
  Token t = Make(Tok::kError, start, p_);
  t.text = "unexpected character";
  return t;
}

void Lexer::Reset(const Token& at) {
  p_ = at.begin;
  line_ = at.line;
  line_start_ = at.begin - (at.col - 1);
}

std::string_view Lexer::ScanBalanced(const Token& open, std::string* error) {
  const char* start = open.begin;
  const char* q = start;
  int depth = 0;
  while (q < end_) {
    char c = *q;
    if (c == '"') {
      ++q;
      while (q < end_ && *q != '"') {
        if (*q == '\\') ++q;
        ++q;
      }
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0) {
        ++q;
        // Advance the lexer, counting lines.
        for (const char* r = p_; r < q; ++r) {
          if (*r == '\n') {
            ++line_;
            line_start_ = r + 1;
          }
        }
        p_ = q;
        return std::string_view(start, q - start);
      }
    }
    ++q;
  }
  *error = "unbalanced brackets";
  return {};
}

bool Lexer::Unescape(std::string_view body, std::string* out,
                     std::string* error) {
  out->clear();
  out->reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (++i >= body.size()) {
      *error = "string ends in a lone backslash";
      return false;
    }
    switch (body[i]) {
      case 'n': *out += '\n'; break;
      case 't': *out += '\t'; break;
      case 'r': *out += '\r'; break;
      case '\\': *out += '\\'; break;
      case '"': *out += '"'; break;
      case '\'': *out += '\''; break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6':
      case '7': {
        int v = 0, n = 0;
        while (n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7') {
          v = v * 8 + (body[i] - '0');
          ++i;
          ++n;
        }
        --i;
        *out += static_cast<char>(v);
        break;
      }
      case 'x': {
        int v = 0, n = 0;
        while (i + 1 < body.size() && isxdigit(static_cast<unsigned char>(body[i + 1]))) {
          char h = body[++i];
          v = v * 16 + (IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          ++n;
        }
        if (n == 0) {
          *error = "\\x with no hex digits";
          return false;
        }
        *out += static_cast<char>(v);
        break;
      }
      default:
        *error = std::string("unknown escape \\") + body[i];
        return false;
    }
  }
  return true;
}

std::string_view Lexer::LineText(uint32_t line) const {
  uint32_t cur = first_line_;
  const char* p = buf_.data();
  const char* end = buf_.data() + buf_.size();
  while (cur < line && p < end) {
    if (*p++ == '\n') ++cur;
  }
  const char* e = p;
  while (e < end && *e != '\n') ++e;
  if (e > p && e[-1] == '\r') --e;
  return std::string_view(p, e - p);
}

}  // namespace hlo
