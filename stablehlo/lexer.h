// The character-level reader of MLIR text: whitespace and `//` comments,
// punctuation, identifiers, SSA names (`%x`, `%x#1`), symbols (`@f`),
// numbers and strings, with the line and column of every place read.
//
// MLIR's grammar is context-sensitive at the token level (`3x3xf32` inside
// `tensor<>`, `[b, 0, 1, f]x[0, 1, i, o]`, `[0:8]`), so the parsers ask the
// lexer for the token they expect next rather than reading a token stream.
#ifndef HLO_STABLEHLO_LEXER_H_
#define HLO_STABLEHLO_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace hlo::stablehlo {

// A place in the text (1-based line and column) and its byte offset.
struct Pos {
  uint32_t line = 1;
  uint32_t col = 1;
  size_t offset = 0;
};

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view filename, uint32_t first_line = 1);

  // Skips whitespace and `//` comments; the place of what follows.
  Pos Here();
  bool AtEnd();
  // The next character after trivia ('\0' at the end).
  char PeekChar();
  // Consumes `punct` (after trivia) when it comes next. A word-like `punct`
  // (`cond`, `x`) matches only when no identifier character follows.
  bool Eat(std::string_view punct);
  absl::Status Expect(std::string_view punct, std::string_view what_for = "");
  // A bare identifier: [A-Za-z_][A-Za-z0-9_$.-]* (dialect op names, keywords).
  bool EatIdent(std::string* out);
  absl::Status ExpectIdent(std::string* out, std::string_view what);
  // The identifier that comes next without consuming it (empty when none).
  std::string_view PeekIdent();
  // EatIdent's identifier as a view of the text (empty when none).
  std::string_view EatIdentView();
  // EatSigilName's name as a view of the text, not for a quoted @"name"
  // (empty when none).
  std::string_view EatSigilView(char sigil);
  // `%name` (without `#N`), `@name` or `@"name"`, `^name`: the name after the sigil.
  bool EatSigilName(char sigil, std::string* out);
  // An integer, with an optional leading '-'; hexadecimal `0x..` too.
  bool EatInt(int64_t* out);
  absl::Status ExpectInt(int64_t* out, std::string_view what);
  // The text of a number (integer or float, signed), unparsed.
  bool EatNumberText(std::string_view* out);
  // A string literal with MLIR escapes (`\"`, `\\`, `\n`, `\t`, `\XX`).
  bool EatString(std::string* out);
  // Digits directly at the cursor, without skipping trivia (`3x4xf32`).
  bool EatDigitsRaw(int64_t* out);
  bool EatRaw(char c);
  // Skips a balanced `<...>`, `(...)`, `[...]`, `{...}` group (strings
  // respected) starting at the cursor; returns its text.
  absl::Status SkipBalanced(std::string_view* out);

  // `FILE:LINE:COL: error: message` with the source line and a caret, as a
  // located status.
  absl::Status Error(Pos pos, std::string_view message) const;
  absl::Status ErrorHere(std::string_view message);
  // "expected X, found Y" at the cursor.
  absl::Status ErrorExpected(std::string_view what);
  // A short description of what comes next, for messages.
  std::string Describe();

  std::string_view text() const { return text_; }
  std::string_view filename() const { return filename_; }
  // Saving and restoring the cursor, for a little lookahead.
  struct Mark {
    size_t pos;
    uint32_t line;
    size_t line_start;
  };
  Mark Save() const { return {pos_, line_, line_start_}; }
  void Restore(const Mark& m) {
    pos_ = m.pos;
    line_ = m.line;
    line_start_ = m.line_start;
  }
  size_t offset() const { return pos_; }

 private:
  void SkipTrivia();
  void Advance(size_t n);

  std::string_view text_;
  std::string_view filename_;  // the caller keeps it alive
  size_t pos_ = 0;
  uint32_t line_;
  size_t line_start_ = 0;
};

bool IsIdentStart(char c);
bool IsIdentChar(char c);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_LEXER_H_
