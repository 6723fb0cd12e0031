// Reading a check file: finds the directives (PREFIX:, PREFIX-NEXT:, -SAME,
// -NOT, -DAG, -LABEL, -EMPTY, -COUNT-N, with an optional {LITERAL}) and
// parses their patterns, in FileCheck's manner: a prefix counts only where it
// does not continue a word, comment prefixes (COM, RUN) hide the rest of
// their line, and CHECK-NOT/-DAG lines attach to the next positive check.
#ifndef HLO_CHECK_DIRECTIVES_H_
#define HLO_CHECK_DIRECTIVES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "check/check_options.h"
#include "check/diagnostics.h"
#include "check/pattern.h"
#include "check/source_text.h"

namespace hlo::check {

// A pattern and where it was written.
struct LocatedPattern {
  Pattern pattern;
  const SourceText* source = nullptr;  // the check file, or the command line
  size_t offset = 0;                   // of the pattern text
  std::string directive;               // as written: CHECK-NEXT, CHECK-COUNT-3, ...
};

// A positive check with the CHECK-NOT/-DAG lines before it (FileCheck's
// FileCheckString). The last one may be the end-of-input check that carries
// trailing CHECK-NOT/-DAG lines.
struct CheckString {
  LocatedPattern check;
  int count = 1;
  std::vector<LocatedPattern> dag_not;
};

// Parses `check_file`. On a malformed check file adds the error to
// `diagnostics` and returns it with its verdict (check/check_status.h:
// kBadCheckFile with FileCheck's exit status, 2 or 1 for the errors on which
// FileCheck exits at once; kNoCheckStrings). `command_line` holds the
// --implicit-check-not patterns' text for their diagnostics; `names` those -D
// defined (the file's are added).
absl::StatusOr<std::vector<CheckString>> ParseCheckFile(const SourceText& check_file,
                                                        const SourceText& command_line,
                                                        const CheckOptions& options,
                                                        Diagnostics* diagnostics,
                                                        VariableNames* names);

// The prefixes in effect: --check-prefix(es), or CHECK.
std::vector<std::string> CheckPrefixes(const CheckOptions& options);
// Whether the prefixes are valid (letters, digits, '-', '_', starting with a
// letter) and unique across check and comment prefixes.
bool ValidPrefixes(const CheckOptions& options);
// The text of the implicit-check-not command line, one pattern per line.
std::string ImplicitCheckNotText(const CheckOptions& options);

}  // namespace hlo::check

#endif  // HLO_CHECK_DIRECTIVES_H_
