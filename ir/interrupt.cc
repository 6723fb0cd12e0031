#include "ir/interrupt.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace hlo::interrupt {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
// Enough for hlo-test's jobs writing at once; a path longer than a slot is
// written unprotected.
constexpr int kSlots = 256;
constexpr size_t kPathBytes = 2048;
constexpr size_t kTargetBytes = 1024;
// The handler removes trees this deep at most (staging directories are flat
// or hold one level of subdirectories; hlo-test's %t files a few).
constexpr int kMaxDepth = 16;

struct Slot {
  bool used;
  bool child;  // pid, not path
  pid_t pid;
  Kind kind;
  char path[kPathBytes];
  char target[kTargetBytes];
};
Slot g_slots[kSlots];

// 0: free; 1: held by a Critical section; 2: taken by the handler, for good.
constexpr int kFree = 0, kHeld = 1, kTaken = 2;
std::atomic<int> g_lock{kFree};
thread_local int t_depth = 0;
thread_local sigset_t t_saved_mask;

sigset_t HeldSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kSignals) sigaddset(&set, sig);
  return set;
}

[[noreturn]] void WaitForExit() {
  for (;;) pause();  // the handler on another thread is ending the process
}

void Nap() {
  timespec ts{0, 100'000};
  nanosleep(&ts, nullptr);
}

const char* SignalName(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

// A message built without allocation.
struct Message {
  char text[4096];
  size_t size = 0;
  void Add(const char* s) {
    while (*s != '\0' && size + 1 < sizeof(text)) text[size++] = *s++;
  }
};

bool RemoveTreeAt(int parent, const char* name, int depth) {
  if (unlinkat(parent, name, 0) == 0 || errno == ENOENT) return true;
  if (depth >= kMaxDepth) return false;
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  // Entries removed while reading may hide others: read again from the
  // start while anything goes.
  alignas(8) char buffer[2048];
  bool gone = false;
  for (int pass = 0; pass < 64 && !gone; ++pass) {
    bool removed = false;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
      long n = syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
      if (n <= 0) break;
      // linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name.
      for (long at = 0; at < n;) {
        uint16_t reclen;
        std::memcpy(&reclen, buffer + at + 16, sizeof(reclen));
        const char* entry = buffer + at + 19;
        at += reclen;
        if (std::strcmp(entry, ".") == 0 || std::strcmp(entry, "..") == 0) continue;
        removed |= RemoveTreeAt(fd, entry, depth + 1);
      }
    }
    gone = unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
    if (!removed) break;
  }
  close(fd);
  return gone;
}

// Sends the children `sig` and reaps them: 2 s for them to end (ours clean
// up and exit at once), then SIGKILL.
void EndChildren(int sig) {
  for (Slot& slot : g_slots) {
    if (slot.used && slot.child) kill(slot.pid, sig);
  }
  for (int tick = 0;; ++tick) {
    bool running = false;
    for (Slot& slot : g_slots) {
      if (!slot.used || !slot.child) continue;
      if (tick == 200) kill(slot.pid, SIGKILL);
      pid_t r = waitpid(slot.pid, nullptr, tick < 200 ? WNOHANG : 0);
      if (r == slot.pid || (r < 0 && errno != EINTR)) {
        slot.used = false;
      } else {
        running = true;
      }
    }
    if (!running) return;
    timespec ts{0, 10'000'000};
    nanosleep(&ts, nullptr);
  }
}

void Handle(int sig) {
  int saved_errno = errno;
  for (;;) {
    int expected = kFree;
    if (g_lock.compare_exchange_strong(expected, kTaken, std::memory_order_acquire)) break;
    if (expected == kTaken) WaitForExit();
    Nap();  // a Critical section on another thread ends soon
  }
  EndChildren(sig);
  Message m;
  m.Add(program_invocation_short_name);
  m.Add(": interrupted by ");
  m.Add(SignalName(sig));
  bool named = false;
  for (Slot& slot : g_slots) {
    if (!slot.used || slot.child) continue;
    if (slot.kind == Kind::kFile) {
      unlink(slot.path);
    } else {
      RemoveTreeAt(AT_FDCWD, slot.path, 0);
    }
    if (slot.target[0] == '\0') continue;
    m.Add(named ? ", " : " while writing ");
    m.Add(slot.target);
    named = true;
  }
  if (named) m.Add("; nothing written");
  m.Add("\n");
  ssize_t ignored = write(STDERR_FILENO, m.text, m.size);
  (void)ignored;
  errno = saved_errno;
  _exit(128 + sig);
}

void Install() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = Handle;
  action.sa_mask = HeldSignals();
  for (int sig : kSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
}

bool Fits(const std::string& s, size_t bytes) {
  return s.size() < bytes && s.find('\0') == std::string::npos;
}

}  // namespace

void InstallHandlers() { Install(); }

Critical::Critical() {
  if (t_depth++ > 0) return;
  static std::once_flag installed;
  std::call_once(installed, Install);
  sigset_t held = HeldSignals();
  pthread_sigmask(SIG_BLOCK, &held, &t_saved_mask);
  for (int tries = 0;; ++tries) {
    int expected = kFree;
    if (g_lock.compare_exchange_weak(expected, kHeld, std::memory_order_acquire)) return;
    if (expected == kTaken) WaitForExit();
    if (tries < 100) {
      sched_yield();
    } else {
      Nap();
    }
  }
}

Critical::~Critical() {
  if (--t_depth > 0) return;
  g_lock.store(kFree, std::memory_order_release);
  pthread_sigmask(SIG_SETMASK, &t_saved_mask, nullptr);
}

int Remember(Kind kind, const std::string& path, const std::string& target) {
  if (!Fits(path, kPathBytes) || !Fits(target, kTargetBytes)) return -1;
  Critical critical;
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.used) continue;
    slot.child = false;
    slot.kind = kind;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    std::memcpy(slot.target, target.c_str(), target.size() + 1);
    slot.used = true;
    return i;
  }
  return -1;
}

int RememberChild(pid_t pid) {
  Critical critical;
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.used) continue;
    slot.child = true;
    slot.pid = pid;
    slot.used = true;
    return i;
  }
  return -1;
}

void Forget(int handle) {
  if (handle < 0 || handle >= kSlots) return;
  Critical critical;
  g_slots[handle].used = false;
}

bool RemoveTree(const char* path) { return RemoveTreeAt(AT_FDCWD, path, 0); }

}  // namespace hlo::interrupt
