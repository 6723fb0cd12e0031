// The evaluator's live-buffer accounting behind --max-memory: inputs count,
// a called computation's parameters are the caller's buffers, and every
// byte reserved during a run is released by its end.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseModule(StrCat("HloModule t\n\n", text));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *std::move(m);
}

std::vector<Value> ZeroInputs(const Module& m) {
  std::vector<Value> args;
  for (int64_t i = 0; i < m.entry()->parameter_count(); ++i) {
    auto lit = Literal::Create(m.entry()->parameter(i)->shape());
    REQUIRE(lit.ok());
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  return args;
}

// A while loop whose body passes a parameter element through, and a call
// whose root is its parameter: buffers the callee does not own.
constexpr std::string_view kCalls = R"(
body {
  s = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[100] get-tuple-element(s), index=1
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[], f32[100]) tuple(n, v)
}
cond {
  s = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
identity {
  ROOT x = f32[100] parameter(0)
}
ENTRY main {
  p = f32[100] parameter(0)
  c = f32[100] call(p), to_apply=identity
  zero = s32[] constant(0)
  init = (s32[], f32[100]) tuple(zero, c)
  w = (s32[], f32[100]) while(init), condition=cond, body=body
  ROOT r = f32[100] get-tuple-element(w), index=1
})";

TEST_CASE("live bytes return to zero after a run with calls and loops", "[eval_memory]") {
  auto m = Parse(kCalls);
  Evaluator ev(*m, {});
  for (int run = 0; run < 2; ++run) {
    auto v = ev.Run(ZeroInputs(*m));
    REQUIRE(v.ok());
    CHECK(ev.live_bytes() == 0);
  }
}

TEST_CASE("a tight limit counts the input and fails where the bytes run out", "[eval_memory]") {
  // When init (404 bytes) is made, p (the input, 400), c (400) and zero (4)
  // are live: 1208 > 900.
  auto m = Parse(kCalls);
  EvalOptions tight;
  tight.max_memory_bytes = 900;
  Evaluator ev(*m, tight);
  auto v = ev.Run(ZeroInputs(*m));
  REQUIRE_FALSE(v.ok());
  CHECK(std::string(v.status().message()).find("%init: needs 404 bytes") != std::string::npos);
  CHECK(ev.live_bytes() == 0);
}

TEST_CASE("inputs count against the limit", "[eval_memory]") {
  auto m = Parse(R"(
ENTRY main {
  a = f32[100] parameter(0)
  b = f32[100] parameter(1)
  ROOT s = f32[100] add(a, b)
})");
  EvalOptions opts;
  opts.max_memory_bytes = 799;  // the two inputs need 800
  Evaluator ev(*m, opts);
  auto v = ev.Run(ZeroInputs(*m));
  REQUIRE_FALSE(v.ok());
  CHECK(std::string(v.status().message())
            .find("%b: needs 400 bytes for its result with 400 bytes live") != std::string::npos);
  CHECK(ev.live_bytes() == 0);
  // CheckInputsFit refuses the same before any input exists, naming b.
  absl::Status fit = CheckInputsFit(*m, 799);
  REQUIRE_FALSE(fit.ok());
  CHECK(std::string(fit.message()).find("%b: parameter 1 needs 400 bytes with 400 bytes") !=
        std::string::npos);
  CHECK(CheckInputsFit(*m, 800).ok());
}

}  // namespace
}  // namespace hlo
