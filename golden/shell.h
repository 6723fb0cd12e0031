// The small shell that runs RUN lines: commands joined by `|` and `&&`,
// `not` before a command (it must fail), redirections (`2>&1`, `> FILE`,
// `2> FILE`, `< FILE`), quoting as sh does ('...', "...", backslash), and
// the builtins `diff A B` (`-` is standard input; trailing blanks aside,
// as the golden comparisons), `echo` and `cat`. Commands of a pipeline run one
// after another, each reading what the previous one wrote. As in sh, a
// redirection that cannot be opened fails its command (status 1, "cannot
// open") without running it. Each program runs in a process group of its
// own, killed whole when it runs past the timeout or writes more than the
// output limit, and when it exits (nothing it started outlives it).
#ifndef HLO_GOLDEN_SHELL_H_
#define HLO_GOLDEN_SHELL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo::golden {

struct Command {
  std::vector<std::string> argv;
  bool negate = false;        // `not CMD`
  bool merge_stderr = false;  // `2>&1`
  std::string stdout_file;    // `> FILE`
  std::string stderr_file;    // `2> FILE`
  std::string stdin_file;     // `< FILE`
};

// A pipeline: commands joined by `|`.
using Pipeline = std::vector<Command>;

// Parses a command line into pipelines joined by `&&`.
absl::StatusOr<std::vector<Pipeline>> ParseCommandLine(const std::string& line);

// Statuses of a command hlo-test stopped, or could not start.
constexpr int kStatusTimedOut = 124;
constexpr int kStatusOutputLimit = 125;
constexpr int kStatusNotFound = 127;

struct CommandResult {
  std::string program;
  int status = 0;                // exit status; 128 + N when killed by signal N
  bool ok = true;                // status as wanted (0, or non-zero under `not`)
  bool redirect_failed = false;  // a `<`, `>` or `2>` file could not be opened or written
  std::string stderr_text;       // also under 2>&1 (for reports)
  // hlo-test's own word on the command (it was killed, could not start, a
  // redirection failed), also the last line of stderr_text after "hlo-test: ".
  std::string note;
};

struct ShellResult {
  std::vector<CommandResult> commands;
  std::string stdout_text;   // of the last command
  std::string stderr_text;   // of the last command
  int status = 0;            // of the last command, before `not`
  bool ok = true;            // every command ended as wanted
  bool last_checks = false;  // the last command compares (hlo-check, diff) or writes a file
  std::string last_program;
  std::string last_input;  // what the last command read
  // `diff EXPECTED -` in the last command: the file it compared with.
  std::string diff_expected_file;
};

struct ShellOptions {
  std::string working_directory;
  std::string tool_directory;  // hlo-opt, hlo-run, hlo-check are found here first
  int timeout_seconds = 600;
  size_t max_output_bytes = size_t{64} << 20;  // stdout + stderr of one command
};

ShellResult RunCommandLine(const std::vector<Pipeline>& pipelines, const ShellOptions& options);

// Runs one program (found as ShellOptions says) with `input` on its standard
// input; collects its standard output and error.
// hlo-test's own word on it, if any, goes to `note` too (CommandResult::note).
int RunProgram(const std::vector<std::string>& argv, const std::string& input,
               const ShellOptions& options, std::string* out, std::string* err,
               std::string* note = nullptr);

// Kills the process group of every command running now (async-signal-safe:
// for a SIGINT/SIGTERM handler, so nothing outlives an interrupted run).
void KillRunningCommands();

}  // namespace hlo::golden

#endif  // HLO_GOLDEN_SHELL_H_
