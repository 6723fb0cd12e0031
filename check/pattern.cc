#include "check/pattern.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "check/source_text.h"
#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace hlo::check {

struct Pattern::Piece {
  enum class Kind { kLiteral, kRegex, kStringDef, kStringUse, kBackref, kNumericDef, kNumericUse };
  Kind kind = Kind::kLiteral;
  std::string text;  // literal text or regex
  std::string name;  // the variable of a definition or use
  int group = 0;     // capture group of a definition
  size_t definition = 0;  // kBackref: index of the defining piece
  NumericFormat format;
  NumericExpression expression;
  bool has_expression = false;
};

namespace {

constexpr size_t kMaxBackreferenceLine = 4096;  // longer lines: no value search
constexpr size_t kMaxBackreferenceTries = 20000;

std::string Escape(std::string_view text) { return RE2::QuoteMeta(text); }

// The end of a `[[...]]` block in `text` (which starts after the `[[`): the
// offset of the `]]` outside any nested [...], skipping backslash escapes.
size_t FindBlockEnd(std::string_view text, bool* unbalanced) {
  size_t depth = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (depth == 0 && text.substr(i, 2) == "]]") return i;
    if (text[i] == '\\') {
      i += 2;
      continue;
    }
    if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      if (depth == 0) {
        *unbalanced = true;
        return std::string_view::npos;
      }
      --depth;
    }
    ++i;
  }
  return std::string_view::npos;
}

// The longest prefix of `text` that is a variable name ($ allowed first).
size_t VariableNameLength(std::string_view text) {
  size_t i = !text.empty() && text[0] == '$' ? 1 : 0;
  if (i >= text.size() || !(absl::ascii_isalpha(text[i]) || text[i] == '_')) return 0;
  while (i < text.size() && (absl::ascii_isalnum(text[i]) || text[i] == '_')) ++i;
  return i;
}

// `%u`, `%d`, `%x`, `%X`, optionally with `.PRECISION`.
bool ParseFormat(std::string_view spec, NumericFormat* format) {
  spec = Trim(spec);
  if (spec.size() < 2 || spec[0] != '%') return false;
  spec.remove_prefix(1);
  if (spec[0] == '.') {
    size_t digits = 1;
    int precision = 0;
    while (digits < spec.size() && absl::ascii_isdigit(spec[digits])) {
      precision = precision * 10 + (spec[digits] - '0');
      ++digits;
    }
    if (digits == 1) return false;
    format->precision = precision;
    spec.remove_prefix(digits);
  }
  if (spec.size() != 1 || std::string_view("udxX").find(spec[0]) == std::string_view::npos) {
    return false;
  }
  format->kind = spec[0];
  format->explicit_kind = true;
  return true;
}

// RE2 reads a `{` that starts no valid repetition as a literal; POSIX (and so
// FileCheck) rejects it. Rejecting it here keeps check files portable, e.g.
// `{{[0-9]{6}}}`, whose regex ends at the first `}}`.
bool BracesBalanced(std::string_view regex) {
  for (size_t i = 0; i < regex.size(); ++i) {
    char c = regex[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      size_t j = i + 1;
      if (j < regex.size() && regex[j] == '^') ++j;
      if (j < regex.size() && regex[j] == ']') ++j;
      while (j < regex.size() && regex[j] != ']') {
        if (regex[j] == '[' && j + 1 < regex.size() &&
            (regex[j + 1] == ':' || regex[j + 1] == '=' || regex[j + 1] == '.')) {
          size_t close = regex.find(std::string{regex[j + 1], ']'}, j + 2);
          j = close == std::string_view::npos ? regex.size() : close + 2;
          continue;
        }
        ++j;
      }
      i = j;
    } else if (c == '{') {
      size_t j = i + 1;
      size_t digits = j;
      while (j < regex.size() && absl::ascii_isdigit(regex[j])) ++j;
      if (j == digits) return false;
      if (j < regex.size() && regex[j] == ',') {
        ++j;
        while (j < regex.size() && absl::ascii_isdigit(regex[j])) ++j;
      }
      if (j >= regex.size() || regex[j] != '}') return false;
      i = j;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<re2::RE2> CompileCheckRegex(const std::string& regex) {
  RE2::Options options;
  options.set_longest_match(true);
  options.set_never_nl(true);
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingLatin1);
  return std::make_unique<re2::RE2>(regex, options);
}

Pattern::Pattern() = default;
Pattern::~Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;

Pattern Pattern::EndOfInput(int line) {
  Pattern pattern;
  pattern.kind_ = CheckKind::kEof;
  pattern.line_ = line;
  return pattern;
}

bool Pattern::Parse(std::string_view text, CheckKind kind, int line,
                    const PatternOptions& options, Pattern* pattern, PatternError* error) {
  Pattern& p = *pattern;
  p.kind_ = kind;
  p.line_ = line;
  p.full_lines_ = options.match_full_lines && kind != CheckKind::kNot;
  p.strict_whitespace_ = options.strict_whitespace;
  if (!(options.strict_whitespace && options.match_full_lines)) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  }
  if (text.empty() && kind != CheckKind::kEmpty) {
    *error = {0, "found empty check string with prefix"};
    return false;
  }
  if (!text.empty() && kind == CheckKind::kEmpty) {
    *error = {0, "found non-empty check string for empty check with prefix"};
    return false;
  }
  if (kind == CheckKind::kEmpty) return true;
  p.literal_text_ = std::string(text);
  bool has_blocks = text.find("{{") != std::string_view::npos ||
                    text.find("[[") != std::string_view::npos;
  if (options.literal || (!p.full_lines_ && (text.size() < 2 || !has_blocks))) {
    p.is_fixed_ = true;
    p.fixed_ = std::string(text);
    return true;
  }
  if (options.literal) {
    p.pieces_.push_back(Piece{.kind = Piece::Kind::kLiteral, .text = std::string(text)});
  } else if (!p.ParsePieces(text, error)) {
    return false;
  }
  bool substitutes = false;
  for (const Piece& piece : p.pieces_) {
    substitutes |= piece.kind == Piece::Kind::kStringUse || piece.kind == Piece::Kind::kNumericUse ||
                   (piece.kind == Piece::Kind::kNumericDef && piece.has_expression);
  }
  if (!substitutes && !p.has_backreferences_) {
    std::string unused;
    p.compiled_ = CompileCheckRegex(p.BuildRegex(VariableTable(), nullptr, nullptr, &unused));
    if (!p.compiled_->ok()) {
      *error = {0, "invalid regex: " + p.compiled_->error()};
      return false;
    }
  }
  return true;
}

bool Pattern::ParsePieces(std::string_view text, PatternError* error) {
  size_t offset = 0;
  while (offset < text.size()) {
    std::string_view rest = text.substr(offset);
    if (rest.substr(0, 2) == "{{") {
      size_t end = rest.find("}}");
      if (end == std::string_view::npos) {
        *error = {offset, "found start of regex string with no end '}}'"};
        return false;
      }
      std::string regex(rest.substr(2, end - 2));
      if (!BracesBalanced(regex)) {
        *error = {offset + 2, "invalid regex: braces not balanced"};
        return false;
      }
      auto compiled = CompileCheckRegex("(?:" + regex + ")");
      if (!compiled->ok()) {
        *error = {offset + 2, "invalid regex: " + compiled->error()};
        return false;
      }
      group_count_ += compiled->NumberOfCapturingGroups();
      pieces_.push_back(Piece{.kind = Piece::Kind::kRegex, .text = std::move(regex)});
      offset += end + 2;
      continue;
    }
    if (rest.substr(0, 2) == "[[") {
      bool unbalanced = false;
      size_t end = FindBlockEnd(rest.substr(2), &unbalanced);
      if (end == std::string_view::npos) {
        *error = {offset + 2, unbalanced ? "missing closing \"]\" for regex variable"
                                         : "Invalid substitution block, no ]] found"};
        return false;
      }
      if (!ParseBlock(rest.substr(2, end), offset + 2, error)) return false;
      offset += end + 4;
      continue;
    }
    size_t end = std::min(rest.find("{{", 1), rest.find("[[", 1));
    if (end == std::string_view::npos) end = rest.size();
    pieces_.push_back(
        Piece{.kind = Piece::Kind::kLiteral, .text = std::string(rest.substr(0, end))});
    offset += end;
  }
  return true;
}

bool Pattern::ParseBlock(std::string_view block, size_t offset, PatternError* error) {
  auto defined_here = [&](std::string_view name, Piece::Kind kind) -> const Piece* {
    for (const Piece& piece : pieces_) {
      if (piece.kind == kind && piece.name == name) return &piece;
    }
    return nullptr;
  };
  if (!block.empty() && block[0] == '#') {
    std::string_view rest = block.substr(1);
    Piece piece;
    size_t comma = rest.find(',');
    if (!TrimLeading(rest).empty() &&
        TrimLeading(rest)[0] == '%') {
      if (comma == std::string_view::npos || !ParseFormat(rest.substr(0, comma), &piece.format)) {
        *error = {offset, "invalid matching format specification in expression"};
        return false;
      }
      rest = rest.substr(comma + 1);
    }
    size_t colon = rest.find(':');
    std::string_view expression_text = rest;
    if (colon != std::string_view::npos) {
      std::string_view name = Trim(rest.substr(0, colon));
      if (!IsVariableName(name)) {
        *error = {offset, "invalid variable name"};
        return false;
      }
      if (defined_here(name, Piece::Kind::kStringDef) != nullptr) {
        *error = {offset, "string variable with name '" + std::string(name) + "' already exists"};
        return false;
      }
      piece.kind = Piece::Kind::kNumericDef;
      piece.name = std::string(name);
      expression_text = rest.substr(colon + 1);
    } else {
      piece.kind = Piece::Kind::kNumericUse;
    }
    expression_text = Trim(expression_text);
    if (expression_text.substr(0, 2) == "==") expression_text.remove_prefix(2);
    auto expression = NumericExpression::Parse(expression_text);
    if (!expression.ok()) {
      *error = {offset, std::string(expression.status().message())};
      return false;
    }
    for (const std::string& used : expression->VariableNames()) {
      if (defined_here(used, Piece::Kind::kNumericDef) != nullptr) {
        *error = {offset, absl::StrCat("numeric variable '", used,
                                       "' defined earlier in the same CHECK directive")};
        return false;
      }
    }
    piece.has_expression = !expression->terms.empty();
    piece.expression = std::move(*expression);
    if (piece.kind == Piece::Kind::kNumericUse && !piece.has_expression) {
      piece.kind = Piece::Kind::kRegex;  // [[#]]: any number
      piece.text = piece.format.WildcardRegex();
    }
    if (piece.kind == Piece::Kind::kNumericDef) piece.group = ++group_count_;
    pieces_.push_back(std::move(piece));
    return true;
  }
  size_t colon = block.find(':');
  std::string_view name_part = block.substr(0, colon);
  if (name_part.find_first_of(" \t") != std::string_view::npos) {
    *error = {offset, "unexpected whitespace"};
    return false;
  }
  if (!name_part.empty() && name_part[0] == '@') {
    if (colon != std::string_view::npos) {
      *error = {offset, "invalid name in string variable definition"};
      return false;
    }
    auto expression = NumericExpression::Parse(name_part);
    if (!expression.ok() || name_part.substr(0, 5) != "@LINE") {
      *error = {offset, "invalid pseudo variable '" + std::string(name_part) + "'"};
      return false;
    }
    Piece piece;
    piece.kind = Piece::Kind::kNumericUse;
    piece.expression = std::move(*expression);
    piece.has_expression = true;
    pieces_.push_back(std::move(piece));
    return true;
  }
  size_t name_length = VariableNameLength(name_part);
  if (name_length == 0) {
    *error = {offset, "invalid variable name"};
    return false;
  }
  std::string name(name_part.substr(0, name_length));
  if (colon == std::string_view::npos) {
    if (name_length != name_part.size()) {
      *error = {offset, "invalid name in string variable use"};
      return false;
    }
    Piece piece;
    piece.name = name;
    piece.kind = Piece::Kind::kStringUse;
    for (size_t i = pieces_.size(); i-- > 0;) {
      if (pieces_[i].kind == Piece::Kind::kStringDef && pieces_[i].name == name) {
        piece.kind = Piece::Kind::kBackref;
        piece.definition = i;
        has_backreferences_ = true;
        break;
      }
    }
    pieces_.push_back(std::move(piece));
    return true;
  }
  if (name_length != name_part.size()) {
    *error = {offset, "invalid name in string variable definition"};
    return false;
  }
  if (defined_here(name, Piece::Kind::kNumericDef) != nullptr) {
    *error = {offset, "numeric variable with name '" + name + "' already exists"};
    return false;
  }
  Piece piece;
  piece.kind = Piece::Kind::kStringDef;
  piece.name = name;
  piece.text = std::string(block.substr(colon + 1));
  piece.group = ++group_count_;
  if (!BracesBalanced(piece.text)) {
    *error = {offset + colon + 1, "invalid regex: braces not balanced"};
    return false;
  }
  auto compiled = CompileCheckRegex("(" + piece.text + ")");
  if (!compiled->ok()) {
    *error = {offset + colon + 1, "invalid regex: " + compiled->error()};
    return false;
  }
  group_count_ += compiled->NumberOfCapturingGroups() - 1;
  pieces_.push_back(std::move(piece));
  return true;
}

bool Pattern::HasVariables() const {
  for (const Piece& piece : pieces_) {
    if (piece.kind == Piece::Kind::kStringDef || piece.kind == Piece::Kind::kStringUse ||
        piece.kind == Piece::Kind::kBackref || piece.kind == Piece::Kind::kNumericUse) {
      return true;
    }
  }
  return false;
}

std::string Pattern::BuildRegex(const VariableTable& variables,
                                const std::vector<std::string>* values,
                                std::vector<std::pair<std::string, std::string>>* substitutions,
                                std::string* error) const {
  // `values`, when given, fixes the value of every definition that a
  // backreference refers to (indexed by piece).
  auto fixed_value = [&](size_t index) -> const std::string* {
    if (values == nullptr || index >= values->size() || (*values)[index].empty()) return nullptr;
    return &(*values)[index];
  };
  std::string regex = "(?m)";
  if (full_lines_) regex += strict_whitespace_ ? "^" : "^ *";
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const Piece& piece = pieces_[i];
    switch (piece.kind) {
      case Piece::Kind::kLiteral:
        regex += Escape(piece.text);
        break;
      case Piece::Kind::kRegex:
        absl::StrAppend(&regex, "(?:", piece.text, ")");
        break;
      case Piece::Kind::kStringDef: {
        const std::string* value = fixed_value(i);
        absl::StrAppend(&regex, "(", value ? Escape(value->substr(1)) : piece.text, ")");
        break;
      }
      case Piece::Kind::kBackref: {
        const std::string* value = fixed_value(piece.definition);
        regex += value ? Escape(value->substr(1))
                       : absl::StrCat("(?:", pieces_[piece.definition].text, ")");
        break;
      }
      case Piece::Kind::kStringUse: {
        const std::string* value = variables.GetString(piece.name);
        if (value == nullptr) {
          if (!error->empty()) *error += "\n";
          *error += "undefined variable: " + piece.name;
          break;
        }
        if (substitutions) substitutions->push_back({piece.name, *value});
        regex += Escape(*value);
        break;
      }
      case Piece::Kind::kNumericDef:
      case Piece::Kind::kNumericUse: {
        if (piece.kind == Piece::Kind::kNumericDef && !piece.has_expression) {
          absl::StrAppend(&regex, "(", piece.format.WildcardRegex(), ")");
          break;
        }
        auto value = piece.expression.Evaluate(variables, line_, piece.format);
        if (!value.ok()) {
          if (!error->empty()) *error += "\n";
          *error += std::string(value.status().message());
          break;
        }
        std::string text = value->format.Format(value->value);
        if (substitutions && piece.kind == Piece::Kind::kNumericUse) {
          std::string shown;
          for (const auto& term : piece.expression.terms) {
            shown += (term.negate ? "-" : (shown.empty() ? "" : "+"));
            shown += term.kind == NumericExpression::Term::Kind::kLine ? "@LINE"
                     : term.kind == NumericExpression::Term::Kind::kVariable
                         ? term.name
                         : std::to_string(term.literal);
          }
          substitutions->push_back({shown, text});
        }
        if (piece.kind == Piece::Kind::kNumericDef) {
          absl::StrAppend(&regex, "(", Escape(text), ")");
        } else {
          regex += Escape(text);
        }
        break;
      }
    }
  }
  if (full_lines_) regex += strict_whitespace_ ? "$" : " *$";
  return regex;
}

void Pattern::DefineVariables(std::string_view buffer,
                              const std::vector<re2::StringPiece>& groups,
                              VariableTable& variables) const {
  (void)buffer;
  for (const Piece& piece : pieces_) {
    if (piece.group <= 0 || piece.group >= static_cast<int>(groups.size())) continue;
    std::string_view value(groups[piece.group].data(), groups[piece.group].size());
    if (piece.kind == Piece::Kind::kStringDef) {
      variables.SetString(piece.name, std::string(value));
    } else if (piece.kind == Piece::Kind::kNumericDef) {
      NumericFormat format = piece.format;
      if (piece.has_expression && !format.explicit_kind) {
        auto evaluated = piece.expression.Evaluate(variables, line_, format);
        if (evaluated.ok()) format = evaluated->format;
      }
      if (auto number = format.Parse(value)) variables.SetNumeric(piece.name, {*number, format});
    }
  }
}

MatchStatus Pattern::Match(std::string_view buffer, VariableTable& variables, PatternMatch* match,
                           std::string* error) const {
  match->substitutions.clear();
  switch (kind_) {
    case CheckKind::kEof:
      *match = {buffer.size(), 0, {}};
      return MatchStatus::kFound;
    case CheckKind::kEmpty: {
      // An empty line: a line end followed by another or by the end of input;
      // the match starts after the first line end (the empty line itself).
      for (size_t i = buffer.find('\n'); i != std::string_view::npos;
           i = buffer.find('\n', i + 1)) {
        if (i + 1 == buffer.size() || buffer[i + 1] == '\n') {
          *match = {i + 1, 0, {}};
          return MatchStatus::kFound;
        }
      }
      return MatchStatus::kNotFound;
    }
    default:
      break;
  }
  if (is_fixed_) {
    size_t position = buffer.find(fixed_);
    if (position == std::string_view::npos) return MatchStatus::kNotFound;
    *match = {position, fixed_.size(), {}};
    return MatchStatus::kFound;
  }
  return MatchRegex(buffer, variables, match, error);
}

MatchStatus Pattern::MatchRegex(std::string_view buffer, VariableTable& variables,
                                PatternMatch* match, std::string* error) const {
  std::unique_ptr<re2::RE2> substituted;
  const re2::RE2* regex = compiled_.get();
  if (regex == nullptr) {
    error->clear();
    std::string text = BuildRegex(variables, nullptr, &match->substitutions, error);
    if (!error->empty()) return MatchStatus::kError;
    substituted = CompileCheckRegex(text);
    if (!substituted->ok()) {
      *error = "invalid regex after substitution: " + substituted->error();
      return MatchStatus::kError;
    }
    regex = substituted.get();
  }
  if (has_backreferences_) return MatchWithBackreferences(buffer, *regex, variables, match, error);
  std::vector<re2::StringPiece> groups(group_count_ + 1);
  if (!regex->Match(re2::StringPiece(buffer.data(), buffer.size()), 0, buffer.size(), RE2::UNANCHORED, groups.data(),
                    static_cast<int>(groups.size()))) {
    return MatchStatus::kNotFound;
  }
  match->position = groups[0].data() - buffer.data();
  match->length = groups[0].size();
  DefineVariables(buffer, groups, variables);
  return MatchStatus::kFound;
}

// RE2 has no backreferences, so a pattern that uses a variable defined earlier
// in itself is matched in two steps: `relaxed` (each use replaced by the
// definition's regex) finds the first line that can hold a match; then every
// value the definition could take on that line is tried as a literal, and the
// leftmost (then longest) exact match wins. Lines with none are skipped.
MatchStatus Pattern::MatchWithBackreferences(std::string_view buffer, const re2::RE2& relaxed,
                                             VariableTable& variables, PatternMatch* match,
                                             std::string* error) const {
  std::vector<size_t> definitions;
  for (const Piece& piece : pieces_) {
    if (piece.kind == Piece::Kind::kBackref &&
        std::find(definitions.begin(), definitions.end(), piece.definition) == definitions.end()) {
      definitions.push_back(piece.definition);
    }
  }
  std::vector<std::unique_ptr<re2::RE2>> whole;  // each definition, anchored at both ends
  for (size_t index : definitions) {
    whole.push_back(CompileCheckRegex("^(?:" + pieces_[index].text + ")$"));
  }
  size_t from = 0;
  while (from <= buffer.size()) {
    re2::StringPiece found;
    if (!relaxed.Match(re2::StringPiece(buffer.data(), buffer.size()), from, buffer.size(), RE2::UNANCHORED, &found, 1)) break;
    size_t start = found.data() - buffer.data();
    size_t line_end = buffer.find('\n', start);
    if (line_end == std::string_view::npos) line_end = buffer.size();
    std::string_view line = buffer.substr(start, line_end - start);
    // Candidate values per definition ("=" + value, so that an empty value is
    // told apart from "no value").
    std::vector<std::vector<std::string>> candidates(definitions.size());
    if (line.size() <= kMaxBackreferenceLine) {
      for (size_t d = 0; d < definitions.size(); ++d) {
        absl::flat_hash_set<std::string_view> seen;
        for (size_t i = 0; i <= line.size(); ++i) {
          for (size_t j = i; j <= line.size(); ++j) {
            std::string_view value = line.substr(i, j - i);
            if (seen.contains(value) ||
                !RE2::FullMatch(re2::StringPiece(value.data(), value.size()), *whole[d])) {
              continue;
            }
            seen.insert(value);
            candidates[d].push_back(absl::StrCat("=", std::string(value)));
          }
        }
      }
    }
    size_t best_start = std::string_view::npos, best_length = 0, tries = 0;
    std::vector<std::string> best_values;
    std::vector<std::string> values(pieces_.size());
    std::function<void(size_t)> search = [&](size_t d) {
      if (tries >= kMaxBackreferenceTries) return;
      if (d == definitions.size()) {
        ++tries;
        std::string unused;
        auto exact = CompileCheckRegex(BuildRegex(variables, &values, nullptr, &unused));
        re2::StringPiece hit;
        if (exact->ok() &&
            exact->Match(re2::StringPiece(buffer.data(), buffer.size()), start, line_end, RE2::UNANCHORED, &hit, 1)) {
          size_t hit_start = hit.data() - buffer.data();
          if (hit_start < best_start || (hit_start == best_start && hit.size() > best_length)) {
            best_start = hit_start;
            best_length = hit.size();
            best_values = values;
          }
        }
        return;
      }
      for (const std::string& value : candidates[d]) {
        values[definitions[d]] = value;
        search(d + 1);
      }
    };
    search(0);
    if (best_start != std::string_view::npos) {
      auto exact = CompileCheckRegex(BuildRegex(variables, &best_values, nullptr, error));
      std::vector<re2::StringPiece> groups(group_count_ + 1);
      exact->Match(re2::StringPiece(buffer.data(), buffer.size()), best_start, line_end, RE2::ANCHOR_START, groups.data(),
                   static_cast<int>(groups.size()));
      match->position = best_start;
      match->length = best_length;
      DefineVariables(buffer, groups, variables);
      return MatchStatus::kFound;
    }
    from = line_end + 1;
  }
  return MatchStatus::kNotFound;
}

}  // namespace hlo::check
