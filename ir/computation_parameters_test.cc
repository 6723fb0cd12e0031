// Computation::RemoveUnusedParameters: parameters nothing reads go, the
// rest keep their order under new numbers, and the caller learns which.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ir/module.h"
#include "parser/parse_test_util.h"

namespace hlo {
namespace {

TEST_CASE("unread parameters go and the rest are numbered in order", "[computation_parameters]") {
  auto m = ParseTestModule(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = f32[2] parameter(2)
  d = f32[2] parameter(3)
  ROOT s = f32[2] add(b, d)
})");
  Computation& c = *m->entry();
  CHECK(c.RemoveUnusedParameters() == std::vector<int64_t>{1, 3});
  REQUIRE(c.parameter_count() == 2);
  CHECK(c.parameter(0)->name() == "b");
  CHECK(c.parameter(0)->parameter_number() == 0);
  CHECK(c.parameter(1)->name() == "d");
  CHECK(c.parameter(1)->parameter_number() == 1);
  CHECK(c.instruction_count() == 3);
  // Nothing left to remove: every number is kept.
  CHECK(c.RemoveUnusedParameters() == std::vector<int64_t>{0, 1});
}

TEST_CASE("a root parameter stays, and control edges keep every parameter",
          "[computation_parameters]") {
  auto root = ParseTestModule(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  ROOT b = f32[2] parameter(1)
})");
  CHECK(root->entry()->RemoveUnusedParameters() == std::vector<int64_t>{1});
  CHECK(root->entry()->parameter(0)->name() == "b");

  auto control = ParseTestModule(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT n = f32[2] negate(b), control-predecessors={a}
})");
  CHECK(control->entry()->RemoveUnusedParameters() == std::vector<int64_t>{0, 1});
  CHECK(control->entry()->parameter_count() == 2);
}

}  // namespace
}  // namespace hlo
