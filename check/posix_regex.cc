#include "check/posix_regex.h"

#include <cctype>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace hlo::check {

namespace {

// regerror's messages for the codes regcomp returns.
constexpr const char* kEmpty = "empty (sub)expression";
constexpr const char* kBadRepeat = "repetition-operator operand invalid";
constexpr const char* kBraces = "braces not balanced";
constexpr const char* kBadBound = "invalid repetition count(s)";
constexpr const char* kParens = "parentheses not balanced";
constexpr const char* kBrackets = "brackets ([ ]) not balanced";
constexpr const char* kEscape = "trailing backslash (\\)";
constexpr const char* kBackref = "invalid backreference number";
constexpr const char* kClass = "invalid character class";
constexpr const char* kCollate = "invalid collating element";
constexpr const char* kRange = "invalid character range";
constexpr int kMaxBound = 255;  // regcomp's DUPMAX

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string Byte(unsigned char c) {
  if (std::isalnum(c)) return std::string(1, static_cast<char>(c));
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "\\x{%02x}", c);
  return buffer;
}

// A recursive-descent reader after regcomp.c's p_ere / p_ere_exp / p_bracket.
class Translator {
 public:
  explicit Translator(std::string_view text) : text_(text) {}

  absl::StatusOr<TranslatedRegex> Run() {
    Alternation('\0', 0);
    if (error_ == nullptr && More()) error_ = kParens;  // a ')' with no '('
    if (error_ != nullptr) return absl::InvalidArgumentError(error_);
    return TranslatedRegex{std::move(out_), groups_};
  }

 private:
  bool More() const { return pos_ < text_.size(); }
  bool More2() const { return pos_ + 1 < text_.size(); }
  char Peek() const { return More() ? text_[pos_] : '\0'; }
  char Peek2() const { return More2() ? text_[pos_ + 1] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c || !More()) return false;
    ++pos_;
    return true;
  }
  bool EatTwo(char a, char b) {
    if (!More2() || text_[pos_] != a || text_[pos_ + 1] != b) return false;
    pos_ += 2;
    return true;
  }
  void Fail(const char* message) {
    if (error_ == nullptr) error_ = message;
    pos_ = text_.size();
  }

  // p_ere: alternatives up to `stop` (not consumed).
  void Alternation(char stop, int depth) {
    while (error_ == nullptr) {
      size_t atoms = 0;
      while (error_ == nullptr && More() && Peek() != '|' && !(stop != '\0' && Peek() == stop)) {
        Expression(depth);
        ++atoms;
      }
      if (error_ != nullptr) return;
      if (atoms == 0) return Fail(kEmpty);
      if (!Eat('|')) return;
      out_ += '|';
    }
  }

  // p_ere_exp: one atom and its repetition.
  void Expression(int depth) {
    char c = text_[pos_++];
    bool was_caret = false;
    switch (c) {
      case '(':
        if (!More()) return Fail(kParens);
        if (depth + 1 > kMaxRegexNesting) {
          if (error_ == nullptr) {
            nesting_error_ =
                absl::StrCat("parentheses nest deeper than ", kMaxRegexNesting, " levels");
            error_ = nesting_error_.c_str();
          }
          pos_ = text_.size();
          return;
        }
        if (++groups_ > kMaxRegexGroups) {
          if (error_ == nullptr) {
            nesting_error_ = absl::StrCat("more than ", kMaxRegexGroups, " capturing groups");
            error_ = nesting_error_.c_str();
          }
          pos_ = text_.size();
          return;
        }
        out_ += '(';
        if (Peek() != ')') Alternation(')', depth + 1);
        if (error_ != nullptr) return;
        if (!Eat(')')) return Fail(kParens);
        out_ += ')';
        break;
      case ')':
        return Fail(kParens);
      case '^':
        out_ += '^';
        was_caret = true;
        break;
      case '$':
        out_ += '$';
        break;
      case '|':
        return Fail(kEmpty);
      case '*':
      case '+':
      case '?':
        return Fail(kBadRepeat);
      case '.':
        out_ += '.';
        break;
      case '[':
        Bracket();
        break;
      case '\\':
        if (!More()) return Fail(kEscape);
        c = text_[pos_++];
        if (c >= '1' && c <= '9') return Fail(kBackref);
        if (std::string_view("dDsSwW").find(c) != std::string_view::npos) {
          out_ += '\\';
          out_ += c;
        } else {
          out_ += Byte(static_cast<unsigned char>(c));
        }
        break;
      case '{':
        if (More() && IsDigit(Peek())) return Fail(kBadRepeat);
        out_ += Byte('{');
        break;
      default:
        out_ += Byte(static_cast<unsigned char>(c));
        break;
    }
    if (error_ != nullptr || !Repeats()) return;
    c = text_[pos_++];
    if (was_caret) return Fail(kBadRepeat);
    if (c == '{') {
      Bound();
    } else {
      out_ += c;
    }
    if (error_ == nullptr && Repeats()) Fail(kBadRepeat);
  }

  bool Repeats() const {
    if (!More()) return false;
    char c = Peek();
    return c == '*' || c == '+' || c == '?' || (c == '{' && More2() && IsDigit(Peek2()));
  }

  int Count() {
    int count = 0, digits = 0;
    while (More() && IsDigit(Peek()) && count <= kMaxBound) {
      count = count * 10 + (text_[pos_++] - '0');
      ++digits;
    }
    if (digits == 0 || count > kMaxBound) Fail(kBadBound);
    return count;
  }

  // After `{`: count[,[count]]}.
  void Bound() {
    int low = Count();
    if (error_ != nullptr) return;
    std::string bound = absl::StrCat("{", low);
    if (Eat(',')) {
      bound += ',';
      if (IsDigit(Peek())) {
        int high = Count();
        if (error_ != nullptr) return;
        if (low > high) return Fail(kBadBound);
        absl::StrAppend(&bound, high);
      }
    }
    if (!Eat('}')) {
      while (More() && Peek() != '}') ++pos_;
      return Fail(More() ? kBadBound : kBraces);
    }
    out_ += bound + "}";
  }

  // p_bracket, after `[`.
  void Bracket() {
    if (text_.substr(pos_).starts_with("[:<:]]") || text_.substr(pos_).starts_with("[:>:]]")) {
      pos_ += 6;
      out_ += "\\b";  // word start / end: RE2 has only the word boundary
      return;
    }
    std::string set = Eat('^') ? "[^" : "[";
    if (Eat(']')) {
      set += Byte(']');
    } else if (Eat('-')) {
      set += Byte('-');
    }
    while (error_ == nullptr && More() && Peek() != ']' && !(Peek() == '-' && Peek2() == ']')) {
      Term(&set);
    }
    if (error_ != nullptr) return;
    if (Eat('-')) set += Byte('-');
    if (!Eat(']')) return Fail(kBrackets);
    out_ += set + "]";
  }

  void Term(std::string* set) {
    if (Peek() == '-') return Fail(kRange);
    if (Peek() == '[' && (Peek2() == ':' || Peek2() == '=')) {
      bool is_class = Peek2() == ':';
      pos_ += 2;
      if (!More()) return Fail(kBrackets);
      if (Peek() == '-' || Peek() == ']') return Fail(is_class ? kClass : kCollate);
      if (is_class) {
        size_t start = pos_;
        while (More() && std::isalpha(static_cast<unsigned char>(Peek()))) ++pos_;
        std::string_view name = text_.substr(start, pos_ - start);
        static constexpr std::string_view kClasses[] = {"alnum", "alpha", "blank", "cntrl",
                                                        "digit", "graph", "lower", "print",
                                                        "punct", "space", "upper", "xdigit"};
        bool known = false;
        for (std::string_view known_name : kClasses) known |= name == known_name;
        if (!known) return Fail(kClass);
        if (!More()) return Fail(kBrackets);
        if (!EatTwo(':', ']')) return Fail(kClass);
        absl::StrAppend(set, "[:", std::string(name), ":]");
        return;
      }
      int c = CollatingElement('=');
      if (error_ != nullptr) return;
      if (!More()) return Fail(kBrackets);
      if (!EatTwo('=', ']')) return Fail(kCollate);
      *set += Byte(static_cast<unsigned char>(c));
      return;
    }
    int start = Symbol();
    int finish = start;
    if (error_ != nullptr) return;
    if (Peek() == '-' && More2() && Peek2() != ']') {
      ++pos_;
      finish = Eat('-') ? '-' : Symbol();
      if (error_ != nullptr) return;
    }
    if (start > finish) return Fail(kRange);
    *set += Byte(static_cast<unsigned char>(start));
    if (finish != start) {
      set->push_back('-');
      set->append(Byte(static_cast<unsigned char>(finish)));
    }
  }

  int Symbol() {
    if (!More()) {
      Fail(kBrackets);
      return 0;
    }
    if (!EatTwo('[', '.')) return static_cast<unsigned char>(text_[pos_++]);
    int value = CollatingElement('.');
    if (error_ == nullptr && !EatTwo('.', ']')) Fail(kCollate);
    return value;
  }

  // A one-character collating element up to `end` `]` (regcomp also knows
  // names such as [.space.]; hlo-check reads single characters only).
  int CollatingElement(char end) {
    size_t start = pos_;
    while (More() && !(Peek() == end && Peek2() == ']')) ++pos_;
    if (!More()) {
      Fail(kBrackets);
      return 0;
    }
    if (pos_ - start == 1) return static_cast<unsigned char>(text_[start]);
    Fail(kCollate);
    return 0;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string out_;
  int groups_ = 0;
  const char* error_ = nullptr;
  std::string nesting_error_;
};

}  // namespace

absl::StatusOr<TranslatedRegex> TranslatePosixRegex(std::string_view regex) {
  return Translator(regex).Run();
}

std::string EscapePosix(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (std::string_view("()^$|*+?.[]\\{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace hlo::check
