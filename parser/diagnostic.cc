#include "parser/diagnostic.h"

#include <algorithm>
#include <vector>

#include "ir/strings.h"

namespace hlo {

namespace {

// Length of the valid UTF-8 sequence at text[i] (0 when it is not one).
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  }
  // Overlong and surrogate forms.
  unsigned char d = static_cast<unsigned char>(text[i + 1]);
  if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) || (c == 0xF0 && d < 0x90) ||
      (c == 0xF4 && d > 0x8F)) {
    return 0;
  }
  return n;
}

// The message on one line: newlines, control characters and bytes that are
// not UTF-8 (from the text it quotes) are escaped.
std::string OneLine(std::string_view message) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(message.size());
  for (size_t i = 0; i < message.size();) {
    unsigned char c = static_cast<unsigned char>(message[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      StrAppend(&out, "\\x", kHex[c >> 4], kHex[c & 15]);
    } else if (c >= 0x80) {
      size_t n = Utf8SequenceLength(message, i);
      if (n == 0) {
        StrAppend(&out, "\\x", kHex[c >> 4], kHex[c & 15]);
      } else {
        out.append(message.substr(i, n));
        i += n;
        continue;
      }
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string FormatDiagnostic(std::string_view filename, uint32_t line,
                             uint32_t col, std::string_view message,
                             std::string_view source_line) {
  std::string out =
      StrCat(filename, ":", line, ":", col, ": error: ", OneLine(message), "\n");
  // The source line as one glyph per character: valid UTF-8 is kept, control
  // characters and bytes that are not UTF-8 show as U+FFFD, so the caret
  // (which counts glyphs, tabs kept) lines up in a terminal.
  std::vector<std::string_view> glyphs;
  size_t caret = 0;  // glyph index of the column
  bool caret_set = false;
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  for (size_t i = 0; i < source_line.size();) {
    if (!caret_set && i + 1 >= col) {
      caret = glyphs.size();
      caret_set = true;
    }
    unsigned char c = static_cast<unsigned char>(source_line[i]);
    if (c == '\t' || (c >= 0x20 && c < 0x7F)) {
      glyphs.push_back(source_line.substr(i, 1));
      ++i;
    } else if (size_t n = c >= 0x80 ? Utf8SequenceLength(source_line, i) : 0; n > 0) {
      glyphs.push_back(source_line.substr(i, n));
      i += n;
    } else {
      glyphs.push_back(kReplacement);
      ++i;
    }
  }
  if (!caret_set) caret = glyphs.size();
  // Long lines (generated or minified text) show a window around the caret.
  constexpr size_t kWidth = 120;
  size_t first = 0, last = glyphs.size();
  if (glyphs.size() > kWidth) {
    first = caret > kWidth / 2 ? caret - kWidth / 2 : 0;
    last = std::min(glyphs.size(), first + kWidth);
    if (last - first < kWidth) first = last > kWidth ? last - kWidth : 0;
  }
  std::string shown, marks;
  if (first > 0) {
    shown += "...";
    marks += "   ";
  }
  for (size_t g = first; g < last; ++g) {
    shown += glyphs[g];
    if (g < caret) marks += glyphs[g] == "\t" ? '\t' : ' ';
  }
  if (last < glyphs.size()) shown += "...";
  StrAppend(&out, shown, "\n", marks, "^");
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
  // Suggestions are for typos in names of ordinary length; this also keeps
  // the quadratic edit distance cheap.
  if (word.size() > 64) return best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (std::string_view c : candidates) {
    size_t diff = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (diff >= best_d) continue;
    size_t d = EditDistance(word, c);
    // Ties go to the alphabetically first, so the choice does not depend on
    // the order of the candidates (often a hash map's).
    if (d < best_d || (d == best_d && !best.empty() && c < best)) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace hlo
