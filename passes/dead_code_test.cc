// Tests for the dead-code helpers: dce removes the computations only dead
// instructions called (found in the same walk as the dead code), and
// SideEffects answers the same with or without its module-wide bitmaps.
#include "passes/dead_code.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "parser/parse_test_util.h"
#include "passes/pipeline.h"

namespace hlo {
namespace {

// %g is called by %f, which only the dead %k calls; %h is called by the
// live root; %fx holds an outfeed.
const char kModule[] =
    "HloModule m\n\n"
    "%g (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  ROOT %y = f32[] negate(%x)\n}\n\n"
    "%f (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
    "  ROOT %c = f32[] call(%x), to_apply=%g\n}\n\n"
    "%h (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %d = f32[] exponential(%x)\n"
    "  ROOT %y = f32[] abs(%x)\n}\n\n"
    "%fx (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %t = token[] after-all()\n"
    "  %o = token[] outfeed(%x, %t), outfeed_shape=f32[]\n  ROOT %y = f32[] abs(%x)\n}\n\n"
    "ENTRY %e (p: f32[]) -> f32[] {\n"
    "  %p = f32[] parameter(0)\n"
    "  %k = f32[] call(%p), to_apply=%f\n"
    "  %z = f32[] call(%p), to_apply=%fx\n"
    "  ROOT %r = f32[] call(%p), to_apply=%h\n"
    "}\n";

TEST_CASE("dce: computations only dead instructions called go", "[dead_code]") {
  auto m = ParseTestModule(kModule);
  auto pipeline = BuildPipeline("dce");
  REQUIRE(pipeline.ok());
  REQUIRE(pipeline->Run(*m).ok());
  CHECK(m->FindComputation("f") == nullptr);
  CHECK(m->FindComputation("g") == nullptr);
  // %h stays, without its dead exponential; the call of %fx has effects.
  REQUIRE(m->FindComputation("h") != nullptr);
  CHECK(m->FindComputation("h")->instruction_count() == 2);
  CHECK(m->FindComputation("fx") != nullptr);
  CHECK(m->entry()->instruction_count() == 3);
  REQUIRE(pipeline->Run(*m).ok());
  CHECK(m->computations().size() == 3);
}

TEST_CASE("SideEffects: the same answers with module-wide bitmaps", "[dead_code]") {
  auto m = ParseTestModule(kModule);
  SideEffects plain;
  SideEffects wide(*m);
  for (const auto& inst : m->entry()->instructions()) {
    CHECK(plain.Of(*inst) == wide.Of(*inst));
  }
  CHECK(wide.Of(*m->entry()->instructions()[2]));  // the call of %fx
  CHECK_FALSE(wide.Of(*m->entry()->instructions()[1]));
  // A noted answer stands unless one is already known, or the computation
  // holds no instruction that may have effects (%h: its count says so).
  SideEffects noted(*m);
  noted.Note(*m->FindComputation("h"), true);
  noted.Note(*m->FindComputation("fx"), false);
  CHECK_FALSE(noted.Of(*m->entry()->root()));
  CHECK_FALSE(noted.Of(*m->entry()->instructions()[2]));
  wide.Note(*m->FindComputation("fx"), false);
  CHECK(wide.Of(*m->entry()->instructions()[2]));
}

TEST_CASE("Computation::MaybeEffectfulCount follows what may have side effects", "[dead_code]") {
  auto m = ParseTestModule(kModule);
  CHECK(m->FindComputation("g")->MaybeEffectfulCount() == 0);
  CHECK(m->FindComputation("h")->MaybeEffectfulCount() == 0);
  CHECK(m->FindComputation("f")->MaybeEffectfulCount() == 1);   // a call
  CHECK(m->FindComputation("fx")->MaybeEffectfulCount() == 2);  // after-all, outfeed
  CHECK(m->entry()->MaybeEffectfulCount() == 3);
  // Removing the outfeed (and its token) leaves %fx free of effects.
  Computation* fx = m->FindComputation("fx");
  Instruction* outfeed = fx->instructions()[2].get();
  REQUIRE(outfeed->opcode() == Opcode::kOutfeed);
  fx->RemoveInstruction(outfeed);
  CHECK(fx->MaybeEffectfulCount() == 1);
  SideEffects effects;
  CHECK(effects.Of(*m->entry()->instructions()[2]));  // the call of %fx: after-all stays
}

}  // namespace
}  // namespace hlo
