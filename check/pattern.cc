#include "check/pattern.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "check/check_status.h"
#include "check/pattern_pieces.h"
#include "check/posix_regex.h"
#include "check/source_text.h"
#include "ir/status_macros.h"
#include "re2/re2.h"

namespace hlo::check {

namespace {

constexpr int64_t kRegexMemory = 256 << 20;

std::string Escape(std::string_view text) { return RE2::QuoteMeta(text); }

// FileCheck's FindRegexVarEnd: the offset of the `]]` that ends a block in
// `text` (which starts after the `[[`), outside any nested [...], skipping
// backslash escapes. A `]` with no `[` is an error at that offset.
size_t FindBlockEnd(std::string_view text, size_t* unbalanced_at) {
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
        *unbalanced_at = i;
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

// FileCheck names the directive's prefix in some messages: " 'CHECK:'".
std::string WithPrefix(const PatternOptions& options) {
  return options.prefix.empty() ? "" : absl::StrCat(" '", std::string(options.prefix), ":'");
}

}  // namespace

std::unique_ptr<re2::RE2> CompileCheckRegex(const std::string& regex, bool ignore_case) {
  RE2::Options options;
  options.set_longest_match(true);
  options.set_never_nl(true);
  options.set_log_errors(false);
  options.set_case_sensitive(!ignore_case);
  options.set_encoding(RE2::Options::EncodingLatin1);
  // RE2's default of 8 MB sends big regexes (thousands of groups) from its
  // DFA to its NFA, which is slower by the regex's size; the memory stays
  // bounded either way.
  options.set_max_mem(kRegexMemory);
  return std::make_unique<re2::RE2>(regex, options);
}

std::unique_ptr<re2::RE2> Pattern::Compile(const std::string& regex) const {
  return CompileCheckRegex(regex, ignore_case_);
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

absl::StatusOr<Pattern> Pattern::Parse(std::string_view text, CheckKind kind, int line,
                                       const PatternOptions& options) {
  Pattern p;
  p.kind_ = kind;
  p.line_ = line;
  p.full_lines_ = options.match_full_lines && kind != CheckKind::kNot;
  p.strict_whitespace_ = options.strict_whitespace;
  p.ignore_case_ = options.ignore_case;
  if (!(options.strict_whitespace && options.match_full_lines)) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  }
  if (text.empty() && kind != CheckKind::kEmpty) {
    return PatternError(0,
                        absl::StrCat("found empty check string with prefix", WithPrefix(options)));
  }
  if (!text.empty() && kind == CheckKind::kEmpty) {
    return PatternError(0, absl::StrCat("found non-empty check string for empty check with prefix",
                                        WithPrefix(options)));
  }
  if (kind == CheckKind::kEmpty) {
    p.example_ = "(\n$)";
    return p;
  }
  bool has_blocks =
      text.find("{{") != std::string_view::npos || text.find("[[") != std::string_view::npos;
  if (options.literal || (!p.full_lines_ && (text.size() < 2 || !has_blocks))) {
    p.example_ = std::string(text);
    if (!options.ignore_case) {
      p.is_fixed_ = true;
      p.fixed_ = std::string(text);
      return p;
    }
    // Without case: the text as a regex, so that RE2 folds the case.
    p.pieces_.push_back(Piece{.kind = Piece::Kind::kLiteral, .text = std::string(text)});
  } else {
    if (p.full_lines_) p.example_ = options.strict_whitespace ? "^" : "^ *";
    VariableNames local;
    HLO_RETURN_IF_ERROR(p.ParsePieces(text, options.names ? options.names : &local));
    if (p.paren_ - 1 > kMaxRegexGroups) {
      return PatternError(0, absl::StrCat("invalid regex: more than ", kMaxRegexGroups,
                                          " capturing groups (with {{ }} blocks and variables)"));
    }
    if (p.full_lines_) p.example_ += options.strict_whitespace ? "$" : " *$";
  }
  bool substitutes = false;
  for (const Piece& piece : p.pieces_) {
    substitutes |= piece.kind == Piece::Kind::kStringUse ||
                   piece.kind == Piece::Kind::kNumericUse ||
                   (piece.kind == Piece::Kind::kNumericDef && piece.has_expression);
  }
  if (!substitutes && !p.has_backreferences_) {
    absl::StatusOr<Built> built = p.BuildRegex(VariableTable(), nullptr, false, nullptr);
    if (!built.ok()) {
      return PatternError(0, std::string(built.status().message()));
    }
    p.compiled_ = p.Compile(built->regex);
    p.compiled_groups_ = std::move(built->group_of);
    if (!p.compiled_->ok()) {
      return PatternError(0, "invalid regex: " + p.compiled_->error());
    }
  }
  return p;
}

absl::Status Pattern::ParsePieces(std::string_view text, VariableNames* names) {
  size_t offset = 0;
  while (offset < text.size()) {
    std::string_view rest = text.substr(offset);
    if (rest.starts_with("{{")) {
      size_t end = rest.find("}}");
      if (end == std::string_view::npos) {
        return PatternError(offset, "found start of regex string with no end '}}'");
      }
      std::string_view regex = rest.substr(2, end - 2);
      auto translated = TranslatePosixRegex(regex);
      if (!translated.ok()) {
        return PatternError(offset + 2,
                            absl::StrCat("invalid regex: ", translated.status().message()));
      }
      absl::StrAppend(&example_, "(", std::string(regex), ")");
      paren_ += 1 + translated->groups;
      pieces_.push_back(Piece{.kind = Piece::Kind::kRegex,
                              .text = std::move(translated->re2),
                              .groups = translated->groups});
      offset += end + 2;
      continue;
    }
    // FileCheck: "If there are extra '['s before the "[[", treat them
    // literally" (the literal below then ends at the next `[[`).
    if (rest.starts_with("[[") && !rest.starts_with("[[[")) {
      size_t unbalanced_at = std::string_view::npos;
      size_t end = FindBlockEnd(rest.substr(2), &unbalanced_at);
      if (unbalanced_at != std::string_view::npos) {
        return PatternError(offset + 2 + unbalanced_at, "missing closing \"]\" for regex variable",
                            1);
      }
      if (end == std::string_view::npos) {
        return PatternError(offset, "Invalid substitution block, no ]] found");
      }
      HLO_RETURN_IF_ERROR(ParseBlock(rest.substr(2, end), offset + 2, names));
      offset += end + 4;
      continue;
    }
    size_t end = std::min(rest.find("{{", 1), rest.find("[[", 1));
    if (end == std::string_view::npos) end = rest.size();
    std::string_view literal = rest.substr(0, end);
    example_ += EscapePosix(literal);
    pieces_.push_back(Piece{.kind = Piece::Kind::kLiteral, .text = std::string(literal)});
    offset += end;
  }
  return absl::OkStatus();
}

absl::Status Pattern::ParseBlock(std::string_view block, size_t offset, VariableNames* names) {
  if (!block.empty() && block[0] == '#') return ParseNumericBlock(block, offset, names);
  size_t colon = block.find(':');
  std::string_view name_part = block.substr(0, colon);
  size_t space = name_part.find_first_of(" \t");
  if (space != std::string_view::npos) {
    return PatternError(offset + space, "unexpected whitespace");
  }
  if (!name_part.empty() && name_part[0] == '@') {
    if (colon != std::string_view::npos) {
      return PatternError(offset, "invalid name in string variable definition");
    }
    auto expression = NumericExpression::Parse(name_part);
    if (!expression.ok() || name_part.substr(0, 5) != "@LINE") {
      return PatternError(offset, "invalid pseudo variable '" + std::string(name_part) + "'");
    }
    Piece piece;
    piece.kind = Piece::Kind::kNumericUse;
    piece.expression = std::move(*expression);
    piece.has_expression = true;
    piece.shown = std::string(name_part);
    pieces_.push_back(std::move(piece));
    return absl::OkStatus();
  }
  size_t name_length = VariableNameLength(name_part);
  if (name_length == 0) {
    return PatternError(offset, "invalid variable name");
  }
  std::string name(name_part.substr(0, name_length));
  if (colon == std::string_view::npos) {
    if (name_length != name_part.size()) {
      return PatternError(offset, "invalid name in string variable use");
    }
    Piece piece;
    piece.name = name;
    piece.kind = Piece::Kind::kStringUse;
    for (size_t i = pieces_.size(); i-- > 0;) {
      if (pieces_[i].kind == Piece::Kind::kStringDef && pieces_[i].name == name) {
        // FileCheck writes a use after a definition in the same pattern as a
        // POSIX backreference \N, and N is one digit.
        if (pieces_[i].paren > 9) {
          return PatternError(offset, "Can't back-reference more than 9 variables");
        }
        absl::StrAppend(&example_, "\\", pieces_[i].paren);
        piece.kind = Piece::Kind::kBackref;
        piece.definition = i;
        has_backreferences_ = true;
        break;
      }
    }
    pieces_.push_back(std::move(piece));
    return absl::OkStatus();
  }
  if (name_length != name_part.size()) {
    return PatternError(offset, "invalid name in string variable definition");
  }
  if (names->numerics.contains(name)) {
    return PatternError(offset, "numeric variable with name '" + name + "' already exists");
  }
  names->strings.insert(name);
  std::string_view regex = block.substr(colon + 1);
  Piece piece;
  piece.kind = Piece::Kind::kStringDef;
  piece.name = name;
  if (!regex.empty()) {  // FileCheck lets [[X:]] match the empty string
    auto translated = TranslatePosixRegex(regex);
    if (!translated.ok()) {
      return PatternError(offset + colon + 1,
                          absl::StrCat("invalid regex: ", translated.status().message()));
    }
    piece.text = std::move(translated->re2);
    piece.groups = translated->groups;
  }
  absl::StrAppend(&example_, "(", std::string(regex), ")");
  piece.paren = paren_;
  paren_ += 1 + piece.groups;
  pieces_.push_back(std::move(piece));
  return absl::OkStatus();
}

absl::Status Pattern::ParseNumericBlock(std::string_view block, size_t offset,
                                        VariableNames* names) {
  std::string_view rest = block.substr(1);
  Piece piece;
  size_t comma = rest.find(',');
  if (!TrimLeading(rest).empty() && TrimLeading(rest)[0] == '%') {
    std::string_view spec = comma == std::string_view::npos ? rest : rest.substr(0, comma);
    auto format = ParseNumericFormat(spec);
    if (!format.ok()) {
      return PatternError(offset, std::string(format.status().message()));
    }
    piece.format = *format;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  size_t colon = rest.find(':');
  std::string_view expression_text = rest;
  if (colon != std::string_view::npos) {
    std::string_view name = Trim(rest.substr(0, colon));
    if (!IsVariableName(name)) {
      return PatternError(offset, "invalid variable name");
    }
    if (names->strings.contains(std::string(name))) {
      return PatternError(offset,
                          "string variable with name '" + std::string(name) + "' already exists");
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
    return PatternError(offset, std::string(expression.status().message()));
  }
  // FileCheck reads the expression first: a use of an unknown name makes it
  // a numeric variable; a use of one first defined on this line is an error.
  NumericFormat implicit;
  bool first_use = true;
  for (const std::string& used : expression->VariableNames()) {
    auto [it, added] = names->numerics.try_emplace(used);
    if (!added && it->second.line == line_ && line_ > 0) {
      return PatternError(offset, absl::StrCat("numeric variable '", used,
                                               "' defined earlier in the same CHECK directive"));
    }
    if (first_use) implicit = it->second.format;
    first_use = false;
  }
  if (piece.kind == Piece::Kind::kNumericDef) {
    NumericFormat format = piece.format.explicit_kind ? piece.format : implicit;
    auto [it, added] =
        names->numerics.try_emplace(piece.name, VariableNames::Numeric{format, line_});
    if (!added && (it->second.format.kind != format.kind ||
                   it->second.format.precision != format.precision)) {
      return PatternError(offset, "format different from previous variable definition");
    }
  }
  piece.has_expression = !expression->terms.empty();
  piece.expression = std::move(*expression);
  piece.shown = std::string(expression_text);
  bool wildcard = !piece.has_expression;
  if (wildcard && piece.format.precision > kMaxWildcardPrecision) {
    // FileCheck's regex engine takes repetition counts up to 255.
    return PatternError(offset, "invalid regex: invalid repetition count(s)");
  }
  if (piece.kind == Piece::Kind::kNumericDef) {
    absl::StrAppend(&example_, "(", wildcard ? piece.format.FileCheckWildcard() : "", ")");
    piece.paren = paren_;
    paren_ += 1 + (wildcard && piece.format.precision > 0 ? 1 : 0);
  } else if (wildcard) {  // [[#]] or [[#%x]]: any number
    piece.kind = Piece::Kind::kRegex;
    piece.text = piece.format.WildcardRegex();
    example_ += piece.format.FileCheckWildcard();
    paren_ += piece.format.precision > 0 ? 1 : 0;
  }
  pieces_.push_back(std::move(piece));
  return absl::OkStatus();
}

bool Pattern::HasVariables() const {
  for (const Piece& piece : pieces_) {
    if (piece.kind == Piece::Kind::kStringDef || piece.kind == Piece::Kind::kStringUse ||
        piece.kind == Piece::Kind::kBackref || piece.kind == Piece::Kind::kNumericUse ||
        (piece.kind == Piece::Kind::kNumericDef && piece.has_expression)) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<Pattern::Built> Pattern::BuildRegex(const VariableTable& variables,
                                                   const std::vector<std::string>* values,
                                                   bool relaxed, PatternMatch* match) const {
  // `values`, when given, fixes the value of every definition that a
  // backreference refers to (indexed by piece; "=" + value, "" for none).
  auto fixed_value = [&](size_t index) -> const std::string* {
    if (values == nullptr || index >= values->size() || (*values)[index].empty()) return nullptr;
    return &(*values)[index];
  };
  std::string errors;
  auto note_error = [&](const std::string& message) {
    if (!errors.empty()) errors += "\n";
    errors += message;
  };
  Built built;
  built.group_of.assign(pieces_.size(), 0);
  std::string& regex = built.regex;
  int& groups = built.groups;
  regex = "(?m)";
  if (full_lines_) regex += strict_whitespace_ ? "^" : "^ *";
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const Piece& piece = pieces_[i];
    switch (piece.kind) {
      case Piece::Kind::kLiteral:
        regex += Escape(piece.text);
        break;
      case Piece::Kind::kRegex:
        absl::StrAppend(&regex, "(?:", piece.text, ")");
        groups += piece.groups;
        break;
      case Piece::Kind::kStringDef: {
        const std::string* value = fixed_value(i);
        built.group_of[i] = ++groups;
        absl::StrAppend(&regex, "(", value ? Escape(value->substr(1)) : piece.text, ")");
        if (value == nullptr) groups += piece.groups;
        break;
      }
      case Piece::Kind::kBackref: {
        const Piece& definition = pieces_[piece.definition];
        const std::string* value = fixed_value(piece.definition);
        if (value != nullptr) {
          // LLVM's regex engine compares a backreference byte for byte, even
          // under --ignore-case.
          std::string literal = Escape(value->substr(1));
          regex += ignore_case_ ? absl::StrCat("(?-i:", literal, ")") : literal;
        } else if (relaxed) {
          built.group_of[i] = ++groups;
          absl::StrAppend(&regex, "(", definition.text, ")");
          groups += definition.groups;
        } else {
          absl::StrAppend(&regex, "(?:", definition.text, ")");
          groups += definition.groups;
        }
        break;
      }
      case Piece::Kind::kStringUse: {
        const std::string* value = variables.GetString(piece.name);
        if (value == nullptr) {
          note_error("undefined variable: " + piece.name);
          break;
        }
        if (match) match->substitutions.push_back({piece.name, *value});
        regex += Escape(*value);
        break;
      }
      case Piece::Kind::kNumericDef:
      case Piece::Kind::kNumericUse: {
        bool define = piece.kind == Piece::Kind::kNumericDef;
        if (define) built.group_of[i] = ++groups;
        if (define && !piece.has_expression) {
          absl::StrAppend(&regex, "(", piece.format.WildcardRegex(), ")");
          break;
        }
        auto value = piece.expression.Evaluate(variables, line_, piece.format);
        absl::StatusOr<std::string> text =
            value.ok() ? value->format.Format(value->value) : value.status();
        if (!text.ok()) {
          bool overflow = text.status().code() == absl::StatusCode::kOutOfRange;
          note_error(overflow ? absl::StrCat("unable to substitute variable or numeric "
                                             "expression: ",
                                             text.status().message())
                              : std::string(text.status().message()));
          break;
        }
        if (match && !define) match->substitutions.push_back({piece.shown, *text});
        regex += define ? absl::StrCat("(", Escape(*text), ")") : Escape(*text);
        break;
      }
    }
  }
  if (full_lines_) regex += strict_whitespace_ ? "$" : " *$";
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  return built;
}

absl::Status Pattern::DefineVariables(std::string_view buffer,
                                      const std::vector<re2::StringPiece>& groups,
                                      const std::vector<int>& group_of, VariableTable& variables,
                                      PatternMatch* match) const {
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const Piece& piece = pieces_[i];
    int group = group_of[i];
    if (group <= 0 || group >= static_cast<int>(groups.size())) continue;
    if (piece.kind != Piece::Kind::kStringDef && piece.kind != Piece::Kind::kNumericDef) continue;
    std::string_view value(groups[group].data(), groups[group].size());
    if (groups[group].data() != nullptr) {
      match->captures.push_back(
          {piece.name, static_cast<size_t>(groups[group].data() - buffer.data()), value.size()});
    }
    if (piece.kind == Piece::Kind::kStringDef) {
      variables.SetString(piece.name, std::string(value));
      continue;
    }
    NumericFormat format = piece.format;
    if (piece.has_expression && !format.explicit_kind) {
      auto evaluated = piece.expression.Evaluate(variables, line_, format);
      if (evaluated.ok()) format = evaluated->format;
    }
    auto number = format.Parse(value);
    if (!number.ok()) return number.status();
    variables.SetNumeric(piece.name, {*number, format});
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Pattern::Match(std::string_view buffer, VariableTable& variables,
                                    PatternMatch* match) const {
  match->substitutions.clear();
  match->captures.clear();
  switch (kind_) {
    case CheckKind::kEof:
      *match = {buffer.size(), 0, {}, {}};
      return true;
    case CheckKind::kEmpty: {
      // An empty line: a line end followed by another or by the end of input;
      // the match starts after the first line end (the empty line itself).
      for (size_t i = buffer.find('\n'); i != std::string_view::npos;
           i = buffer.find('\n', i + 1)) {
        if (i + 1 == buffer.size() || buffer[i + 1] == '\n') {
          *match = {i + 1, 0, {}, {}};
          return true;
        }
      }
      return false;
    }
    default:
      break;
  }
  if (is_fixed_) {
    size_t position = buffer.find(fixed_);
    if (position == std::string_view::npos) return false;
    *match = {position, fixed_.size(), {}, {}};
    return true;
  }
  return MatchRegex(buffer, variables, match);
}

namespace {

// The submatches worth asking RE2 for: up to the highest group a piece uses
// (RE2 is slower, and needs more memory, for each one asked).
int GroupsWanted(const std::vector<int>& group_of) {
  int wanted = 0;
  for (int group : group_of) wanted = std::max(wanted, group);
  return wanted + 1;
}

}  // namespace

absl::StatusOr<bool> Pattern::MatchRegex(std::string_view buffer, VariableTable& variables,
                                         PatternMatch* match) const {
  if (has_backreferences_) return MatchWithBackreferences(buffer, variables, match);
  std::unique_ptr<re2::RE2> substituted;
  const re2::RE2* regex = compiled_.get();
  std::vector<int> group_of = compiled_groups_;
  if (regex == nullptr) {
    absl::StatusOr<Built> built = BuildRegex(variables, nullptr, false, match);
    if (!built.ok()) return built.status();
    // Only empty substitutions: FileCheck's regex is empty, which LLVM's
    // engine rejects, so the pattern matches nowhere.
    if (built->regex == "(?m)") return false;
    substituted = Compile(built->regex);
    if (!substituted->ok()) {
      return absl::InvalidArgumentError("invalid regex after substitution: " +
                                        substituted->error());
    }
    regex = substituted.get();
    group_of = std::move(built->group_of);
  }
  std::vector<re2::StringPiece> groups(GroupsWanted(group_of));
  if (!regex->Match(re2::StringPiece(buffer.data(), buffer.size()), 0, buffer.size(),
                    RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()))) {
    return false;
  }
  match->position = groups[0].data() - buffer.data();
  match->length = groups[0].size();
  absl::Status defined = DefineVariables(buffer, groups, group_of, variables, match);
  if (!defined.ok()) return defined;
  return true;
}

}  // namespace hlo::check
