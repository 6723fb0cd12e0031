// SoleReaderOfOperand (eval/kernels/operand_reuse.h) on a parsed module:
// an operand whose producer has other readers, is the root, or is read
// twice by the same instruction must not be reused.
#include "eval/kernels/operand_reuse.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string_view>

#include "ir/computation.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr std::string_view kModule = R"(HloModule reuse

ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  once = f32[4] negate(p)
  shared = f32[4] exponential(q)
  one_reader = f32[4] add(once, shared)
  other_reader = f32[4] multiply(shared, q)
  twice = f32[4] add(other_reader, other_reader)
  ROOT out = (f32[4], f32[4]) tuple(one_reader, twice)
})";

TEST_CASE("An operand is reused only where its instruction reads it alone", "[operand_reuse]") {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(kModule);
  REQUIRE(m.ok());
  auto find = [&](std::string_view name) -> const Instruction& {
    for (const auto& inst : (*m)->entry()->instructions()) {
      if (inst->name() == name) return *inst;
    }
    FAIL("no instruction " << name);
    return *(*m)->entry()->root();
  };
  const Instruction& one_reader = find("one_reader");
  CHECK(SoleReaderOfOperand(one_reader, 0));   // once: read here alone
  CHECK(!SoleReaderOfOperand(one_reader, 1));  // shared: other_reader reads it too
  const Instruction& other_reader = find("other_reader");
  CHECK(!SoleReaderOfOperand(other_reader, 0));
  CHECK(!SoleReaderOfOperand(other_reader, 1));  // q: a parameter shared and read twice
  const Instruction& twice = find("twice");
  CHECK(!SoleReaderOfOperand(twice, 0));  // the same value as both operands
  CHECK(!SoleReaderOfOperand(twice, 1));
  CHECK(!SoleReaderOfOperand(one_reader, 2));  // no such operand
  CHECK(!SoleReaderOfOperand(one_reader, -1));
  CHECK(SoleReaderOfOperand(find("once"), 0));  // p: read by once alone
  CHECK(SoleReaderOfOperand(find("out"), 0));   // the root's operands are its own
}

// A root read by another instruction is the computation's result: never
// reused, though that instruction is its one reader.
TEST_CASE("A root operand is not reused", "[operand_reuse]") {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(HloModule root_read

ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[4] negate(p)
  s = f32[4] abs(r)
})");
  REQUIRE(m.ok());
  const Instruction* s = nullptr;
  for (const auto& inst : (*m)->entry()->instructions()) {
    if (inst->name() == "s") s = inst.get();
  }
  REQUIRE(s != nullptr);
  CHECK(!SoleReaderOfOperand(*s, 0));
}

}  // namespace
}  // namespace hlo
