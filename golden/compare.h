// Golden comparisons: texts are equal when they differ only in blanks at
// line ends and blank lines at the end; a difference is shown as a unified
// diff, per `// -----` case when the texts have several.
#ifndef HLO_GOLDEN_COMPARE_H_
#define HLO_GOLDEN_COMPARE_H_

#include <string>
#include <string_view>
#include <vector>

namespace hlo::golden {

std::string NormalizeTrailing(std::string_view text);
bool SameText(std::string_view expected, std::string_view actual);
// A unified diff (at most `max_lines` lines) of expected against actual.
std::string UnifiedDiff(std::string_view expected, std::string_view actual,
                        const std::string& expected_name, const std::string& actual_name,
                        size_t max_lines = 60);
// The text split at lines that are `// -----` (the separators dropped).
std::vector<std::string> SplitCases(std::string_view text);
// Which cases differ (1-based), when both texts have the same number of
// cases; empty otherwise.
std::vector<int> DifferingCases(std::string_view expected, std::string_view actual);

// Reads a file of at most `max_bytes` (and at most hlo::MaxInputBytes(),
// hlo-run's bound); on failure `error` (when given) says why ("PATH: Is a
// directory", "PATH: the input (more than N bytes) exceeds the input limit
// of L bytes").
constexpr size_t kMaxReadBytes = size_t{1} << 30;
bool ReadFile(const std::string& path, std::string* text, std::string* error = nullptr,
              size_t max_bytes = kMaxReadBytes);
// Replaces the file through a temporary and a rename, keeping an existing
// file's mode; refuses a read-only file or a directory. On failure `error`
// (when given) names the file and the reason.
bool WriteFile(const std::string& path, const std::string& text, std::string* error = nullptr);

}  // namespace hlo::golden

#endif  // HLO_GOLDEN_COMPARE_H_
