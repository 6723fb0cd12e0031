#include "golden/shell.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "check/source_text.h"
#include "golden/compare.h"

namespace hlo::golden {

namespace {

// hlo-test's own word on a command: "hlo-test: TEXT" at the end of its
// stderr, and TEXT in `note` (when given) for the report.
void Note(std::string* err, std::string* note, const std::string& text) {
  absl::StrAppend(err, "hlo-test: ", text, "\n");
  if (note != nullptr) *note = text;
}

struct Token {
  std::string text;
  bool quoted = false;
};

absl::StatusOr<std::vector<Token>> Tokenize(const std::string& line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t') {
      ++i;
      continue;
    }
    // Operators stand alone: |, &&, 2>&1, 2>, >, <.
    for (std::string_view op : {"2>&1", "&&", "2>", "|", ">", "<"}) {
      if (line.compare(i, op.size(), op) == 0) {
        tokens.push_back({std::string(op), false});
        i += op.size();
        goto next;
      }
    }
    {
      Token token;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '|' &&
             line[i] != '>' && line[i] != '<' && line.compare(i, 2, "&&") != 0) {
        char c = line[i];
        if (c == '\'') {
          size_t close = line.find('\'', i + 1);
          if (close == std::string::npos) return absl::InvalidArgumentError("unclosed '");
          token.text += line.substr(i + 1, close - i - 1);
          token.quoted = true;
          i = close + 1;
        } else if (c == '"') {
          ++i;
          while (i < line.size() && line[i] != '"') {
            if (line[i] == '\\' && i + 1 < line.size() &&
                (line[i + 1] == '"' || line[i + 1] == '\\' || line[i + 1] == '$')) {
              ++i;
            }
            token.text += line[i++];
          }
          if (i >= line.size()) return absl::InvalidArgumentError("unclosed \"");
          ++i;
          token.quoted = true;
        } else if (c == '\\' && i + 1 < line.size()) {
          token.text += line[i + 1];
          token.quoted = true;
          i += 2;
        } else {
          token.text += c;
          ++i;
        }
      }
      tokens.push_back(std::move(token));
    }
  next:;
  }
  return tokens;
}

bool IsOperator(const std::string& text) {
  for (std::string_view op : {"2>&1", "&&", "2>", "|", ">", "<"}) {
    if (text == op) return true;
  }
  return false;
}

std::string FindProgram(const std::string& name, const ShellOptions& options) {
  std::string program = name == "FileCheck" ? "hlo-check" : name;
  if (program.find('/') != std::string::npos) return program;
  std::string local = absl::StrCat(options.tool_directory, "/", program);
  if (!options.tool_directory.empty() && access(local.c_str(), X_OK) == 0) return local;
  const char* path = std::getenv("PATH");
  std::string directories = path ? path : "/usr/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(directories, ':')) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string ResolvePath(const std::string& path, const ShellOptions& options) {
  if (path.empty() || path[0] == '/' || options.working_directory.empty()) return path;
  return absl::StrCat(options.working_directory, "/", path);
}

// The reason of a ReadFile/WriteFile error ("PATH: reason" -> "reason").
std::string ErrorReason(const std::string& error) {
  size_t colon = error.rfind(": ");
  return colon == std::string::npos ? error : error.substr(colon + 2);
}

// `diff A B`: status 0 when the texts are equal (trailing blanks aside), 1
// with a unified diff on stdout otherwise, 2 when a file cannot be read.
int BuiltinDiff(const std::vector<std::string>& argv, const std::string& input,
                const ShellOptions& options, std::string* out, std::string* err) {
  std::vector<std::string> files;
  for (size_t k = 1; k < argv.size(); ++k) {
    if (argv[k].size() > 1 && argv[k][0] == '-') continue;  // options: comparison is fixed
    files.push_back(argv[k]);
  }
  if (files.size() != 2) {
    *err = "diff: expected two files\n";
    return 2;
  }
  std::string texts[2];
  for (int k = 0; k < 2; ++k) {
    if (files[k] == "-") {
      texts[k] = input;
    } else if (std::string why; !ReadFile(ResolvePath(files[k], options), &texts[k], &why,
                                          options.max_output_bytes)) {
      *err = absl::StrCat("diff: cannot read ", files[k], ": ", ErrorReason(why), "\n");
      return 2;
    }
  }
  if (SameText(texts[0], texts[1])) return 0;
  *out = UnifiedDiff(texts[0], texts[1], files[0], files[1]);
  return 1;
}

int RunBuiltin(const std::vector<std::string>& argv, const std::string& input,
               const ShellOptions& options, std::string* out, std::string* err, bool* handled) {
  *handled = true;
  if (argv[0] == "diff") return BuiltinDiff(argv, input, options, out, err);
  if (argv[0] == "echo") {
    for (size_t k = 1; k < argv.size(); ++k) absl::StrAppend(out, k > 1 ? " " : "", argv[k]);
    *out += "\n";
    return 0;
  }
  if (argv[0] == "cat") {
    if (argv.size() == 1) {
      *out = input;
      return 0;
    }
    for (size_t k = 1; k < argv.size(); ++k) {
      std::string text;
      if (argv[k] == "-") {
        text = input;
      } else if (std::string why;
                 !ReadFile(ResolvePath(argv[k], options), &text, &why, options.max_output_bytes)) {
        *err += absl::StrCat("cat: cannot read ", argv[k], ": ", ErrorReason(why), "\n");
        return 1;
      }
      *out += text;
    }
    return 0;
  }
  *handled = false;
  return 0;
}

}  // namespace

absl::StatusOr<std::vector<Pipeline>> ParseCommandLine(const std::string& line) {
  auto tokens = Tokenize(line);
  if (!tokens.ok()) return tokens.status();
  std::vector<Pipeline> pipelines(1, Pipeline(1));
  for (size_t k = 0; k < tokens->size(); ++k) {
    const Token& token = (*tokens)[k];
    Command& command = pipelines.back().back();
    auto operand = [&](const char* what) -> absl::StatusOr<std::string> {
      const Token* next = k + 1 < tokens->size() ? &(*tokens)[k + 1] : nullptr;
      // `> > f` or `>> f` (appending is not supported) is no file name `>`.
      if (next == nullptr || (!next->quoted && IsOperator(next->text))) {
        return absl::InvalidArgumentError(absl::StrCat("missing file after ", what));
      }
      ++k;
      return next->text;
    };
    if (!token.quoted && (token.text == "|" || token.text == "&&")) {
      if (command.argv.empty()) {
        return absl::InvalidArgumentError("empty command before '" + token.text + "'");
      }
      if (token.text == "|") {
        pipelines.back().emplace_back();
      } else {
        pipelines.push_back(Pipeline(1));
      }
      continue;
    }
    if (!token.quoted && token.text == "2>&1") {
      command.merge_stderr = true;
      continue;
    }
    if (!token.quoted && (token.text == ">" || token.text == "2>" || token.text == "<")) {
      auto file = operand(token.text.c_str());
      if (!file.ok()) return file.status();
      (token.text == ">"    ? command.stdout_file
       : token.text == "2>" ? command.stderr_file
                            : command.stdin_file) = *file;
      continue;
    }
    if (!token.quoted && token.text == "not" && command.argv.empty()) {
      command.negate = !command.negate;
      continue;
    }
    command.argv.push_back(token.text);
  }
  for (const Pipeline& pipeline : pipelines) {
    for (const Command& command : pipeline) {
      if (command.argv.empty()) return absl::InvalidArgumentError("empty command");
    }
  }
  return pipelines;
}

namespace {

// The process groups running now, for KillRunningCommands (called from a
// signal's thread or handler: plain atomics, no locks).
constexpr int kGroupSlots = 4096;
std::atomic<pid_t> running_groups[kGroupSlots];

int RegisterGroup(pid_t group) {
  for (int k = 0; k < kGroupSlots; ++k) {
    pid_t empty = 0;
    if (running_groups[k].compare_exchange_strong(empty, group)) return k;
  }
  return -1;
}

struct Pipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  void CloseAll() {
    for (int* p : {in, out, err}) {
      for (int k = 0; k < 2; ++k) {
        if (p[k] >= 0) close(p[k]);
        p[k] = -1;
      }
    }
  }
};

// Forks and execs `program` in a process group of its own; -1 on failure.
pid_t Spawn(const std::string& program, const std::vector<std::string>& argv,
            const ShellOptions& options, Pipes* pipes) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const char* directory =
      options.working_directory.empty() ? nullptr : options.working_directory.c_str();
  pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // hlo-test blocks SIGINT, SIGTERM
    dup2(pipes->in[0], 0);
    dup2(pipes->out[1], 1);
    dup2(pipes->err[1], 2);
    if (directory != nullptr && chdir(directory) != 0) _exit(kStatusNotFound);
    execv(program.c_str(), args.data());
    _exit(kStatusNotFound);
  }
  // Also here: the group exists before anything signals it.
  if (pid > 0) setpgid(pid, pid);
  return pid;
}

enum class Stop { kNone, kTimedOut, kOutputLimit };

// Whether the child has exited (it stays unreaped: its id keeps naming the
// group).
bool Exited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno != EINTR;
  return info.si_pid == pid;
}

// Feeds `input` to the child and collects its outputs until both are closed,
// the deadline passes or they grow past the limit.
Stop Pump(pid_t pid, Pipes* pipes, const std::string& input, const ShellOptions& options,
          std::chrono::steady_clock::time_point deadline, std::string* out, std::string* err) {
  size_t written = 0;
  int in_fd = pipes->in[1];
  if (input.empty()) {
    close(in_fd);
    in_fd = pipes->in[1] = -1;
  } else {
    fcntl(in_fd, F_SETFL, O_NONBLOCK);
  }
  int* fds[2] = {&pipes->out[0], &pipes->err[0]};
  std::string* sinks[2] = {out, err};
  char buffer[65536];
  bool child_exited = false;
  while (*fds[0] >= 0 || *fds[1] >= 0 || in_fd >= 0) {
    pollfd polls[3];
    int count = 0;
    for (int k = 0; k < 2; ++k) {
      if (*fds[k] >= 0) polls[count++] = {*fds[k], POLLIN, 0};
    }
    if (in_fd >= 0) polls[count++] = {in_fd, POLLOUT, 0};
    int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(
                       deadline - std::chrono::steady_clock::now())
                       .count();
    if (left <= 0) return Stop::kTimedOut;
    if (poll(polls, count, static_cast<int>(std::min<int64_t>(left, 100))) < 0 && errno != EINTR) {
      return Stop::kNone;
    }
    // The child is gone but something it started holds the pipes: end that
    // (what it wrote is still read, up to the end of the pipes).
    if (!child_exited && Exited(pid)) {
      child_exited = true;
      kill(-pid, SIGKILL);
    }
    for (int p = 0; p < count; ++p) {
      if (polls[p].revents == 0) continue;
      if (polls[p].fd == in_fd) {
        ssize_t n = write(in_fd, input.data() + written, input.size() - written);
        if (n > 0) written += n;
        if (n < 0 && errno != EAGAIN && errno != EINTR) written = input.size();
        if (written >= input.size()) {
          close(in_fd);
          in_fd = pipes->in[1] = -1;
        }
        continue;
      }
      for (int k = 0; k < 2; ++k) {
        if (polls[p].fd != *fds[k]) continue;
        ssize_t n = read(*fds[k], buffer, sizeof(buffer));
        if (n > 0) {
          sinks[k]->append(buffer, n);
          if (out->size() + err->size() > options.max_output_bytes) return Stop::kOutputLimit;
        } else if (n == 0 || errno != EINTR) {
          close(*fds[k]);
          *fds[k] = -1;
        }
      }
    }
  }
  return Stop::kNone;
}

// Waits (until the deadline) for the child to exit, kills what is left of
// its group (while the unreaped child holds the group's id), and reaps it.
int Reap(pid_t pid, std::chrono::steady_clock::time_point deadline, Stop* stop) {
  for (int pause_ms = 1; *stop == Stop::kNone && !Exited(pid);) {
    if (std::chrono::steady_clock::now() >= deadline) *stop = Stop::kTimedOut;
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    pause_ms = std::min(pause_ms * 2, 50);
  }
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return kStatusNotFound;  // lost: never a success
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int RunExternal(const std::string& program, const std::vector<std::string>& argv,
                const std::string& input, const ShellOptions& options, std::string* out,
                std::string* err, std::string* note) {
  Pipes pipes;
  if (pipe2(pipes.in, O_CLOEXEC) != 0 || pipe2(pipes.out, O_CLOEXEC) != 0 ||
      pipe2(pipes.err, O_CLOEXEC) != 0) {
    pipes.CloseAll();
    err->clear();
    Note(err, note, absl::StrCat("cannot run ", argv[0], ": ", std::strerror(errno)));
    return kStatusNotFound;
  }
  signal(SIGPIPE, SIG_IGN);
  pid_t pid = Spawn(program, argv, options, &pipes);
  close(pipes.in[0]);
  close(pipes.out[1]);
  close(pipes.err[1]);
  pipes.in[0] = pipes.out[1] = pipes.err[1] = -1;
  if (pid < 0) {
    const int saved = errno;
    pipes.CloseAll();
    err->clear();
    Note(err, note, absl::StrCat("cannot run ", argv[0], ": ", std::strerror(saved)));
    return kStatusNotFound;
  }
  int slot = RegisterGroup(pid);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  Stop stop = Pump(pid, &pipes, input, options, deadline, out, err);
  if (stop != Stop::kNone) kill(-pid, SIGKILL);
  pipes.CloseAll();
  int status = Reap(pid, deadline, &stop);
  if (slot >= 0) running_groups[slot] = 0;
  if (stop == Stop::kTimedOut) {
    Note(err, note,
         absl::StrCat(argv[0], " timed out after ", options.timeout_seconds, " s (killed)"));
    return kStatusTimedOut;
  }
  if (stop == Stop::kOutputLimit) {
    // Enough of it to show; the rest would only fill memory.
    for (std::string* text : {out, err}) {
      if (text->size() > 65536) text->resize(65536);
      text->shrink_to_fit();
    }
    Note(err, note,
         absl::StrCat(argv[0], " wrote more than ", options.max_output_bytes >> 20,
                      " MiB of output (killed)"));
    return kStatusOutputLimit;
  }
  return status;
}

}  // namespace

void KillRunningCommands() {
  for (int k = 0; k < kGroupSlots; ++k) {
    pid_t group = running_groups[k].load();
    if (group > 0) kill(-group, SIGKILL);
  }
}

int RunProgram(const std::vector<std::string>& argv, const std::string& input,
               const ShellOptions& options, std::string* out, std::string* err, std::string* note) {
  bool handled = false;
  int builtin = RunBuiltin(argv, input, options, out, err, &handled);
  if (handled) {
    if (out->size() + err->size() > options.max_output_bytes) {
      out->clear();
      err->clear();
      Note(err, note,
           absl::StrCat(argv[0], " wrote more than ", options.max_output_bytes >> 20,
                        " MiB of output"));
      return kStatusOutputLimit;
    }
    return builtin;
  }
  std::string program = FindProgram(argv[0], options);
  if (program.empty()) {
    *err = absl::StrCat(argv[0], ": command not found\n");
    return kStatusNotFound;
  }
  return RunExternal(program, argv, input, options, out, err, note);
}

namespace {

// Opens a `>`/`2>` file before the command runs, as sh does.
int OpenForWriting(const std::string& file, const ShellOptions& options, std::string* err,
                   std::string* note) {
  // O_NONBLOCK: a FIFO with no reader fails at once instead of hanging.
  int fd = open(ResolvePath(file, options).c_str(),
                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
  if (fd < 0) {
    const int saved = errno;
    err->clear();
    Note(err, note, absl::StrCat("cannot open ", file, ": ", std::strerror(saved)));
  }
  return fd;
}

bool WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += n;
  }
  return true;
}

// Runs one command with its redirections: a file that cannot be opened (or
// written) fails it with status 1, as in sh; `*input` becomes what it read.
int RunRedirected(const Command& command, std::string* input, const ShellOptions& options,
                  std::string* out, std::string* err, bool* redirect_failed, std::string* merged,
                  std::string* note) {
  if (!command.stdin_file.empty()) {
    std::string why;
    if (!ReadFile(ResolvePath(command.stdin_file, options), input, &why,
                  options.max_output_bytes)) {
      input->clear();
      err->clear();
      Note(err, note, absl::StrCat("cannot open ", command.stdin_file, ": ", ErrorReason(why)));
      *redirect_failed = true;
      return 1;
    }
  }
  int fds[2] = {-1, -1};  // stdout, stderr files
  const std::string* files[2] = {&command.stdout_file, &command.stderr_file};
  for (int k = 0; k < 2; ++k) {
    if (files[k]->empty()) continue;
    fds[k] = OpenForWriting(*files[k], options, err, note);
    if (fds[k] < 0) {
      if (fds[0] >= 0) close(fds[0]);
      *redirect_failed = true;
      return 1;
    }
  }
  int status = RunProgram(command.argv, *input, options, out, err, note);
  if (command.merge_stderr) {
    *out += *err;
    *merged = std::move(*err);  // still shown when the command fails
    err->clear();
  }
  std::string* texts[2] = {out, err};
  std::string failure;
  for (int k = 0; k < 2; ++k) {
    if (fds[k] < 0) continue;
    bool written = WriteAll(fds[k], *texts[k]);
    int saved = errno;
    if (close(fds[k]) != 0 && written) {
      written = false;
      saved = errno;
    }
    if (!written)
      Note(&failure, note, absl::StrCat("cannot write ", *files[k], ": ", std::strerror(saved)));
    // What went to a `2>` file still shows in a failure's report.
    if (k == 0) out->clear();
  }
  if (failure.empty()) return status;
  *err += failure;
  if (command.merge_stderr) *merged += failure;
  *redirect_failed = true;
  return status == 0 ? 1 : status;
}

}  // namespace

ShellResult RunCommandLine(const std::vector<Pipeline>& pipelines, const ShellOptions& options) {
  ShellResult result;
  for (const Pipeline& pipeline : pipelines) {
    std::string data;
    for (size_t k = 0; k < pipeline.size(); ++k) {
      const Command& command = pipeline[k];
      std::string input = std::move(data);
      data.clear();
      std::string out, err;
      bool last = k + 1 == pipeline.size();
      bool redirect_failed = false;
      std::string merged;  // the stderr that 2>&1 sent to stdout
      std::string note;
      int status =
          RunRedirected(command, &input, options, &out, &err, &redirect_failed, &merged, &note);
      if (last) result.last_input = input;
      CommandResult done;
      done.program = command.argv[0];
      done.status = status;
      done.redirect_failed = redirect_failed;
      done.note = std::move(note);
      // A crash (killed by a signal) or a missing program fails even under `not`.
      done.ok = command.negate ? (status != 0 && status < kStatusTimedOut) : status == 0;
      done.stderr_text = command.merge_stderr ? std::move(merged) : err;
      result.ok = result.ok && done.ok;
      result.commands.push_back(done);
      if (last) {
        result.stdout_text = out;
        result.stderr_text = err;
        result.status = status;
        result.last_program = command.argv[0];
        result.last_checks = !command.stdout_file.empty() || command.argv[0] == "hlo-check" ||
                             command.argv[0] == "FileCheck" || command.argv[0] == "diff";
        result.diff_expected_file.clear();
        if (command.argv[0] == "diff") {
          std::vector<std::string> files;
          for (size_t a = 1; a < command.argv.size(); ++a) {
            if (command.argv[a] == "-" || command.argv[a][0] != '-')
              files.push_back(command.argv[a]);
          }
          if (files.size() == 2 && files[1] == "-") result.diff_expected_file = files[0];
        }
      }
      data = std::move(out);
      // A command killed (timeout, output limit) fails the line: nothing
      // after it runs on what it left.
      if (status == kStatusTimedOut || status == kStatusOutputLimit) return result;
    }
    if (!result.ok) break;
  }
  return result;
}

}  // namespace hlo::golden
