// Runs golden test files: each RUN line's commands, then the verdict. A
// command line that ends in a checker (hlo-check, FileCheck, diff, or a
// redirection to a file) passes when every command ends as it should; any
// other compares its standard output with NAME.out (RUN) or its standard
// error with NAME.err and its output with NAME.out if present (RUN-ERROR,
// exit status 1). --update rewrites what failed from the current output:
// .out/.err files, the file a `diff FILE -` compared with (NAME.expected.hlo
// when that was the test itself), or the CHECK lines of a test checked with
// `hlo-check %s` (generated, see check_generator.h).
#ifndef HLO_GOLDEN_RUNNER_H_
#define HLO_GOLDEN_RUNNER_H_

#include <ostream>
#include <string>
#include <vector>

#include "golden/test_file.h"

namespace hlo::golden {

struct RunnerOptions {
  int jobs = 1;
  bool update = false;
  bool verbose = false;
  int timeout_seconds = 600;
  std::string tool_directory;
  std::string temp_directory;
  std::string filter;  // RE2 on the file's path relative to its root
};

struct TestOutcome {
  std::string name;  // relative to the root
  bool passed = true;
  std::string reason;   // one line
  std::string details;  // diff or checker messages
  std::vector<std::string> updated;
};

TestOutcome RunTest(const TestFile& test, const RunnerOptions& options);

// Runs every test under `paths` on `options.jobs` threads; prints a line per
// failure with its details, then `N passed, N failed`. Returns the exit
// status (0 when none failed).
int RunTests(const std::vector<std::string>& paths, const RunnerOptions& options,
             std::ostream& out);

}  // namespace hlo::golden

#endif  // HLO_GOLDEN_RUNNER_H_
