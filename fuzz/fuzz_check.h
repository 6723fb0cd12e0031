// What every fuzz target checks besides "no crash, no sanitizer report":
// an error a reader gives is a located diagnostic, and a broken invariant
// stops the run with the input's story on stderr (libFuzzer saves the input).
#ifndef HLO_FUZZ_FUZZ_CHECK_H_
#define HLO_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ir/module.h"

namespace hlo::fuzz {

// absl's string_view is its own type on Debian.
inline std::string_view Text(absl::string_view s) { return {s.data(), s.size()}; }

// Stops the run: libFuzzer reports the abort as a crash and saves the input.
[[noreturn]] inline void Fail(std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz check failed: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// True when `message` starts `FILE:LINE:COL: error: ` (LINE and COL numbers
// of at least 1) or `FILE: error: ` (readers of JSON and .npy name no line).
inline bool StartsWithDiagnostic(std::string_view message, std::string_view file) {
  if (message.substr(0, file.size()) != file) return false;
  message.remove_prefix(file.size());
  for (int field = 0; field < 2 && !message.empty() && message[0] == ':'; ++field) {
    size_t digits = 1;
    while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9') {
      ++digits;
    }
    if (digits == 1) break;  // `FILE: error:` has no numbers
    if (message.substr(1, digits - 1).find_first_not_of('0') == std::string_view::npos) {
      return false;  // line or column 0
    }
    message.remove_prefix(digits);
  }
  return message.substr(0, 9) == ": error: ";
}

// A reader's error must name where the problem is.
inline void CheckLocated(const absl::Status& status, std::string_view file) {
  if (!StartsWithDiagnostic(Text(status.message()), file)) {
    Fail("an error without a location", Text(status.message()));
  }
}

// Whether every array of every instruction of `module` (tuples opened) has
// at most `max_elements` elements: targets that evaluate leave larger
// modules out (an execution would take seconds and find nothing more).
inline bool ShapesAtMost(const Shape& shape, int64_t max_elements) {
  if (shape.IsTuple()) {
    for (const Shape* s : shape.tuple_shapes()) {
      if (!ShapesAtMost(*s, max_elements)) return false;
    }
    return true;
  }
  if (!shape.IsArray()) return true;
  const int64_t n = shape.ElementCount();
  return n >= 0 && n <= max_elements;
}
inline bool ShapesAtMost(const Module& module, int64_t max_elements) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (!ShapesAtMost(inst->shape(), max_elements)) return false;
    }
  }
  return true;
}

}  // namespace hlo::fuzz

#endif  // HLO_FUZZ_FUZZ_CHECK_H_
