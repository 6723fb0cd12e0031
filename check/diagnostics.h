// hlo-check's messages, in FileCheck's form: `FILE:LINE:COL: error: what`,
// then the source line and a caret under the position.
#ifndef HLO_CHECK_DIAGNOSTICS_H_
#define HLO_CHECK_DIAGNOSTICS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "check/source_text.h"

namespace hlo::check {

enum class Severity { kError, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  const SourceText* source = nullptr;  // null: a message without a location
  size_t offset = 0;
  size_t length = 0;  // characters underlined after the caret (0: a caret alone)
  std::string message;
};

class Diagnostics {
 public:
  void Error(const SourceText* source, size_t offset, std::string message, size_t length = 0);
  void Note(const SourceText* source, size_t offset, std::string message, size_t length = 0);
  void Plain(std::string message);

  bool has_errors() const { return errors_ > 0; }
  const std::vector<Diagnostic>& all() const { return all_; }
  std::string Render() const;

 private:
  std::vector<Diagnostic> all_;
  int errors_ = 0;
};

std::string RenderDiagnostic(const Diagnostic& diagnostic);

// The line of `input` from `from` on (at most `max_lines` lines) that is most
// like `wanted` (by edit distance), as FileCheck's "possible intended match";
// returns an offset, or npos when no line shares enough with it.
size_t FindNearMiss(std::string_view input, size_t from, std::string_view wanted,
                    size_t max_lines = 4000);

}  // namespace hlo::check

#endif  // HLO_CHECK_DIAGNOSTICS_H_
