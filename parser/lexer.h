// The HLO text lexer: turns a buffer into tokens on demand, tracking lines
// and columns. Tokens are views into the buffer; nothing is allocated.
#ifndef HLO_PARSER_LEXER_H_
#define HLO_PARSER_LEXER_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace hlo {

enum class Tok : uint8_t {
  kEof,
  kError,   // a malformed token; text holds the message
  kName,    // identifier or %name: add.1, %p, f32, ENTRY, b01f_01io
  kNumber,  // anything starting with a digit or -digit: 12, -1.5e3, 1_1x2_2
  kString,  // "..." (text is the raw body, escapes not yet decoded)
  kEqual,
  kComma,
  kColon,
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLSquare,
  kRSquare,
  kLess,
  kGreater,
  kArrow,
  kStar,
  kHash,
  kQuestion,
  kElided,  // ...
};

struct Token {
  Tok kind = Tok::kEof;
  std::string_view text;
  uint32_t line = 1;
  uint32_t col = 1;
  const char* begin = nullptr;  // position in the buffer
  const char* end = nullptr;    // one past the token's last byte
};

std::string_view TokName(Tok kind);

class Lexer {
 public:
  // `first_line` is the line number of buf's first line (for files split at
  // `// -----`).
  explicit Lexer(std::string_view buf, uint32_t first_line = 1);

  Token Next();
  // Re-positions at a token's start (for backtracking one token).
  void Reset(const Token& at);
  // Scans a balanced {...}, (...) or [...] region starting at `open` (a token
  // just returned), honouring strings; returns the text including the
  // brackets, or an empty view (and sets `error`, and `error_at` to the byte
  // the error is about when given) when the brackets do not match.
  std::string_view ScanBalanced(const Token& open, std::string* error,
                                const char** error_at = nullptr);
  // Moves to `p` (on the current line) and returns the next token from there.
  void SkipTo(const char* p) { p_ = p; }
  const char* position() const { return p_; }
  // Decodes the C escapes of a string token's body. On an error,
  // `error_offset` (when given) is the offset of the bad escape in `body`.
  static bool Unescape(std::string_view body, std::string* out, std::string* error,
                       size_t* error_offset = nullptr);

  std::string_view buffer() const { return buf_; }
  uint32_t first_line() const { return first_line_; }
  // The full text of a 1-based line (without newline).
  std::string_view LineText(uint32_t line) const;
  // Line and column of the lexer's position (just after the last token).
  void CurrentLocation(uint32_t* line, uint32_t* col) const {
    *line = line_;
    *col = static_cast<uint32_t>(p_ - line_start_) + 1;
  }
  // Line and column of a position in the buffer.
  void LocationOf(const char* p, uint32_t* line, uint32_t* col) const;

 private:
  void SkipSpaceAndComments(Token* error);
  // Sets *error to the NUL byte at `nul` inside a comment; lexing stops there.
  void NulInComment(const char* nul, Token* error);
  Token Make(Tok kind, const char* begin, const char* end);
  // An error token at [begin, end) whose text is `message` (kept alive by the
  // lexer).
  Token MakeError(const char* begin, const char* end, std::string message);
  // An error token for the byte(s) at `p`, which start no token.
  Token BadByte(const char* p);
  // The token at p_, past its first byte's test in Next().
  Token LexString();
  Token LexPunctuation();

  std::string_view buf_;
  const char* p_;
  const char* end_;
  const char* line_start_;
  uint32_t line_;
  uint32_t first_line_;
  std::deque<std::string> messages_;  // texts of error tokens
};

}  // namespace hlo

#endif  // HLO_PARSER_LEXER_H_
