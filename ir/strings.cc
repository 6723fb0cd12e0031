#include "ir/strings.h"

#include <cstdio>

namespace hlo {
namespace strings_internal {

void AppendPiece(std::string& out, double v) {
  char buf[32];
  int n = std::snprintf(buf, sizeof(buf), "%g", v);
  out.append(buf, n);
}

}  // namespace strings_internal

std::vector<std::string_view> StrSplit(std::string_view text, char sep, bool skip_empty) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = text.find(sep, start);
    std::string_view piece = text.substr(start, p == std::string_view::npos ? p : p - start);
    if (!(skip_empty && piece.empty())) out.push_back(piece);
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::string_view StripWhitespace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                           text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool ParseInt64(std::string_view text, int64_t* out) {
  // One optional sign: from_chars reads a '-' itself, so after a '+' no
  // second sign may follow ("+-0" is no number).
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '-') return false;
  }
  if (text.empty()) return false;
  auto r = std::from_chars(text.data(), text.data() + text.size(), *out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

bool ParseDouble(std::string_view text, double* out) {
  // One optional sign: from_chars reads a '-' itself, so after a '+' no
  // second sign may follow ("+-0" is no number).
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '-') return false;
  }
  if (text.empty()) return false;
  auto r = std::from_chars(text.data(), text.data() + text.size(), *out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace hlo
