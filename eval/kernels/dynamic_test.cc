// dynamic-reshape, copy-start/copy-done and scan through the evaluator.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

absl::StatusOr<Literal> RunBody(std::string_view text) {
  auto m = ParseModule(StrCat("HloModule t\n\n", text));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  auto v = ev.Run({});
  if (!v.ok()) return v.status();
  return v->ToLiteral();
}

std::string Error(std::string_view text) {
  auto r = RunBody(text);
  REQUIRE(!r.ok());
  return std::string(r.status().message());
}

TEST_CASE("dynamic-reshape: sizes must hold the operand's elements", "[dynamic]") {
  // StableHLO: size(operand) = size(result); 2 x 2 != 6.
  std::string err = Error(R"(
ENTRY main {
  m = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  two = s32[] constant(2)
  ROOT r = s32[<=3,2] dynamic-reshape(m, two, two)
})");
  CHECK(err.find("dynamic-reshape size 0 is 2 but must be 3") != std::string::npos);
  // The StableHLO example: 2x3 -> 3x2 keeps row-major order.
  auto ok = RunBody(R"(
ENTRY main {
  m = s64[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  three = s64[] constant(3)
  two = s64[] constant(2)
  ROOT r = s64[3,2] dynamic-reshape(m, three, two)
})");
  REQUIRE(ok.ok());
  CHECK(LiteralToString(*ok, LiteralStyle::kCompact) == "s64[3,2] {{1, 2}, {3, 4}, {5, 6}}");
}

TEST_CASE("copy-start: (destination, source, u32 context); copy-done: the destination",
          "[dynamic]") {
  auto r = RunBody(R"(
ENTRY main {
  a = f32[2] constant({1, 2})
  ROOT s = (f32[2], f32[2], u32[]) copy-start(a)
})");
  REQUIRE(r.ok());
  CHECK(LiteralToString(*r, LiteralStyle::kCompact) == "(f32[2] {1, 2}, f32[2] {1, 2}, u32[] 0)");
}

TEST_CASE("scan: XLA's loop (cumulative sums, then the carry)", "[dynamic]") {
  // scan_expander.cc: to_apply(x[i], carry) -> (output[i], carry).
  auto r = RunBody(R"(
body {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(s, s)
}

ENTRY main {
  v = f32[3] constant({1, 2, 3})
  z = f32[] constant(0)
  ROOT r = (f32[3], f32[]) scan(v, z), dimensions={0}, num_carries=1, is_reverse=true, to_apply=body
})");
  REQUIRE(r.ok());
  const Literal& sums = r->elements()[0];
  CHECK(sums.GetDouble(0) == 6);
  CHECK(sums.GetDouble(1) == 5);
  CHECK(sums.GetDouble(2) == 3);
  CHECK(r->elements()[1].GetDouble(0) == 6);
}

}  // namespace
}  // namespace hlo
