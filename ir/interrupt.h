// SIGINT, SIGTERM and SIGHUP while a tool writes its outputs: the handler
// removes what is half-written (temporaries, staging directories), says on
// stderr what was interrupted and exits with 128 + the signal number.
//
// The handler may run on any thread. The table of what to remove is changed
// only inside a Critical section, which holds the three signals on its own
// thread and takes a lock the handler takes too (and never gives back): the
// handler sees the table whole, and what a Critical section does (create a
// temporary and note it; rename it into place and forget it) is either all
// done or not begun when the handler looks. Only system calls go in a
// Critical section (no allocation), so the handler, which may have stopped
// another thread anywhere, never waits on it for long.
#ifndef HLO_IR_INTERRUPT_H_
#define HLO_IR_INTERRUPT_H_

#include <sys/types.h>

#include <string>

namespace hlo::interrupt {

// Installs the handlers over whatever is there, but a signal that is
// ignored (as under nohup or for a background job) stays ignored. The tools
// call it first thing, so that any interruption ends the same way, writing
// or not: the message ("TOOL: interrupted by SIGTERM") and exit status 128 +
// the signal. The first Critical section of a process installs them too.
void InstallHandlers();

// Holds the signals and the lock for its lifetime; nests.
class Critical {
 public:
  Critical();
  ~Critical();
  Critical(const Critical&) = delete;
  Critical& operator=(const Critical&) = delete;
};

enum class Kind { kFile, kTree };

// Called inside the Critical section that creates `path` (the caller builds
// the strings before entering it; Remember and Forget take one of their own
// too): on a signal, remove `path` (a file, or a directory tree) and, when
// `target` is not empty, name it in the message ("TOOL: interrupted by
// SIGTERM while writing TARGET; nothing written"). Returns a handle for
// Forget, or -1 when the path or target is too long or the table is full:
// then the path is not protected (the write still works).
int Remember(Kind kind, const std::string& path, const std::string& target);
// `handle` (from Remember; -1 is ignored) is done: in the Critical section
// that renames or removes its path.
void Forget(int handle);

// A child process (hlo-test's commands) that the handler first sends the
// same signal, waits for (2 s, then SIGKILL), so that it writes nothing more
// where the handler removes things. Forget it before reaping it (waitid
// with WNOWAIT), while its pid cannot be reused. -1 when the table is full.
int RememberChild(pid_t pid);

// Removes a directory tree with system calls only (the handler's way):
// true when it is gone. For tests.
bool RemoveTree(const char* path);

}  // namespace hlo::interrupt

#endif  // HLO_IR_INTERRUPT_H_
