// The executor's fused groups (eval/fusion/fusion_plan.cc) as the plan
// (eval/computation_plan.cc) runs them: a broadcast of a scalar
// read by several groups is computed inside each, and made on its own only
// when something else reads it; small arrays' groups take in what they are
// linked to and write several outputs. Values:
// testdata/eval/fused_shared_broadcast.hlo, fused_multi_output.hlo.
#include <catch2/catch.hpp>
#include <string>

#include "eval/plan_test_util.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// Two relu chains over `dims` arrays sharing x, a broadcast of b and a
// broadcast zero.
std::string ModuleText(std::string_view root, std::string_view dims = "256,256") {
  return StrCat(R"(HloModule t

ENTRY main {
  x = f32[)",
                dims, R"(] parameter(0)
  b = f32[256] parameter(1)
  zero = f32[] constant(0)
  zeros = f32[)",
                dims, R"(] broadcast(zero), dimensions={}
  bb = f32[)",
                dims, R"(] broadcast(b), dimensions={1}
  a1 = f32[)",
                dims, R"(] add(x, bb)
  r1 = f32[)",
                dims, R"(] maximum(a1, zeros)
  n = f32[)",
                dims, R"(] negate(x)
  a2 = f32[)",
                dims, R"(] add(n, bb)
  r2 = f32[)",
                dims, R"(] maximum(a2, zeros)
  )",
                root, "\n}\n");
}

// Whether the group whose root is `group_root` reads `input`.
bool Reads(const PlannedModule& p, std::string_view group_root, std::string_view input) {
  const FusedGroup* g = p.plan->group_at[p.Slot(group_root)];
  REQUIRE(g != nullptr);
  for (const Instruction* i : g->inputs) {
    if (i->name() == input) return true;
  }
  return false;
}

PlannedModule Plan(std::string_view root) { return PlanModule(ModuleText(root)); }

TEST_CASE("fusion plan: a shared broadcast of a scalar is computed in each group",
          "[fusion_plan]") {
  PlannedModule p = Plan("ROOT t = (f32[256,256], f32[256,256]) tuple(r1, r2)");
  REQUIRE(p.Step("r1") == PlanStep::kGroup);
  REQUIRE(p.Step("r2") == PlanStep::kGroup);
  CHECK(!Reads(p, "r1", "zeros"));
  CHECK(!Reads(p, "r2", "zeros"));
  CHECK(p.Step("zeros") == PlanStep::kFusedAway);
  CHECK(p.Step("zero") == PlanStep::kFusedAway);
  // A broadcast of an array stays one input of both.
  CHECK(Reads(p, "r1", "bb"));
  CHECK(Reads(p, "r2", "bb"));
  CHECK(p.Step("bb") == PlanStep::kEvaluate);
}

TEST_CASE("fusion plan: a shared broadcast another instruction reads is still made",
          "[fusion_plan]") {
  PlannedModule p =
      Plan("ROOT t = (f32[256,256], f32[256,256], f32[256,256]) tuple(r1, r2, zeros)");
  CHECK(!Reads(p, "r1", "zeros"));
  CHECK(!Reads(p, "r2", "zeros"));
  CHECK(p.Step("zeros") == PlanStep::kEvaluate);
  CHECK(p.Step("zero") == PlanStep::kConstant);  // zeros reads it
  CHECK(p.plan->uses[p.Slot("zeros")] == 1);
  CHECK(p.plan->uses[p.Slot("zero")] == 1);
}

// Two one-hots of [256,512] sharing one iota, and `extra` in the result.
std::string OneHotText(std::string_view extra) {
  return StrCat(R"(HloModule t

ENTRY main {
  labels = s32[256] parameter(0)
  other = s32[256] parameter(1)
  classes = s32[256,512] iota(), iota_dimension=1
  lb = s32[256,512] broadcast(labels), dimensions={0}
  hit = pred[256,512] compare(lb, classes), direction=EQ
  hot = f32[256,512] convert(hit)
  ob = s32[256,512] broadcast(other), dimensions={0}
  hit2 = pred[256,512] compare(ob, classes), direction=EQ
  hot2 = f32[256,512] convert(hit2)
  ROOT t = (f32[256,512], f32[256,512])",
                extra.empty() ? "" : ", s32[256,512]", ") tuple(hot, hot2", extra, ")\n}\n");
}

TEST_CASE("fusion plan: an iota is made inside each group that reads it", "[fusion_plan]") {
  PlannedModule p = PlanModule(OneHotText(""));
  REQUIRE(p.Step("hot") == PlanStep::kGroup);
  REQUIRE(p.Step("hot2") == PlanStep::kGroup);
  CHECK(!Reads(p, "hot", "classes"));
  CHECK(!Reads(p, "hot2", "classes"));
  CHECK(p.Step("classes") == PlanStep::kFusedAway);
  // Read by the tuple as well: still made for it, but not read by the groups.
  PlannedModule q = PlanModule(OneHotText(", classes"));
  CHECK(!Reads(q, "hot", "classes"));
  CHECK(q.Step("classes") == PlanStep::kEvaluate);
}

TEST_CASE("fusion plan: small groups linked by their inputs run as one with two outputs",
          "[fusion_plan]") {
  // 4 x 256 elements: under kMultiOutputElements.
  PlannedModule p =
      PlanModule(ModuleText("ROOT t = (f32[4,256], f32[4,256]) tuple(r1, r2)", "4,256"));
  REQUIRE(p.Step("r2") == PlanStep::kGroup);
  const FusedGroup* g = p.plan->group_at[p.Slot("r2")];
  REQUIRE(g->outputs.size() == 1);
  CHECK(g->outputs[0]->name() == "r1");
  CHECK(p.Step("r1") == PlanStep::kGroupOutput);
  CHECK(g->output_slots == std::vector<int32_t>{p.Slot("r1")});
  // The loop reads x and b (through bb, a member now) once for both.
  CHECK(Reads(p, "r2", "x"));
  CHECK(Reads(p, "r2", "b"));
  CHECK(!Reads(p, "r2", "bb"));
  for (const char* m : {"a1", "a2", "n", "bb", "zeros", "zero"}) {
    CHECK(p.Step(m) == PlanStep::kFusedAway);
  }
  CHECK(p.plan->uses[p.Slot("r1")] == 1);  // the tuple
}

TEST_CASE("fusion plan: a small member read before the root stays out of its group",
          "[fusion_plan]") {
  // r1's reader (a reverse, no member) comes before d (the root): the
  // loop runs at d, so r1 cannot be an output of it; it has its own group.
  PlannedModule p = PlanModule(ModuleText(R"(s = f32[4,256] reverse(r1), dimensions={1}
  d = f32[4,256] add(s, r2)
  ROOT t = (f32[4,256], f32[4,256]) tuple(r1, d))",
                                          "4,256"));
  REQUIRE(p.Step("d") == PlanStep::kGroup);
  const FusedGroup* g = p.plan->group_at[p.Slot("d")];
  for (const Instruction* o : g->outputs) CHECK(o->name() != "r1");
  CHECK(p.Step("r1") == PlanStep::kGroup);
  CHECK(Reads(p, "d", "s"));
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// A reduce of a group's root that nothing else reads folds the group's
// loop (eval/fusion/group_reduce.h), one op alone included; not when the
// root is read elsewhere too, nor a whole-array sum under 2^22 elements
// (a lone reduce sums those in another order). Values:
// testdata/eval/group_reduce.hlo.
// A module of an f32 adder and an entry computation whose body follows.
constexpr std::string_view kAddModuleHead = R"(HloModule t

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

ENTRY main {
)";

std::string ReduceModule(std::string_view extra) {
  return StrCat(kAddModuleHead, R"(  x = f32[512,256] parameter(0)
  zero = f32[] constant(0)
  sq = f32[512,256] multiply(x, x)
  cols = f32[256] reduce(sq, zero), dimensions={0}, to_apply=add
  n = f32[512,256] negate(x)
  e = f32[512,256] exponential(n)
  rows = f32[512] reduce(e, zero), dimensions={1}, to_apply=add
  a = f32[512,256] abs(x)
  all = f32[] reduce(a, zero), dimensions={0,1}, to_apply=add
  )",
                extra, "\n}\n");
}

TEST_CASE("fusion plan: a reduce folds its operand's group", "[fusion_plan]") {
  PlannedModule p =
      PlanModule(ReduceModule("ROOT t = (f32[256], f32[512], f32[]) tuple(cols, rows, all)"));
  CHECK(p.Step("cols") == PlanStep::kGroupReduce);
  CHECK(p.Step("sq") == PlanStep::kFusedAway);
  CHECK(p.Step("rows") == PlanStep::kGroupReduce);
  CHECK(p.Step("e") == PlanStep::kFusedAway);
  CHECK(p.Step("n") == PlanStep::kFusedAway);
  // 2^17 elements: materialised, then the lone reduce.
  CHECK(p.Step("all") == PlanStep::kEvaluate);
}

TEST_CASE("fusion plan: a group read outside its reduce is made whole", "[fusion_plan]") {
  PlannedModule p =
      PlanModule(ReduceModule("ROOT t = (f32[256], f32[512,256], f32[512]) tuple(cols, sq, rows)"));
  CHECK(p.Step("cols") == PlanStep::kEvaluate);
  CHECK(p.Step("sq") != PlanStep::kFusedAway);
  CHECK(p.Step("rows") == PlanStep::kGroupReduce);
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// A variance's column sum of squared deviations (x - v)^2 is folded from x
// with the squares made in registers (GroupReduce::squares); other groups
// that look alike run the group's loop. Values:
// testdata/eval/fused_variance.hlo.
std::string VarianceModule(std::string_view sub, std::string_view square) {
  return StrCat(kAddModuleHead, R"(  x = f32[3,100,40] parameter(0)
  m = f32[40] parameter(1)
  zero = f32[] constant(0)
  mb = f32[3,100,40] broadcast(m), dimensions={2}
  d = f32[3,100,40] )",
                sub, R"(
  sq = f32[3,100,40] )",
                square, R"(
  ROOT var = f32[40] reduce(sq, zero), dimensions={0,1}, to_apply=add
})");
}

const GroupReduce& ReduceOf(const PlannedModule& p, std::string_view name) {
  const FusedGroup* group = p.plan->group_at[p.Slot(name)];
  REQUIRE(group != nullptr);
  REQUIRE(group->reduce.has_value());
  return *group->reduce;
}

TEST_CASE("fusion plan: a variance's squares fold from x in registers", "[fusion_plan]") {
  PlannedModule p = PlanModule(VarianceModule("subtract(x, mb)", "multiply(d, d)"));
  REQUIRE(p.Step("var") == PlanStep::kGroupReduce);
  const GroupReduce& r = ReduceOf(p, "var");
  REQUIRE(r.squares.has_value());
  const FusedGroup& g = *p.plan->group_at[p.Slot("var")];
  CHECK(g.inputs[r.squares->x]->name() == "x");
  CHECK(g.inputs[r.squares->v]->name() == "m");
  CHECK_FALSE(r.squares->v_first);
  PlannedModule q = PlanModule(VarianceModule("subtract(mb, x)", "multiply(d, d)"));
  REQUIRE(ReduceOf(q, "var").squares.has_value());
  CHECK(ReduceOf(q, "var").squares->v_first);
}

TEST_CASE("fusion plan: groups unlike a variance's squares run their loop", "[fusion_plan]") {
  // A product of two values, a sum instead of a difference, and a squared
  // sum: folded from the loop, not read as squares of x - v.
  for (const auto& [sub, square] :
       {std::pair<std::string_view, std::string_view>{"subtract(x, mb)", "multiply(d, x)"},
        {"add(x, mb)", "multiply(d, d)"},
        {"subtract(x, x)", "multiply(d, d)"}}) {
    PlannedModule p = PlanModule(VarianceModule(sub, square));
    INFO(sub << " then " << square);
    REQUIRE(p.Step("var") == PlanStep::kGroupReduce);
    CHECK_FALSE(ReduceOf(p, "var").squares.has_value());
  }
}

TEST_CASE("fusion plan: a layer norm's row variance folds its squares from x", "[fusion_plan]") {
  // (x - m[r])^2 summed over each row, m broadcast along the rows: squares
  // per row. Values: testdata/eval/fused_row_variance.hlo.
  auto module = [](std::string_view dims, std::string_view m) {
    return StrCat(kAddModuleHead, "  x = f32[30,200] parameter(0)\n  m = ", m,
                  " parameter(1)\n  zero = f32[] constant(0)\n  mb = f32[30,200] broadcast(m), ",
                  dims,
                  "\n  d = f32[30,200] subtract(x, mb)\n  sq = f32[30,200] multiply(d, d)\n"
                  "  ROOT var = f32[30] reduce(sq, zero), dimensions={1}, to_apply=add\n}");
  };
  PlannedModule p = PlanModule(module("dimensions={0}", "f32[30]"));
  REQUIRE(p.Step("var") == PlanStep::kGroupReduce);
  const GroupReduce& r = ReduceOf(p, "var");
  REQUIRE(r.squares.has_value());
  CHECK(r.squares->per_row);
  const FusedGroup& g = *p.plan->group_at[p.Slot("var")];
  CHECK(g.inputs[r.squares->x]->name() == "x");
  CHECK(g.inputs[r.squares->v]->name() == "m");
  // v per column under a row sum: the group's loop.
  PlannedModule q = PlanModule(module("dimensions={1}", "f32[200]"));
  REQUIRE(q.Step("var") == PlanStep::kGroupReduce);
  CHECK_FALSE(ReduceOf(q, "var").squares.has_value());
}

}  // namespace
}  // namespace hlo
