// EvalOptions::observer (eval/runtime/eval_observer.h): told about every
// instruction in execution order, inside called computations and loops,
// with each while trip, and with the operands as they were read (a kernel
// that could write in place over a dying operand does not).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/runtime/eval_observer.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

class Recorder : public EvalObserver {
 public:
  void Before(const Instruction& inst) override { log += StrCat("<", inst.name()); }
  absl::Status After(const Instruction& inst, absl::Span<const Value* const> operands,
                     const Value* result) override {
    log += StrCat(">", inst.name());
    if (inst.name() == "sq" && result != nullptr) {
      // The operand as read, not the result written over it.
      operand_seen = operands[0]->array().GetDouble(1);
      result_seen = result->array().GetDouble(1);
    }
    return absl::OkStatus();
  }
  void LoopTrip(int64_t trip) override { log += StrCat(" trip", trip, " "); }
  std::string log;
  double operand_seen = 0, result_seen = 0;
};

constexpr std::string_view kLoop = R"(HloModule t

body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2] get-tuple-element(s), index=1
  sq = f32[2] multiply(v, v)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[], f32[2]) tuple(n, sq)
}

cond {
  c = (s32[], f32[2]) parameter(0)
  k = s32[] get-tuple-element(c), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(k, two), direction=LT
}

ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT r = f32[2] get-tuple-element(w), index=1
}
)";

TEST_CASE("observer: execution order, loop trips, operands as read", "[eval][observer]") {
  auto m = ParseModule(kLoop);
  REQUIRE(m.ok());
  Recorder rec;
  EvalOptions options;
  options.observer = &rec;
  Evaluator ev(**m, options);
  auto lit = Literal::Create((*m)->entry()->parameter(0)->shape());
  REQUIRE(lit.ok());
  lit->SetDouble(0, 2);
  lit->SetDouble(1, 3);
  std::vector<Value> args = {Value::FromLiteral(*std::move(lit))};
  auto r = ev.Run(args);
  REQUIRE(r.ok());
  CHECK(r->array().GetDouble(1) == 81);  // 3^4
  // The parameter first; a trip's condition, then its body; the while after
  // both trips and the third condition.
  CHECK(rec.log ==
        "<x>x<zero>zero<init>init<w trip0 <k>k<two>two<lt>lt<i>i<v>v<sq>sq<one>one<n>n<t>t"
        " trip1 <k>k<two>two<lt>lt<i>i<v>v<sq>sq<one>one<n>n<t>t"
        " trip2 <k>k<two>two<lt>lt>w<r>r");
  // The last sq: 9 * 9, read as 9 (its dying operand was not overwritten).
  CHECK(rec.operand_seen == 9);
  CHECK(rec.result_seen == 81);
}

}  // namespace
}  // namespace hlo
