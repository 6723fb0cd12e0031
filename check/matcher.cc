#include "check/matcher.h"

#include <algorithm>
#include <list>

#include "absl/strings/str_cat.h"

namespace hlo::check {

Matcher::Matcher(const SourceText& input, const std::vector<CheckString>& checks,
                 const CheckOptions& options, Diagnostics* diagnostics, VariableTable variables)
    : input_(input),
      checks_(checks),
      options_(options),
      diagnostics_(diagnostics),
      variables_(std::move(variables)) {}

void Matcher::Annotate(Annotation annotation) {
  if (annotations_.size() >= kMaxAnnotations) {
    annotations_dropped_ = true;
    return;
  }
  annotations_.push_back(std::move(annotation));
}

void Matcher::ReportMatch(const LocatedPattern& pattern, size_t position, size_t length,
                          const PatternMatch& match, const std::string& counted) {
  // FileCheck prints its -v remarks only with --dump-input=never; otherwise
  // it keeps them for the dump.
  if (options_.verbose < 1 || options_.dump_input != DumpInput::kNever) return;
  diagnostics_->Remark(
      pattern.source, pattern.offset,
      absl::StrCat(Described(pattern), ": expected string found in input", counted));
  diagnostics_->Note(&input_, position, "found here", length);
  for (const auto& [name, value] : match.substitutions) {
    diagnostics_->Note(&input_, position,
                       absl::StrCat("with \"", name, "\" equal to \"", value, "\""));
  }
  for (const PatternMatch::Capture& capture : match.captures) {
    diagnostics_->Note(&input_, capture.position,
                       absl::StrCat("captured var \"", capture.name, "\""), capture.length);
  }
}

// FileCheck names a CHECK-COUNT-3 directive CHECK-COUNT in its messages.
std::string Matcher::Described(const LocatedPattern& pattern) {
  size_t count = pattern.directive.find("-COUNT-");
  return count == std::string::npos ? pattern.directive : pattern.directive.substr(0, count + 6);
}

std::string Matcher::Label(const LocatedPattern& pattern) const {
  if (pattern.source == nullptr) return "check";
  if (pattern.pattern.kind() == CheckKind::kEof) return "check:eof";
  return absl::StrCat(pattern.directive == "IMPLICIT-CHECK-NOT" ? "cmdline" : "check", ":",
                      pattern.source->LineOf(pattern.offset));
}

bool Matcher::Run() {
  bool failed = false;
  size_t buffer = 0;  // start of what labels have not consumed
  size_t i = 0, j = 0;
  size_t size = input_.text().size();
  while (true) {
    size_t region_begin = buffer, region_end = size;
    if (j < checks_.size()) {
      if (checks_[j].check.pattern.kind() != CheckKind::kLabel) {
        ++j;
        continue;
      }
      size_t label_length = 0;
      size_t label_at = Check(checks_[j], buffer, size, /*label_scan=*/true, &label_length);
      if (label_at == kNotFound) return false;  // nothing else can be checked
      region_end = label_at + label_length;
      buffer = region_end;
      ++j;
    }
    if (i != 0 && options_.enable_var_scope) variables_.ClearLocals();
    for (; i != j; ++i) {
      size_t length = 0;
      size_t at = Check(checks_[i], region_begin, region_end, /*label_scan=*/false, &length);
      if (at == kNotFound) {
        failed = true;
        i = j;
        break;
      }
      region_begin = at + length;
    }
    if (j == checks_.size()) break;
  }
  return !failed;
}

bool Matcher::MatchPattern(const LocatedPattern& pattern, size_t begin, size_t end,
                           size_t* position, size_t* length, bool report, const std::string& what,
                           PatternMatch* found) {
  std::string_view buffer = input_.text().substr(begin, end - begin);
  PatternMatch match;
  absl::StatusOr<bool> status = pattern.pattern.Match(buffer, variables_, &match);
  if (status.ok() && *status) {
    *position = begin + match.position;
    *length = match.length;
    for (PatternMatch::Capture& capture : match.captures) capture.position += begin;
    if (found != nullptr) *found = std::move(match);
    return true;
  }
  if (!status.ok()) {
    std::string error(status.status().message());
    size_t start = 0;
    while (start <= error.size()) {
      size_t stop = error.find('\n', start);
      if (stop == std::string::npos) stop = error.size();
      diagnostics_->Error(pattern.source, pattern.offset, error.substr(start, stop - start));
      start = stop + 1;
    }
    Annotate({Annotation::Kind::kError, begin, begin, Label(pattern), "error: " + error});
    if (report) ReportNearMiss(pattern, begin, end);  // FileCheck shows it here too
    return false;
  }
  if (report) ReportNoMatch(pattern, begin, end, match, what);
  return false;
}

void Matcher::ReportNoMatch(const LocatedPattern& pattern, size_t begin, size_t end,
                            const PatternMatch& attempt, const std::string& what) {
  std::string_view text = input_.text();
  diagnostics_->Error(pattern.source, pattern.offset, absl::StrCat(Described(pattern), ": ", what));
  size_t scan = begin;
  while (scan < end &&
         (text[scan] == ' ' || text[scan] == '\t' || text[scan] == '\n' || text[scan] == '\r')) {
    ++scan;
  }
  if (scan == end) scan = begin;
  diagnostics_->Note(&input_, scan, "scanning from here");
  for (const auto& [name, value] : attempt.substitutions) {
    diagnostics_->Note(&input_, scan, absl::StrCat("with \"", name, "\" equal to \"", value, "\""));
  }
  Annotate({Annotation::Kind::kError, scan, end, Label(pattern), "error: no match found"});
  ReportNearMiss(pattern, begin, end);
}

void Matcher::ReportNearMiss(const LocatedPattern& pattern, size_t begin, size_t end) {
  size_t near = FindNearMiss(input_.text().substr(begin, end - begin), pattern.pattern.example(),
                             options_.near_miss_steps);
  if (near != std::string_view::npos) {
    near += begin;
    diagnostics_->Note(&input_, near, "possible intended match here");
    Annotate({Annotation::Kind::kNote, near, near + 1, Label(pattern), "possible intended match"});
  }
}

size_t Matcher::Check(const CheckString& check, size_t begin, size_t end, bool label_scan,
                      size_t* length) {
  size_t last = begin;  // after the CHECK-DAG matches
  std::vector<const LocatedPattern*> nots;
  if (!label_scan) {
    last = CheckDag(check, begin, end, &nots);
    if (last == kNotFound) return kNotFound;
  }
  size_t match_end = last, first = kNotFound;
  int empty_here = 0;  // empty matches in a row where the previous one ended
  for (int n = 1; n <= check.count; ++n) {
    size_t position = 0, match_length = 0;
    // FileCheck counts in its messages: "(2 out of 3)".
    std::string counted =
        check.count > 1 ? absl::StrCat(" (", n, " out of ", check.count, ")") : "";
    std::string what = "expected string not found in input" + counted;
    PatternMatch found;
    if (!MatchPattern(check.check, match_end, end, &position, &match_length, true, what, &found)) {
      return kNotFound;
    }
    ReportMatch(check.check, position, match_length, found, counted);
    if (!label_scan) {
      Annotate(
          {Annotation::Kind::kMatch, position, position + match_length, Label(check.check), ""});
    }
    empty_here = match_length == 0 && position == match_end ? empty_here + 1 : 0;
    match_end = position + match_length;
    if (n == 1) first = position;
    // Two empty matches in a row at one place: the second left the variables
    // as the first did (an empty match defines only empty strings), so every
    // later search is the same search with the same result.
    if (empty_here >= 2) break;
  }
  *length = match_end - first;
  if (!label_scan) {
    if (!CheckLinePosition(check, last, first)) return kNotFound;
    if (!CheckNots(nots, last, first)) return kNotFound;
  }
  return first;
}

bool Matcher::CheckLinePosition(const CheckString& check, size_t previous_end, size_t match_begin) {
  CheckKind kind = check.check.pattern.kind();
  if (kind != CheckKind::kNext && kind != CheckKind::kEmpty && kind != CheckKind::kSame) {
    return true;
  }
  std::string_view skipped = input_.text().substr(previous_end, match_begin - previous_end);
  int newlines = CountNewlines(skipped);
  std::string problem;
  if (kind == CheckKind::kSame) {
    if (newlines != 0) problem = "is not on the same line as the previous match";
  } else if (newlines == 0) {
    problem = "is on the same line as previous match";
  } else if (newlines != 1) {
    problem = "is not on the line after the previous match";
  }
  if (problem.empty()) return true;
  diagnostics_->Error(check.check.source, check.check.offset,
                      absl::StrCat(check.check.directive, ": ", problem));
  diagnostics_->Note(&input_, match_begin, "'next' match was here");
  diagnostics_->Note(&input_, previous_end, "previous match ended here");
  if (newlines > 1) {
    size_t after = input_.text().find('\n', previous_end);
    diagnostics_->Note(&input_, after + 1, "non-matching line after previous match is here");
  }
  Annotate({Annotation::Kind::kError, match_begin, match_begin + 1, Label(check.check),
            "error: " + problem});
  return false;
}

bool Matcher::CheckNots(const std::vector<const LocatedPattern*>& nots, size_t begin, size_t end) {
  bool found_any = false;
  for (const LocatedPattern* pattern : nots) {
    size_t position = 0, length = 0;
    std::string_view buffer = input_.text().substr(begin, end - begin);
    PatternMatch match;
    absl::StatusOr<bool> status = pattern->pattern.Match(buffer, variables_, &match);
    if (!status.ok()) {
      diagnostics_->Error(pattern->source, pattern->offset, std::string(status.status().message()));
      found_any = true;
      continue;
    }
    if (!*status) {
      if (options_.verbose >= 2 && options_.dump_input == DumpInput::kNever) {
        diagnostics_->Remark(
            pattern->source, pattern->offset,
            absl::StrCat(pattern->directive, ": excluded string not found in input"));
        diagnostics_->Note(&input_, begin, "scanning from here");
      }
      continue;
    }
    position = begin + match.position;
    length = match.length;
    diagnostics_->Error(pattern->source, pattern->offset,
                        absl::StrCat(pattern->directive, ": excluded string found in input"));
    diagnostics_->Note(&input_, position, "found here", length);
    Annotate({Annotation::Kind::kExcluded, position, position + length, Label(*pattern),
              "error: no match expected"});
    found_any = true;
  }
  return !found_any;
}

size_t Matcher::CheckDag(const CheckString& check, size_t begin, size_t end,
                         std::vector<const LocatedPattern*>* nots) {
  if (check.dag_not.empty()) return begin;
  struct Range {
    size_t begin, end;
  };
  size_t start = begin;
  std::list<Range> ranges;  // sorted, non-overlapping matches of this DAG group
  for (size_t k = 0; k < check.dag_not.size(); ++k) {
    const LocatedPattern& pattern = check.dag_not[k];
    if (pattern.pattern.kind() == CheckKind::kNot) {
      nots->push_back(&pattern);
      continue;
    }
    size_t from = start, position = 0, length = 0;
    auto it = ranges.begin();
    PatternMatch found;
    while (true) {
      if (!MatchPattern(pattern, from, end, &position, &length, true,
                        "expected string not found in input", &found)) {
        return kNotFound;
      }
      Range found{position, position + length};
      bool overlap = false;
      for (; it != ranges.end(); ++it) {
        if (found.begin < it->end) {
          overlap = it->begin < found.end;
          break;
        }
      }
      if (!overlap) {
        ranges.insert(it, found);
        break;
      }
      from = it->end;
    }
    ReportMatch(pattern, position, length, found);
    Annotate({Annotation::Kind::kMatch, position, position + length, Label(pattern), ""});
    bool group_ends =
        k + 1 == check.dag_not.size() || check.dag_not[k + 1].pattern.kind() == CheckKind::kNot;
    if (group_ends) {
      if (!nots->empty()) {
        if (!CheckNots(*nots, start, ranges.front().begin)) return kNotFound;
        nots->clear();
      }
      start = ranges.back().end;
      ranges.clear();
    }
  }
  return start;
}

}  // namespace hlo::check
