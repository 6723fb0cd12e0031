// Runs a test command for the reducer: in a process group of its own, its
// standard output and error into a file, killed with its group at a
// deadline. A command that hangs or dies is an outcome, never an error of
// the reducer.
#ifndef HLO_REDUCE_SUBPROCESS_H_
#define HLO_REDUCE_SUBPROCESS_H_

#include <atomic>
#include <string>
#include <vector>

namespace hlo::reduce {

struct ProcessResult {
  bool started = false;    // false: fork or exec failed (`output` says why)
  bool cancelled = false;  // killed because the thread's cancel flag was set
  bool timed_out = false;  // killed at the deadline
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal ended it (not our SIGKILL)
  double seconds = 0;      // wall time
  std::string output;      // standard output and error (at most 1 MiB)
};

// Runs argv[0] (found on PATH when it has no '/') with `argv`, standard
// input from /dev/null and both outputs into `log_path`.
// The calling thread's cancel flag (null: none): a run sees it set and
// kills its command (the reducer's workers, when an earlier candidate was
// found interesting and theirs no longer matters).
void SetThreadCancelFlag(const std::atomic<bool>* flag);

// The folder of this program when hlo-run is beside it (the build's bin/),
// else "" (the tools are then looked up on PATH).
std::string ToolDirBesideSelf();

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& log_path,
                         double timeout_seconds);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_SUBPROCESS_H_
