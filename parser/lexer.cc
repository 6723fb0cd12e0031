#include "parser/lexer.h"

#include <array>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <vector>

#include "ir/strings.h"

namespace hlo {
namespace {

// Character classes by table: the lexer's inner loops test every byte.
enum : uint8_t { kStartClass = 1, kDigitClass = 2, kNameClass = 4 };
constexpr std::array<uint8_t, 256> kCharClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
    bool digit = c >= '0' && c <= '9';
    t[c] = static_cast<uint8_t>((start ? kStartClass : 0) | (digit ? kDigitClass : 0) |
                                ((start || digit || c == '.' || c == '-') ? kNameClass : 0));
  }
  return t;
}();
inline bool IsNameStart(char c) { return kCharClass[static_cast<uint8_t>(c)] & kStartClass; }
inline bool IsDigit(char c) { return kCharClass[static_cast<uint8_t>(c)] & kDigitClass; }
inline bool IsNameChar(char c) { return kCharClass[static_cast<uint8_t>(c)] & kNameClass; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Bytes that can start a token or separate tokens. Anything else (control
// characters, bytes of non-ASCII text, and '@', '!', ';', ...) is an error
// wherever it appears outside strings and comments.
constexpr std::array<bool, 256> kTokenByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = (kCharClass[c] & kNameClass) != 0;
  for (char c : std::string_view(" \t\r\n%\"=,:(){}[]<>*#?+/'")) t[static_cast<uint8_t>(c)] = true;
  return t;
}();
inline bool IsTokenByte(char c) { return kTokenByte[static_cast<uint8_t>(c)]; }
inline bool IsSpaceOrCommentStart(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '/';
}

// The end of a name whose first byte is before `p`: name characters, but a
// name stops before "->" (`(a: f32[])->f32[]`). The arrow is rare, so the
// scan runs over the class table and looks for '-' afterwards.
const char* NameEnd(const char* p, const char* end) {
#ifdef __SSE2__
  // Sixteen bytes at a time while they are all name bytes (names are most of
  // the text); a '-' sends the rest to the byte loop, which stops at '->'.
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    auto in_range = [](__m128i x, char lo, char hi) {
      return _mm_and_si128(_mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(lo)), x),
                           _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(hi)), x));
    };
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));  // A-Z -> a-z
    const __m128i dash = _mm_cmpeq_epi8(v, _mm_set1_epi8('-'));
    __m128i name = _mm_or_si128(in_range(folded, 'a', 'z'), in_range(v, '0', '9'));
    name = _mm_or_si128(name, _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
    name = _mm_or_si128(name, _mm_cmpeq_epi8(v, _mm_set1_epi8('$')));
    name = _mm_or_si128(name, _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
    const unsigned name_bits = static_cast<unsigned>(_mm_movemask_epi8(name));
    const unsigned dash_bits = static_cast<unsigned>(_mm_movemask_epi8(dash));
    const unsigned stop = ~(name_bits | dash_bits) & 0xFFFF;
    const unsigned run = stop ? (stop & -stop) - 1 : 0xFFFF;  // bytes before the stop
    if (dash_bits & run) break;
    if (stop) return p + __builtin_ctz(stop);
    p += 16;
  }
#endif
  while (p < end && IsNameChar(*p)) {
    if (*p == '-' && p + 1 < end && p[1] == '>') return p;
    ++p;
  }
  return p;
}

// Length of the valid UTF-8 sequence at p (0 when it is not one).
size_t Utf8Length(const char* p, const char* end) {
  unsigned char c = static_cast<unsigned char>(*p);
  size_t n;
  uint32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (static_cast<size_t>(end - p) < n) return 0;
  uint32_t cp = c & (0x3F >> (n - 1));
  for (size_t i = 1; i < n; ++i) {
    unsigned char d = static_cast<unsigned char>(p[i]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

uint32_t Utf8CodePoint(const char* p, size_t n) {
  uint32_t cp = static_cast<unsigned char>(p[0]) & (0x3F >> (n - 1));
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(p[i]) & 0x3F);
  return cp;
}

std::string Hex(uint32_t v, int digits) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string s(digits, '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[i] = kHex[v & 15];
  return s;
}

}  // namespace

std::string_view TokName(Tok kind) {
  switch (kind) {
    case Tok::kEof:
      return "end of input";
    case Tok::kError:
      return "invalid token";
    case Tok::kName:
      return "name";
    case Tok::kNumber:
      return "number";
    case Tok::kString:
      return "string";
    case Tok::kEqual:
      return "'='";
    case Tok::kComma:
      return "','";
    case Tok::kColon:
      return "':'";
    case Tok::kLParen:
      return "'('";
    case Tok::kRParen:
      return "')'";
    case Tok::kLBrace:
      return "'{'";
    case Tok::kRBrace:
      return "'}'";
    case Tok::kLSquare:
      return "'['";
    case Tok::kRSquare:
      return "']'";
    case Tok::kLess:
      return "'<'";
    case Tok::kGreater:
      return "'>'";
    case Tok::kArrow:
      return "'->'";
    case Tok::kStar:
      return "'*'";
    case Tok::kHash:
      return "'#'";
    case Tok::kQuestion:
      return "'?'";
    case Tok::kElided:
      return "'...'";
  }
  return "token";
}

Lexer::Lexer(std::string_view buf, uint32_t first_line)
    : buf_(buf),
      p_(buf.data()),
      end_(buf.data() + buf.size()),
      line_start_(buf.data()),
      line_(first_line),
      first_line_(first_line) {}

Token Lexer::Make(Tok kind, const char* begin, const char* end) {
  Token t;
  t.kind = kind;
  t.text = std::string_view(begin, end - begin);
  t.line = line_;
  t.col = static_cast<uint32_t>(begin - line_start_) + 1;
  t.begin = begin;
  t.end = end;
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
      const char* eol = static_cast<const char*>(std::memchr(p_, '\n', end_ - p_));
      if (!eol) eol = end_;
      // A NUL is an error everywhere, comments included (text is not C strings).
      if (const void* nul = std::memchr(p_, '\0', eol - p_)) {
        NulInComment(static_cast<const char*>(nul), error);
        return;
      }
      p_ = eol;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
      const char* start = p_;
      uint32_t start_line = line_;
      const char* start_line_begin = line_start_;
      p_ += 2;
      while (p_ + 1 < end_ && !(p_[0] == '*' && p_[1] == '/')) {
        if (*p_ == '\n') {
          ++line_;
          line_start_ = p_ + 1;
        } else if (*p_ == '\0') {
          NulInComment(p_, error);
          return;
        }
        ++p_;
      }
      if (p_ + 1 >= end_) {
        // Count the lines of the rest, then report at the comment's start.
        for (; p_ < end_; ++p_) {
          if (*p_ == '\n') {
            ++line_;
            line_start_ = p_ + 1;
          }
        }
        messages_.push_back("unterminated /* comment: no closing */ before the end of the input");
        error->kind = Tok::kError;
        error->text = messages_.back();
        error->line = start_line;
        error->col = static_cast<uint32_t>(start - start_line_begin) + 1;
        error->begin = start;
        error->end = start + 2;
        return;
      }
      p_ += 2;
    } else {
      return;
    }
  }
}

void Lexer::NulInComment(const char* nul, Token* error) {
  p_ = nul;
  *error = MakeError(nul, nul + 1, "unexpected NUL byte in a comment");
  p_ = end_;  // nothing after it is read
}

Token Lexer::MakeError(const char* begin, const char* end, std::string message) {
  Token t = Make(Tok::kError, begin, end);
  messages_.push_back(std::move(message));
  t.text = messages_.back();
  return t;
}

Token Lexer::BadByte(const char* p) {
  const char c = *p;
  const unsigned char u = static_cast<unsigned char>(c);
  p_ = p + 1;
  if (c == '\0') return MakeError(p, p_, "unexpected NUL byte");
  if (u < 0x20 || u == 0x7F) {
    return MakeError(p, p_, StrCat("unexpected control character 0x", Hex(u, 2)));
  }
  if (u >= 0x80) {
    size_t n = Utf8Length(p, end_);
    if (n == 0) {
      return MakeError(p, p_, StrCat("unexpected byte 0x", Hex(u, 2), " (not valid UTF-8 text)"));
    }
    p_ = p + n;
    return MakeError(
        p, p_,
        StrCat("unexpected non-ASCII character '", std::string_view(p, n), "' (U+",
               Hex(Utf8CodePoint(p, n), 4), "); outside strings and comments HLO text is ASCII"));
  }
  switch (c) {
    case '-':
      return MakeError(p, p_, "unexpected '-' (not part of a number or '->')");
    case '.':
      return MakeError(p, p_, "unexpected '.' (did you mean '...'?)");
    case '+':
      return MakeError(p, p_, "unexpected '+' (not part of a number)");
    case '/':
      return MakeError(p, p_, "unexpected '/' (comments start with // or /*)");
    default:
      return MakeError(p, p_, StrCat("unexpected character '", c, "'"));
  }
}

// A number's first bytes: a digit, a sign before a digit, .5, -.5 or +.5.
static bool StartsNumber(const char* p, const char* end) {
  const char c = *p;
  if (IsDigit(c)) return true;
  const bool sign = c == '-' || c == '+';
  if ((sign || c == '.') && p + 1 < end && IsDigit(p[1])) return true;
  return sign && p + 2 < end && p[1] == '.' && IsDigit(p[2]);
}

// A number's remaining bytes: digits, letters, '.', and signs (exponents,
// inf) except a '-' that starts '->'.
static const char* NumberEnd(const char* p, const char* end) {
  while (p < end) {
    const char d = *p;
    if (IsDigit(d) || IsNameStart(d) || d == '.') {
      ++p;
    } else if ((d == '-' || d == '+') && !(d == '-' && p + 1 < end && p[1] == '>')) {
      ++p;
    } else {
      break;
    }
  }
  return p;
}

// token ::= '%'? name | '-' name | number | string | punctuation
Token Lexer::Next() {
  // Tokens are mostly separated by one space or nothing.
  if (p_ < end_ && *p_ == ' ') ++p_;
  if (p_ < end_ && IsSpaceOrCommentStart(*p_)) {
    Token err;
    SkipSpaceAndComments(&err);
    if (err.kind == Tok::kError) return err;
  }
  if (p_ >= end_) return Make(Tok::kEof, p_, p_);
  const char* start = p_;
  const char c = *p_;
  Token t;
  if (c == '%' || IsNameStart(c) || (c == '-' && p_ + 1 < end_ && IsNameStart(p_[1]))) {
    // A name; -inf and -nan are names with their sign.
    p_ = NameEnd(p_ + 1, end_);
    if (c == '%' && p_ == start + 1) {
      if (p_ < end_ && !IsTokenByte(*p_)) return BadByte(p_);
      return MakeError(start, p_, "expected a name after '%'");
    }
    t = Make(Tok::kName, start, p_);
  } else if (StartsNumber(p_, end_)) {
    p_ = NumberEnd(p_ + 1, end_);
    t = Make(Tok::kNumber, start, p_);
  } else if (c == '"' || c == '\'') {
    return LexString();
  } else {
    return LexPunctuation();
  }
  // A byte that starts no token, glued to a name or number (a NUL or a
  // non-ASCII byte inside an opcode, say), is reported itself.
  if (p_ < end_ && !IsTokenByte(*p_)) return BadByte(p_);
  return t;
}

// string ::= '"' chars '"' | "'" chars "'"  (C escapes either way)
Token Lexer::LexString() {
  const char* start = p_;
  const char quote = *p_;
  const uint32_t start_line = line_;
  const char* start_line_begin = line_start_;
  ++p_;
  while (p_ < end_ && *p_ != quote) {
    if (*p_ == '\\' && p_ + 1 < end_) ++p_;
    if (*p_ == '\n') {
      ++line_;
      line_start_ = p_ + 1;
    }
    ++p_;
  }
  const bool closed = p_ < end_;
  if (closed) ++p_;
  Token t;
  t.kind = closed ? Tok::kString : Tok::kError;
  t.line = start_line;
  t.col = static_cast<uint32_t>(start - start_line_begin) + 1;
  t.begin = start;
  t.end = p_;
  if (closed) {
    t.text = std::string_view(start + 1, p_ - start - 2);
  } else {
    // Reported at the opening quote.
    messages_.push_back(quote == '"'
                            ? "unterminated string: no closing '\"' before the end of the input"
                            : "unterminated string: no closing \"'\" before the end of the "
                              "input");
    t.text = messages_.back();
    t.end = start + 1;
  }
  return t;
}

// punctuation ::= '=' | ',' | ':' | '(' | ')' | '{' | '}' | '[' | ']' | '<' | '>'
//               | '*' | '#' | '?' | '->' | '...'
Token Lexer::LexPunctuation() {
  const char* start = p_;
  const char c = *p_++;
  switch (c) {
    case '=':
      return Make(Tok::kEqual, start, p_);
    case ',':
      return Make(Tok::kComma, start, p_);
    case ':':
      return Make(Tok::kColon, start, p_);
    case '(':
      return Make(Tok::kLParen, start, p_);
    case ')':
      return Make(Tok::kRParen, start, p_);
    case '{':
      return Make(Tok::kLBrace, start, p_);
    case '}':
      return Make(Tok::kRBrace, start, p_);
    case '[':
      return Make(Tok::kLSquare, start, p_);
    case ']':
      return Make(Tok::kRSquare, start, p_);
    case '<':
      return Make(Tok::kLess, start, p_);
    case '>':
      return Make(Tok::kGreater, start, p_);
    case '*':
      return Make(Tok::kStar, start, p_);
    case '#':
      return Make(Tok::kHash, start, p_);
    case '?':
      return Make(Tok::kQuestion, start, p_);
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
  return BadByte(start);
}

void Lexer::Reset(const Token& at) {
  p_ = at.begin;
  line_ = at.line;
  line_start_ = at.begin - (at.col - 1);
}

std::string_view Lexer::ScanBalanced(const Token& open, std::string* error, const char** error_at) {
  const char* start = open.begin;
  const char* q = start;
  std::vector<const char*> openers;  // unclosed brackets, innermost last
  auto closer_of = [](char o) { return o == '{' ? '}' : o == '(' ? ')' : ']'; };
  auto fail = [&](const char* at, std::string message) {
    *error = std::move(message);
    if (error_at) *error_at = at;
    return std::string_view();
  };
  while (q < end_) {
    char c = *q;
    if (c == '"' || c == '\'') {
      const char* quote = q;
      ++q;
      while (q < end_ && *q != c) {
        if (*q == '\\' && q + 1 < end_) ++q;
        ++q;
      }
      if (q >= end_) {
        return fail(quote, c == '"' ? "unterminated string: no closing '\"' before the end of "
                                      "the input"
                                    : "unterminated string: no closing \"'\" before the end of "
                                      "the input");
      }
    } else if (c == '{' || c == '(' || c == '[') {
      openers.push_back(q);
    } else if (c == '}' || c == ')' || c == ']') {
      if (openers.empty() || closer_of(*openers.back()) != c) {
        if (openers.empty()) return fail(q, StrCat("unexpected '", c, "'"));
        uint32_t line, col;
        LocationOf(openers.back(), &line, &col);
        return fail(
            q, StrCat("expected '", closer_of(*openers.back()), "' to close the '", *openers.back(),
                      "' at line ", line, " column ", col, ", found '", c, "'"));
      }
      openers.pop_back();
      if (openers.empty()) {
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
  const char* unclosed = openers.empty() ? start : openers.back();
  return fail(unclosed, StrCat("'", *unclosed, "' is never closed: no matching '",
                               closer_of(*unclosed), "' before the end of the input"));
}

bool Lexer::Unescape(std::string_view body, std::string* out, std::string* error,
                     size_t* error_offset) {
  if (body.find('\\') == std::string_view::npos) {
    out->assign(body.data(), body.size());
    return true;
  }
  out->clear();
  out->reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      *out += c;
      continue;
    }
    const size_t at = i;
    auto fail = [&](std::string message) {
      *error = std::move(message);
      if (error_offset) *error_offset = at;
      return false;
    };
    if (++i >= body.size()) return fail("string ends in a lone backslash");
    switch (body[i]) {
      case 'n':
        *out += '\n';
        break;
      case 't':
        *out += '\t';
        break;
      case 'r':
        *out += '\r';
        break;
      case 'a':
        *out += '\a';
        break;
      case 'b':
        *out += '\b';
        break;
      case 'f':
        *out += '\f';
        break;
      case 'v':
        *out += '\v';
        break;
      case '?':
        *out += '?';
        break;
      case '\\':
        *out += '\\';
        break;
      case '"':
        *out += '"';
        break;
      case '\'':
        *out += '\'';
        break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        int v = 0, n = 0;
        while (n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7') {
          v = v * 8 + (body[i] - '0');
          ++i;
          ++n;
        }
        --i;
        if (v > 0xFF) {
          return fail(StrCat("octal escape '", body.substr(at, i + 1 - at),
                             "' does not fit in a byte (at most \\377)"));
        }
        *out += static_cast<char>(v);
        break;
      }
      case 'x': {
        int v = 0, n = 0;
        while (i + 1 < body.size() && IsHexDigit(body[i + 1])) {
          char h = body[++i];
          if (v <= 0xFF) v = v * 16 + (IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          ++n;
        }
        if (n == 0) return fail("'\\x' escape with no hex digits after it");
        if (v > 0xFF) {
          return fail(StrCat("hex escape '", body.substr(at, i + 1 - at),
                             "' does not fit in a byte (at most \\xff)"));
        }
        *out += static_cast<char>(v);
        break;
      }
      default: {
        const size_t n =
            static_cast<unsigned char>(body[i]) >= 0x80
                ? std::max<size_t>(1, Utf8Length(body.data() + i, body.data() + body.size()))
                : 1;
        return fail(StrCat("unknown escape '\\", body.substr(i, n),
                           "' in string (known: \\n \\t \\r \\a \\b \\f \\v "
                           "\\\\ \\\" \\' \\? \\NNN octal, \\xHH hex)"));
      }
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
  if (cur < line) return {};
  const char* e = p;
  while (e < end && *e != '\n') ++e;
  if (e > p && e[-1] == '\r') --e;
  return std::string_view(p, e - p);
}

void Lexer::LocationOf(const char* p, uint32_t* line, uint32_t* col) const {
  uint32_t l = first_line_;
  const char* ls = buf_.data();
  for (const char* r = buf_.data(); r < p && r < end_; ++r) {
    if (*r == '\n') {
      ++l;
      ls = r + 1;
    }
  }
  *line = l;
  *col = static_cast<uint32_t>(p - ls) + 1;
}

}  // namespace hlo
