// Module::UniqueName: `prefix.N` with N above every numeric suffix of the
// module's instruction names, whether they were parsed or added in code.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "ir/module.h"
#include "parser/parser.h"

namespace hlo {
namespace {

TEST_CASE("UniqueName numbers past every parsed name's suffix", "[unique_name]") {
  auto parsed = ParseModule(R"(HloModule m

%f (a.41: f32[]) -> f32[] {
  ROOT %a.41 = f32[] parameter(0)
}

ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %add.7 = f32[] add(%x, %x)
  %c.007 = f32[] constant(1)
  %big.1234567890123456789012 = f32[] constant(2)
  %v2 = f32[] constant(3)
  ROOT %call.3 = f32[] call(%add.7), to_apply=%f
}
)");
  REQUIRE(parsed.ok());
  Module& m = **parsed;
  // 41 is the largest suffix (in a called computation); "v2" has no '.',
  // and a 22-digit suffix is beyond any number the counter reaches.
  CHECK(m.UniqueName("add") == "add.42");
  CHECK(m.UniqueName("add") == "add.43");
  CHECK(m.UniqueName("broadcast") == "broadcast.44");
}

TEST_CASE("UniqueName looks at the instructions of a module built in code", "[unique_name]") {
  Module m("m");
  auto comp = std::make_unique<Computation>("main");
  Computation* c = m.AddComputation(std::move(comp));
  const Shape* scalar = m.shapes().Intern(Shape::Array(PrimitiveType::kF32, {}));
  c->AddInstruction(std::make_unique<Instruction>(Opcode::kParameter, "p.9", scalar));
  c->AddInstruction(std::make_unique<Instruction>(Opcode::kNegate, "neg.12", scalar));
  CHECK(m.UniqueName("neg") == "neg.13");
  CHECK(m.UniqueName("neg.13") == "neg.13.14");
}

}  // namespace
}  // namespace hlo
