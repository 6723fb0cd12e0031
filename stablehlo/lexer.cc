#include "stablehlo/lexer.h"

#include <charconv>

#include "ir/located_status.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"

namespace hlo::stablehlo {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) {
  return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$' || c == '.' || c == '-';
}
static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Lexer::Lexer(std::string_view text, std::string_view filename, uint32_t first_line)
    : text_(text), filename_(filename), line_(first_line) {}

void Lexer::Advance(size_t n) {
  for (size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
  }
}

void Lexer::SkipTrivia() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      size_t end = text_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? text_.size() : end;
    } else {
      break;
    }
  }
}

Pos Lexer::Here() {
  SkipTrivia();
  return Pos{line_, static_cast<uint32_t>(pos_ - line_start_ + 1), pos_};
}

bool Lexer::AtEnd() {
  SkipTrivia();
  return pos_ >= text_.size();
}

char Lexer::PeekChar() {
  SkipTrivia();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool Lexer::Eat(std::string_view punct) {
  SkipTrivia();
  if (text_.substr(pos_, punct.size()) != punct) return false;
  if (IsIdentChar(punct.back()) && pos_ + punct.size() < text_.size() &&
      IsIdentChar(text_[pos_ + punct.size()])) {
    return false;
  }
  // `-` must not eat the start of `->`.
  if (punct == "-" && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') return false;
  Advance(punct.size());
  return true;
}

absl::Status Lexer::Expect(std::string_view punct, std::string_view what_for) {
  if (Eat(punct)) return absl::OkStatus();
  std::string what = StrCat("'", punct, "'");
  if (!what_for.empty()) what = StrCat(what, " ", what_for);
  return ErrorExpected(what);
}

bool Lexer::EatIdent(std::string* out) {
  std::string_view id = EatIdentView();
  if (id.empty()) return false;
  out->assign(id);
  return true;
}

std::string_view Lexer::EatIdentView() {
  std::string_view id = PeekIdent();
  pos_ += id.size();  // an identifier holds no newline
  return id;
}

std::string_view Lexer::PeekIdent() {
  SkipTrivia();
  if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) return {};
  size_t end = pos_ + 1;
  while (end < text_.size() && IsIdentChar(text_[end]) &&
         !(text_[end] == '-' && end + 1 < text_.size() && text_[end + 1] == '>')) {
    ++end;
  }
  return text_.substr(pos_, end - pos_);
}

absl::Status Lexer::ExpectIdent(std::string* out, std::string_view what) {
  if (EatIdent(out)) return absl::OkStatus();
  return ErrorExpected(what);
}

bool Lexer::EatSigilName(char sigil, std::string* out) {
  SkipTrivia();
  if (pos_ + 1 >= text_.size() || text_[pos_] != sigil) return false;
  if (sigil == '@' && text_[pos_ + 1] == '"') {
    Advance(1);
    return EatString(out);
  }
  std::string_view name = EatSigilView(sigil);
  if (name.empty()) return false;
  out->assign(name);
  return true;
}

std::string_view Lexer::EatSigilView(char sigil) {
  SkipTrivia();
  if (pos_ + 1 >= text_.size() || text_[pos_] != sigil) return {};
  size_t end = pos_ + 1;
  while (end < text_.size() && (IsIdentChar(text_[end]) && text_[end] != '-')) ++end;
  if (end == pos_ + 1) return {};
  std::string_view name = text_.substr(pos_ + 1, end - pos_ - 1);
  pos_ = end;  // a name holds no newline
  return name;
}

bool Lexer::EatNumberText(std::string_view* out) {
  SkipTrivia();
  size_t p = pos_;
  if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) ++p;
  if (p >= text_.size() || !IsDigit(text_[p])) return false;
  if (text_.substr(p, 2) == "0x") {
    p += 2;
    while (p < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[p]))) ++p;
  } else {
    while (p < text_.size() && IsDigit(text_[p])) ++p;
    if (p + 1 < text_.size() && text_[p] == '.' && IsDigit(text_[p + 1])) {
      ++p;
      while (p < text_.size() && IsDigit(text_[p])) ++p;
    } else if (p < text_.size() && text_[p] == '.') {
      ++p;
    }
    if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
      size_t q = p + 1;
      if (q < text_.size() && (text_[q] == '-' || text_[q] == '+')) ++q;
      if (q < text_.size() && IsDigit(text_[q])) {
        p = q;
        while (p < text_.size() && IsDigit(text_[p])) ++p;
      }
    }
  }
  *out = text_.substr(pos_, p - pos_);
  Advance(p - pos_);
  return true;
}

bool Lexer::EatInt(int64_t* out) {
  SkipTrivia();
  size_t p = pos_;
  bool neg = p < text_.size() && text_[p] == '-';
  if (neg) ++p;
  if (p >= text_.size() || !IsDigit(text_[p])) return false;
  uint64_t mag = 0;
  std::from_chars_result r;
  if (text_.substr(p, 2) == "0x") {
    r = std::from_chars(text_.data() + p + 2, text_.data() + text_.size(), mag, 16);
  } else {
    r = std::from_chars(text_.data() + p, text_.data() + text_.size(), mag);
  }
  if (r.ec != std::errc()) return false;
  size_t end = r.ptr - text_.data();
  if (end < text_.size() && (text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E')) {
    return false;  // a float
  }
  if (mag > (neg ? uint64_t{1} << 63 : ~uint64_t{0})) return false;
  *out = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  Advance(end - pos_);
  return true;
}

absl::Status Lexer::ExpectInt(int64_t* out, std::string_view what) {
  if (EatInt(out)) return absl::OkStatus();
  return ErrorExpected(what);
}

bool Lexer::EatDigitsRaw(int64_t* out) {
  size_t p = pos_;
  while (p < text_.size() && IsDigit(text_[p])) ++p;
  if (p == pos_) return false;
  auto r = std::from_chars(text_.data() + pos_, text_.data() + p, *out);
  if (r.ec != std::errc()) return false;
  Advance(p - pos_);
  return true;
}

bool Lexer::EatRaw(char c) {
  if (pos_ < text_.size() && text_[pos_] == c) {
    Advance(1);
    return true;
  }
  return false;
}

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool Lexer::EatString(std::string* out) {
  SkipTrivia();
  if (pos_ >= text_.size() || text_[pos_] != '"') return false;
  std::string s;
  size_t p = pos_ + 1;
  while (p < text_.size() && text_[p] != '"') {
    char c = text_[p];
    if (c == '\n') return false;
    if (c == '\\' && p + 1 < text_.size()) {
      char e = text_[p + 1];
      if (e == 'n') {
        s.push_back('\n');
      } else if (e == 't') {
        s.push_back('\t');
      } else if (e == '"' || e == '\\') {
        s.push_back(e);
      } else if (p + 2 < text_.size() && HexValue(e) >= 0 && HexValue(text_[p + 2]) >= 0) {
        s.push_back(static_cast<char>(HexValue(e) * 16 + HexValue(text_[p + 2])));
        ++p;
      } else {
        return false;
      }
      p += 2;
      continue;
    }
    s.push_back(c);
    ++p;
  }
  if (p >= text_.size()) return false;
  *out = std::move(s);
  Advance(p + 1 - pos_);
  return true;
}

absl::Status Lexer::SkipBalanced(std::string_view* out) {
  Pos start = Here();
  std::string stack;
  size_t p = pos_;
  auto closer = [](char c) { return c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}'; };
  do {
    if (p >= text_.size()) {
      Advance(p - pos_);
      return Error(start, "unbalanced brackets: the text ends inside this group");
    }
    char c = text_[p];
    if (c == '"') {
      ++p;
      while (p < text_.size() && text_[p] != '"') p += text_[p] == '\\' ? 2 : 1;
    } else if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (stack.size() > 10000) return Error(start, "brackets nested too deeply");
      stack.push_back(closer(c));
    } else if (c == '-' && p + 1 < text_.size() && text_[p + 1] == '>') {
      ++p;  // `->` is no closing bracket
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (stack.empty() || stack.back() != c) {
        Advance(p - pos_);
        return ErrorHere(StrCat("unbalanced '", std::string(1, c), "'"));
      }
      stack.pop_back();
    }
    ++p;
  } while (!stack.empty());
  *out = text_.substr(pos_, p - pos_);
  Advance(p - pos_);
  return absl::OkStatus();
}

absl::Status Lexer::Error(Pos pos, std::string_view message) const {
  size_t start = pos.offset;
  while (start > 0 && text_[start - 1] != '\n') --start;
  size_t end = text_.find('\n', pos.offset);
  if (end == std::string_view::npos) end = text_.size();
  return MarkLocated(absl::InvalidArgumentError(
      FormatDiagnostic(filename_, pos.line, pos.col, message, text_.substr(start, end - start))));
}

absl::Status Lexer::ErrorHere(std::string_view message) { return Error(Here(), message); }

std::string Lexer::Describe() {
  SkipTrivia();
  if (pos_ >= text_.size()) return "the end of the text";
  std::string_view rest = text_.substr(pos_);
  size_t n = 1;
  if (IsIdentStart(rest[0]) || rest[0] == '%' || rest[0] == '@' || rest[0] == '#' ||
      rest[0] == '^' || rest[0] == '!') {
    while (n < rest.size() && IsIdentChar(rest[n]) && n < 40) ++n;
  } else if (IsDigit(rest[0]) || rest[0] == '-') {
    while (n < rest.size() && (IsIdentChar(rest[n])) && n < 40) ++n;
  }
  return StrCat("'", rest.substr(0, n), "'");
}

absl::Status Lexer::ErrorExpected(std::string_view what) {
  return ErrorHere(StrCat("expected ", what, ", found ", Describe()));
}

}  // namespace hlo::stablehlo
