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

}  // namespace

absl::StatusOr<bool> Pattern::MatchWithBackreferences(std::string_view buffer,
                                                      VariableTable& variables,
                                                      PatternMatch* match) const {
  absl::StatusOr<Built> built = BuildRegex(variables, nullptr, /*relaxed=*/true, match);
  if (!built.ok()) return built.status();
  const Built& relaxed = *built;
  auto regex = Compile(relaxed.regex);
  if (!regex->ok()) {
    return absl::InvalidArgumentError("invalid regex after substitution: " + regex->error());
  }
  std::vector<size_t> definitions;              // pieces that a backreference uses
  std::vector<std::pair<size_t, size_t>> uses;  // (backreference, definition)
  for (size_t i = 0; i < pieces_.size(); ++i) {
    if (pieces_[i].kind != Piece::Kind::kBackref) continue;
    uses.push_back({i, pieces_[i].definition});
    if (std::find(definitions.begin(), definitions.end(), pieces_[i].definition) ==
        definitions.end()) {
      definitions.push_back(pieces_[i].definition);
    }
  }
  int wanted = 0;
  for (int group : relaxed.group_of) wanted = std::max(wanted, group);
  std::vector<re2::StringPiece> groups(wanted + 1);
  Budget budget;
  size_t from = 0;
  while (from <= buffer.size()) {
    if (!regex->Match(ToPiece(buffer), from, buffer.size(), RE2::UNANCHORED, groups.data(),
                      static_cast<int>(groups.size()))) {
      return false;
    }
    size_t start = groups[0].data() - buffer.data();
    size_t relaxed_end = start + groups[0].size();
    bool consistent = true;
    for (auto [use, definition] : uses) {
      const re2::StringPiece& a = groups[relaxed.group_of[use]];
      const re2::StringPiece& b = groups[relaxed.group_of[definition]];
      consistent &= a.data() != nullptr && b.data() != nullptr && a == b;
    }
    if (consistent) {
      match->position = start;
      match->length = groups[0].size();
      absl::Status defined = DefineVariables(buffer, groups, relaxed.group_of, variables, match);
      if (!defined.ok()) return defined;
      return true;
    }
    size_t line_end = buffer.find('\n', start);
    if (line_end == std::string_view::npos) line_end = buffer.size();
    std::string_view line = buffer.substr(start, line_end - start);

    // Step 2: every assignment of values to the definitions, lazily.
    std::vector<std::unique_ptr<re2::RE2>> whole;
    for (size_t d : definitions) whole.push_back(Compile("(?:" + pieces_[d].text + ")"));
    std::vector<std::string> values(pieces_.size());
    std::vector<std::string> best_values;
    size_t best_start = std::string_view::npos, best_length = 0;
    bool optimal = false;
    std::function<void(size_t)> assign = [&](size_t d) {
      if (optimal || budget.Exhausted()) return;
      if (d == definitions.size()) {
        ++budget.tries;
        absl::StatusOr<Built> exact = BuildRegex(variables, &values, false, nullptr);
        if (!exact.ok()) return;
        const std::string& text = exact->regex;
        // Compiling, and RE2 building its DFA, grow with both sizes.
        budget.work += line.size() * (1 + text.size() / 8) + 16 * text.size();
        auto compiled = Compile(text);
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
        return;
      }
      absl::flat_hash_set<std::string_view> seen;
      auto consider = [&](size_t i, size_t j) {
        std::string_view value = line.substr(i, j - i);
        budget.work += 2 * value.size() + 64;  // 64: the calls themselves
        if (seen.contains(value) || !RE2::FullMatch(ToPiece(value), *whole[d])) return;
        // The use comes after the definition: its value occurs again later.
        if (!value.empty()) {
          budget.work += line.size() - j;
          if (line.find(value, j) == std::string_view::npos) return;
        }
        seen.insert(value);
        std::string& slot = values[definitions[d]];
        slot.assign(1, '=');
        slot.append(value.data(), value.size());
        assign(d + 1);
      };
      consider(0, 0);  // the empty value first: often the only one
      for (size_t i = 0; i < line.size() && !optimal && !budget.Exhausted(); ++i) {
        // No value starting at i outlasts the longest match of the regex there.
        re2::StringPiece longest;
        ++budget.work;
        if (!whole[d]->Match(ToPiece(line), i, line.size(), RE2::ANCHOR_START, &longest, 1)) {
          continue;
        }
        budget.work += longest.size();
        for (size_t j = i + longest.size(); j > i && !optimal && !budget.Exhausted(); --j) {
          consider(i, j);
        }
      }
      values[definitions[d]].clear();
    };
    assign(0);
    if (budget.Exhausted() && !optimal) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "backreference to '", pieces_[definitions[0]].name, "': gave up after trying ",
          budget.tries, " values on an input line of ", line.size(),
          " bytes (its regex allows too many); give the variable a narrower regex"));
    }
    if (best_start != std::string_view::npos) {
      absl::StatusOr<Built> built_exact = BuildRegex(variables, &best_values, false, nullptr);
      if (!built_exact.ok()) return built_exact.status();
      const Built& exact = *built_exact;
      auto compiled = Compile(exact.regex);
      int exact_wanted = 0;
      for (int group : exact.group_of) exact_wanted = std::max(exact_wanted, group);
      std::vector<re2::StringPiece> exact_groups(exact_wanted + 1);
      compiled->Match(ToPiece(buffer), best_start, line_end, RE2::ANCHOR_START, exact_groups.data(),
                      static_cast<int>(exact_groups.size()));
      match->position = best_start;
      match->length = best_length;
      absl::Status defined =
          DefineVariables(buffer, exact_groups, exact.group_of, variables, match);
      if (!defined.ok()) return defined;
      return true;
    }
    from = line_end + 1;
  }
  return false;
}

}  // namespace hlo::check
