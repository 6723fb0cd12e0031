#include "check/diagnostics.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hlo::check {

void Diagnostics::Error(const SourceText* source, size_t offset, std::string message,
                        size_t length) {
  all_.push_back({Severity::kError, source, offset, length, std::move(message)});
  ++errors_;
}

void Diagnostics::Note(const SourceText* source, size_t offset, std::string message,
                       size_t length) {
  all_.push_back({Severity::kNote, source, offset, length, std::move(message)});
}

void Diagnostics::Remark(const SourceText* source, size_t offset, std::string message,
                         size_t length) {
  all_.push_back({Severity::kRemark, source, offset, length, std::move(message)});
}

void Diagnostics::Plain(std::string message) {
  all_.push_back({Severity::kError, nullptr, 0, 0, std::move(message)});
  ++errors_;
}

std::string Diagnostics::Render() const {
  std::string out;
  for (const Diagnostic& diagnostic : all_) out += RenderDiagnostic(diagnostic);
  return out;
}

std::string RenderDiagnostic(const Diagnostic& diagnostic) {
  if (diagnostic.source == nullptr) return diagnostic.message + "\n";
  const SourceText& source = *diagnostic.source;
  int line = source.LineOf(diagnostic.offset);
  int column = source.ColumnOf(diagnostic.offset);
  std::string out = absl::StrCat(source.name(), ":", line, ":", column, ": ",
                                 diagnostic.severity == Severity::kError    ? "error: "
                                 : diagnostic.severity == Severity::kRemark ? "remark: "
                                                                            : "note: ",
                                 diagnostic.message, "\n");
  std::string_view text = source.Line(line);
  out += std::string(text) + "\n";
  std::string marker(static_cast<size_t>(column - 1), ' ');
  for (size_t i = 0; i < marker.size() && i < text.size(); ++i) {
    if (text[i] == '\t') marker[i] = '\t';
  }
  marker += "^";
  size_t tail =
      std::min(diagnostic.length,
               text.size() >= static_cast<size_t>(column) ? text.size() - column + 1 : size_t{0});
  if (tail > 1) marker += std::string(tail - 1, '~');
  return out + marker + "\n";
}

namespace {

// The Levenshtein distance of a and b when it is at most `limit`, else
// limit + 1, by Ukkonen's diagonals: for e = 0, 1, ... the furthest row of a
// that each diagonal (d = column - row) reaches with e edits, slid along
// equal characters. The cost is O(limit^2) plus the slides, where the band
// of the whole table cost |a| * limit cells (the near miss of a 4 KB
// pattern: 400,000 per position, now a few thousand).
size_t EditDistanceAtMost(std::string_view a, std::string_view b, size_t limit,
                          std::vector<int64_t>* buffer, size_t* steps) {
  const int64_t n = static_cast<int64_t>(a.size()), m = static_cast<int64_t>(b.size());
  const int64_t k = static_cast<int64_t>(limit);
  if (n - m > k || m - n > k) return limit + 1;
  // Slot d + k + 1 holds diagonal d in [-k, k]; the end slots stay -1
  // (unreached), so neighbours need no bounds checks.
  const int64_t width = 2 * k + 3;
  buffer->assign(static_cast<size_t>(2 * width), -1);
  int64_t* previous = buffer->data();
  int64_t* current = previous + width;
  for (int64_t e = 0; e <= k; ++e) {
    const int64_t low = std::max(-e, -n), high = std::min(e, m);
    for (int64_t d = low; d <= high; ++d) {
      const int64_t at = d + k + 1;
      int64_t i = 0;
      if (e > 0) {
        i = -1;  // from e - 1 edits: a substitution, a deletion from a, an insertion
        if (previous[at] >= 0) i = previous[at] + 1;
        if (previous[at + 1] >= 0) i = std::max(i, previous[at + 1] + 1);
        if (previous[at - 1] >= 0) i = std::max(i, previous[at - 1]);
        if (i < 0) continue;
        i = std::min({i, n, m - d});
      }
      const int64_t from = i;
      while (i < n && i + d < m && a[i] == b[i + d]) ++i;
      *steps += static_cast<size_t>(i - from) + 1;
      current[at] = i;
      if (d == m - n && i == n) return static_cast<size_t>(e);
    }
    std::swap(previous, current);
  }
  return limit + 1;
}

}  // namespace

size_t FindNearMiss(std::string_view buffer, std::string_view example, size_t max_steps) {
  // FileCheck's Pattern::printFuzzyMatch: over the first 4096 characters,
  // skipping blanks, the quality of a position is the edit distance of the
  // example and the input from there (cut at the line end, at most as long as
  // the example) plus a hundredth of the lines skipped; the best position
  // (the first of equals) is shown when its quality is under 50 and it is not
  // where the search started.
  constexpr double kWorst = 50;
  size_t lines = 0, best = std::string_view::npos, steps = 0;
  double best_quality = 0;
  std::vector<int64_t> diagonals;
  size_t end = std::min<size_t>(4096, buffer.size());
  for (size_t i = 0; i < end && steps <= max_steps; ++i) {
    if (buffer[i] == '\n') ++lines;
    if (buffer[i] == ' ' || buffer[i] == '\t') continue;
    std::string_view prefix = buffer.substr(i, example.size());
    prefix = prefix.substr(0, prefix.find('\n'));
    double line_cost = static_cast<double>(lines) / 100.;
    // Only distances that can still win (and be shown) are computed exactly.
    double bound = best == std::string_view::npos ? kWorst : std::min(kWorst, best_quality);
    size_t limit = static_cast<size_t>(std::max(0.0, bound - line_cost));
    size_t distance = EditDistanceAtMost(prefix, example, limit, &diagonals, &steps);
    double quality = static_cast<double>(distance) + line_cost;
    if (best == std::string_view::npos || quality < best_quality) {
      best = i;
      best_quality = quality;
    }
  }
  if (best == 0 || best == std::string_view::npos || best_quality >= kWorst) {
    return std::string_view::npos;
  }
  return best;
}

}  // namespace hlo::check
