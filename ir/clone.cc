#include "ir/clone.h"

#include "absl/container/flat_hash_map.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {

std::string_view NameStem(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == name.size()) return name;
  for (size_t i = dot + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, dot);
}

std::unique_ptr<Instruction> CloneInstruction(Module& module, const Instruction& inst) {
  return CloneInstruction(inst, module.UniqueName(NameStem(inst.name())));
}

std::unique_ptr<Instruction> CloneInstruction(const Instruction& inst, std::string_view name) {
  auto copy = std::make_unique<Instruction>(inst.opcode(), name, inst.shape_ptr());
  if (inst.has_wrapped_opcode()) copy->set_wrapped_opcode(inst.wrapped_opcode());
  if (inst.opcode() == Opcode::kParameter) copy->set_parameter_number(inst.parameter_number());
  if (inst.literal() != nullptr) {
    copy->set_literal(std::shared_ptr<const Literal>(std::make_shared<Literal>(*inst.literal())));
  }
  copy->set_literal_elided(inst.literal_elided());
  for (const Attribute& a : inst.attributes()) copy->SetAttr(a.kind, a.value);
  copy->set_loc(inst.loc());
  return copy;
}

Instruction* CopyBodyInto(const Computation& callee, absl::Span<Instruction* const> args,
                          Computation& caller,
                          absl::FunctionRef<std::unique_ptr<Instruction>(const Instruction&)> copy,
                          std::vector<Instruction*>* made) {
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  for (int64_t i = 0; i < callee.parameter_count(); ++i) copies[callee.parameter(i)] = args[i];
  for (Instruction* inst : callee.PostOrder()) {
    if (inst->opcode() == Opcode::kParameter) continue;
    std::unique_ptr<Instruction> c = copy(*inst);
    for (Instruction* op : inst->operands()) c->AppendOperand(copies.at(op));
    Instruction* added = caller.AddInstruction(std::move(c));
    copies[inst] = added;
    if (made != nullptr) made->push_back(added);
  }
  return copies.at(callee.root());
}

Computation* CloneComputation(Module& module, const Computation& comp) {
  std::string name = module.UniqueName(NameStem(comp.name()));
  while (module.FindComputation(name) != nullptr) name = module.UniqueName(NameStem(comp.name()));
  auto copy = std::make_unique<Computation>(name);
  copy->set_loc(comp.loc());
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  // Operands come before their users in the stored order of a parsed
  // computation, but not necessarily after a pass: copy in two rounds.
  for (const auto& inst : comp.instructions()) {
    copies[inst.get()] = copy->AddInstruction(CloneInstruction(module, *inst));
  }
  for (const auto& inst : comp.instructions()) {
    Instruction* c = copies.at(inst.get());
    for (Instruction* op : inst->operands()) c->AppendOperand(copies.at(op));
    if (!inst->control_predecessors().empty()) {
      std::vector<Instruction*> preds;
      for (Instruction* p : inst->control_predecessors()) preds.push_back(copies.at(p));
      c->SetAttr(AttrKind::kControlPredecessors, preds);
    }
  }
  if (comp.root() != nullptr) copy->set_root(copies.at(comp.root()));
  return module.AddComputation(std::move(copy));
}

}  // namespace hlo
