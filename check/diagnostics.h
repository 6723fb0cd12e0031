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

enum class Severity { kError, kNote, kRemark };

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
  void Remark(const SourceText* source, size_t offset, std::string message, size_t length = 0);
  void Plain(std::string message);

  bool has_errors() const { return errors_ > 0; }
  const std::vector<Diagnostic>& all() const { return all_; }
  std::string Render() const;

 private:
  std::vector<Diagnostic> all_;
  int errors_ = 0;
};

std::string RenderDiagnostic(const Diagnostic& diagnostic);

// FileCheck's "possible intended match": the offset in `buffer` (the text a
// failed directive searched) most like `example` (Pattern::example()), or
// npos. As FileCheck, it looks at the first 4096 characters only; only
// edit distances under 50 are computed (they alone are shown), and the
// search stops early after `max_steps` steps of them, so its cost is
// bounded whatever the input and the pattern.
size_t FindNearMiss(std::string_view buffer, std::string_view example,
                    size_t max_steps = 200'000'000);

}  // namespace hlo::check

#endif  // HLO_CHECK_DIAGNOSTICS_H_
