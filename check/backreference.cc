// A pattern that uses a variable it defines itself ([[X:re]] ... [[X]]): a
// POSIX backreference, which RE2 lacks. FileCheck's regex engine backtracks
// (exponentially: 12 s on a 1 KB line for [[X:.*]]Z[[X]]); hlo-check
//   1. matches the relaxed regex, each use a capture of the definition's
//      regex: its leftmost-longest match, when each use equals its
//      definition, is the answer (every exact match is a relaxed one);
//   2. otherwise tries, on the relaxed match's line, the values the
//      definition could take (each a substring that its regex matches
//      whole; the empty one first), keeping the leftmost, then longest,
//      exact match, within a fixed budget of work and memory. When the
//      budget runs out the match is an error that says so, never a guess.
#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "check/pattern.h"
#include "check/pattern_pieces.h"
#include "ir/status_macros.h"

namespace hlo::check {

namespace {

// The budget of one Match call, in bytes read: each candidate value costs
// its length (hashed, matched, searched for), each exact regex tried 16
// times the line and the regex (compiled and run). About a second.
constexpr size_t kMaxWork = 50'000'000;

struct Budget {
  size_t work = 0, tries = 0;
  bool Exhausted() const { return work > kMaxWork; }
};

re2::StringPiece ToPiece(std::string_view text) {
  return re2::StringPiece(text.data(), text.size());
}

// Enough capture slots for every group `group_of` names.
std::vector<re2::StringPiece> GroupSlots(const std::vector<int>& group_of) {
  int wanted = 0;
  for (int group : group_of) wanted = std::max(wanted, group);
  return std::vector<re2::StringPiece>(wanted + 1);
}

}  // namespace

// Step 2 on one line: over the values the definitions could take, the
// leftmost, then longest, exact match (its values in best_values).
struct Pattern::ExactSearch {
  ExactSearch(const Pattern& pattern, const VariableTable& variables, std::string_view buffer,
              size_t start, size_t line_end, size_t relaxed_end,
              const std::vector<size_t>& definitions, Budget& budget)
      : pattern(pattern),
        variables(variables),
        buffer(buffer),
        line(buffer.substr(start, line_end - start)),
        start(start),
        line_end(line_end),
        relaxed_end(relaxed_end),
        definitions(definitions),
        budget(budget),
        values(pattern.pieces_.size()) {
    for (size_t d : definitions)
      whole.push_back(pattern.Compile("(?:" + pattern.pieces_[d].text + ")"));
  }

  // The (backreference, definition) piece pairs of `pieces`, and the
  // definitions they use, each once.
  static void Backreferences(const std::vector<Piece>& pieces, std::vector<size_t>* definitions,
                             std::vector<std::pair<size_t, size_t>>* uses) {
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (pieces[i].kind != Piece::Kind::kBackref) continue;
      uses->push_back({i, pieces[i].definition});
      if (std::find(definitions->begin(), definitions->end(), pieces[i].definition) ==
          definitions->end()) {
        definitions->push_back(pieces[i].definition);
      }
    }
  }

  // Every assignment of values to definitions d, d+1, ..., lazily.
  void Assign(size_t d) {
    if (optimal || budget.Exhausted()) return;
    if (d == definitions.size()) return TryValues();
    absl::flat_hash_set<std::string_view> seen;
    Consider(d, 0, 0, seen);  // the empty value first: often the only one
    for (size_t i = 0; i < line.size() && !optimal && !budget.Exhausted(); ++i) {
      // No value starting at i outlasts the longest match of the regex there.
      re2::StringPiece longest;
      ++budget.work;
      if (!whole[d]->Match(ToPiece(line), i, line.size(), RE2::ANCHOR_START, &longest, 1)) {
        continue;
      }
      budget.work += longest.size();
      for (size_t j = i + longest.size(); j > i && !optimal && !budget.Exhausted(); --j) {
        Consider(d, i, j, seen);
      }
    }
    values[definitions[d]].clear();
  }

  // line[i, j) as definition d's value, when its regex matches it whole and
  // it occurs again after it (where the use is).
  void Consider(size_t d, size_t i, size_t j, absl::flat_hash_set<std::string_view>& seen) {
    std::string_view value = line.substr(i, j - i);
    budget.work += 2 * value.size() + 64;  // 64: the calls themselves
    if (seen.contains(value) || !RE2::FullMatch(ToPiece(value), *whole[d])) return;
    if (!value.empty()) {
      budget.work += line.size() - j;
      if (line.find(value, j) == std::string_view::npos) return;
    }
    seen.insert(value);
    std::string& slot = values[definitions[d]];
    slot.assign(1, '=');
    slot.append(value.data(), value.size());
    Assign(d + 1);
  }

  // The exact regex of the values assigned, run on the line.
  void TryValues() {
    ++budget.tries;
    absl::StatusOr<Built> exact = pattern.BuildRegex(variables, &values, false, nullptr);
    if (!exact.ok()) return;
    const std::string& text = exact->regex;
    // Compiling, and RE2 building its DFA, grow with both sizes.
    budget.work += line.size() * (1 + text.size() / 8) + 16 * text.size();
    auto compiled = pattern.Compile(text);
    re2::StringPiece hit;
    if (!compiled->ok() ||
        !compiled->Match(ToPiece(buffer), start, line_end, RE2::UNANCHORED, &hit, 1)) {
      return;
    }
    size_t hit_start = hit.data() - buffer.data();
    if (hit_start < best_start || (hit_start == best_start && hit.size() > best_length)) {
      best_start = hit_start;
      best_length = hit.size();
      best_values = values;
      // Nothing starts before the relaxed match or outlasts it there.
      optimal = hit_start == start && hit_start + hit.size() == relaxed_end;
    }
  }

  const Pattern& pattern;
  const VariableTable& variables;
  std::string_view buffer, line;
  size_t start, line_end, relaxed_end;
  const std::vector<size_t>& definitions;
  Budget& budget;
  std::vector<std::unique_ptr<re2::RE2>> whole;  // each definition's regex, whole
  std::vector<std::string> values, best_values;  // by piece: "=VALUE" for definitions
  size_t best_start = std::string_view::npos, best_length = 0;
  bool optimal = false;
};

absl::StatusOr<bool> Pattern::MatchWithBackreferences(std::string_view buffer,
                                                      VariableTable& variables,
                                                      PatternMatch* match) const {
  HLO_ASSIGN_OR_RETURN(const Built relaxed,
                       BuildRegex(variables, nullptr, /*relaxed=*/true, match));
  auto regex = Compile(relaxed.regex);
  if (!regex->ok()) {
    return absl::InvalidArgumentError("invalid regex after substitution: " + regex->error());
  }
  std::vector<size_t> definitions;              // pieces that a backreference uses
  std::vector<std::pair<size_t, size_t>> uses;  // (backreference, definition)
  ExactSearch::Backreferences(pieces_, &definitions, &uses);
  std::vector<re2::StringPiece> groups = GroupSlots(relaxed.group_of);
  Budget budget;
  size_t from = 0;
  while (from <= buffer.size()) {
    if (!regex->Match(ToPiece(buffer), from, buffer.size(), RE2::UNANCHORED, groups.data(),
                      static_cast<int>(groups.size()))) {
      return false;
    }
    size_t start = groups[0].data() - buffer.data();
    bool consistent = true;
    for (auto [use, definition] : uses) {
      const re2::StringPiece& a = groups[relaxed.group_of[use]];
      const re2::StringPiece& b = groups[relaxed.group_of[definition]];
      consistent &= a.data() != nullptr && b.data() != nullptr && a == b;
    }
    if (consistent)
      return Matched(buffer, groups, relaxed.group_of, start, groups[0].size(), variables, match);
    size_t line_end = buffer.find('\n', start);
    if (line_end == std::string_view::npos) line_end = buffer.size();
    ExactSearch search(*this, variables, buffer, start, line_end, start + groups[0].size(),
                       definitions, budget);
    search.Assign(0);
    if (budget.Exhausted() && !search.optimal) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "backreference to '", pieces_[definitions[0]].name, "': gave up after trying ",
          budget.tries, " values on an input line of ", search.line.size(),
          " bytes (its regex allows too many); give the variable a narrower regex"));
    }
    if (search.best_start != std::string_view::npos) {
      HLO_ASSIGN_OR_RETURN(const Built exact,
                           BuildRegex(variables, &search.best_values, false, nullptr));
      std::vector<re2::StringPiece> exact_groups = GroupSlots(exact.group_of);
      Compile(exact.regex)
          ->Match(ToPiece(buffer), search.best_start, line_end, RE2::ANCHOR_START,
                  exact_groups.data(), static_cast<int>(exact_groups.size()));
      return Matched(buffer, exact_groups, exact.group_of, search.best_start, search.best_length,
                     variables, match);
    }
    from = line_end + 1;
  }
  return false;
}

absl::StatusOr<bool> Pattern::Matched(std::string_view buffer,
                                      const std::vector<re2::StringPiece>& groups,
                                      const std::vector<int>& group_of, size_t position,
                                      size_t length, VariableTable& variables,
                                      PatternMatch* match) const {
  match->position = position;
  match->length = length;
  HLO_RETURN_IF_ERROR(DefineVariables(buffer, groups, group_of, variables, match));
  return true;
}

}  // namespace hlo::check
