// Runs golden test files: each RUN line's commands, then the verdict. A
// command line that ends in a checker (hlo-check, FileCheck, diff, or a
// redirection to a file) passes when every command ends as it should; any
// other compares its standard output with NAME.out (RUN) or its standard
// error with NAME.err and its output with NAME.out if present (RUN-ERROR,
// exit status 1). --update rewrites what failed from the current output:
// .out/.err files, the file a `diff FILE -` compared with (NAME.expected.hlo
// when that was the test itself), or the CHECK lines of a test checked with
// `hlo-check %s` (generated, see check_generator.h), one prefix per
// command (each RUN line's own; the next RUN line sees the rewritten file),
// then runs the line again to confirm. It writes nothing from a command
// line whose other commands failed, nor from a checker that did not run to
// a verdict (a missing input, a usage error), and reports a file it could
// not write (a read-only one is left alone) as a failure.
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
  size_t max_output_bytes = size_t{64} << 20;  // one command's stdout + stderr
  std::string tool_directory;
  std::string temp_directory;
  std::string filter;  // RE2 on the file's path relative to its root
};

enum class Verdict { kPass, kFail, kXFail, kXPass };

struct TestOutcome {
  std::string name;    // relative to the root
  bool passed = true;  // the runs' result, before XFAIL
  Verdict verdict = Verdict::kPass;
  std::string reason;   // one line
  std::string details;  // diff or checker messages
  std::vector<std::string> updated;
};

TestOutcome RunTest(const TestFile& test, const RunnerOptions& options);

// Runs every test under `paths` on `options.jobs` threads (fewer, with a
// note, when the system cannot start that many); prints a line per failure
// (FAIL, XPASS) with its details, then `N passed, N failed` (and `, N
// xfail` when some failed as expected). Returns the exit status: 0 when none
// failed, 1 when some did, 2 for a missing path or a bad --filter.
int RunTests(const std::vector<std::string>& paths, const RunnerOptions& options,
             std::ostream& out);

}  // namespace hlo::golden

#endif  // HLO_GOLDEN_RUNNER_H_
