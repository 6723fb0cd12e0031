// Computation::is_fusion_computation: set for what a fusion's `calls` names,
// however the module was read, and for nothing else.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "ir/module.h"
#include "ir/module_json.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr const char* kText = R"(HloModule m

%fused (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  ROOT %n = f32[2]{0} negate(%p)
}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%callee (q: f32[2]) -> f32[2] {
  %q = f32[2]{0} parameter(0)
  ROOT %f = f32[2]{0} fusion(%q), kind=kLoop, calls=%fused
}

ENTRY %main (x: f32[2]) -> f32[] {
  %x = f32[2]{0} parameter(0)
  %c = f32[2]{0} call(%x), to_apply=%callee
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(%c, %zero), dimensions={0}, to_apply=%add
}
)";

void CheckKinds(const Module& m) {
  CHECK(m.FindComputation("fused")->is_fusion_computation());
  CHECK_FALSE(m.FindComputation("add")->is_fusion_computation());
  CHECK_FALSE(m.FindComputation("callee")->is_fusion_computation());
  CHECK_FALSE(m.FindComputation("main")->is_fusion_computation());
}

TEST_CASE("fusion computations are marked when parsed and when read from JSON",
          "[fusion_computation]") {
  auto parsed = ParseModule(kText, ParseOptions{"m"});
  REQUIRE(parsed.ok());
  CheckKinds(**parsed);
  auto from_json = ModuleFromJson(ModuleToJson(**parsed), "m.json");
  REQUIRE(from_json.ok());
  CheckKinds(**from_json);
}

TEST_CASE("a fusion instruction given calls= later marks its computation", "[fusion_computation]") {
  auto parsed = ParseModule(kText, ParseOptions{"m"});
  REQUIRE(parsed.ok());
  Module& m = **parsed;
  Computation* add = m.FindComputation("add");
  Instruction* fusion = m.FindComputation("callee")->root();
  REQUIRE(fusion->opcode() == Opcode::kFusion);
  fusion->SetAttr(AttrKind::kCalls, std::vector<Computation*>{add});
  CHECK(add->is_fusion_computation());
  // Other opcodes naming a computation do not mark it.
  Instruction* reduce = m.entry()->root();
  reduce->SetAttr(AttrKind::kToApply, std::vector<Computation*>{m.FindComputation("main")});
  CHECK_FALSE(m.FindComputation("main")->is_fusion_computation());
}

}  // namespace
}  // namespace hlo
