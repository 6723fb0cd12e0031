// OutputDir (all files or none) and the interrupt handler: publication into
// a new and an existing directory, a failed write, and SIGTERM raised in a
// child process while it writes (the staging directory goes, the exit status
// is 128 + 15) or inside a Critical section (what the section does is done
// first).
#include "ir/output_dir.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "ir/interrupt.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char name[] = "/tmp/output_dir_test.XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

// Every path under `dir`, relative.
std::set<std::string> Listing(const std::string& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Runs `body` in a child process (its stderr into `err` when given); its
// wait status.
template <typename F>
int InChild(F body, const std::string& err = "") {
  pid_t pid = fork();
  if (pid == 0) {
    if (!err.empty()) {
      int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
      if (fd < 0 || dup2(fd, 2) < 0) _exit(6);
    }
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST_CASE("OutputDir publishes a new directory with one rename", "[output_dir]") {
  TempDir tmp;
  std::string dir = tmp.path + "/out";
  auto out = OutputDir::Open(dir + "/", /*make_parents=*/false);
  REQUIRE(out.ok());
  REQUIRE((*out)->Write("a.txt", "A").ok());
  REQUIRE((*out)->Write("sub/b.txt", "B", /*sync=*/false).ok());
  // Nothing visible before Commit but the staging directory beside.
  CHECK(!fs::exists(dir));
  CHECK(Listing(tmp.path) ==
        std::set<std::string>{"out.tmp." + std::to_string(getpid()),
                              "out.tmp." + std::to_string(getpid()) + "/a.txt",
                              "out.tmp." + std::to_string(getpid()) + "/sub",
                              "out.tmp." + std::to_string(getpid()) + "/sub/b.txt"});
  REQUIRE((*out)->Commit().ok());
  CHECK(Listing(tmp.path) == std::set<std::string>{"out", "out/a.txt", "out/sub", "out/sub/b.txt"});
  CHECK(Slurp(dir + "/sub/b.txt") == "B");
}

TEST_CASE("OutputDir keeps an existing directory's other files", "[output_dir]") {
  TempDir tmp;
  std::ofstream(tmp.path + "/keep.txt") << "old";
  std::ofstream(tmp.path + "/a.txt") << "old";
  auto out = OutputDir::Open(tmp.path, /*make_parents=*/false);
  REQUIRE(out.ok());
  REQUIRE((*out)->Write("a.txt", "new").ok());
  REQUIRE((*out)->Write("d/b.txt", "B").ok());
  CHECK(Slurp(tmp.path + "/a.txt") == "old");
  REQUIRE((*out)->Commit().ok());
  CHECK(Listing(tmp.path) == std::set<std::string>{"keep.txt", "a.txt", "d", "d/b.txt"});
  CHECK(Slurp(tmp.path + "/a.txt") == "new");
  CHECK(Slurp(tmp.path + "/keep.txt") == "old");
}

TEST_CASE("OutputDir publishes nothing after a failed write", "[output_dir]") {
  TempDir tmp;
  std::string dir = tmp.path + "/out";
  int status = InChild([&] {
    struct rlimit limit = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto out = OutputDir::Open(dir, /*make_parents=*/false);
    if (!out.ok() || !(*out)->Write("small", "x").ok()) _exit(2);
    absl::Status big = (*out)->Write("big", std::string(8192, 'x'));
    if (big.ok() || big.message() != dir + "/big: cannot write: File too large") _exit(3);
    if (!(*out)->Commit().ok()) _exit(4);
  });
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(Listing(tmp.path).empty());
}

TEST_CASE("OutputDir names the directory it cannot make", "[output_dir]") {
  TempDir tmp;
  auto out = OutputDir::Open(tmp.path + "/no/such", /*make_parents=*/false);
  REQUIRE(!out.ok());
  CHECK(out.status().message() ==
        tmp.path + "/no/such: error: cannot create: No such file or directory");
  auto made = OutputDir::Open(tmp.path + "/no/such", /*make_parents=*/true);
  REQUIRE(made.ok());
  REQUIRE((*made)->Commit().ok());
  CHECK(fs::is_directory(tmp.path + "/no/such"));
}

TEST_CASE("SIGTERM while an OutputDir is written leaves nothing", "[output_dir][interrupt]") {
  for (bool existing : {false, true}) {
    TempDir tmp, log;
    std::string dir = tmp.path + "/out";
    if (existing) {
      fs::create_directory(dir);
      std::ofstream(dir + "/keep.txt") << "old";
    }
    std::set<std::string> before = Listing(tmp.path);
    int status = InChild(
        [&] {
          interrupt::InstallHandlers();  // over Catch2's
          auto out = OutputDir::Open(dir, /*make_parents=*/false);
          for (int i = 0; i < 20 && out.ok(); ++i) {
            (void)(*out)->Write("sub/f" + std::to_string(i), std::string(1000, 'x'), false);
          }
          raise(SIGTERM);
          _exit(5);  // not reached
        },
        log.path + "/err");
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
    CHECK(Listing(tmp.path) == before);
    CHECK(Slurp(log.path + "/err") == std::string(program_invocation_short_name) +
                                          ": interrupted by SIGTERM while writing " + dir +
                                          "; nothing written\n");
  }
}

TEST_CASE("A signal inside a Critical section waits for its end", "[interrupt]") {
  TempDir tmp, log;
  std::string path = tmp.path + "/made";
  int status = InChild(
      [&] {
        interrupt::InstallHandlers();  // over Catch2's
        interrupt::Critical critical;
        raise(SIGTERM);
        int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0666);
        if (fd >= 0) close(fd);
      },
      log.path + "/err");
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  CHECK(fs::exists(path));
  CHECK(Slurp(log.path + "/err") ==
        std::string(program_invocation_short_name) + ": interrupted by SIGTERM\n");
}

TEST_CASE("RemoveTree removes a nested tree", "[interrupt]") {
  TempDir tmp;
  std::string root = tmp.path + "/t";
  fs::create_directories(root + "/a/b/c");
  for (int i = 0; i < 300; ++i) std::ofstream(root + "/a/f" + std::to_string(i)) << i;
  std::ofstream(root + "/a/b/c/g") << "g";
  CHECK(interrupt::RemoveTree(root.c_str()));
  CHECK(!fs::exists(root));
  CHECK(interrupt::RemoveTree(root.c_str()));  // already gone
}

}  // namespace
}  // namespace hlo
