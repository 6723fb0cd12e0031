// A named text buffer (a check file or an input) with line lookup, and
// FileCheck's canonical form of text: CR-LF line ends become LF and, unless
// whitespace is strict, every run of blanks (spaces, tabs) becomes one space.
#ifndef HLO_CHECK_SOURCE_TEXT_H_
#define HLO_CHECK_SOURCE_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hlo::check {

std::string CanonicalizeText(std::string_view text, bool strict_whitespace);

class SourceText {
 public:
  SourceText(std::string name, std::string text);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }
  // 1-based line and column of a byte offset (offsets past the end count as
  // the end).
  int LineOf(size_t offset) const;
  int ColumnOf(size_t offset) const;
  size_t LineStart(int line) const;
  // The line's text without its line end; lines past the end are empty.
  std::string_view Line(int line) const;
  int line_count() const { return static_cast<int>(line_starts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

// `text` without leading (and trailing) spaces, tabs and line ends.
std::string_view TrimLeading(std::string_view text);
std::string_view Trim(std::string_view text);

// The lines of `text` split at '\n' (a text ending in '\n' ends with an
// empty piece, as absl::StrSplit gives).
std::vector<std::string_view> SplitLines(std::string_view text);
// Removes `prefix` from the front of `*text` if it is there.
bool ConsumePrefix(std::string_view* text, std::string_view prefix);

// Newlines (\n, \r, and a \r\n or \n\r pair counted once) in `text`, as
// FileCheck counts them between two matches.
int CountNewlines(std::string_view text);

}  // namespace hlo::check

#endif  // HLO_CHECK_SOURCE_TEXT_H_
