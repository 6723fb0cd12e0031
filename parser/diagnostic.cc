#include "parser/diagnostic.h"

#include <algorithm>
#include <vector>

#include "ir/located_status.h"
#include "ir/strings.h"

namespace hlo {

namespace {

// Length of the valid UTF-8 sequence at text[i] (0 when it is not one).
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  size_t n = c >= 0xC2 && c <= 0xDF   ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
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

std::string_view SourceLineAt(std::string_view text, uint32_t line) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) return {};
    ++pos;
  }
  std::string_view s = text.substr(pos);
  s = s.substr(0, s.find('\n'));
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

absl::Status InstructionError(const Module& module, const Instruction& inst,
                              std::string_view message) {
  const std::string file = module.source_name().empty() ? "<module>" : module.source_name();
  const std::string text = StrCat("%", inst.name(), ": ", message);
  if (inst.loc().line == 0) {
    return MarkLocated(absl::InvalidArgumentError(StrCat(file, ": error: ", text)));
  }
  std::string_view src;
  if (module.source_text()) src = SourceLineAt(*module.source_text(), inst.loc().line);
  return MarkLocated(absl::InvalidArgumentError(
      FormatDiagnostic(file, inst.loc().line, inst.loc().col, text, src)));
}

std::string FormatDiagnostic(std::string_view filename, uint32_t line, uint32_t col,
                             std::string_view message, std::string_view source_line) {
  std::string out = StrCat(filename, ":", line, ":", col, ": error: ", OneLine(message), "\n");
  // The source line as one glyph per character: valid UTF-8 is kept, control
  // characters and bytes that are not UTF-8 show as U+FFFD, so the caret
  // (which counts glyphs, tabs kept) lines up in a terminal.
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  // The glyph at byte i and its length in bytes.
  auto glyph_at = [&](size_t i, size_t* len) -> std::string_view {
    unsigned char c = static_cast<unsigned char>(source_line[i]);
    if (c == '\t' || (c >= 0x20 && c < 0x7F)) {
      *len = 1;
      return source_line.substr(i, 1);
    }
    if (size_t n = c >= 0x80 ? Utf8SequenceLength(source_line, i) : 0; n > 0) {
      *len = n;
      return source_line.substr(i, n);
    }
    *len = 1;
    return kReplacement;
  };
  // First pass: the number of glyphs and the glyph index of the column.
  size_t count = 0, caret = 0;
  bool caret_set = false;
  for (size_t i = 0, len = 0; i < source_line.size(); i += len, ++count) {
    if (!caret_set && i + 1 >= col) {
      caret = count;
      caret_set = true;
    }
    glyph_at(i, &len);
  }
  if (!caret_set) caret = count;
  // Long lines (generated or minified text) show a window around the caret.
  constexpr size_t kWidth = 120;
  size_t first = 0, last = count;
  if (count > kWidth) {
    first = caret > kWidth / 2 ? caret - kWidth / 2 : 0;
    last = std::min(count, first + kWidth);
    if (last - first < kWidth) first = last > kWidth ? last - kWidth : 0;
  }
  // Second pass: the glyphs of the window, and the caret's indentation.
  std::string shown, marks;
  if (first > 0) {
    shown += "...";
    marks += "   ";
  }
  size_t g = 0;
  for (size_t i = 0, len = 0; i < source_line.size() && g < last; i += len, ++g) {
    std::string_view glyph = glyph_at(i, &len);
    if (g < first) continue;
    shown += glyph;
    if (g < caret) marks += glyph == "\t" ? '\t' : ' ';
  }
  if (last < count) shown += "...";
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
