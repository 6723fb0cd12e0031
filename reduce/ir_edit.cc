#include "reduce/ir_edit.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/clone.h"
#include "ir/literal.h"

namespace hlo::reduce {
namespace {

// The entry's parameter instructions by their (old) numbers.
std::vector<Instruction*> EntryParameters(const Computation& entry) {
  std::vector<Instruction*> params;
  for (const auto& inst : entry.instructions()) {
    if (inst->opcode() == Opcode::kParameter) params.push_back(inst.get());
  }
  std::stable_sort(params.begin(), params.end(), [](const Instruction* a, const Instruction* b) {
    return a->parameter_number() < b->parameter_number();
  });
  return params;
}

}  // namespace

Instruction* AddEntryParameter(Module& module, const Shape* shape) {
  Computation* entry = module.entry();
  auto param = std::make_unique<Instruction>(Opcode::kParameter, module.UniqueName("param"), shape);
  param->set_parameter_number(entry->parameter_count());
  return entry->AddInstruction(std::move(param));
}

Instruction* AddFilledConstant(Module& module, Computation& comp, const Shape& shape, int value) {
  if (!shape.IsArray() || !shape.IsStatic()) return nullptr;
  PrimitiveType type = shape.element_type();
  if (!IsFloat(type) && !IsSignedInt(type) && !IsUnsignedInt(type) &&
      type != PrimitiveType::kPred) {
    return nullptr;
  }
  const Shape* scalar = module.Intern(Shape::Array(type, {}).WithDefaultLayout());
  auto lit = Literal::Create(*scalar);
  if (!lit.ok()) return nullptr;
  if (IsFloat(type)) {
    lit->SetDouble(0, value);
  } else {
    lit->SetInt(0, value);
  }
  auto constant =
      std::make_unique<Instruction>(Opcode::kConstant, module.UniqueName("constant"), scalar);
  constant->set_literal(std::make_shared<Literal>(*std::move(lit)));
  Instruction* c = comp.AddInstruction(std::move(constant));
  if (shape.rank() == 0) return c;
  auto broadcast = std::make_unique<Instruction>(Opcode::kBroadcast, module.UniqueName("broadcast"),
                                                 module.Intern(shape));
  broadcast->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
  broadcast->AppendOperand(c);
  return comp.AddInstruction(std::move(broadcast));
}

bool InlineInto(Module& module, Instruction* call, const Computation& callee,
                absl::Span<Instruction* const> args) {
  if (static_cast<int64_t>(args.size()) != callee.parameter_count() || callee.root() == nullptr ||
      !callee.root()->shape().Compatible(call->shape())) {
    return false;
  }
  Computation* caller = call->parent();
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  for (int64_t i = 0; i < callee.parameter_count(); ++i) {
    if (callee.parameter(i) == nullptr) return false;
    copies[callee.parameter(i)] = args[i];
  }
  for (Instruction* inst : callee.PostOrder()) {
    if (inst->opcode() == Opcode::kParameter) continue;
    std::unique_ptr<Instruction> copy = CloneInstruction(module, *inst);
    copy->RemoveAttr(AttrKind::kControlPredecessors);
    for (Instruction* op : inst->operands()) copy->AppendOperand(copies.at(op));
    copies[inst] = caller->AddInstruction(std::move(copy));
  }
  call->ReplaceAllUsesWith(copies.at(callee.root()));
  return true;
}

void CleanUp(Module& module) {
  for (const auto& comp : module.computations()) comp->RemoveDeadInstructions();
  module.RemoveUnreachableComputations();
  Computation* entry = module.entry();
  if (entry == nullptr || entry->root() == nullptr) return;
  // Numbered 0.. again, with the entry layout of each kept where it still
  // fits. The computation's own list of parameters is stale now: the module
  // is printed without signatures and read again (reduce/candidate.cc).
  const std::vector<const Shape*> old_layouts = module.entry_parameter_layouts();
  const Shape* old_result = module.entry_result_layout();
  std::vector<const Shape*> layouts;
  std::vector<Instruction*> params = EntryParameters(*entry);
  bool same_signature = params.size() == old_layouts.size();
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t old = params[i]->parameter_number();
    same_signature = same_signature && old == static_cast<int64_t>(i);
    const bool fits = old_result != nullptr && old >= 0 &&
                      old < static_cast<int64_t>(old_layouts.size()) &&
                      old_layouts[old]->Compatible(params[i]->shape());
    layouts.push_back(fits ? old_layouts[old] : params[i]->shape_ptr());
    params[i]->set_parameter_number(static_cast<int64_t>(i));
  }
  const Shape* root = entry->root()->shape_ptr();
  const bool result_fits = old_result != nullptr && old_result->Compatible(*root);
  module.set_entry_layout(std::move(layouts), result_fits ? old_result : root);
  // Header attributes that name parameters or outputs by number or count
  // them no longer fit a changed signature.
  if (!same_signature || !result_fits) {
    auto& attrs = module.header_attrs();
    attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                               [](const ModuleAttr& a) {
                                 return a.name == "input_output_alias" ||
                                        a.name == "buffer_donor" ||
                                        a.name.starts_with("allow_spmd_sharding_propagation_to");
                               }),
                attrs.end());
  }
}

}  // namespace hlo::reduce
