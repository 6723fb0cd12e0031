// Test helper: a module parsed and its entry computation planned
// (eval/computation_plan.h), with lookups by instruction name.
#ifndef HLO_EVAL_PLAN_TEST_UTIL_H_
#define HLO_EVAL_PLAN_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "eval/computation_plan.h"
#include "parser/parser.h"

namespace hlo {

struct PlannedModule {
  std::unique_ptr<Module> module;
  std::unique_ptr<ComputationPlan> plan;

  int Slot(std::string_view name) const {
    for (size_t i = 0; i < plan->order.size(); ++i) {
      if (plan->order[i]->name() == name) return static_cast<int>(i);
    }
    FAIL("no instruction " << name);
    return -1;
  }
  PlanStep Step(std::string_view name) const { return plan->steps[Slot(name)]; }
};

inline PlannedModule PlanModule(std::string_view text, bool fast_paths = true, bool fusion = true) {
  auto m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  PlannedModule p{*std::move(m), nullptr};
  p.plan = MakePlan(*p.module->entry(), fast_paths, fusion, /*flush_denormals=*/false);
  return p;
}

}  // namespace hlo

#endif  // HLO_EVAL_PLAN_TEST_UTIL_H_
