// Tests for the rewrite bound of bisection: a pass under a bound of k makes
// its first k rewrites (in its visiting order) and counts every one it
// asked for; without a scope nothing is bounded.
#include "passes/rewrite_limit.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "passes/pipeline.h"

namespace hlo {
namespace {

// algsimp rewrites %m (x*1), %s (x-0) and %r (x*1), in post order.
const char kModule[] =
    "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[4] {\n"
    "  %p = f32[4] parameter(0)\n"
    "  %c1 = f32[] constant(1)\n  %one = f32[4] broadcast(%c1), dimensions={}\n"
    "  %c0 = f32[] constant(0)\n  %zero = f32[4] broadcast(%c0), dimensions={}\n"
    "  %m = f32[4] multiply(%p, %one)\n  %s = f32[4] subtract(%m, %zero)\n"
    "  %n = f32[4] negate(%s)\n  ROOT %r = f32[4] multiply(%n, %one)\n}\n";

struct Outcome {
  std::string text;
  int64_t asked;
  std::string last;
};

Outcome RunAlgsimp(int64_t limit) {
  auto module = ParseModule(kModule, ParseOptions{"rewrite_limit"});
  REQUIRE(module.ok());
  RewriteLimitScope scope(limit);
  auto did = CreatePass("algsimp")->Run(**module);
  REQUIRE(did.ok());
  return {PrintModule(**module), scope.asked(), scope.last_allowed()};
}

TEST_CASE("rewrite limit: the first k rewrites are made, all are counted", "[rewrite_limit]") {
  Outcome none = RunAlgsimp(0);
  CHECK(none.asked == 3);
  CHECK(none.last.empty());
  CHECK(none.text.find("multiply(") != std::string::npos);
  Outcome one = RunAlgsimp(1);
  CHECK(one.asked == 3);
  CHECK(one.last == "m");
  CHECK(one.text.find("subtract(%p") != std::string::npos);
  Outcome two = RunAlgsimp(2);
  CHECK(two.last == "s");
  CHECK(two.text.find("negate(%p)") != std::string::npos);
  CHECK(two.text.find("multiply(%n") != std::string::npos);
  Outcome all = RunAlgsimp(-1);
  CHECK(all.asked == 3);
  CHECK(all.last == "r");
  CHECK(all.text.find("multiply(") == std::string::npos);
}

TEST_CASE("rewrite limit: without a scope every rewrite is made", "[rewrite_limit]") {
  auto module = ParseModule(kModule, ParseOptions{"rewrite_limit"});
  REQUIRE(module.ok());
  auto did = CreatePass("algsimp")->Run(**module);
  REQUIRE(did.ok());
  CHECK(PrintModule(**module).find("multiply(") == std::string::npos);
}

}  // namespace
}  // namespace hlo
