// Helpers shared by while-loop-simplifier and conditional-simplifier.
#include "passes/control_flow_util.h"

#include <memory>
#include <utility>

namespace hlo {

std::vector<Computation*> ComputationsOf(const Instruction* inst, AttrKind kind) {
  const Attribute* a = inst->FindAttr(kind);
  if (!a) return {};
  if (auto* v = std::get_if<std::vector<Computation*>>(&a->value)) return *v;
  return {};
}

bool SideEffectCache::Has(const Computation* comp) {
  auto it = cache_.find(comp);
  if (it != cache_.end()) return it->second;
  cache_[comp] = true;  // recursion guard: a cycle counts as a side effect
  bool has = false;
  for (const auto& inst : comp->instructions()) {
    if (HasSideEffect(inst->opcode()) || inst->opcode() == Opcode::kRng) {
      has = true;
      break;
    }
    for (const Computation* c : inst->called_computations()) {
      if (Has(c)) has = true;
    }
    if (has) break;
  }
  cache_[comp] = has;
  return has;
}

std::optional<int64_t> ScalarIntConstant(const Instruction* inst) {
  if (inst->opcode() != Opcode::kConstant || inst->literal() == nullptr) return std::nullopt;
  const Shape& s = inst->shape();
  if (!s.IsArray() || s.rank() != 0) return std::nullopt;
  const PrimitiveType t = s.element_type();
  const bool exact = IsPred(t) || IsSignedInt(t) || (IsUnsignedInt(t) && BitWidth(t) <= 32);
  if (!exact) return std::nullopt;
  return inst->literal()->GetInt(0);
}

Instruction* AddCall(Module& module, Computation& comp, const Shape& shape, Computation* callee,
                     std::vector<Instruction*> operands) {
  auto inst =
      std::make_unique<Instruction>(Opcode::kCall, module.UniqueName("call"), module.Intern(shape));
  for (Instruction* op : operands) inst->AppendOperand(op);
  inst->SetAttr(AttrKind::kToApply, std::vector<Computation*>{callee});
  return comp.AddInstruction(std::move(inst));
}

std::optional<int64_t> LoopStateIndex(const Instruction* inst, const Computation& comp) {
  if (comp.parameter_count() != 1) return std::nullopt;
  const Instruction* param = comp.parameter(0);
  if (inst == param && !param->shape().IsTuple()) return -1;
  if (inst->opcode() == Opcode::kGetTupleElement && inst->operand(0) == param) {
    return inst->GetInt(AttrKind::kIndex);
  }
  return std::nullopt;
}

}  // namespace hlo
