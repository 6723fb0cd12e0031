// One FileCheck pattern: the text after `CHECK:` compiled to RE2.
//
// pattern  ::= (literal | '{{' regex '}}' | '[[' block ']]')*
// block    ::= NAME ':' regex            string variable definition
//            | NAME                      string variable use
//            | '#' [fmt ','] [NAME ':'] [expr]   numeric definition / use
//            | '@LINE' [('+'|'-') N]     the check line (legacy form)
// Literal text matches itself; a pattern with no `{{` or `[[` is a fixed
// string (found with a plain search). As in FileCheck, a `{{` regex ends at
// the first `}}`, and a `[[[` starts with a literal `[`. Regexes are POSIX
// EREs (check/posix_regex.h), run on RE2 leftmost-longest, never across a
// line end.
#ifndef HLO_CHECK_PATTERN_H_
#define HLO_CHECK_PATTERN_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "check/variables.h"
#include "re2/re2.h"

namespace hlo::check {

enum class CheckKind { kPlain, kNext, kSame, kNot, kDag, kLabel, kEmpty, kEof };

// The variable names FileCheck has seen so far in the check file (and on
// the command line): a name is a string variable or a numeric one, never
// both. As in FileCheck, a numeric use of an unknown name makes it numeric
// (unsigned); a numeric variable keeps the format it was first given, and
// the line of its first definition (0: none) forbids uses on that line.
struct VariableNames {
  struct Numeric {
    NumericFormat format;
    int line = 0;
  };
  absl::flat_hash_set<std::string> strings;
  absl::flat_hash_map<std::string, Numeric> numerics;
};

struct PatternOptions {
  bool match_full_lines = false;
  bool strict_whitespace = false;
  bool literal = false;  // CHECK{LITERAL}: no {{ }} or [[ ]] blocks
  bool ignore_case = false;
  VariableNames* names = nullptr;  // the file's names so far (null: this pattern's only)
  std::string_view prefix;         // the directive's, for messages (empty: implicit)
};

struct PatternMatch {
  size_t position = 0;
  size_t length = 0;
  // Substituted variables (name, value), for the notes of a failure.
  std::vector<std::pair<std::string, std::string>> substitutions;
  // Variables this match defined: name, offset in the buffer, length (-v).
  struct Capture {
    std::string name;
    size_t position = 0;
    size_t length = 0;
  };
  std::vector<Capture> captures;
};

class Pattern {
 public:
  Pattern();
  ~Pattern();
  Pattern(Pattern&&) noexcept;
  Pattern& operator=(Pattern&&) noexcept;

  // Parses the text after a directive; `line` is the check line (@LINE).
  // A malformed pattern is a PatternError (check/check_status.h): where in
  // `text`, and the exit status FileCheck gives it.
  static absl::StatusOr<Pattern> Parse(std::string_view text, CheckKind kind, int line,
                                       const PatternOptions& options);
  // The end-of-input pattern that carries trailing CHECK-NOT/-DAG lines.
  static Pattern EndOfInput(int line);

  // Finds the first match in `buffer` (leftmost, then longest): true and the
  // match (its variables defined), false when there is none (`match` keeps
  // the substitutions, for the notes), or an error that says why (an
  // undefined variable, an overflow, a captured number out of range, a
  // substituted regex that does not compile, a backreference search that
  // gave up).
  absl::StatusOr<bool> Match(std::string_view buffer, VariableTable& variables,
                             PatternMatch* match) const;

  CheckKind kind() const { return kind_; }
  int line() const { return line_; }
  // FileCheck's hasVariable (not allowed in labels): the pattern defines a
  // string variable or substitutes something.
  bool HasVariables() const;
  // The text FileCheck compares with the input when it looks for a near
  // miss: the fixed string, or the regex as FileCheck builds it.
  const std::string& example() const { return example_; }

 private:
  struct Piece;
  struct Built;
  // The regex for RE2. `values` (indexed by piece) fixes the definitions a
  // backreference uses; `relaxed` turns each backreference into a capture
  // of the definition's regex.
  // Errors: the substitutions that failed, one per line.
  absl::StatusOr<Built> BuildRegex(const VariableTable& variables,
                                   const std::vector<std::string>* values, bool relaxed,
                                   PatternMatch* match) const;
  absl::StatusOr<bool> MatchRegex(std::string_view buffer, VariableTable& variables,
                                  PatternMatch* match) const;
  absl::StatusOr<bool> MatchWithBackreferences(std::string_view buffer, VariableTable& variables,
                                               PatternMatch* match) const;
  struct ExactSearch;  // check/backreference.cc
  // The match at [position, position + length): its variables defined from
  // `groups` (numbered by `group_of`). True, or the error defining them.
  absl::StatusOr<bool> Matched(std::string_view buffer, const std::vector<re2::StringPiece>& groups,
                               const std::vector<int>& group_of, size_t position, size_t length,
                               VariableTable& variables, PatternMatch* match) const;
  // PatternErrors at offsets into the pattern's text.
  absl::Status ParsePieces(std::string_view text, VariableNames* names);
  absl::Status ParseBlock(std::string_view block, size_t offset, VariableNames* names);
  absl::Status ParseNumericBlock(std::string_view block, size_t offset, VariableNames* names);
  absl::Status DefineVariables(std::string_view buffer, const std::vector<re2::StringPiece>& groups,
                               const std::vector<int>& group_of, VariableTable& variables,
                               PatternMatch* match) const;
  std::unique_ptr<re2::RE2> Compile(const std::string& regex) const;

  CheckKind kind_ = CheckKind::kPlain;
  int line_ = 0;
  bool full_lines_ = false;
  bool strict_whitespace_ = false;
  std::string fixed_;  // fixed-string pattern
  bool is_fixed_ = false;
  std::vector<Piece> pieces_;  // regex pattern
  bool ignore_case_ = false;
  int paren_ = 1;  // FileCheck's capture numbering (CurParen)
  bool has_backreferences_ = false;
  std::unique_ptr<re2::RE2> compiled_;  // when nothing is substituted
  std::vector<int> compiled_groups_;    // its capture group of each piece
  std::string example_;
};

// Compiles `regex` with hlo-check's options (multi-line, leftmost-longest, no
// match across line ends, Latin-1 bytes).
std::unique_ptr<re2::RE2> CompileCheckRegex(const std::string& regex, bool ignore_case = false);

}  // namespace hlo::check

#endif  // HLO_CHECK_PATTERN_H_
