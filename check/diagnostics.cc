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
                                 diagnostic.severity == Severity::kError ? "error: " : "note: ",
                                 diagnostic.message, "\n");
  std::string_view text = source.Line(line);
  out += std::string(text) + "\n";
  std::string marker(static_cast<size_t>(column - 1), ' ');
  for (size_t i = 0; i < marker.size() && i < text.size(); ++i) {
    if (text[i] == '\t') marker[i] = '\t';
  }
  marker += "^";
  size_t tail = std::min(diagnostic.length, text.size() >= static_cast<size_t>(column)
                                                ? text.size() - column + 1
                                                : size_t{0});
  if (tail > 1) marker += std::string(tail - 1, '~');
  return out + marker + "\n";
}

namespace {

// Levenshtein distance between a and b, giving up above `limit`.
size_t EditDistance(std::string_view a, std::string_view b, size_t limit) {
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    size_t best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
  }
  return row[b.size()];
}

}  // namespace

size_t FindNearMiss(std::string_view input, size_t from, std::string_view wanted,
                    size_t max_lines) {
  if (wanted.empty()) return std::string_view::npos;
  size_t best_offset = std::string_view::npos;
  // A line qualifies when a substring of it is within a third of the pattern's
  // length of edits (FileCheck's quality bar is similar).
  size_t best_distance = wanted.size() / 3 + 1;
  size_t line_start = from;
  for (size_t lines = 0; line_start <= input.size() && lines < max_lines; ++lines) {
    size_t line_end = input.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = input.size();
    std::string_view line = input.substr(line_start, line_end - line_start);
    // Compare with every window of the pattern's length (the pattern may sit
    // anywhere in the line).
    size_t width = std::min(line.size(), wanted.size() + 2);
    for (size_t start = 0; start + width <= line.size(); ++start) {
      if (line.size() > 2000 && start % 8 != 0) continue;
      if (line[start] == ' ' && wanted[0] != ' ') continue;
      size_t distance = EditDistance(wanted, line.substr(start, width), best_distance - 1);
      if (distance < best_distance) {
        best_distance = distance;
        best_offset = line_start + start;
        if (distance == 0) break;
      }
    }
    if (line_end == input.size()) break;
    line_start = line_end + 1;
  }
  return best_offset;
}

}  // namespace hlo::check
