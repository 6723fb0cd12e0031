// Tests for PostOrderOf and InstructionMarks: the same order as
// Computation::PostOrder (stored order kept, forward references and control
// edges pulled ahead), the control-related set of ControlRelated, and marks
// for instructions in and out of the computation's address range.
#include "passes/post_order.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "ir/instruction_marks.h"
#include "ir/strings.h"
#include "parser/parse_test_util.h"
#include "passes/dead_code.h"

namespace hlo {
namespace {

std::vector<std::string> Names(const std::vector<Instruction*>& order) {
  std::vector<std::string> names;
  for (const Instruction* i : order) names.emplace_back(i->name());
  return names;
}

TEST_CASE("PostOrderOf: the order and control set of Computation::PostOrder", "[post_order]") {
  // %b is used before it is defined; %d waits for %c by a control edge.
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "ENTRY %e (p: f32[]) -> f32[] {\n"
      "  %p = f32[] parameter(0)\n"
      "  %a = f32[] add(%p, %b)\n"
      "  %d = f32[] negate(%a), control-predecessors={%c}\n"
      "  %b = f32[] abs(%p)\n"
      "  %c = f32[] exponential(%p)\n"
      "  ROOT %r = f32[] add(%d, %c)\n"
      "}\n");
  Computation& entry = *m->entry();
  absl::flat_hash_set<const Instruction*> control;
  std::vector<Instruction*> order = PostOrderOf(entry, &control);
  CHECK(Names(order) == std::vector<std::string>{"p", "b", "a", "c", "d", "r"});
  CHECK(order == entry.PostOrder());
  CHECK(control == ControlRelated(entry));
  CHECK(control.size() == 2);
}

TEST_CASE("PostOrderOf: instructions appended after their users", "[post_order]") {
  std::string text = "HloModule m\n\nENTRY %e (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n";
  std::string prev = "p";
  for (int i = 0; i < 500; ++i) {
    StrAppend(&text, "  %n", i, " = f32[] negate(%", prev, ")\n");
    prev = StrCat("n", i);
  }
  StrAppend(&text, "  ROOT %r = f32[] abs(%", prev, ")\n}\n");
  auto m = ParseTestModule(text);
  Computation& entry = *m->entry();
  // A new instruction at the end that an early one now reads.
  auto extra =
      std::make_unique<Instruction>(Opcode::kAbs, "extra", entry.parameter(0)->shape_ptr());
  extra->AppendOperand(entry.parameter(0));
  Instruction* added = entry.AddInstruction(std::move(extra));
  entry.instructions()[1]->ReplaceOperand(0, added);
  std::vector<Instruction*> order = PostOrderOf(entry);
  CHECK(order == entry.PostOrder());
  CHECK(order[1] == added);
  CHECK(order.size() == entry.instructions().size());
}

TEST_CASE("InstructionMarks: bits in range, a hash set outside", "[post_order]") {
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "%f (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  ROOT %y = f32[] negate(%x)\n}\n\n"
      "ENTRY %e (p: f32[]) -> f32[] {\n"
      "  %p = f32[] parameter(0)\n"
      "  %q = f32[] abs(%p)\n"
      "  ROOT %r = f32[] call(%q), to_apply=%f\n"
      "}\n");
  Computation& entry = *m->entry();
  Computation& f = *m->FindComputation("f");
  InstructionMarks marks(entry);
  for (const auto& inst : entry.instructions()) CHECK_FALSE(marks.contains(inst.get()));
  CHECK(marks.insert(entry.root()));
  CHECK_FALSE(marks.insert(entry.root()));
  CHECK(marks.contains(entry.root()));
  CHECK_FALSE(marks.contains(entry.parameter(0)));
  // Another computation's instructions may lie outside the range.
  CHECK_FALSE(marks.contains(f.root()));
  CHECK(marks.insert(f.root()));
  CHECK(marks.contains(f.root()));
  CHECK_FALSE(marks.contains(f.parameter(0)));
  InstructionMarks empty(Computation("none"));
  CHECK_FALSE(empty.contains(f.root()));
  CHECK(empty.insert(f.root()));
  CHECK(empty.contains(f.root()));
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

TEST_CASE("ModulePostOrderOf: the order of Module::PostOrder", "[post_order]") {
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n"
      "%g (x: f32[4]) -> f32[] {\n  %x = f32[4]{0} parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=%add\n}\n\n"
      "%f (y: f32[4]) -> f32[] {\n  %y = f32[4]{0} parameter(0)\n"
      "  ROOT %c = f32[] call(%y), to_apply=%g\n}\n\n"
      "%unused (u: f32[]) -> f32[] {\n  ROOT %u = f32[] parameter(0)\n}\n\n"
      "ENTRY %e (p: f32[4]) -> f32[] {\n"
      "  %p = f32[4]{0} parameter(0)\n"
      "  %k = f32[] call(%p), to_apply=%f\n"
      "  ROOT %l = f32[] call(%p), to_apply=%g\n"
      "}\n");
  int64_t seen = 0;
  std::vector<Computation*> order = ModulePostOrderOf(*m, [&](const Instruction&) { ++seen; });
  CHECK(order == m->PostOrder());
  CHECK(order.back() == m->entry());
  CHECK(seen == 3 + 3 + 2 + 1 + 3);
  // Which instructions of an order call something.
  std::vector<bool> calls;
  std::vector<Instruction*> entry_order = PostOrderOf(*m->entry(), nullptr, &calls);
  CHECK(calls == std::vector<bool>{false, true, true});
  for (size_t i = 0; i < entry_order.size(); ++i) {
    CHECK(calls[i] == !entry_order[i]->called_computations().empty());
  }
}

}  // namespace
}  // namespace hlo
