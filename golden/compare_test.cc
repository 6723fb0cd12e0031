// Golden comparisons, the reading and writing of expected files (a folder,
// a read-only file, a size limit), and CHECK-line generation per prefix.
#include "golden/compare.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "golden/check_generator.h"
#include "golden/test_support.h"

namespace hlo::golden {
namespace {

using testing::ScratchDir;

mode_t Mode(const std::string& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

TEST_CASE("golden: texts compare equal up to blanks at line ends and at the end", "[golden]") {
  CHECK(SameText("a\nb\n", "a  \nb\n\n\n"));
  CHECK(SameText("", "\n\n"));
  CHECK(!SameText("a\nb\n", "a\n\nb\n"));
  CHECK(!SameText(" a\n", "a\n"));
  CHECK(DifferingCases("a\n// -----\nb\n// -----\nc\n", "a\n// -----\nB\n// -----\nC\n") ==
        std::vector<int>{2, 3});
  CHECK(DifferingCases("a\n", "b\n").empty());
}

TEST_CASE("golden: ReadFile says why it cannot read", "[golden]") {
  ScratchDir dir;
  std::filesystem::create_directories(dir / "d");
  std::string text = "old", error;
  CHECK(!ReadFile(dir / "d", &text, &error));
  CHECK(error == dir / "d" + ": Is a directory");
  CHECK(!ReadFile(dir / "none", &text, &error));
  CHECK(error == dir / "none" + ": No such file or directory");
  dir.Write("f", "12345");
  CHECK(!ReadFile(dir / "f", &text, &error, 4));
  CHECK(error == dir / "f" + ": its size (5 bytes) exceeds the input limit of 4 bytes");
  CHECK(ReadFile(dir / "f", &text, &error, 5));
  CHECK(text == "12345");
  // A device is read up to the limit.
  CHECK(!ReadFile("/dev/zero", &text, &error, 100000));
  CHECK(error ==
        "/dev/zero: the input (more than 0 bytes) exceeds the input limit of 100000 bytes");
}

TEST_CASE("golden: WriteFile keeps the mode, refuses read-only files and folders", "[golden]") {
  ScratchDir dir;
  std::string path = dir.Write("a.out", "old\n");
  REQUIRE(chmod(path.c_str(), 0640) == 0);
  std::string error, text;
  REQUIRE(WriteFile(path, "new\n", &error));
  CHECK(Mode(path) == 0640);
  REQUIRE(ReadFile(path, &text));
  CHECK(text == "new\n");

  REQUIRE(chmod(path.c_str(), 0444) == 0);
  CHECK(!WriteFile(path, "newer\n", &error));
  CHECK(error == path + ": read-only file, not replaced");
  CHECK(Mode(path) == 0444);
  REQUIRE(ReadFile(path, &text));
  CHECK(text == "new\n");

  std::filesystem::create_directories(dir / "d");
  CHECK(!WriteFile(dir / "d", "x", &error));
  CHECK(error == dir / "d" + ": Is a directory");
  CHECK(!WriteFile(dir / "none/x", "x", &error));
  CHECK(error == dir / "none/x" + ": No such file or directory");
  // A device or FIFO is not replaced by a file.
  CHECK(!WriteFile("/dev/zero", "x", &error));
  CHECK(error == "/dev/zero: not a regular file, not replaced");
  // Nothing left behind.
  CHECK(!std::filesystem::exists(dir / "a.out.tmp.hlo-test"));
}

TEST_CASE("golden: CHECK lines are rewritten per prefix, leaving other prefixes", "[golden]") {
  std::string file =
      "// RUN: x\n"
      "// CHECK: old\n"
      "// CHECK-O: other\n"
      "// CHECK-NEXT: old2\n"
      "// A: keep\n"
      "\n"
      "HloModule m\n";
  std::string text = RewriteCheckLines(file, "new\n", "CHECK");
  CHECK(text.find("old") == std::string::npos);
  CHECK(text.find("// CHECK-O: other") != std::string::npos);
  CHECK(text.find("// A: keep") != std::string::npos);
  CHECK(text.find("// CHECK-LABEL: new") != std::string::npos);
  std::string both = RewriteCheckLines(text, "b\n", "A");
  CHECK(both.find("// CHECK-LABEL: new") != std::string::npos);
  CHECK(both.find("keep") == std::string::npos);
  CHECK(both.find("// A-LABEL:") != std::string::npos);
}

}  // namespace
}  // namespace hlo::golden
