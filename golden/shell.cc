#include "check/source_text.h"
#include "golden/shell.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "golden/compare.h"
#include "ir/interrupt.h"

namespace hlo::golden {

namespace {

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
    } else if (!ReadFile(ResolvePath(files[k], options), &texts[k])) {
      *err = absl::StrCat("diff: cannot read ", files[k], "\n");
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
      } else if (!ReadFile(ResolvePath(argv[k], options), &text)) {
        *err += absl::StrCat("cat: cannot read ", argv[k], "\n");
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
      if (k + 1 >= tokens->size()) {
        return absl::InvalidArgumentError(absl::StrCat("missing file after ", what));
      }
      return (*tokens)[++k].text;
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
      (token.text == ">" ? command.stdout_file
                         : token.text == "2>" ? command.stderr_file : command.stdin_file) = *file;
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

int RunProgram(const std::vector<std::string>& argv, const std::string& input,
               const ShellOptions& options, std::string* out, std::string* err) {
  bool handled = false;
  int builtin = RunBuiltin(argv, input, options, out, err, &handled);
  if (handled) return builtin;
  std::string program = FindProgram(argv[0], options);
  if (program.empty()) {
    *err = absl::StrCat(argv[0], ": command not found\n");
    return 127;
  }
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    *err = "hlo-test: pipe failed\n";
    return 127;
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const char* directory = options.working_directory.empty() ? nullptr
                                                            : options.working_directory.c_str();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    // Ends when hlo-test ends, should a signal stop hlo-test before it noted
    // this command (RememberChild below).
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (directory != nullptr && chdir(directory) != 0) _exit(127);
    execv(program.c_str(), args.data());
    _exit(127);
  }
  // On SIGINT/SIGTERM/SIGHUP hlo-test ends its commands first (ir/interrupt.h).
  int child_slot = pid > 0 ? hlo::interrupt::RememberChild(pid) : -1;
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    *err = "hlo-test: fork failed\n";
    return 127;
  }
  signal(SIGPIPE, SIG_IGN);
  size_t written = 0;
  int in_fd = in_pipe[1];
  if (input.empty()) {
    close(in_fd);
    in_fd = -1;
  } else {
    fcntl(in_fd, F_SETFL, O_NONBLOCK);
  }
  int open_outputs = 2;
  int fds[2] = {out_pipe[0], err_pipe[0]};
  std::string* sinks[2] = {out, err};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  bool timed_out = false;
  char buffer[65536];
  while (open_outputs > 0 || in_fd >= 0) {
    pollfd polls[3];
    int count = 0;
    for (int k = 0; k < 2; ++k) {
      if (fds[k] >= 0) polls[count++] = {fds[k], POLLIN, 0};
    }
    if (in_fd >= 0) polls[count++] = {in_fd, POLLOUT, 0};
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    if (left <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(polls, count, left) < 0 && errno != EINTR) break;
    for (int p = 0; p < count; ++p) {
      if (polls[p].revents == 0) continue;
      if (polls[p].fd == in_fd) {
        ssize_t n = write(in_fd, input.data() + written, input.size() - written);
        if (n > 0) written += n;
        if (n < 0 && errno != EAGAIN) written = input.size();
        if (written >= input.size()) {
          close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      for (int k = 0; k < 2; ++k) {
        if (polls[p].fd != fds[k]) continue;
        ssize_t n = read(fds[k], buffer, sizeof(buffer));
        if (n > 0) {
          sinks[k]->append(buffer, n);
        } else if (n == 0 || errno != EINTR) {
          close(fds[k]);
          fds[k] = -1;
          --open_outputs;
        }
      }
    }
  }
  for (int fd : {fds[0], fds[1], in_fd}) {
    if (fd >= 0) close(fd);
  }
  int status = 0;
  siginfo_t info;
  while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  hlo::interrupt::Forget(child_slot);  // before its pid can be reused
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    *err += absl::StrCat("hlo-test: ", argv[0], " timed out after ", options.timeout_seconds,
                         " s\n");
    return 124;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

ShellResult RunCommandLine(const std::vector<Pipeline>& pipelines, const ShellOptions& options) {
  ShellResult result;
  for (const Pipeline& pipeline : pipelines) {
    std::string data;
    for (size_t k = 0; k < pipeline.size(); ++k) {
      const Command& command = pipeline[k];
      std::string input = std::move(data);
      data.clear();
      if (!command.stdin_file.empty()) {
        ReadFile(ResolvePath(command.stdin_file, options), &input);
      }
      std::string out, err;
      int status = RunProgram(command.argv, input, options, &out, &err);
      bool last = k + 1 == pipeline.size();
      if (last) result.last_input = input;
      if (command.merge_stderr) {
        out += err;
        err.clear();
      }
      if (!command.stderr_file.empty()) {
        WriteFile(ResolvePath(command.stderr_file, options), err);
      }
      if (!command.stdout_file.empty()) {
        WriteFile(ResolvePath(command.stdout_file, options), out);
        out.clear();
      }
      CommandResult done;
      done.program = command.argv[0];
      done.status = status;
      // A crash (killed by a signal) or a missing program fails even under `not`.
      done.ok = command.negate ? (status != 0 && status < 124) : status == 0;
      done.stderr_text = err;
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
            if (command.argv[a] == "-" || command.argv[a][0] != '-') files.push_back(command.argv[a]);
          }
          if (files.size() == 2 && files[1] == "-") result.diff_expected_file = files[0];
        }
      }
      data = std::move(out);
    }
    if (!result.ok) break;
  }
  return result;
}

}  // namespace hlo::golden
