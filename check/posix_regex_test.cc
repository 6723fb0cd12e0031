// TranslatePosixRegex against LLVM regcomp's verdicts (FileCheck-14 run on
// each regex as a {{ }} block: the messages are regerror's).
#include "check/posix_regex.h"

#include <catch2/catch.hpp>
#include <string>

#include "re2/re2.h"

namespace hlo::check {
namespace {

std::string Error(const std::string& regex) {
  auto translated = TranslatePosixRegex(regex);
  return translated.ok() ? "" : std::string(translated.status().message());
}

bool Matches(const std::string& regex, const std::string& text) {
  auto translated = TranslatePosixRegex(regex);
  REQUIRE(translated.ok());
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  RE2 re2(translated->re2, options);
  REQUIRE(re2.ok());
  return RE2::FullMatch(text, re2);
}

TEST_CASE("posix regex: a brace is a bound only before a digit", "[check][posix_regex]") {
  CHECK(Matches("{[0-9]+", "{0"));  // f32[8]{{{[0-9]+}}}: the regex is `{[0-9]+`
  CHECK(Matches("x{", "x{"));
  CHECK(Matches("[0-9]+}", "12}"));
  CHECK(Matches("a{2}", "aa"));
  CHECK(Matches("a{1,}", "aaa"));
  CHECK(Matches("{,}", "{,}"));
  CHECK(Error("[0-9]{2") == "braces not balanced");
  CHECK(Error("{0}") == "repetition-operator operand invalid");
  CHECK(Error("a{256}") == "invalid repetition count(s)");
  CHECK(Error("a{3,2}") == "invalid repetition count(s)");
  CHECK(Error("a{2}{3}") == "repetition-operator operand invalid");
}

TEST_CASE("posix regex: brackets, escapes and empty parts", "[check][posix_regex]") {
  CHECK(Matches("[]]", "]"));
  CHECK(Matches("[^]]*", "ab["));
  CHECK(Matches("[\\]", "\\"));  // a backslash is literal inside brackets
  CHECK(Matches("[[:digit:]]+", "42"));
  CHECK(Matches("\\{\\[", "{["));
  CHECK(Matches("\\d", "7"));  // hlo-check keeps RE2's Perl classes
  CHECK(Matches("()", ""));
  CHECK(Error("") == "empty (sub)expression");
  CHECK(Error("(|a)") == "empty (sub)expression");
  CHECK(Error("a|") == "empty (sub)expression");
  CHECK(Error("*a") == "repetition-operator operand invalid");
  CHECK(Error("a**") == "repetition-operator operand invalid");
  CHECK(Error("^*") == "repetition-operator operand invalid");
  CHECK(Error("(a") == "parentheses not balanced");
  CHECK(Error("a)") == "parentheses not balanced");
  CHECK(Error("[a") == "brackets ([ ]) not balanced");
  CHECK(Error("[z-a]") == "invalid character range");
  CHECK(Error("[[:foo:]]") == "invalid character class");
  CHECK(Error("a\\") == "trailing backslash (\\)");
}

TEST_CASE("posix regex: nesting and groups are bounded", "[check][posix_regex]") {
  std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  CHECK(Error(deep).find("nest deeper than") != std::string::npos);
  std::string wide;
  for (int i = 0; i < 30000; ++i) wide += "(a)";
  CHECK(Error(wide).find("capturing groups") != std::string::npos);
  std::string fine = std::string(kMaxRegexNesting, '(') + "a" + std::string(kMaxRegexNesting, ')');
  CHECK(Error(fine).empty());
}

}  // namespace
}  // namespace hlo::check
