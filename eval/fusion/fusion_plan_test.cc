// The executor's fused groups (eval/fusion/fusion_plan.cc) as the plan
// (eval/computation_plan.cc) runs them: a broadcast of a scalar
// read by several groups is computed inside each, and made on its own only
// when something else reads it. Values: testdata/eval/fused_shared_broadcast.hlo.
#include <catch2/catch.hpp>
#include <string>

#include "eval/plan_test_util.h"
#include "ir/strings.h"

namespace hlo {
namespace {

std::string ModuleText(std::string_view root) {
  return StrCat(R"(HloModule t

ENTRY main {
  x = f32[64,64] parameter(0)
  b = f32[64] parameter(1)
  zero = f32[] constant(0)
  zeros = f32[64,64] broadcast(zero), dimensions={}
  bb = f32[64,64] broadcast(b), dimensions={1}
  a1 = f32[64,64] add(x, bb)
  r1 = f32[64,64] maximum(a1, zeros)
  n = f32[64,64] negate(x)
  a2 = f32[64,64] add(n, bb)
  r2 = f32[64,64] maximum(a2, zeros)
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
  PlannedModule p = Plan("ROOT t = (f32[64,64], f32[64,64]) tuple(r1, r2)");
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
  PlannedModule p = Plan("ROOT t = (f32[64,64], f32[64,64], f32[64,64]) tuple(r1, r2, zeros)");
  CHECK(!Reads(p, "r1", "zeros"));
  CHECK(!Reads(p, "r2", "zeros"));
  CHECK(p.Step("zeros") == PlanStep::kEvaluate);
  CHECK(p.Step("zero") == PlanStep::kConstant);  // zeros reads it
  CHECK(p.plan->uses[p.Slot("zeros")] == 1);
  CHECK(p.plan->uses[p.Slot("zero")] == 1);
}

}  // namespace
}  // namespace hlo
