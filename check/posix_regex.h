// FileCheck's regexes are POSIX extended regexes read by LLVM's regcomp;
// hlo-check matches with RE2. TranslatePosixRegex reads a regex by regcomp's
// grammar (and rejects what regcomp rejects, with its messages) and writes
// the same regex in RE2's syntax:
//   * `{` is a bound only when a digit follows (`x{2,3}`, counts <= 255);
//     otherwise it is a literal brace, as are `}` and a lone `]`;
//   * inside brackets a backslash is literal; `[:alpha:]` classes, `[.c.]`
//     and `[=c=]` are read;
//   * `\c` is the literal c, except the Perl classes \d \D \s \S \w \W
//     (kept as RE2's, hlo-check's documented extension);
//   * an empty regex or alternative, a repetition with nothing to repeat or
//     after another one, unbalanced parentheses or brackets are errors.
// Parentheses nest at most kMaxRegexNesting deep (RE2 has a limit of its
// own) and hold at most kMaxRegexGroups groups; more is an error rather than
// a crash or a crawl.
#ifndef HLO_CHECK_POSIX_REGEX_H_
#define HLO_CHECK_POSIX_REGEX_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hlo::check {

inline constexpr int kMaxRegexNesting = 500;
// At most this many capturing groups in one regex: RE2's cost per input byte
// grows with them (30,000 groups took 50 s on a 30 KB line).
inline constexpr int kMaxRegexGroups = 1000;

struct TranslatedRegex {
  std::string re2;  // the same regex in RE2 syntax
  int groups = 0;   // capturing groups (numbered as POSIX numbers them)
};

// The error's message is regcomp's (e.g. "empty (sub)expression").
absl::StatusOr<TranslatedRegex> TranslatePosixRegex(std::string_view regex);

// LLVM's Regex::escape: a backslash before each of ()^$|*+?.[]\{}.
std::string EscapePosix(std::string_view text);

}  // namespace hlo::check

#endif  // HLO_CHECK_POSIX_REGEX_H_
