// The RUN-line shell: parsing, builtins, redirections (failing as sh does),
// timeouts and output limits that kill the whole process group.
#include "golden/shell.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "golden/compare.h"
#include "golden/test_support.h"

namespace hlo::golden {
namespace {

using testing::ScratchDir;

ShellResult Run(const std::string& line, const ShellOptions& options) {
  auto pipelines = ParseCommandLine(line);
  REQUIRE(pipelines.ok());
  return RunCommandLine(*pipelines, options);
}

TEST_CASE("golden: command lines parse into pipelines, redirections and `not`", "[golden]") {
  auto parsed =
      ParseCommandLine("not hlo-opt 'a b' \"c\\\"d\" e\\ f 2>&1 < in | x > out && y 2> err");
  REQUIRE(parsed.ok());
  REQUIRE(parsed->size() == 2);
  const Pipeline& first = (*parsed)[0];
  REQUIRE(first.size() == 2);
  CHECK(first[0].negate);
  CHECK(first[0].argv == std::vector<std::string>{"hlo-opt", "a b", "c\"d", "e f"});
  CHECK(first[0].merge_stderr);
  CHECK(first[0].stdin_file == "in");
  CHECK(first[1].stdout_file == "out");
  CHECK((*parsed)[1][0].stderr_file == "err");
  // Quoted operators are words, also as file names.
  auto named = ParseCommandLine("x > '>'");
  REQUIRE(named.ok());
  CHECK((*named)[0][0].stdout_file == ">");
  auto quoted = ParseCommandLine("echo '|' \"&&\" '>'");
  REQUIRE(quoted.ok());
  CHECK((*quoted)[0][0].argv == std::vector<std::string>{"echo", "|", "&&", ">"});
}

TEST_CASE("golden: a quoted path is one word", "[golden]") {
  auto parsed = ParseCommandLine("cat '/x'\\''y z' 'a b'");
  REQUIRE(parsed.ok());
  CHECK((*parsed)[0][0].argv == std::vector<std::string>{"cat", "/x'y z", "a b"});
}

TEST_CASE("golden: malformed command lines are errors", "[golden]") {
  for (const char* line : {"echo 'a", "echo \"a", "| x", "x |", "x && && y", "x >", "x <", "not",
                           "", "x >> f", "x > > f", "x < | y", "x 2> && y"}) {
    INFO(line);
    CHECK(!ParseCommandLine(line).ok());
  }
}

TEST_CASE("golden: builtins echo, cat and diff", "[golden]") {
  ScratchDir dir;
  dir.Write("a.txt", "one\ntwo  \n\n");
  ShellOptions options{dir.path(), "", 10};
  ShellResult r = Run("echo one two | cat", options);
  CHECK(r.ok);
  CHECK(r.stdout_text == "one two\n");
  r = Run("echo one | cat a.txt - a.txt", options);
  CHECK(r.stdout_text == "one\ntwo  \n\none\none\ntwo  \n\n");
  // diff ignores blanks at line ends and blank lines at the end.
  r = Run("echo one two | diff a.txt -", options);
  CHECK(!r.ok);
  CHECK(r.status == 1);
  CHECK(r.diff_expected_file == "a.txt");
  CHECK(Run("cat a.txt | diff a.txt -", options).ok);
  CHECK(Run("echo one && cat a.txt | diff - a.txt", options).ok);
  CHECK(!Run("echo one && echo two | diff - a.txt", options).ok);
}

TEST_CASE("golden: a folder or a missing file where a file is read fails its command", "[golden]") {
  ScratchDir dir;
  std::filesystem::create_directories(dir / "d");
  ShellOptions options{dir.path(), "", 10};
  ShellResult r = Run("cat d", options);
  CHECK(!r.ok);
  CHECK(r.status == 1);
  CHECK(r.commands[0].stderr_text == "cat: cannot read d: Is a directory\n");
  r = Run("diff d -", options);
  CHECK(r.status == 2);
  CHECK(r.commands[0].stderr_text == "diff: cannot read d: Is a directory\n");
  for (const char* line : {"cat < d", "cat < missing", "echo x | cat < missing"}) {
    INFO(line);
    r = Run(line, options);
    CHECK(!r.ok);
    CHECK(r.status == 1);
    CHECK(r.commands.back().stderr_text.find("hlo-test: cannot open ") == 0);
  }
}

TEST_CASE("golden: a FIFO where a file is read or written fails at once", "[golden]") {
  ScratchDir dir;
  REQUIRE(mkfifo((dir / "fifo").c_str(), 0644) == 0);
  ShellOptions options{dir.path(), "", 5};
  auto start = std::chrono::steady_clock::now();
  ShellResult r = Run("cat fifo", options);
  CHECK(r.commands[0].stderr_text == "cat: cannot read fifo: not a regular file\n");
  r = Run("cat < fifo", options);
  CHECK(r.commands[0].stderr_text == "hlo-test: cannot open fifo: not a regular file\n");
  r = Run("echo x > fifo", options);
  CHECK(r.status == 1);
  CHECK(r.commands[0].stderr_text.find("hlo-test: cannot open fifo: ") == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

TEST_CASE("golden: a redirection that cannot be opened fails without running the command",
          "[golden]") {
  ScratchDir dir;
  std::filesystem::create_directories(dir / "d");
  ShellOptions options{dir.path(), "", 10};
  for (const char* line : {"echo x > /nonexistent/x", "echo x > d", "echo x 2> d"}) {
    INFO(line);
    ShellResult r = Run(line, options);
    CHECK(!r.ok);
    CHECK(r.status == 1);
    CHECK(r.commands[0].stderr_text.find("hlo-test: cannot open ") == 0);
  }
  // Not even a program runs: the file it would create stays absent.
  ShellResult r = Run("sh -c 'touch ran' > d", options);
  CHECK(r.status == 1);
  CHECK(!std::filesystem::exists(dir / "ran"));
  // `not` accepts the failure, as it would sh's.
  CHECK(Run("not cat < missing", options).ok);
  // A device stays a device (a rename over /dev/null made it a file).
  CHECK(Run("echo x > /dev/zero", options).ok);
  struct stat st;
  REQUIRE(stat("/dev/zero", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // A good redirection writes the file.
  CHECK(Run("echo hi > out.txt", options).ok);
  std::string text;
  REQUIRE(ReadFile(dir / "out.txt", &text));
  CHECK(text == "hi\n");
}

TEST_CASE("golden: programs' statuses; a missing program fails even under `not`", "[golden]") {
  ScratchDir dir;
  ShellOptions options{dir.path(), "", 10};
  ShellResult r = Run("sh -c 'echo out; echo err >&2; exit 3'", options);
  CHECK(r.status == 3);
  CHECK(r.stdout_text == "out\n");
  CHECK(r.stderr_text == "err\n");
  CHECK(Run("not sh -c 'exit 3'", options).ok);
  CHECK(!Run("not no-such-program-xyz", options).ok);
  CHECK(Run("no-such-program-xyz", options).status == kStatusNotFound);
  CHECK(!Run("not sh -c 'kill -9 $$'", options).ok);  // a crash is no failure `not` wants
  CHECK(Run("sh -c 'cat' < /dev/null", options).ok);
}

bool ProcessGone(pid_t pid) {
  // Gone, or a zombie waiting for a parent that does not reap.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && line.compare(paren + 2, 1, "Z") == 0;
}

TEST_CASE("golden: a timeout kills the command's whole process group", "[golden]") {
  ScratchDir dir;
  ShellOptions options{dir.path(), "", 1};
  auto start = std::chrono::steady_clock::now();
  ShellResult r = Run("sh -c 'sleep 77 & echo $! > pid; wait; true'", options);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(r.status == kStatusTimedOut);
  CHECK(r.commands[0].stderr_text.find("timed out after 1 s") != std::string::npos);
  CHECK(!Run("not sh -c 'sleep 77'", options).ok);  // a timeout fails under `not` too
  // Nothing after a killed command runs.
  r = Run("sh -c 'sleep 77' | sh -c 'touch ran' && touch ran2", options);
  CHECK(r.commands.size() == 1);
  CHECK(!std::filesystem::exists(dir / "ran"));
  CHECK(!std::filesystem::exists(dir / "ran2"));
  std::string pid;
  REQUIRE(ReadFile(dir / "pid", &pid));
  pid_t sleeper = std::stoi(pid);
  for (int k = 0; k < 100 && !ProcessGone(sleeper); ++k) usleep(10'000);
  CHECK(ProcessGone(sleeper));
}

TEST_CASE("golden: what a command starts and leaves running is killed when it exits", "[golden]") {
  ScratchDir dir;
  ShellOptions options{dir.path(), "", 10};
  // Also when it holds the command's output pipe: the run does not wait
  // for it (before: until the timeout).
  for (const char* line : {"sh -c 'sleep 77 > /dev/null 2>&1 < /dev/null & echo $! > pid'",
                           "sh -c 'sleep 77 & echo $! > pid; echo done'"}) {
    INFO(line);
    auto start = std::chrono::steady_clock::now();
    ShellResult r = Run(line, options);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
    CHECK(r.ok);
    std::string pid;
    REQUIRE(ReadFile(dir / "pid", &pid));
    pid_t sleeper = std::stoi(pid);
    for (int k = 0; k < 100 && !ProcessGone(sleeper); ++k) usleep(10'000);
    CHECK(ProcessGone(sleeper));
  }
  CHECK(Run("sh -c 'sleep 77 & echo done'", options).stdout_text == "done\n");
}

TEST_CASE("golden: a command that floods its output is killed at the limit", "[golden]") {
  ScratchDir dir;
  ShellOptions options{dir.path(), "", 60, size_t{1} << 20};
  auto start = std::chrono::steady_clock::now();
  ShellResult r = Run("yes", options);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(r.status == kStatusOutputLimit);
  CHECK(r.commands[0].stderr_text.find("wrote more than 1 MiB of output (killed)") !=
        std::string::npos);
  CHECK(r.stdout_text.size() <= 65536);  // kept to show, not the flood
  CHECK(!Run("not yes", options).ok);
  // stderr counts too; and builtins: cat of a file over the limit.
  CHECK(Run("sh -c 'yes >&2'", options).status == kStatusOutputLimit);
  dir.Write("big.txt", std::string((size_t{1} << 20) + 1, 'x'));
  r = Run("cat big.txt", options);
  CHECK(r.status == 1);
  CHECK(r.commands[0].stderr_text.find(
            "its size (1048577 bytes) exceeds the input limit of 1048576 bytes") !=
        std::string::npos);
  CHECK(Run("cat big.txt big.txt", ShellOptions{dir.path(), "", 60, size_t{3} << 19}).status ==
        kStatusOutputLimit);
}

TEST_CASE("golden: standard input reaches the program; a large input does not block", "[golden]") {
  ScratchDir dir;
  ShellOptions options{dir.path(), "", 20};
  std::string big(3 << 20, 'a');
  dir.Write("big.txt", big);
  ShellResult r = Run("cat big.txt | sh -c 'cat; cat >&2' ", options);
  CHECK(r.ok);
  CHECK(r.stdout_text.size() == big.size());
  CHECK(Run("cat < big.txt | sh -c 'wc -c'", options).stdout_text.find("3145728") !=
        std::string::npos);
  // A program that reads none of it still ends normally.
  CHECK(Run("cat big.txt | true", options).ok);
}

}  // namespace
}  // namespace hlo::golden
