// Issue 36: inputs that cost hlo-check super-linear time or unbounded memory,
// or aborted it. Each must end in a located error or the right verdict,
// quickly (each case here runs in well under a second).
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "check/filecheck.h"

namespace hlo::check {
namespace {

CheckResult Run(const std::string& check, const std::string& input) {
  CheckOptions options;
  options.dump_input = DumpInput::kNever;
  return RunFileCheck("check", check, "input", input, options);
}

double Seconds(const std::string& check, const std::string& input, int* exit_code) {
  auto start = std::chrono::steady_clock::now();
  *exit_code = Run(check, input).exit_code();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_CASE("hardening: a backreference on a long line is bounded", "[check][hardening]") {
  // Only X = "" matches; FileCheck backtracks for minutes on 4 KB.
  const std::string check = "CHECK: [[X:.*]]Z[[X]]\n";
  for (size_t half : {500, 2000, 50000}) {
    int code = 0;
    double seconds =
        Seconds(check, std::string(half, 'a') + "Z" + std::string(half, 'b') + "\n", &code);
    CHECK(seconds < 3);
    CHECK(code == 1);  // "gave up": a located error
  }
  CHECK(Run(check, std::string(50000, 'a') + "Z" + std::string(50000, 'b') + "\n")
            .messages.find("check:1:8: error: backreference to 'X': gave up") != std::string::npos);
  // Where the values are few, the search finds the answer.
  CHECK(Run("CHECK: [[X:[a-c]+]]Z[[X]]\n", std::string(3000, 'x') + "abcZabc\n").exit_code() == 0);
  CHECK(Run("CHECK: [[X:[a-c]+]]Z[[X]]\n", std::string(3000, 'x') + "abcZab\n").exit_code() == 1);
  CHECK(Run("CHECK: [[X:[a-z]+]]=[[X]];\n", std::string(3000, 'q') + " ab=b; abc=abc;\n")
            .exit_code() == 0);
  CHECK(Run("CHECK: [[X:[a-z]+]]=[[X]];\n", std::string(3000, 'q') + " ab=c; abc=ab;\n")
            .exit_code() == 1);
}

TEST_CASE("hardening: the near-miss search is bounded", "[check][hardening]") {
  std::string line;
  for (int i = 0; i < 40000; ++i) line += static_cast<char>('a' + (i * 7) % 8);
  std::string pattern = line.substr(10000, 20000);
  pattern[10000] = 'Z';
  int code = 0;
  CHECK(Seconds("CHECK: " + pattern + "\n", line + "\n", &code) < 3);
  CHECK(code == 1);
  CHECK(Seconds("CHECK: {{x}}" + pattern + "\n", line + "\n", &code) < 3);
  CHECK(code == 1);
}

TEST_CASE("hardening: reading a check file is linear", "[check][hardening]") {
  std::string check = "CHECK: line0\n", input = "line0\n";
  for (int i = 1; i < 100000; ++i) {
    check += "CHECK-NEXT: line" + std::to_string(i) + "\n";
    input += "line" + std::to_string(i) + "\n";
  }
  int code = 0;
  CHECK(Seconds(check, input, &code) < 3);  // 54 s when each directive searched the rest
  CHECK(code == 0);
}

TEST_CASE("hardening: huge counts, precisions and regexes", "[check][hardening]") {
  // FileCheck runs out of memory on these two; hlo-check says why.
  CHECK(Run("CHECK: [[#%.2000000000u,1]]\n", "1\n")
            .messages.find("check:1:10: error: precision 2000000000 is larger than") !=
        std::string::npos);
  CHECK(Run("CHECK: [[#%.300u,N:]]\n", "1\n").exit_code() == 2);
  CHECK(Run("CHECK: [[#%.10u,1]]\n", "0000000001\n").exit_code() == 0);
  // A count of two billion: the check fails at the first missing match, and
  // an empty match repeats without holding memory per match.
  CHECK(Run("CHECK-COUNT-2000000000: x\n", "x x\n").exit_code() == 1);
  int code = 0;
  CHECK(Seconds("CHECK-COUNT-2000000000: {{y*}}\n", "x\n", &code) < 1);
  CHECK(code == 0);
  CHECK(Seconds("CHECK-COUNT-2000000000: [[X:]]\nCHECK: [[X]]x\n", "x\n", &code) < 1);
  CHECK(code == 0);
  std::string groups, nested = std::string(30000, '(') + "a" + std::string(30000, ')');
  for (int i = 0; i < 30000; ++i) groups += "(a)";
  CHECK(Run("CHECK: {{" + groups + "}}\n", "a\n")
            .messages.find("check:1:10: error: invalid regex: more than 1000 capturing groups") !=
        std::string::npos);
  CHECK(Run("CHECK: [[X:" + nested + "]]\n", "a\n")
            .messages.find("check:1:12: error: invalid regex: parentheses nest deeper than") !=
        std::string::npos);
  std::string blocks;
  for (int i = 0; i < 2000; ++i) blocks += "{{a}}";
  CHECK(Run("CHECK: " + blocks + "\n", "a\n").exit_code() == 2);
}

TEST_CASE("hardening: numeric overflow is an error, not undefined behaviour",
          "[check][hardening]") {
  // FileCheck-14's verdicts and messages on the same files.
  CHECK(Run("CHECK: [[#0xffffffffffffffff+1]]\n", "0\n")
            .messages.find("unable to substitute variable or numeric expression: overflow error") !=
        std::string::npos);
  CHECK(Run("CHECK: [[#0xffffffffffffffff+1]]\n", "0\n").exit_code() == 1);
  CHECK(Run("CHECK: [[#18446744073709551616]]\n", "0\n").exit_code() == 2);
  CHECK(Run("CHECK: [[#9223372036854775807+1]]\n", "9223372036854775808\n").exit_code() == 0);
  CHECK(Run("CHECK: [[#-9223372036854775807-2]]\n", "0\n").exit_code() == 1);
  CHECK(Run("CHECK: [[@LINE+9223372036854775807]]\n", "9223372036854775808\n").exit_code() == 0);
  CHECK(Run("CHECK: [[#@LINE-2]]\n", "-1\n").messages.find("overflow error") != std::string::npos);
  CHECK(Run("CHECK: [[#%d,@LINE-2]]\n", "-1\n").exit_code() == 0);
  // A captured value too large for its format.
  CHECK(Run("CHECK: [[#N:]]\n", "99999999999999999999\n")
            .messages.find("unable to represent numeric value") != std::string::npos);
  CHECK(Run("CHECK: [[#N:]]\nCHECK: [[#N+1]]\n", "18446744073709551615\n0\n").exit_code() == 1);
}

}  // namespace
}  // namespace hlo::check
