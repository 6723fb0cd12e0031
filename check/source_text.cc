#include "check/source_text.h"

#include <algorithm>

namespace hlo::check {

std::string CanonicalizeText(std::string_view text, bool strict_whitespace) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    if (strict_whitespace || (c != ' ' && c != '\t')) {
      out.push_back(c);
      continue;
    }
    out.push_back(' ');
    while (i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\t')) ++i;
  }
  return out;
}

SourceText::SourceText(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

int SourceText::LineOf(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<int>(it - line_starts_.begin());
}

int SourceText::ColumnOf(size_t offset) const {
  offset = std::min(offset, text_.size());
  return static_cast<int>(offset - LineStart(LineOf(offset))) + 1;
}

size_t SourceText::LineStart(int line) const {
  if (line < 1) return 0;
  if (line > line_count()) return text_.size();
  return line_starts_[line - 1];
}

std::string_view SourceText::Line(int line) const {
  if (line < 1 || line > line_count()) return {};
  size_t start = LineStart(line);
  size_t end = text_.find('\n', start);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_);
  std::string_view result = view.substr(start, end - start);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

std::string_view TrimLeading(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n\v\f");
  return start == std::string_view::npos ? std::string_view() : text.substr(start);
}

std::string_view Trim(std::string_view text) {
  text = TrimLeading(text);
  size_t end = text.find_last_not_of(" \t\r\n\v\f");
  return end == std::string_view::npos ? std::string_view() : text.substr(0, end + 1);
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (true) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      return lines;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

bool ConsumePrefix(std::string_view* text, std::string_view prefix) {
  if (!text->starts_with(prefix)) return false;
  text->remove_prefix(prefix.size());
  return true;
}

int CountNewlines(std::string_view text) {
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\n' && c != '\r') continue;
    ++count;
    // A \r\n or \n\r pair is one line end.
    if (i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r') && text[i + 1] != c) {
      ++i;
    }
  }
  return count;
}

}  // namespace hlo::check
