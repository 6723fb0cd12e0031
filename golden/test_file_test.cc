// RUN-line parsing, XFAIL, substitutions and config files of golden tests
// (README "Writing golden tests").
#include "golden/test_file.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "golden/test_support.h"

namespace hlo::golden {
namespace {

using testing::ScratchDir;

TEST_CASE("golden: RUN and RUN-ERROR lines, continuations, line numbers", "[golden]") {
  auto runs = ParseRunLines(
      "// RUN: hlo-opt %s | \\\n"
      "// RUN:   hlo-check %s\n"
      "HloModule m\n"
      "  // RUN-ERROR: hlo-run %s\n"
      "RUN: not a comment\n"
      "// NOTRUN: x\n");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].command == "hlo-opt %s |  hlo-check %s");
  CHECK(!runs[0].expect_error);
  CHECK(runs[0].line == 1);
  CHECK(runs[1].command == "hlo-run %s");
  CHECK(runs[1].expect_error);
  CHECK(runs[1].line == 4);
}

TEST_CASE("golden: a continuation ends at a line that is not a RUN line", "[golden]") {
  auto runs = ParseRunLines("// RUN: echo a \\\nHloModule m\n// RUN: echo b\n");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].command == "echo a ");
  CHECK(runs[1].command == "echo b");
}

TEST_CASE("golden: XFAIL takes `*` (also in a list); other values are located errors", "[golden]") {
  CHECK(*ParseXfail("// RUN: x\n", "t.hlo") == false);
  CHECK(*ParseXfail("// XFAIL: *\n", "t.hlo") == true);
  CHECK(*ParseXfail("  //   XFAIL:  * \n", "t.hlo") == true);
  CHECK(*ParseXfail("XFAIL: *\n", "t.hlo") == false);  // not a comment
  auto bad = ParseXfail("// RUN: x\n// XFAIL: linux\n", "dir/t.hlo");
  REQUIRE(!bad.ok());
  CHECK(std::string(bad.status().message()).find("dir/t.hlo:2: XFAIL: 'linux'") == 0);
  CHECK(!ParseXfail("// XFAIL: *, x86\n", "t.hlo").ok());
  CHECK(!ParseXfail("// XFAIL:\n", "t.hlo").ok());
}

TEST_CASE("golden: substitutions %s %S %t %T %{expected} %%", "[golden]") {
  ScratchDir dir;
  dir.Write("sub/a.hlo", "");
  TestFile test{dir.path(), "sub/a.hlo", {}, "", false};
  CHECK(Substitute("%s %S %T %%s 5%", test, "/tmp/T") == "sub/a.hlo sub /tmp/T %s 5%");
  CHECK(Substitute("%t", test, "/tmp/T") == "/tmp/T/sub_a.hlo.tmp");
  CHECK(Substitute("%{expected}", test, "/T") == "sub/a.hlo");
  dir.Write("sub/a.expected.hlo", "");
  CHECK(Substitute("%{expected} %x", test, "/T") == "sub/a.expected.hlo %x");
  TestFile top{dir.path(), "b.hlo", {}, "", false};
  CHECK(Substitute("%S", top, "/T") == ".");
  CHECK(SiblingPath(test, ".out") == "sub/a.out");
  // Paths with blanks or quotes stay one word.
  CHECK(Substitute("cat %s %T", test, "/tmp/a b") == "cat sub/a.hlo '/tmp/a b'");
  CHECK(Substitute("%t", test, "/x'y") == "'/x'\\''y/sub_a.hlo.tmp'");
}

TEST_CASE("golden: tests without RUN lines take their config's run: lines", "[golden]") {
  ScratchDir dir;
  dir.Write("hlo-test.cfg", "# root\n");
  dir.Write("p/hlo-test.cfg", "# defaults\nrun: hlo-opt %s\nrun-error: hlo-run %s\n");
  std::string file = dir.Write("p/x.hlo", "HloModule x\n");
  REQUIRE(SuiteRoot(file, dir.path()) == dir.path());
  auto test = LoadTestFile(file, dir.path());
  REQUIRE(test.ok());
  CHECK(test->relative == "p/x.hlo");
  REQUIRE(test->runs.size() == 2);
  CHECK(test->runs[0].command == "hlo-opt %s");
  CHECK(test->runs[0].line == 0);
  CHECK(test->runs[1].expect_error);
}

TEST_CASE("golden: a folder named hlo-test.cfg or a test that is unreadable is an error",
          "[golden]") {
  ScratchDir dir;
  std::filesystem::create_directories(dir / "p/hlo-test.cfg");
  std::string file = dir.Write("p/x.hlo", "HloModule x\n");
  auto test = LoadTestFile(file, dir.path());
  REQUIRE(!test.ok());
  CHECK(std::string(test.status().message()).find("p/hlo-test.cfg: Is a directory") !=
        std::string::npos);
  auto missing = LoadTestFile(dir / "none.hlo", dir.path());
  REQUIRE(!missing.ok());
  CHECK(std::string(missing.status().message()).find("none.hlo: No such file") !=
        std::string::npos);
}

TEST_CASE("golden: test files are .hlo files, not .expected.hlo, minus exclude:", "[golden]") {
  ScratchDir dir;
  dir.Write("hlo-test.cfg", "exclude: skip\n");
  dir.Write("a.hlo", "");
  dir.Write("a.expected.hlo", "");
  dir.Write("b.txt", "");
  dir.Write("skip/c.hlo", "");
  dir.Write("d/e.hlo", "");
  std::filesystem::create_directories(dir / "f.hlo");  // a folder, not a test
  auto files = FindTestFiles(dir.path());
  REQUIRE(files.ok());
  REQUIRE(files->size() == 2);
  CHECK((*files)[0] == dir / "a.hlo");
  CHECK((*files)[1] == dir / "d/e.hlo");
}

TEST_CASE("golden: a misspelt or unreadable hlo-test.cfg is an error, not skipped", "[golden]") {
  ScratchDir dir;
  dir.Write("hlo-test.cfg", "# root\nexclude: skip\n");
  dir.Write("a.hlo", "");
  dir.Write("d/hlo-test.cfg", "run: hlo-opt %s\nexlcude: e.hlo\n");
  dir.Write("d/e.hlo", "");
  auto files = FindTestFiles(dir.path());
  REQUIRE(!files.ok());
  CHECK(std::string(files.status().message()).find("d/hlo-test.cfg:2: error:") !=
        std::string::npos);
  auto test = LoadTestFile(dir / "d/e.hlo", dir.path());
  REQUIRE(!test.ok());
  CHECK(std::string(test.status().message()).find("hlo-test.cfg:2: error:") != std::string::npos);
  ScratchDir unreadable;
  std::filesystem::create_directories(unreadable / "hlo-test.cfg");  // a folder
  unreadable.Write("a.hlo", "");
  CHECK(!FindTestFiles(unreadable.path()).ok());
}

}  // namespace
}  // namespace hlo::golden
