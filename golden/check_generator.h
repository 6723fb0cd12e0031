// CHECK lines written from a tool's output, in the manner of XLA's
// generate_hlo_test_checks.py: `HloModule` lines and the first line of each
// block (a computation header, cut to its keywords and %name) become
// CHECK-LABEL, the lines after them CHECK-NEXT; closing braces are left out;
// in every other line each `%name` becomes a FileCheck capture
// `[[name:[^ ]+]]` where it is first seen and `[[name]]` after (names local
// to a computation are forgotten at its closing brace; computation names are
// global, `$`-prefixed). Text FileCheck would read as a block (`{{`, `[[`) is
// escaped. hlo-test --update uses it to rewrite the CHECK lines of a test.
#ifndef HLO_GOLDEN_CHECK_GENERATOR_H_
#define HLO_GOLDEN_CHECK_GENERATOR_H_

#include <string>
#include <string_view>
#include <vector>

namespace hlo::golden {

// CHECK lines (each `// PREFIX...: text`) for one output case.
std::vector<std::string> GenerateCheckLines(std::string_view output, const std::string& prefix);

// The test file's text with its `// PREFIX` lines replaced by lines generated
// from `output`: the lines of output case k go at the top of file case k
// (cases split at `// -----`), after the case's leading comment lines; when
// the numbers of cases differ, all go after the first case's comments.
std::string RewriteCheckLines(std::string_view file_text, std::string_view output,
                              const std::string& prefix);

}  // namespace hlo::golden

#endif  // HLO_GOLDEN_CHECK_GENERATOR_H_
