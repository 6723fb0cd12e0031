#include "check/input_dump.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hlo::check {

std::string RenderInputDump(const SourceText& input, const std::string& check_name,
                            const std::vector<Annotation>& annotations, int context) {
  int lines = input.line_count();
  if (lines > 1 && input.Line(lines).empty()) --lines;  // after the last line end
  std::vector<bool> shown(lines + 2, context < 0);
  for (const Annotation& annotation : annotations) {
    if (annotation.kind == Annotation::Kind::kMatch || context < 0) continue;
    int line = input.LineOf(annotation.begin);
    for (int k = std::max(1, line - context); k <= std::min(lines, line + context); ++k) {
      shown[k] = true;
    }
  }
  std::string out = absl::StrCat("\nInput file: ", input.name(), "\nCheck file: ", check_name,
                                 "\n\nInput was:\n<<<<<<\n");
  bool elided = false;
  for (int line = 1; line <= lines; ++line) {
    if (!shown[line]) {
      if (!elided) out += "          .\n          .\n          .\n";
      elided = true;
      continue;
    }
    elided = false;
    out += absl::StrFormat("%8d: %s\n", line, input.Line(line));
    for (const Annotation& annotation : annotations) {
      if (input.LineOf(annotation.begin) != line) continue;
      int column = input.ColumnOf(annotation.begin);
      size_t line_end = input.LineStart(line) + input.Line(line).size();
      size_t width = std::max<size_t>(
          1, std::min(annotation.end, line_end) - std::min(annotation.begin, line_end));
      char head = annotation.kind == Annotation::Kind::kMatch      ? '^'
                  : annotation.kind == Annotation::Kind::kExcluded ? '!'
                  : annotation.kind == Annotation::Kind::kNote     ? '?'
                                                                   : 'X';
      std::string marker(width, '~');
      marker[0] = head;
      out += absl::StrFormat("%-8s  %s%s %s\n", annotation.label,
                             std::string(static_cast<size_t>(column - 1), ' '), marker,
                             annotation.message);
    }
  }
  out += ">>>>>>\n";
  return out;
}

}  // namespace hlo::check
