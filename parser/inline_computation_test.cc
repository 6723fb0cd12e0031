// Inline computations, lone instructions and late-bound async chains, read
// as XLA's parser reads them (hlo_parser.cc ParseHloComputation,
// ParseSingleInstruction, the async-update operands of its tests).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ir/module.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::vector<std::string> Names(const Module& m) {
  std::vector<std::string> out;
  for (const auto& c : m.computations()) out.push_back(c->name());
  return out;
}

TEST_CASE("inline computations: names, scope and entry", "[parser][inline]") {
  // No ENTRY: the last computation of the text is the entry, not the inline
  // computation read inside it. `_.1` is taken by the text.
  auto m = ParseModule(R"(
_.1 {
  ROOT a = f32[] parameter(0)
}
main {
  x = f32[] parameter(0)
  c = f32[] call(x), to_apply={
    x = f32[] parameter(0)
    ROOT n = f32[] call(x), to_apply={
      y = f32[] parameter(0)
      ROOT z = f32[] negate(y)
    }
  }
  ROOT d = f32[] call(c), to_apply=_.1
}
)");
  REQUIRE(m.ok());
  Module& module = **m;
  CHECK(module.entry()->name() == "main");
  CHECK(module.name() == "module_main");
  // Named in the order their bodies close: the innermost first.
  CHECK(Names(module) == std::vector<std::string>{"_.1", "main", "_.2", "_"});
  const Instruction* c = module.entry()->instructions()[1].get();
  REQUIRE(c->to_apply() != nullptr);
  CHECK(c->to_apply()->name() == "_.2");
  CHECK(c->to_apply()->parameter(0)->name() == "x");
}

TEST_CASE("inline computations: a fusion's body is a fused computation", "[parser][inline]") {
  auto m = ParseModule(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  f = f32[] fusion(p), kind=kLoop, calls={
    a = f32[] parameter(0)
    ROOT b = f32[] negate(a)
  }
  s = ((f32[]), f32[], s32[]) fusion-start(p), kind=kLoop, calls={
    a = f32[] parameter(0)
    ROOT b = f32[] abs(a)
  }
  ROOT d = f32[] fusion-done(s)
})");
  REQUIRE(m.ok());
  for (const auto& c : (*m)->computations()) {
    if (c.get() != (*m)->entry()) CHECK(c->is_fusion_computation());
  }
}

TEST_CASE("inline computations: nesting is bounded", "[parser][inline]") {
  std::string text = "HloModule m\nENTRY e {\n";
  for (int i = 0; i < 200; ++i) {
    text += "p = f32[] parameter(0)\nROOT r = f32[] call(p), to_apply={\n";
  }
  text += "ROOT q = f32[] parameter(0)\n";
  for (int i = 0; i < 200; ++i) text += "}\n";
  text += "}\n";
  auto m = ParseModule(text);
  REQUIRE_FALSE(m.ok());
  CHECK(std::string(m.status().message()).find("inline computations nest more than 100 deep") !=
        std::string::npos);
}

TEST_CASE("lone instruction: parameters from undefined operands", "[parser][single]") {
  auto m = ParseModule(
      "%t = (f32[2]{0}, f32[2]{0}, f32[2]{0}) tuple(f32[2]{0} %a, f32[2]{0}, f32[2]{0} %a)");
  REQUIRE(m.ok());
  Module& module = **m;
  CHECK(module.name() == "_");
  CHECK(module.entry()->name() == "_");
  REQUIRE(module.entry()->parameter_count() == 2);
  CHECK(module.entry()->parameter(0)->name() == "a");
  CHECK(module.entry()->parameter(1)->name() == "_1");
  const Instruction* root = module.entry()->root();
  CHECK(root->name() == "t");
  REQUIRE(root->operand_count() == 3);
  CHECK(root->operand(2) == module.entry()->parameter(0));

  auto unnamed = ParseModule("f32[] negate(f32[])");
  REQUIRE(unnamed.ok());
  CHECK((*unnamed)->entry()->root()->name() == "_");
  CHECK((*unnamed)->entry()->parameter(0)->name() == "_0");
}

TEST_CASE("lone instruction: what it does not take", "[parser][single]") {
  auto message = [](std::string_view text) {
    auto m = ParseModule(text);
    return m.ok() ? std::string("ok") : std::string(m.status().message());
  };
  CHECK(message("a = f32[] parameter(0)\nb = f32[] negate(a)")
            .find("expected the end of the input after the instruction") != std::string::npos);
  CHECK(message("m = f32[] negate(x)").find("is not defined and has no shape") !=
        std::string::npos);
  CHECK(message("r = f32[] call(f32[] x), to_apply={\n  ROOT y = f32[] negate(f32[] z)\n}")
            .find("use of undefined instruction 'z'") != std::string::npos);
  // A computation with a signature is not a lone instruction.
  CHECK(message("c (p: f32[]) -> f32[] {\n  ROOT p = f32[] parameter(0)\n}") == "ok");
}

TEST_CASE("async-update binds operands late", "[parser][async]") {
  auto m = ParseModule(R"(HloModule m
c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  s = ((), f32[], s32[]) async-start(), calls=c
  u = ((f32[], f32[]), f32[], s32[]) async-update(s, p, q)
  ROOT d = f32[] async-done(u)
})");
  REQUIRE(m.ok());
  const Instruction* done = (*m)->entry()->root();
  REQUIRE(done->operand_count() == 1);
  CHECK(done->operand(0)->operand_count() == 3);
  CHECK_FALSE(ParseModule("HloModule m\nENTRY e {\n  ROOT u = ((), f32[], s32[]) "
                          "async-update()\n}")
                  .ok());
}

}  // namespace
}  // namespace hlo
