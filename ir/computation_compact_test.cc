// Tests for Computation::CompactInstructions and the churn that triggers it:
// the module prints the same before and after, every pointer (operands,
// users, control predecessors, parameters, root) moves to the new
// instructions, and the new instructions lie in stored order in memory.
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/hlo_printer.h"
#include "ir/slab_pool.h"
#include "ir/strings.h"
#include "parser/parse_test_util.h"

namespace hlo {
namespace {

// Every pointer an instruction of `comp` holds names an instruction of `comp`.
void CheckPointersInside(const Computation& comp) {
  absl::flat_hash_set<const Instruction*> own;
  for (const auto& inst : comp.instructions()) own.insert(inst.get());
  for (const auto& inst : comp.instructions()) {
    CHECK(inst->parent() == &comp);
    for (const Instruction* op : inst->operands()) CHECK(own.contains(op));
    for (const Instruction* user : inst->users()) {
      CHECK(own.contains(user));
      bool uses = false;
      for (const Instruction* op : user->operands()) uses |= op == inst.get();
      CHECK(uses);
    }
    for (const Instruction* pred : inst->control_predecessors()) CHECK(own.contains(pred));
  }
  for (const Instruction* p : comp.parameters()) CHECK(own.contains(p));
  CHECK(own.contains(comp.root()));
}

TEST_CASE("CompactInstructions: same module, pointers moved, memory in order", "[compact]") {
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "%add (x: f32[], y: f32[]) -> f32[] {\n"
      "  %x = f32[] parameter(0)\n"
      "  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%x, %y)\n"
      "}\n\n"
      "ENTRY %e (p: f32[4], q: f32[]) -> f32[] {\n"
      "  %p = f32[4]{0} parameter(0)\n"
      "  %q = f32[] parameter(1)\n"
      "  %c = f32[] constant(2.5)\n"
      "  %n = f32[4]{0} negate(%p), metadata={op_name=\"neg\"}\n"
      "  %b = f32[4]{0} broadcast(%c), dimensions={}\n"
      "  %m = f32[4]{0} multiply(%n, %b), control-predecessors={%n}\n"
      "  ROOT %r = f32[] reduce(%m, %q), dimensions={0}, to_apply=%add\n"
      "}\n");
  const std::string before = PrintModule(*m);
  Computation& entry = *m->entry();
  std::vector<const Instruction*> old;
  for (const auto& inst : entry.instructions()) old.push_back(inst.get());
  const Literal* literal = entry.instructions()[2]->literal();
  REQUIRE(literal != nullptr);
  entry.CompactInstructions();
  CHECK(entry.churn() == 0);
  CHECK(PrintModule(*m) == before);
  CheckPointersInside(entry);
  for (size_t i = 0; i < old.size(); ++i) CHECK(entry.instructions()[i].get() != old[i]);
  const auto& insts = entry.instructions();
  REQUIRE(insts[5]->control_predecessors().size() == 1);
  CHECK(insts[5]->control_predecessors()[0] == insts[3].get());
  CHECK(insts[2]->literal() == literal);  // the shared literal moved, not copied
  CHECK(entry.parameter(1) == insts[1].get());
  CHECK(entry.root() == insts[6].get());
  if (slab_pool_internal::kPooled) {
    // Fresh slots one after another: the stored order is the memory order.
    for (size_t i = 1; i < entry.instructions().size(); ++i) {
      auto a = reinterpret_cast<uintptr_t>(entry.instructions()[i - 1].get());
      auto b = reinterpret_cast<uintptr_t>(entry.instructions()[i].get());
      CHECK(b == a + sizeof(Instruction));
    }
  }
}

TEST_CASE("CompactScatteredComputations: only large computations with much churn", "[compact]") {
  // A chain of 10000 negates (above the 8192-instruction threshold).
  std::string text = "HloModule m\n\nENTRY %e (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n";
  std::string prev = "p";
  for (int i = 0; i < 10000; ++i) {
    StrAppend(&text, "  %n", i, " = f32[] negate(%", prev, ")\n");
    prev = StrCat("n", i);
  }
  StrAppend(&text, "  ROOT %r = f32[] abs(%", prev, ")\n}\n");
  auto m = ParseTestModule(text);
  const std::string before = PrintModule(*m);
  Computation& entry = *m->entry();
  m->ResetChurn();
  CHECK(m->CompactScatteredComputations() == 0);
  // Churn of a third of the computation's size is not yet enough; half is.
  std::vector<Instruction*> extra;
  for (int i = 0; i < 5000; ++i) {
    auto inst = std::make_unique<Instruction>(Opcode::kNegate, StrCat("extra", i),
                                              entry.parameter(0)->shape_ptr());
    inst->AppendOperand(entry.parameter(0));
    extra.push_back(entry.AddInstruction(std::move(inst)));
  }
  CHECK(entry.churn() == 5000);
  CHECK(m->CompactScatteredComputations() == 0);  // 5000 < 15002 / 2
  entry.RemoveInstructions(extra);
  CHECK(entry.churn() == 10000);
  CHECK(m->CompactScatteredComputations() == 1);  // 10000 >= 10002 / 2
  CHECK(entry.churn() == 0);
  CHECK(PrintModule(*m) == before);
  CheckPointersInside(entry);
}

TEST_CASE("CompactScatteredComputations: small computations stay where they are", "[compact]") {
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "ENTRY %e (p: f32[]) -> f32[] {\n"
      "  %p = f32[] parameter(0)\n"
      "  ROOT %r = f32[] negate(%p)\n"
      "}\n");
  Computation& entry = *m->entry();
  m->ResetChurn();
  for (int i = 0; i < 100; ++i) {
    auto inst = std::make_unique<Instruction>(Opcode::kAbs, StrCat("a", i),
                                              entry.parameter(0)->shape_ptr());
    inst->AppendOperand(entry.parameter(0));
    Instruction* added = entry.AddInstruction(std::move(inst));
    entry.RemoveInstructions(std::vector<Instruction*>{added});
  }
  CHECK(entry.churn() == 200);
  const Instruction* root = entry.root();
  CHECK(m->CompactScatteredComputations() == 0);
  CHECK(entry.root() == root);
}

TEST_CASE("CountOf: counted opcodes follow additions and removals", "[compact]") {
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "%f (x: f32[]) -> f32[] {\n"
      "  ROOT %x = f32[] parameter(0)\n"
      "}\n\n"
      "ENTRY %e (p: f32[]) -> f32[] {\n"
      "  %p = f32[] parameter(0)\n"
      "  %c1 = f32[] call(%p), to_apply=%f\n"
      "  %c2 = f32[] call(%p), to_apply=%f\n"
      "  ROOT %r = f32[] add(%c1, %p)\n"
      "}\n");
  Computation& entry = *m->entry();
  CHECK(entry.CountOf(Opcode::kCall) == 2);
  CHECK(entry.CountOf(Opcode::kWhile) == 0);
  CHECK(entry.CountOf(Opcode::kConditional) == 0);
  CHECK(entry.CountOf(Opcode::kTuple) == 0);
  CHECK(entry.CountOf(Opcode::kAdd) == -1);    // not counted
  CHECK(entry.RemoveDeadInstructions() == 1);  // %c2
  CHECK(entry.CountOf(Opcode::kCall) == 1);
  CHECK(m->computations()[0]->CountOf(Opcode::kCall) == 0);
}

}  // namespace
}  // namespace hlo
