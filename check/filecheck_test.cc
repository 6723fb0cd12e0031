// hlo-check's verdicts on the examples of LLVM's FileCheck documentation
// (llvm.org/docs/CommandGuide/FileCheck.html); the same verdicts are checked
// against FileCheck-14 itself by scripts/filecheck_agreement.py.
#include "check/filecheck.h"

#include <catch2/catch.hpp>

namespace hlo::check {
namespace {

int Verdict(const std::string& check, const std::string& input, CheckOptions options = {}) {
  options.dump_input = DumpInput::kNever;
  return RunFileCheck("check", check, "input", input, options).exit_code;
}

TEST_CASE("check: CHECK and CHECK-NEXT follow the input in order", "[check]") {
  CHECK(Verdict("CHECK: a\nCHECK: b\n", "a\nb\n") == 0);
  CHECK(Verdict("CHECK: b\nCHECK: a\n", "a\nb\n") == 1);
  CHECK(Verdict("CHECK: a\nCHECK-NEXT: b\n", "a\nx\nb\n") == 1);
  CHECK(Verdict("CHECK: a\nCHECK-NEXT: b\n", "a b\n") == 1);  // same line
  CHECK(Verdict("CHECK: a\nCHECK-SAME: b\n", "a b\n") == 0);
  CHECK(Verdict("CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n", "a\n\nb\n") == 0);
  CHECK(Verdict("CHECK: a\nCHECK-EMPTY:\n", "a\nb\n") == 1);
}

TEST_CASE("check: CHECK-NOT, CHECK-DAG, CHECK-LABEL, CHECK-COUNT", "[check]") {
  CHECK(Verdict("CHECK: a\nCHECK-NOT: b\nCHECK: c\n", "a b c\n") == 1);
  CHECK(Verdict("CHECK: a\nCHECK-NOT: b\nCHECK: c\n", "a c b\n") == 0);
  CHECK(Verdict("CHECK-DAG: y\nCHECK-DAG: x\nCHECK: z\n", "x y z\n") == 0);
  CHECK(Verdict("CHECK-DAG: x\nCHECK-DAG: x\n", "x\n") == 1);  // matches never overlap
  // A check between two labels must match between them.
  CHECK(Verdict("CHECK-LABEL: f:\nCHECK: ret\nCHECK-LABEL: g:\n", "f:\ng:\nret\n") == 1);
  CHECK(Verdict("CHECK-COUNT-3: op\n", "op op\nop\n") == 0);
  CHECK(Verdict("CHECK-COUNT-3: op\n", "op op\n") == 1);
}

TEST_CASE("check: regexes and variables", "[check]") {
  CHECK(Verdict("CHECK: add {{%[0-9]+}}\n", "add %12\n") == 0);
  CHECK(Verdict("CHECK: mov [[R:r[0-9]+]]\nCHECK: use [[R]]\n", "mov r3\nuse r4\n") == 1);
  CHECK(Verdict("CHECK: mov [[R:r[0-9]+]]\nCHECK: use [[R]]\n", "mov r3\nuse r3\n") == 0);
  // A use in the same pattern as its definition (a backreference).
  CHECK(Verdict("CHECK: [[X:[a-z]+]] = [[X]]\n", "a = b\nc = c\n") == 0);
  CHECK(Verdict("CHECK: [[X:[a-z]+]] = [[X]]\n", "a = b\n") == 1);
  CHECK(Verdict("CHECK: v[[#N:]]\nCHECK: v[[#N+1]]\n", "v7\nv8\n") == 0);
  CHECK(Verdict("CHECK: v[[#N:]]\nCHECK: v[[#N+1]]\n", "v7\nv9\n") == 1);
  CHECK(Verdict("CHECK: [[@LINE]]\n", "1\n") == 0);
  CHECK(Verdict("CHECK: use [[UNDEFINED]]\n", "use x\n") == 1);
}

TEST_CASE("check: malformed check files exit 2", "[check]") {
  CHECK(Verdict("CHECK:\n", "a\n") == 2);                  // empty pattern
  CHECK(Verdict("CHECK-NEXT: a\n", "a\n") == 2);           // no previous CHECK
  CHECK(Verdict("CHECK: {{a\n", "a\n") == 2);              // no }}
  CHECK(Verdict("CHECK: {{[0-9]{6}}}\n", "123456\n") == 2);  // regex ends at the first }}
  CHECK(Verdict("CHECK: [[1X]]\n", "a\n") == 2);           // bad variable name
  CHECK(Verdict("NOTHING HERE\n", "a\n") == 2);            // no check strings
  CHECK(Verdict("CHECK: a\n", "") == 2);                   // empty input
  CHECK(Verdict("CHECK-NOT-NEXT: a\n", "a\n") == 2);
}

TEST_CASE("check: options", "[check]") {
  CheckOptions full;
  full.match_full_lines = true;
  CHECK(Verdict("CHECK: a b\n", "  a b \n", full) == 0);
  CHECK(Verdict("CHECK: a b\n", "a b c\n", full) == 1);
  CheckOptions strict;
  strict.strict_whitespace = true;
  CHECK(Verdict("CHECK: a b\n", "a   b\n") == 0);
  CHECK(Verdict("CHECK: a b\n", "a   b\n", strict) == 1);
  CheckOptions implicit;
  implicit.implicit_check_not = {"error"};
  CHECK(Verdict("CHECK: ok\n", "ok\nerror\n", implicit) == 1);
  CheckOptions prefixes;
  prefixes.check_prefixes = {"A", "B"};
  CHECK(Verdict("A: x\nB: y\n", "x y\n", prefixes) == 0);
  CHECK(Verdict("A: x\n", "x y\n", prefixes) == 2);  // B unused
  // A directive inside a RUN line is a comment.
  CHECK(Verdict("RUN: tool | CHECK: nothing\nCHECK: x\n", "x\n") == 0);
}

}  // namespace
}  // namespace hlo::check
