// hlo-test's verdicts (README "Writing golden tests"): .out/.err files,
// checkers, XFAIL; --update writes only from commands that ran as they
// should, every prefix in one run, and reports what it cannot write.
#include "golden/runner.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "golden/compare.h"
#include "golden/test_support.h"

namespace hlo::golden {
namespace {

using testing::ScratchDir;

struct Suite {
  ScratchDir dir;
  RunnerOptions options;
  Suite() {
    options.tool_directory = testing::BinaryDirectory();
    options.temp_directory = dir.path();
    options.timeout_seconds = 20;
  }
  TestOutcome Run(const std::string& name, bool update = false) {
    auto test = LoadTestFile(dir / name, dir.path());
    REQUIRE(test.ok());
    RunnerOptions run = options;
    run.update = update;
    return RunTest(*test, run);
  }
  std::string Read(const std::string& name) {
    std::string text;
    REQUIRE(ReadFile(dir / name, &text));
    return text;
  }
};

TEST_CASE("golden: RUN compares stdout with NAME.out; RUN-ERROR stderr with NAME.err", "[golden]") {
  Suite s;
  s.dir.Write("a.hlo", "// RUN: echo hello\n");
  TestOutcome o = s.Run("a.hlo");
  CHECK(o.verdict == Verdict::kFail);
  CHECK(o.reason == "stdout: a.out is missing (--update writes it)");
  s.dir.Write("a.out", "hello  \n\n");
  CHECK(s.Run("a.hlo").verdict == Verdict::kPass);
  s.dir.Write("a.out", "bye\n");
  o = s.Run("a.hlo");
  CHECK(o.reason == "stdout differs from a.out");
  CHECK(o.details.find("\n-bye\n") != std::string::npos);
  CHECK(o.details.find("\n+hello\n") != std::string::npos);

  s.dir.Write("e.hlo", "// RUN-ERROR: sh -c 'echo bad >&2; exit 1'\n");
  s.dir.Write("e.err", "bad\n");
  CHECK(s.Run("e.hlo").verdict == Verdict::kPass);
  s.dir.Write("e2.hlo", "// RUN-ERROR: sh -c 'echo bad >&2; exit 2'\n");
  s.dir.Write("e2.err", "bad\n");
  o = s.Run("e2.hlo");
  CHECK(o.verdict == Verdict::kFail);
  CHECK(o.reason.find("sh exited 2, expected 1 (RUN line 1)") == 0);
}

TEST_CASE("golden: a folder where NAME.out belongs fails the test, --update or not", "[golden]") {
  Suite s;
  s.dir.Write("a.hlo", "// RUN: echo hello\n");
  std::filesystem::create_directories(s.dir / "a.out");
  for (bool update : {false, true}) {
    TestOutcome o = s.Run("a.hlo", update);
    CHECK(o.verdict == Verdict::kFail);
    CHECK(o.reason == "stdout: cannot read " + s.dir / "a.out" + ": Is a directory");
  }
}

TEST_CASE("golden: --update writes nothing from a command line that failed", "[golden]") {
  Suite s;
  const std::string checks = "// CHECK: hand-written\n";
  for (const char* run :
       {"cat missing.txt | hlo-check %s", "hlo-check %s --input-file missing",
        "hlo-check %s < missing", "echo x | hlo-check %s --bad-option",
        "cat missing.txt | hlo-check %s --input-file in.txt",
        "cat missing.txt 2>&1 | diff %S/exp.txt -", "echo hand-written | not hlo-check %s",
        "echo x | hlo-check %s > /nonexistent/x"}) {
    INFO(run);
    std::string text = std::string("// RUN: ") + run + "\n" + checks;
    s.dir.Write("t.hlo", text);
    s.dir.Write("in.txt", "other\n");
    s.dir.Write("exp.txt", "x\n");
    TestOutcome o = s.Run("t.hlo", true);
    CHECK(o.verdict == Verdict::kFail);
    CHECK(o.updated.empty());
    CHECK(s.Read("t.hlo") == text);
    CHECK(s.Read("exp.txt") == "x\n");
  }
  // The reason says why, also when 2>&1 sent the message down the pipe.
  s.dir.Write("m.hlo", "// RUN: cat missing.txt 2>&1 | hlo-check %s\n" + checks);
  TestOutcome m = s.Run("m.hlo", true);
  CHECK(m.reason.find("cat exited 1 (RUN line 1)") == 0);
  CHECK(m.details == "cat: cannot read missing.txt: No such file or directory\n");
  // Same for .out: a failed command writes no NAME.out.
  s.dir.Write("o.hlo", "// RUN: cat missing.txt\n");
  CHECK(s.Run("o.hlo", true).verdict == Verdict::kFail);
  CHECK(!std::filesystem::exists(s.dir / "o.out"));
}

TEST_CASE("golden: --update rewrites every prefix of a file in one run", "[golden]") {
  Suite s;
  s.dir.Write("t.hlo",
              "// RUN: echo alpha | hlo-check %s --check-prefix=A\n"
              "// RUN: echo beta | hlo-check %s --check-prefix B\n"
              "// RUN: echo gamma | FileCheck %s\n"
              "// A: stale-a\n"
              "// B: stale-b\n"
              "// CHECK: stale-c\n");
  TestOutcome o = s.Run("t.hlo", true);
  CHECK(o.verdict == Verdict::kPass);
  CHECK(o.updated.size() == 3);
  std::string text = s.Read("t.hlo");
  CHECK(text.find("stale") == std::string::npos);
  CHECK(text.find("// A-LABEL: alpha") != std::string::npos);
  CHECK(text.find("// B-LABEL: beta") != std::string::npos);
  CHECK(text.find("// CHECK-LABEL: gamma") != std::string::npos);
  CHECK(s.Run("t.hlo").verdict == Verdict::kPass);
  CHECK(s.Run("t.hlo", true).updated.empty());
}

TEST_CASE("golden: --update of a new test without CHECK lines, and from --input-file", "[golden]") {
  Suite s;
  s.dir.Write("in.txt", "from file\n");
  s.dir.Write("t.hlo", "// RUN: hlo-check %s --input-file in.txt\n");
  TestOutcome o = s.Run("t.hlo");
  CHECK(o.reason.find("hlo-check exited 2") == 0);
  o = s.Run("t.hlo", true);
  CHECK(o.verdict == Verdict::kPass);
  CHECK(s.Read("t.hlo").find("// CHECK-LABEL: from file") != std::string::npos);
}

TEST_CASE("golden: --update knows a file without check strings by hlo-check's verdict",
          "[golden]") {
  Suite s;
  // Malformed, not empty: hlo-check exits 2 and its message quotes the line,
  // whose words are those of the no-check-strings message.
  s.dir.Write("t.hlo", "// RUN: echo x | hlo-check %s\n// CHECK-DAG-NOT: no check strings found\n");
  TestOutcome o = s.Run("t.hlo", true);
  CHECK(o.reason.find("hlo-check exited 2") == 0);
  CHECK(o.updated.empty());
  CHECK(s.Read("t.hlo").find("CHECK-LABEL") == std::string::npos);
  // With other prefixes the same file has none: --update writes them.
  s.dir.Write("p.hlo", "// RUN: echo x | hlo-check %s --check-prefix=P\n// CHECK: y\n");
  CHECK(s.Run("p.hlo", true).verdict == Verdict::kPass);
  CHECK(s.Read("p.hlo").find("// P-LABEL: x") != std::string::npos);
}

TEST_CASE("golden: --update refuses several prefixes in one command", "[golden]") {
  Suite s;
  std::string text = "// RUN: echo a | hlo-check %s --check-prefixes=A,B\n// A: x\n// B: y\n";
  s.dir.Write("t.hlo", text);
  TestOutcome o = s.Run("t.hlo", true);
  CHECK(o.verdict == Verdict::kFail);
  CHECK(o.reason.find("one prefix per command, not A,B") != std::string::npos);
  CHECK(s.Read("t.hlo") == text);
}

TEST_CASE("golden: --update reports files it cannot write; read-only ones stay", "[golden]") {
  Suite s;
  s.dir.Write("a.hlo", "// RUN: echo new\n");
  std::string out = s.dir.Write("a.out", "old\n");
  REQUIRE(chmod(out.c_str(), 0444) == 0);
  TestOutcome o = s.Run("a.hlo", true);
  CHECK(o.verdict == Verdict::kFail);
  CHECK(o.reason ==
        "stdout differs; --update cannot write " + out + ": read-only file, not replaced");
  CHECK(s.Read("a.out") == "old\n");
  struct stat st;
  REQUIRE(stat(out.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0444);

  s.dir.Write("d.hlo", "// RUN: echo x | diff no/such/dir/exp.txt -\n");
  o = s.Run("d.hlo", true);
  CHECK(o.verdict == Verdict::kFail);
  CHECK(o.reason.find("--update cannot write " + s.dir / "no/such/dir/exp.txt") == 0);

  std::string checked = s.dir.Write("c.hlo", "// RUN: echo x | hlo-check %s\n// CHECK: y\n");
  REQUIRE(chmod(checked.c_str(), 0444) == 0);
  o = s.Run("c.hlo", true);
  CHECK(o.reason == "--update cannot write " + checked + ": read-only file, not replaced");
}

TEST_CASE("golden: --update writes a diff's expected file when the rest succeeded", "[golden]") {
  Suite s;
  s.dir.Write("d.hlo", "// RUN: echo x | diff exp.txt -\n");
  CHECK(s.Run("d.hlo").verdict == Verdict::kFail);
  TestOutcome o = s.Run("d.hlo", true);
  CHECK(o.verdict == Verdict::kPass);
  CHECK(s.Read("exp.txt") == "x\n");
}

TEST_CASE("golden: XFAIL: * turns a failure into XFAIL and a pass into XPASS", "[golden]") {
  Suite s;
  s.dir.Write("f.hlo", "// XFAIL: *\n// RUN: sh -c 'exit 3'\n");
  TestOutcome o = s.Run("f.hlo");
  CHECK(o.verdict == Verdict::kXFail);
  CHECK(o.reason.find("sh exited 3") == 0);
  s.dir.Write("p.hlo", "// XFAIL: *\n// RUN: echo x | hlo-check %s\n// CHECK: x\n");
  o = s.Run("p.hlo");
  CHECK(o.verdict == Verdict::kXPass);
  // --update leaves an expected failure alone.
  std::string text = "// XFAIL: *\n// RUN: echo x | hlo-check %s\n// CHECK: y\n";
  s.dir.Write("u.hlo", text);
  CHECK(s.Run("u.hlo", true).verdict == Verdict::kXFail);
  CHECK(s.Read("u.hlo") == text);
}

TEST_CASE("golden: RunTests counts XFAIL, exits 2 on a bad filter or path", "[golden]") {
  Suite s;
  s.dir.Write("hlo-test.cfg", "");
  s.dir.Write("f.hlo", "// XFAIL: *\n// RUN: sh -c 'exit 3'\n");
  s.dir.Write("x.hlo", "// XFAIL: *\n// RUN: echo x > %t\n");
  s.dir.Write("bad.hlo", "// XFAIL: nope\n// RUN: true\n");
  std::ostringstream out;
  CHECK(RunTests({s.dir.path()}, s.options, out) == 1);
  CHECK(out.str().find("XPASS: x.hlo: passed, but it is marked `XFAIL: *`") != std::string::npos);
  CHECK(out.str().find("FAIL: " + s.dir / "bad.hlo" + ": " + s.dir / "bad.hlo" +
                       ":1: XFAIL: 'nope' is not supported") != std::string::npos);
  CHECK(out.str().find("0 passed, 2 failed, 1 xfail\n") != std::string::npos);
  RunnerOptions bad = s.options;
  bad.filter = "(";
  std::ostringstream out2;
  CHECK(RunTests({s.dir.path()}, bad, out2) == 2);
  CHECK(out2.str().find("hlo-test: --filter: bad regex '(': missing )") == 0);
  std::ostringstream out3;
  CHECK(RunTests({s.dir / "none"}, s.options, out3) == 2);
}

}  // namespace
}  // namespace hlo::golden
