// hlo-check's verdicts on the examples of LLVM's FileCheck documentation
// (llvm.org/docs/CommandGuide/FileCheck.html); the same verdicts are checked
// against FileCheck-14 itself by scripts/filecheck_agreement.py.
#include "check/filecheck.h"

#include <catch2/catch.hpp>
#include <optional>

#include "check/pattern.h"

namespace hlo::check {
namespace {

int Verdict(const std::string& check, const std::string& input, CheckOptions options = {}) {
  options.dump_input = DumpInput::kNever;
  return RunFileCheck("check", check, "input", input, options).exit_code();
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
  CHECK(Verdict("CHECK:\n", "a\n") == 2);                    // empty pattern
  CHECK(Verdict("CHECK-NEXT: a\n", "a\n") == 2);             // no previous CHECK
  CHECK(Verdict("CHECK: {{a\n", "a\n") == 2);                // no }}
  CHECK(Verdict("CHECK: {{[0-9]{6}}}\n", "123456\n") == 2);  // regex ends at the first }}
  CHECK(Verdict("CHECK: [[1X]]\n", "a\n") == 2);             // bad variable name
  CHECK(Verdict("NOTHING HERE\n", "a\n") == 2);              // no check strings
  CHECK(Verdict("CHECK: a\n", "") == 2);                     // empty input
  CHECK(Verdict("CHECK-NOT-NEXT: a\n", "a\n") == 2);
}

// FileCheck-14 reads the pattern of a directive whose ':' is the file's
// last byte past the end (a pattern that is not empty and matches nothing);
// verdicts checked against FileCheck-14 (scripts/filecheck_agreement.py
// found the CHECK-EMPTY case).
TEST_CASE("check: a directive's ':' as the file's last byte, as FileCheck reads it", "[check]") {
  CHECK(Verdict("CHECK: a\nCHECK-EMPTY:", "a\n\n") == 2);    // non-empty check string
  CHECK(Verdict("CHECK: a\nCHECK-EMPTY:  ", "a\n\n") == 0);  // spaces: empty, as usual
  CHECK(Verdict("CHECK: a\nCHECK-NEXT:", "a\n\n") == 1);     // matches nothing
  CHECK(Verdict("CHECK: a\nCHECK-NEXT:  ", "a\n\n") == 2);   // empty check string
  CHECK(Verdict("CHECK: a\nCHECK:", "a\n") == 1);
  CHECK(Verdict("CHECK: a\nCHECK-NOT:", "a\n") == 0);
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

namespace hlo::check {
namespace {

CheckResult Run(const std::string& check, const std::string& input, CheckOptions options = {}) {
  options.dump_input = DumpInput::kNever;
  return RunFileCheck("check", check, "input", input, options);
}

// Verdicts and notes of FileCheck-14 (issue 35), run on the same files.
TEST_CASE("check: brackets and braces beside regexes and variables", "[check]") {
  // After `{{` the regex ends at the first `}}`: here `{[0-9]+`, then `}`.
  CHECK(Verdict("CHECK: f32[8]{{{[0-9]+}}}\n", "f32[8]{0}\n") == 0);
  CHECK(Verdict("CHECK: f32[8]{{{[0-9]+}}}\n", "f32[8]{x}\n") == 1);
  CHECK(Verdict("CHECK: f32[8]{{{0}}}\n", "f32[8]{0}\n") == 2);  // `{0` repeats nothing
  // `[[[`: a literal `[`, then the variable.
  CHECK(Verdict("CHECK: f32[[[N:[0-9]+]]]{0}\nCHECK: s32[[[N]]]\n", "f32[8]{0}\ns32[8]\n") == 0);
  CHECK(Verdict("CHECK: f32[[[N:[0-9]+]]]{0}\nCHECK: s32[[[N]]]\n", "f32[8]{0}\ns32[9]\n") == 1);
  CHECK(Verdict("CHECK: [[[[X:a]]]]\n", "[[a]]\n") == 0);
  // FileCheck exits 1 at once on a `]` that closes nothing in a [[ ]] block.
  CHECK(Verdict("CHECK: [[X:a]\n", "a\n") == 1);
  CHECK(Verdict("CHECK: x {{}}\n", "x\n") == 2);        // empty regex
  CHECK(Verdict("CHECK: {{(|a)}}\n", "a\n") == 2);      // empty alternative
  CHECK(Verdict("CHECK: [[X:]]x[[X]]\n", "x\n") == 0);  // [[X:]] matches empty
  // A pattern of empty substitutions is an empty regex: it matches nowhere.
  CHECK(Verdict("CHECK: [[X:a?]]\nCHECK: [[X]]\n", "b\n") == 1);
  CHECK(Verdict("CHECK: [[X:a?]]\nCHECK: [[X]]\n", "a\n") == 1);
  CHECK(Verdict("CHECK: [[X:a?]]\nCHECK: [[X]]b\n", "b\n") == 0);
  CHECK(Verdict("CHECK: {{[]]}}\n", "]\n") == 0);
  // A backreference \N has one digit: the tenth capture cannot be used.
  CHECK(Verdict("CHECK: {{(a)(b)(c)(d)(e)(f)(g)(h)}}[[X:x]][[X]]\n", "abcdefghxx\n") == 2);
  CHECK(Verdict("CHECK: {{(a)(b)(c)(d)(e)(f)(g)}}[[X:x]][[X]]\n", "abcdefgxx\n") == 0);
  // Numeric definitions may sit in a label, string ones may not.
  CHECK(Verdict("CHECK-LABEL: v[[#N:]]\nCHECK: w[[#N]]\n", "v3 w3\n") == 0);
  CHECK(Verdict("CHECK-LABEL: v[[N:[0-9]]]\n", "v3\n") == 2);
}

TEST_CASE("check: -D, --ignore-case and -v", "[check]") {
  CheckOptions defines;
  defines.defines = {"SHAPE=f32[8]", "#N=7", "#%x,H=0x1f"};
  CHECK(Verdict("CHECK: [[SHAPE]]{0}\nCHECK: [[#N+1]] [[#H]]\n", "f32[8]{0}\n8 1f\n", defines) ==
        0);
  CHECK(Verdict("CHECK: [[#N+2]]\n", "8\n", defines) == 1);
  defines.defines = {"#%.4x,P=2"};  // FileCheck-14: 0002 passes
  CHECK(Verdict("CHECK: [[#P]]\n", "0002\n", defines) == 0);
  defines.defines = {"1X=a"};
  CHECK(Verdict("CHECK: a\n", "a\n", defines) == 2);
  defines.defines = {"X"};
  CHECK(Verdict("CHECK: a\n", "a\n", defines) == 2);
  CheckOptions fold;
  fold.ignore_case = true;
  CHECK(Verdict("CHECK: F32[8]{0}\n", "f32[8]{0}\n", fold) == 0);
  CHECK(Verdict("CHECK: F32[{{[A-Z]}}]\n", "f32[n]\n", fold) == 0);
  CHECK(Verdict("CHECK: F32\n", "f32\n") == 1);
  // A backreference compares bytes even without case (LLVM's regex engine).
  CHECK(Verdict("CHECK: [[X:[a-z]+]] [[X]]\n", "ab AB\n", fold) == 1);
  CHECK(Verdict("CHECK: [[X:[a-z]+]] [[X]]\n", "AB AB\n", fold) == 0);
  CheckOptions verbose;
  verbose.verbose = 1;
  std::string messages = Run("CHECK: [[V:[a-z]+]] = f32\n", "add = f32\n", verbose).messages;
  CHECK(messages.find("check:1:8: remark: CHECK: expected string found in input") !=
        std::string::npos);
  CHECK(messages.find("input:1:1: note: found here\nadd = f32\n^~~~~~~~~") != std::string::npos);
  CHECK(messages.find("input:1:1: note: captured var \"V\"\nadd = f32\n^~~") != std::string::npos);
  // FileCheck keeps -v's remarks for the input dump unless --dump-input=never.
  verbose.dump_input = DumpInput::kFail;
  CHECK(RunFileCheck("check", "CHECK: add\n", "input", "add\n", verbose).messages.empty());
  // A count is named CHECK-COUNT and counted, in FileCheck's words.
  CHECK(
      Run("CHECK-COUNT-3: op\n", "op op\n")
          .messages.find(
              "check:1:16: error: CHECK-COUNT: expected string not found in input (3 out of 3)") !=
      std::string::npos);
}

TEST_CASE("check: the near miss is shown for regexes and variables too", "[check]") {
  const std::string input =
      "HloModule m\n %p = f32[8]{0} parameter(0)\n %q = f32[16]{0} add(%p, %p)\n";
  // FileCheck-14's notes for these files: line 3 column 2, line 2 column 7.
  for (const char* check :
       {"CHECK: %q = f32[{{[0-9]+}}]{1} add\n", "CHECK: [[V:%[a-z]]] = f32[16]{1} add\n"}) {
    CHECK(Run(check, input).messages.find("input:3:2: note: possible intended match here") !=
          std::string::npos);
  }
  CHECK(Run("CHECK: f32[[[N:[0-9]+]]]{0} paramter\n", input)
            .messages.find("input:2:7: note: possible intended match here") != std::string::npos);
  CHECK(Run("CHECK: add(%p, %q)\n", input)
            .messages.find("input:3:18: note: possible intended match here") != std::string::npos);
}

TEST_CASE("check: a name is one kind of variable in the whole file", "[check]") {
  // FileCheck-14's verdicts on the same files.
  CHECK(Verdict("CHECK: [[N:a]]\nCHECK: [[#N:]]\n", "a 1\n") == 2);
  CHECK(Verdict("CHECK: [[#N:]]\nCHECK: [[N:a]]\n", "1 a\n") == 2);
  CHECK(Verdict("CHECK: [[#N]]\nCHECK: [[N:a]]\n", "1 a\n") == 2);  // a use makes N numeric
  CheckOptions numeric, string;
  numeric.defines = {"#N=1"};
  string.defines = {"N=1"};
  CHECK(Verdict("CHECK: [[N:a]]\n", "a\n", numeric) == 2);
  CHECK(Verdict("CHECK: [[#N:]]\n", "1\n", string) == 2);
  // A numeric variable keeps its format.
  CHECK(Verdict("CHECK: [[#%x,N:]]\nCHECK: [[#%d,N:]]\n", "a 1\n") == 2);
  CHECK(Verdict("CHECK: [[#%x,N:]]\nCHECK: [[#%x,N:]]\n", "a b\n") == 0);
  // A use on the line of the variable's first definition is an error; a
  // second definition there is not.
  CHECK(Verdict("CHECK: [[#N:]] [[#N+1]]\n", "1 2\n") == 2);
  CHECK(Verdict("CHECK: [[#N+1]] [[#N:]]\n", "1 2\n") == 1);
  CHECK(Verdict("CHECK: [[#N:]] [[#N:]]\n", "1 2\n") == 0);
}

}  // namespace
}  // namespace hlo::check

namespace hlo::check {
namespace {

std::optional<CheckVerdict> VerdictKind(const std::string& check, const std::string& input,
                                        CheckOptions options = {}) {
  options.dump_input = DumpInput::kNever;
  return VerdictOf(RunFileCheck("check", check, "input", input, options).status);
}

TEST_CASE("check: verdicts travel as typed payloads", "[check]") {
  CHECK(!VerdictKind("CHECK: a\n", "a\n").has_value());
  CHECK(VerdictKind("CHECK: a\n", "b\n") == CheckVerdict::kMatchFailed);
  CHECK(VerdictKind("CHECK-NEXT: a\n", "a\n") == CheckVerdict::kBadCheckFile);
  CHECK(VerdictKind("COM: nothing\n", "a\n") == CheckVerdict::kNoCheckStrings);
  CHECK(VerdictKind("CHECK: a\n", "") == CheckVerdict::kEmptyInput);
  CheckOptions bad_prefix;
  bad_prefix.check_prefixes = {"A", "A"};
  CHECK(VerdictKind("A: a\n", "a\n", bad_prefix) == CheckVerdict::kBadPrefix);
  CheckOptions bad_define;
  bad_define.defines = {"=x"};
  CHECK(VerdictKind("CHECK: a\n", "a\n", bad_define) == CheckVerdict::kBadCheckFile);
  // FileCheck stops at once, with 1, on an unbalanced ']' in a [[ ]] block.
  CheckResult unbalanced = RunFileCheck("check", "CHECK: [[X]a]]\n", "input", "a\n", {});
  CHECK(VerdictOf(unbalanced.status) == CheckVerdict::kBadCheckFile);
  CHECK(unbalanced.exit_code() == 1);
  // The verdict on the check file alone.
  CHECK(VerdictOf(ReadCheckFile("check", "nothing\n", {})) == CheckVerdict::kNoCheckStrings);
  CHECK(ReadCheckFile("check", "CHECK: x\n", {}).ok());
}

TEST_CASE("check: a pattern's error carries its offset and exit status", "[check]") {
  PatternOptions options;
  auto p = Pattern::Parse("ab {{x", CheckKind::kPlain, 1, options);
  REQUIRE(!p.ok());
  CHECK(PatternErrorOffset(p.status()) == 3);
  CHECK(CheckExitCode(p.status()) == 2);
  CHECK(p.status().message() == "found start of regex string with no end '}}'");
  p = Pattern::Parse("a [[X]b]]", CheckKind::kPlain, 1, options);
  REQUIRE(!p.ok());
  CHECK(PatternErrorOffset(p.status()) == 5);
  CHECK(CheckExitCode(p.status()) == 1);
  options.prefix = "PRE";
  p = Pattern::Parse("", CheckKind::kPlain, 1, options);
  CHECK(p.status().message() == "found empty check string with prefix 'PRE:'");
  CHECK(Pattern::Parse("a{{b}}", CheckKind::kPlain, 1, options).ok());
  // Unmarked statuses: no verdict, exit 2; OK: 0.
  CHECK(!VerdictOf(absl::InvalidArgumentError("x")).has_value());
  CHECK(CheckExitCode(absl::InvalidArgumentError("x")) == 2);
  CHECK(CheckExitCode(absl::OkStatus()) == 0);
}

}  // namespace
}  // namespace hlo::check
