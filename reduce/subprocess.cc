#include "reduce/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "ir/interrupt.h"

namespace hlo::reduce {
namespace {

constexpr int kNotFound = 127;
constexpr size_t kOutputLimit = size_t{1} << 20;

bool Exited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno != EINTR;
  return info.si_pid == pid;
}

std::string ReadLog(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out(kOutputLimit, '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  out.resize(got);
  return out;
}

thread_local const std::atomic<bool>* t_cancel = nullptr;

}  // namespace

void SetThreadCancelFlag(const std::atomic<bool>* flag) { t_cancel = flag; }

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& log_path,
                         double timeout_seconds) {
  ProcessResult r;
  int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null_in < 0) {
    r.output = log_path + ": cannot open: " + std::strerror(errno);
    if (log >= 0) close(log);
    if (null_in >= 0) close(null_in);
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(null_in, 0);
    dup2(log, 1);
    dup2(log, 2);
    execvp(args[0], args.data());
    _exit(kNotFound);
  }
  close(log);
  close(null_in);
  if (pid < 0) {
    r.output = std::string("cannot fork: ") + std::strerror(errno);
    return r;
  }
  setpgid(pid, pid);
  int slot = interrupt::RememberChild(pid);
  r.started = true;
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_seconds));
  for (int pause_ms = 1; !Exited(pid);) {
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      break;
    }
    if (t_cancel != nullptr && t_cancel->load()) {
      r.cancelled = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    pause_ms = std::min(pause_ms * 2, 20);
  }
  // What the command left running in its group goes with it.
  kill(-pid, SIGKILL);
  interrupt::Forget(slot);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.timed_out && !r.cancelled) {
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  }
  r.output = ReadLog(log_path);
  return r;
}

std::string ToolDirBesideSelf() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  return access((dir + "/hlo-run").c_str(), X_OK) == 0 ? dir : "";
}

}  // namespace hlo::reduce
