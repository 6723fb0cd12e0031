// tuple-elements: elements of the entry's root tuple, and of tuples that
// only get-tuple-element reads, go. A get-tuple-element of a removed
// element reads its operand directly; the others are renumbered.
#include <vector>

#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

bool OnlyGetTupleElements(const Instruction& tuple) {
  for (const Instruction* user : tuple.users()) {
    if (user->opcode() != Opcode::kGetTupleElement) return false;
  }
  return true;
}

void RemoveElements(Module& module, Instruction* tuple, const std::vector<bool>& remove) {
  Computation* comp = tuple->parent();
  std::vector<const Shape*> shapes;
  std::vector<Instruction*> kept;
  std::vector<int64_t> new_index(tuple->operand_count(), -1);
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    if (remove[i]) continue;
    new_index[i] = static_cast<int64_t>(kept.size());
    kept.push_back(tuple->operand(i));
    shapes.push_back(&tuple->shape().tuple_shape(i));
  }
  auto fresh = std::make_unique<Instruction>(Opcode::kTuple, module.UniqueName("tuple"),
                                             module.Intern(Shape::Tuple(shapes)));
  for (Instruction* op : kept) fresh->AppendOperand(op);
  Instruction* made = comp->AddInstruction(std::move(fresh));
  std::vector<Instruction*> users(tuple->users().begin(), tuple->users().end());
  for (Instruction* gte : users) {
    int64_t index = gte->GetInt(AttrKind::kIndex);
    if (index < 0 || index >= tuple->operand_count()) continue;
    if (remove[index]) {
      gte->ReplaceAllUsesWith(tuple->operand(index));
    } else {
      gte->SetAttr(AttrKind::kIndex, new_index[index]);
      gte->ReplaceOperand(0, made);
    }
  }
  if (tuple->is_root()) comp->set_root(made);
}

class TupleElementsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    for (const auto& comp : module.computations()) {
      const bool entry = comp.get() == module.entry();
      for (Instruction* inst : comp->PostOrder()) {
        if (inst->opcode() != Opcode::kTuple) continue;
        // A root of another computation is its signature.
        if (inst->is_root() ? !entry : !OnlyGetTupleElements(*inst)) continue;
        std::vector<bool> remove(inst->operand_count(), false);
        bool any = false;
        for (int64_t i = 0; i < inst->operand_count(); ++i) {
          remove[i] = select.Pick();
          any = any || remove[i];
        }
        if (any) RemoveElements(module, inst, remove);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateTupleElementsDelta() { return std::make_unique<TupleElementsDelta>(); }

}  // namespace hlo::reduce
