// A golden test file: its RUN lines (`// RUN: CMD`, `// RUN-ERROR: CMD`, a
// trailing `\` continuing on the next RUN line), or, for a file with none,
// the default RUN lines of the nearest `hlo-test.cfg` above it. A config
// file holds `run: CMD` / `run-error: CMD` lines and `#` comments. The
// suite root, where commands run and against which %s is relative, is the
// highest directory above the file that holds an hlo-test.cfg (else the
// directory given on the command line).
//
// `exclude: NAME` in a config leaves NAME (beside the config) out of the
// search for tests.
//
// `// XFAIL: *` marks a test expected to fail, as in lit: it counts as
// XFAIL when it fails and as a failure (XPASS) when it passes; --update
// leaves it alone. hlo-test has no features, so `*` is the only value.
//
// Substitutions: %s the file, %S its directory, %t a temporary file of its
// own, %T the temporary directory, %{expected} NAME.expected.hlo beside the
// file when that exists, else the file itself, %% a percent sign. A path
// with blanks, quotes or shell operators is substituted single-quoted.
#ifndef HLO_GOLDEN_TEST_FILE_H_
#define HLO_GOLDEN_TEST_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo::golden {

struct RunLine {
  bool expect_error = false;  // RUN-ERROR: the command exits 1, stderr is compared with NAME.err
  std::string command;
  int line = 0;  // 0: from hlo-test.cfg
};

struct TestFile {
  std::string root;      // suite root (absolute)
  std::string relative;  // the file, relative to root
  std::vector<RunLine> runs;
  std::string text;
  bool xfail = false;  // `// XFAIL: *`
};

// Finds the .hlo files under `path` (a file or a directory; NAME.expected.hlo
// files are expected outputs, not tests), sorted, minus what the folders'
// hlo-test.cfg `exclude:` lines name. A config that cannot be read or has a
// line that is not a comment, run:, run-error: or exclude: is an error.
absl::StatusOr<std::vector<std::string>> FindTestFiles(const std::string& path);
// The suite root for a file found under `given`.
std::string SuiteRoot(const std::string& file, const std::string& given);
absl::StatusOr<TestFile> LoadTestFile(const std::string& path, const std::string& root);
// The file's RUN lines parsed from its text (no defaults).
std::vector<RunLine> ParseRunLines(const std::string& text);
// Whether the text has an `// XFAIL: *` line; an error (naming `path` and
// the line) for any other XFAIL value.
absl::StatusOr<bool> ParseXfail(const std::string& text, const std::string& path);
std::string Substitute(const std::string& command, const TestFile& test,
                       const std::string& temp_dir);
// The path (relative to the root) of NAME.<suffix> beside the test file.
std::string SiblingPath(const TestFile& test, const std::string& suffix);

}  // namespace hlo::golden

#endif  // HLO_GOLDEN_TEST_FILE_H_
