#include "parser/diagnostic.h"

#include <algorithm>

#include "ir/strings.h"

namespace hlo {

std::string FormatDiagnostic(std::string_view filename, uint32_t line,
                             uint32_t col, std::string_view message,
                             std::string_view source_line) {
  std::string out = StrCat(filename, ":", line, ":", col,
                                 ": error: ", message, "\n");
  // Tabs are kept in the caret line so the caret lines up.
  std::string caret;
  for (uint32_t i = 1; i < col && i <= source_line.size(); ++i) {
    caret += source_line[i - 1] == '\t' ? '\t' : ' ';
  }
  StrAppend(&out, source_line, "\n", caret, "^");
  return out;
}

namespace {
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string_view ClosestMatch(std::string_view word,
                              const std::vector<std::string_view>& candidates) {
  std::string_view best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (std::string_view c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace hlo
