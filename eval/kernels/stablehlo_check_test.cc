// The stablehlo.check.* custom calls (StableHLO's check ops) through the
// evaluator, by CheckOps.cpp's definitions; and the split of a StableHLO file.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "stablehlo/stablehlo.h"

namespace hlo {
namespace {

// The error of checking `actual` against `expected` (HLO constant texts of
// type `type`) with `target`, or "" when the check holds.
std::string CheckError(std::string_view target, std::string_view type, std::string_view actual,
                       std::string_view expected, std::string_view config = "") {
  std::string text =
      StrCat("HloModule t\n\nENTRY main {\n  a = ", type, " constant(", actual, ")\n  b = ", type,
             " constant(", expected, ")\n  c = () custom-call(a, b), custom_call_target=\"", target,
             "\", custom_call_has_side_effect=true");
  if (!config.empty()) StrAppend(&text, ", backend_config=\"", config, "\"");
  text += "\n  ROOT t = () tuple()\n}\n";
  auto m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  auto v = ev.Run({});
  return v.ok() ? std::string() : std::string(v.status().message());
}

constexpr std::string_view kEq = "stablehlo.check.expect_eq";
constexpr std::string_view kAlmost = "stablehlo.check.expect_almost_eq";
constexpr std::string_view kClose = "stablehlo.check.expect_close";

TEST_CASE("check.expect_eq: IEEE equality, the first difference named", "[stablehlo_check]") {
  CHECK(CheckError(kEq, "s4[3]", "{-8, 0, 7}", "{-8, 0, 7}").empty());
  CHECK(CheckError(kEq, "f32[2]", "{0, 1}", "{-0, 1}").empty());
  CHECK_FALSE(CheckError(kEq, "f32[1]", "{nan}", "{nan}").empty());
  std::string err = CheckError(kEq, "s32[2,2]", "{{1, 2}, {3, 4}}", "{{1, 9}, {3, 5}}");
  CHECK(err.find("2 (actual) vs 9 (expected) at index [0, 1]") != std::string::npos);
  CHECK(CheckError(kEq, "c64[1]", "{(1, 2)}", "{(1, 2)}").empty());
  CHECK_FALSE(CheckError(kEq, "c64[1]", "{(1, 2)}", "{(1, 3)}").empty());
}

TEST_CASE("check.expect_almost_eq: tolerance, NaN and infinities", "[stablehlo_check]") {
  CHECK(CheckError(kAlmost, "f64[]", "1", "1.00005", "tolerance=0.0001").empty());
  CHECK_FALSE(CheckError(kAlmost, "f64[]", "1", "1.0002", "tolerance=0.0001").empty());
  CHECK(CheckError(kAlmost, "f32[2]", "{nan, inf}", "{nan, inf}", "tolerance=0").empty());
  CHECK_FALSE(CheckError(kAlmost, "f32[]", "nan", "1", "tolerance=1e30").empty());
  CHECK_FALSE(CheckError(kAlmost, "f32[]", "inf", "3e38", "tolerance=1e39").empty());
  CHECK_FALSE(CheckError(kAlmost, "f32[]", "-inf", "inf", "tolerance=1e39").empty());
  // Both parts of a complex number.
  CHECK_FALSE(CheckError(kAlmost, "c128[1]", "{(1, 2)}", "{(1, 2.1)}", "tolerance=0.01").empty());
}

TEST_CASE("check.expect_close: ULPs between encodings", "[stablehlo_check]") {
  const std::string one_two = "max_ulp_difference=1,min_ulp_difference=0";
  // 1 + 2^-23 is the next f32 after 1; 1 + 2^-22 the one after.
  CHECK(CheckError(kClose, "f32[]", "1", "1.00000012", one_two).empty());
  CHECK_FALSE(CheckError(kClose, "f32[]", "1", "1.00000024", one_two).empty());
  // Across zero: the smallest denormals of each sign are 2 apart, -0 and +0 none.
  const std::string two = "max_ulp_difference=2,min_ulp_difference=2";
  CHECK(CheckError(kClose, "f32[]", "-1.4e-45", "1.4e-45", two).empty());
  CHECK(
      CheckError(kClose, "f32[]", "-0", "0", "max_ulp_difference=0,min_ulp_difference=0").empty());
  // Below the minimum, and a finite value against an infinity.
  CHECK_FALSE(CheckError(kClose, "f32[]", "1", "1", two).empty());
  std::string err = CheckError(kClose, "f32[2]", "{1, 2}", "{1, inf}",
                               "max_ulp_difference=1000000,min_ulp_difference=0");
  CHECK(err.find("at index [1], ULP difference unbounded") != std::string::npos);
  CHECK(CheckError(kClose, "bf16[]", "nan", "nan", "max_ulp_difference=0,min_ulp_difference=0")
            .empty());
}

TEST_CASE("SplitStableHlo: MLIR's -split-input-file pieces", "[stablehlo_check]") {
  auto pieces = SplitStableHlo("a\n// -----\nb\nc\n// // ----- x\nd\n// -----");
  REQUIRE(pieces.size() == 4);
  CHECK(pieces[0].text == "a\n");
  CHECK(pieces[1].text == "b\nc\n// ");
  CHECK(pieces[1].first_line == 3);
  CHECK(pieces[2].text == "d\n");
  CHECK(pieces[2].first_line == 6);
  CHECK(pieces[3].text.empty());
}

}  // namespace
}  // namespace hlo
