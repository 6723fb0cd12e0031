#include "check/directives.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "check/check_status.h"
#include "ir/status_macros.h"

namespace hlo::check {

namespace {

bool IsPartOfWord(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

enum class Found { kNone, kComment, kCheck, kBadNot, kBadCount };

struct DirectiveType {
  Found found = Found::kNone;
  CheckKind kind = CheckKind::kPlain;
  int count = 1;
  bool literal = false;
  size_t pattern_start = 0;  // offset after the colon
  std::string name;          // CHECK-NEXT etc.
};

// What follows a prefix at `at` (the prefix itself is `prefix`).
DirectiveType ClassifyDirective(std::string_view text, size_t at, const std::string& prefix,
                                bool is_comment) {
  DirectiveType type;
  size_t pos = at + prefix.size();
  if (pos >= text.size()) return type;
  auto consume = [&](std::string_view word) {
    if (text.substr(pos, word.size()) != word) return false;
    pos += word.size();
    return true;
  };
  if (is_comment) {
    if (consume(":")) type = {Found::kComment, CheckKind::kPlain, 1, false, pos, prefix};
    return type;
  }
  // ':' or '{' MODIFIER (',' MODIFIER)* '}:' ends a directive.
  auto finish = [&](CheckKind kind, std::string name, int count) {
    DirectiveType result;
    if (consume(":")) {
      result = {Found::kCheck, kind, count, false, pos, std::move(name)};
      return result;
    }
    if (!consume("{")) return result;
    bool literal = false;
    do {
      while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
      if (!consume("LITERAL")) return result;
      literal = true;
      while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    } while (consume(","));
    if (!consume("}:")) return result;
    result = {Found::kCheck, kind, count, literal, pos, std::move(name)};
    return result;
  };
  if (text[pos] == ':' || text[pos] == '{') return finish(CheckKind::kPlain, prefix, 1);
  if (!consume("-")) return type;
  if (consume("COUNT-")) {
    size_t digits = pos;
    long long count = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) &&
           count <= INT_MAX) {
      count = count * 10 + (text[digits] - '0');
      ++digits;
    }
    type.found = Found::kBadCount;
    if (digits == pos || count <= 0 || count > INT_MAX) return type;
    pos = digits;
    if (pos >= text.size() || (text[pos] != ':' && text[pos] != '{')) return type;
    return finish(CheckKind::kPlain, absl::StrCat(prefix, "-COUNT-", count),
                  static_cast<int>(count));
  }
  for (std::string_view bad : {"DAG-NOT:", "NOT-DAG:", "NEXT-NOT:", "NOT-NEXT:", "SAME-NOT:",
                               "NOT-SAME:", "EMPTY-NOT:", "NOT-EMPTY:"}) {
    if (text.substr(pos, bad.size()) == bad) {
      type.found = Found::kBadNot;
      return type;
    }
  }
  static const std::pair<std::string_view, CheckKind> kSuffixes[] = {
      {"NEXT", CheckKind::kNext}, {"SAME", CheckKind::kSame},   {"NOT", CheckKind::kNot},
      {"DAG", CheckKind::kDag},   {"LABEL", CheckKind::kLabel}, {"EMPTY", CheckKind::kEmpty}};
  for (const auto& [suffix, kind] : kSuffixes) {
    if (consume(suffix)) return finish(kind, prefix + "-" + std::string(suffix), 1);
  }
  return type;
}

struct PrefixHit {
  size_t at = std::string_view::npos;
  const std::string* prefix = nullptr;
  bool is_comment = false;
};

// Finds the earliest occurrence of any prefix at or after a position that
// only grows, remembering each prefix's next occurrence: a prefix that does
// not occur again is not searched for again, so reading the file is linear
// (a fresh search per directive made it quadratic).
class PrefixFinder {
 public:
  PrefixFinder(std::string_view text, const std::vector<std::string>& checks,
               const std::vector<std::string>& comments)
      : text_(text) {
    for (const std::string& prefix : checks) entries_.push_back({&prefix, false, 0, false});
    for (const std::string& prefix : comments) entries_.push_back({&prefix, true, 0, false});
  }

  // The earliest hit at or after `from` (the longest prefix where several
  // start at the same place).
  PrefixHit Find(size_t from) {
    PrefixHit best;
    for (Entry& entry : entries_) {
      if (!entry.searched || (entry.next != std::string_view::npos && entry.next < from)) {
        entry.next = text_.find(*entry.prefix, from);
        entry.searched = true;
      }
      size_t at = entry.next;
      if (at == std::string_view::npos) continue;
      if (at < best.at || (at == best.at && entry.prefix->size() > best.prefix->size())) {
        best = {at, entry.prefix, entry.is_comment};
      }
    }
    return best;
  }

 private:
  struct Entry {
    const std::string* prefix;
    bool is_comment;
    size_t next;
    bool searched;
  };
  std::string_view text_;
  std::vector<Entry> entries_;
};

// The --implicit-check-not patterns; a malformed one is reported to
// `diagnostics` and its error returned.
absl::StatusOr<std::vector<LocatedPattern>> ParseImplicitChecks(const SourceText& command_line,
                                                                const CheckOptions& options,
                                                                Diagnostics* diagnostics,
                                                                VariableNames* names = nullptr) {
  std::vector<LocatedPattern> implicit;
  PatternOptions pattern_options{options.match_full_lines,
                                 options.strict_whitespace,
                                 false,
                                 options.ignore_case,
                                 names,
                                 /*prefix=*/{}};
  for (int line = 1; line <= static_cast<int>(options.implicit_check_not.size()); ++line) {
    std::string_view text = command_line.Line(line);
    std::string_view prefix = "-implicit-check-not='";
    size_t offset = command_line.LineStart(line) + prefix.size();
    std::string_view pattern_text = text.substr(prefix.size(), text.size() - prefix.size() - 1);
    absl::StatusOr<Pattern> pattern =
        Pattern::Parse(pattern_text, CheckKind::kNot, 0, pattern_options);
    if (!pattern.ok()) {
      diagnostics->Error(&command_line, offset + PatternErrorOffset(pattern.status()),
                         std::string(pattern.status().message()));
      return pattern.status();
    }
    implicit.push_back(
        LocatedPattern{*std::move(pattern), &command_line, offset, "IMPLICIT-CHECK-NOT"});
  }
  return implicit;
}

std::vector<LocatedPattern> CopyImplicit(const SourceText& command_line,
                                         const CheckOptions& options) {
  Diagnostics ignored;
  absl::StatusOr<std::vector<LocatedPattern>> copies =
      ParseImplicitChecks(command_line, options, &ignored);
  return copies.ok() ? *std::move(copies) : std::vector<LocatedPattern>();
}

// A malformed check file: the error at `offset`, reported and returned.
absl::Status Malformed(Diagnostics* diagnostics, const SourceText& check_file, size_t offset,
                       const std::string& message) {
  diagnostics->Error(&check_file, offset, message);
  return CheckError(CheckVerdict::kBadCheckFile, message);
}

// The pattern of a directive of `type` at hit (text [start, end) of the
// line); `first`: no positive check came before it.
absl::StatusOr<LocatedPattern> ParseDirective(const SourceText& check_file, const PrefixHit& hit,
                                              const DirectiveType& type, size_t start, size_t end,
                                              const CheckOptions& options, VariableNames* names,
                                              bool first, Diagnostics* diagnostics) {
  PatternOptions pattern_options{options.match_full_lines,
                                 options.strict_whitespace,
                                 type.literal,
                                 options.ignore_case,
                                 names,
                                 *hit.prefix};
  std::string_view text = check_file.text().substr(start, end - start);
  // A directive whose ':' is the file's last byte (no newline after it):
  // FileCheck reads its pattern past the end, into the buffer's terminator,
  // so it is not empty yet matches nothing (CHECK-EMPTY: is malformed,
  // CHECK-NOT: holds, the others fail). hlo-check agrees.
  const bool colon_at_end =
      start == check_file.text().size() && start > 0 && check_file.text()[start - 1] == ':';
  if (colon_at_end) text = "{{[^\\s\\S]}}";  // a regex that matches nothing
  absl::StatusOr<Pattern> pattern =
      Pattern::Parse(text, type.kind, check_file.LineOf(start), pattern_options);
  if (!pattern.ok()) {
    diagnostics->Error(&check_file, start + PatternErrorOffset(pattern.status()),
                       std::string(pattern.status().message()));
    return pattern.status();
  }
  LocatedPattern located{*std::move(pattern), &check_file, start, type.name};
  if (type.kind == CheckKind::kLabel && located.pattern.HasVariables()) {
    return Malformed(diagnostics, check_file, start,
                     "found '" + *hit.prefix + "-LABEL:' with variable definition or use");
  }
  if ((type.kind == CheckKind::kNext || type.kind == CheckKind::kSame ||
       type.kind == CheckKind::kEmpty) &&
      first) {
    std::string_view suffix = type.kind == CheckKind::kNext    ? "NEXT"
                              : type.kind == CheckKind::kEmpty ? "EMPTY"
                                                               : "SAME";
    return Malformed(diagnostics, check_file, hit.at,
                     absl::StrCat("found '", *hit.prefix, "-", std::string(suffix),
                                  "' without previous '", *hit.prefix, ": line"));
  }
  return located;
}

// FileCheck's rule for prefixes no directive used (`unused`): none found
// is an error, and so is any unused one without --allow-unused-prefixes
// (unless only --implicit-check-not checks, with the default prefix).
absl::Status CheckPrefixesUsed(const std::vector<std::string>& prefixes,
                               const std::vector<std::string>& unused, const CheckOptions& options,
                               Diagnostics* diagnostics) {
  bool none_found = unused.size() == prefixes.size();
  bool some_unused = !options.allow_unused_prefixes && !unused.empty();
  if ((!none_found && !some_unused) ||
      (!options.implicit_check_not.empty() && options.check_prefixes.empty())) {
    return absl::OkStatus();
  }
  std::vector<std::string> quoted;
  for (const std::string& prefix : unused) quoted.push_back("'" + prefix + ":'");
  std::string message = absl::StrCat("no check strings found with prefix",
                                     unused.size() > 1 ? "es " : " ", absl::StrJoin(quoted, ", "));
  diagnostics->Plain("error: " + message);
  return CheckError(CheckVerdict::kNoCheckStrings, message);
}

}  // namespace

std::vector<std::string> CheckPrefixes(const CheckOptions& options) {
  if (options.check_prefixes.empty()) return {"CHECK"};
  return options.check_prefixes;
}

bool ValidPrefixes(const CheckOptions& options) {
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> all = CheckPrefixes(options);
  all.insert(all.end(), options.comment_prefixes.begin(), options.comment_prefixes.end());
  for (const std::string& prefix : all) {
    if (prefix.empty() || !std::isalpha(static_cast<unsigned char>(prefix[0]))) return false;
    for (char c : prefix) {
      if (!IsPartOfWord(c)) return false;
    }
    if (!seen.insert(prefix).second) return false;
  }
  return true;
}

std::string ImplicitCheckNotText(const CheckOptions& options) {
  std::string text;
  for (const std::string& pattern : options.implicit_check_not) {
    text += "-implicit-check-not='" + pattern + "'\n";
  }
  return text;
}

absl::StatusOr<std::vector<CheckString>> ParseCheckFile(const SourceText& check_file,
                                                        const SourceText& command_line,
                                                        const CheckOptions& options,
                                                        Diagnostics* diagnostics,
                                                        VariableNames* names) {
  std::vector<std::string> prefixes = CheckPrefixes(options);
  std::vector<std::string> unused = prefixes;
  HLO_RETURN_IF_ERROR(ParseImplicitChecks(command_line, options, diagnostics, names).status());
  std::vector<CheckString> checks;
  std::vector<LocatedPattern> dag_not = CopyImplicit(command_line, options);
  std::string_view text = check_file.text();
  PrefixFinder finder(text, prefixes, options.comment_prefixes);
  size_t pos = 0;
  while (pos < text.size()) {
    PrefixHit hit = finder.Find(pos);
    if (hit.prefix == nullptr) break;
    DirectiveType type;
    if (hit.at == 0 || !IsPartOfWord(text[hit.at - 1])) {
      type = ClassifyDirective(text, hit.at, *hit.prefix, hit.is_comment);
    }
    if (type.found == Found::kNone) {
      // Skip the prefix and the rest of the word it starts.
      pos = hit.at + hit.prefix->size();
      while (pos < text.size() && IsPartOfWord(text[pos])) ++pos;
      continue;
    }
    if (!hit.is_comment) std::erase(unused, *hit.prefix);
    if (type.found == Found::kBadNot) {
      return Malformed(diagnostics, check_file, hit.at,
                       "unsupported -NOT combo on prefix '" + *hit.prefix + "'");
    }
    if (type.found == Found::kBadCount) {
      return Malformed(diagnostics, check_file, hit.at,
                       "invalid count in -COUNT specification on prefix '" + *hit.prefix + "'");
    }
    size_t start = type.pattern_start;
    if (!(options.strict_whitespace && options.match_full_lines)) {
      while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
    }
    size_t end = text.find_first_of("\n\r", start);
    if (end == std::string_view::npos) end = text.size();
    pos = end;
    if (type.found == Found::kComment) continue;
    HLO_ASSIGN_OR_RETURN(LocatedPattern located,
                         ParseDirective(check_file, hit, type, start, end, options, names,
                                        /*first=*/checks.empty(), diagnostics));
    if (type.kind == CheckKind::kDag || type.kind == CheckKind::kNot) {
      dag_not.push_back(std::move(located));
      continue;
    }
    CheckString check;
    check.check = std::move(located);
    check.count = type.count;
    check.dag_not = std::move(dag_not);
    dag_not = CopyImplicit(command_line, options);
    checks.push_back(std::move(check));
  }
  if (!dag_not.empty()) {
    CheckString eof;
    eof.check.pattern = Pattern::EndOfInput(check_file.line_count() + 1);
    eof.check.source = &check_file;
    eof.check.offset = text.size();
    eof.check.directive = prefixes[0];
    eof.dag_not = std::move(dag_not);
    checks.push_back(std::move(eof));
  }
  HLO_RETURN_IF_ERROR(CheckPrefixesUsed(prefixes, unused, options, diagnostics));
  return checks;
}

}  // namespace hlo::check
