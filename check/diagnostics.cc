#include "check/diagnostics.h"

#include <algorithm>

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
// limit + 1; only the band of cells within `limit` of the diagonal is
// computed, so the cost is O(|b| * limit).
size_t BandedEditDistance(std::string_view a, std::string_view b, size_t limit,
                          std::vector<size_t>* row_buffer, size_t* cells) {
  size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  const size_t kFar = limit + 1;
  std::vector<size_t>& row = *row_buffer;  // row[j]: distance of a[0,i) and b[0,j)
  row.assign(m + 1, kFar);
  for (size_t j = 0; j <= std::min(m, limit); ++j) row[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    size_t low = i > limit ? i - limit : 0;
    size_t high = std::min(m, i + limit);
    size_t diagonal = low == 0 ? row[0] : row[low - 1];
    if (low == 0) {
      row[0] = i <= limit ? i : kFar;
      low = 1;
    } else {
      row[low - 1] = kFar;
    }
    size_t best = kFar;
    for (size_t j = low; j <= high; ++j) {
      size_t above = row[j];
      size_t value = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      row[j] = std::min(value, kFar);
      diagonal = above;
      best = std::min(best, row[j]);
    }
    *cells += high - low + 1;
    if (best > limit) return kFar;
  }
  return row[m];
}

}  // namespace

size_t FindNearMiss(std::string_view buffer, std::string_view example, size_t max_cells) {
  // FileCheck's Pattern::printFuzzyMatch: over the first 4096 characters,
  // skipping blanks, the quality of a position is the edit distance of the
  // example and the input from there (cut at the line end, at most as long as
  // the example) plus a hundredth of the lines skipped; the best position
  // (the first of equals) is shown when its quality is under 50 and it is not
  // where the search started.
  constexpr double kWorst = 50;
  size_t lines = 0, best = std::string_view::npos, cells = 0;
  double best_quality = 0;
  std::vector<size_t> row;
  size_t end = std::min<size_t>(4096, buffer.size());
  for (size_t i = 0; i < end && cells <= max_cells; ++i) {
    if (buffer[i] == '\n') ++lines;
    if (buffer[i] == ' ' || buffer[i] == '\t') continue;
    std::string_view prefix = buffer.substr(i, example.size());
    prefix = prefix.substr(0, prefix.find('\n'));
    double line_cost = static_cast<double>(lines) / 100.;
    // Only distances that can still win (and be shown) are computed exactly.
    double bound = best == std::string_view::npos ? kWorst : std::min(kWorst, best_quality);
    size_t limit = static_cast<size_t>(std::max(0.0, bound - line_cost));
    size_t distance = BandedEditDistance(prefix, example, limit, &row, &cells);
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
