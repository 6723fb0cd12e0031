// tuple-simplifier (XLA's TupleSimplifier): get-tuple-element(tuple(a, b), 1)
// becomes b, and tuple(gte(x, 0), ..., gte(x, n-1)) becomes x when the
// shapes (layouts included) are equal. Replaced instructions, and operands
// left unused by them, are removed. One walk in stored (text) order, so
// chains fold in one run.
#include <optional>

#include "ir/module.h"
#include "passes/dead_code.h"
#include "passes/passes.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

// The element a get-tuple-element of a tuple instruction reads, or null.
Instruction* ForwardedElement(const Instruction& gte) {
  const Instruction* tuple = gte.operand(0);
  if (tuple == nullptr || tuple->opcode() != Opcode::kTuple) return nullptr;
  int64_t index = gte.GetInt(AttrKind::kIndex, -1);
  if (index < 0 || index >= tuple->operand_count()) return nullptr;
  Instruction* element = tuple->operand(index);
  if (element == nullptr || !(element->shape() == gte.shape())) return nullptr;
  return element;
}

// x when the tuple rebuilds x element by element in order, or null.
Instruction* RebuiltTuple(const Instruction& tuple) {
  if (tuple.operand_count() == 0) return nullptr;
  Instruction* source = nullptr;
  for (int64_t i = 0; i < tuple.operand_count(); ++i) {
    const Instruction* op = tuple.operand(i);
    if (op == nullptr || op->opcode() != Opcode::kGetTupleElement ||
        op->GetInt(AttrKind::kIndex, -1) != i) {
      return nullptr;
    }
    if (source == nullptr) source = op->operand(0);
    if (op->operand(0) != source) return nullptr;
  }
  if (source == nullptr || !source->shape().IsTuple() ||
      static_cast<int64_t>(source->shape().tuple_shapes().size()) != tuple.operand_count() ||
      !(source->shape() == tuple.shape())) {
    return nullptr;
  }
  return source;
}

Instruction* Replacement(const Instruction& inst) {
  if (inst.opcode() == Opcode::kGetTupleElement && inst.operand_count() == 1) {
    return ForwardedElement(inst);
  }
  if (inst.opcode() == Opcode::kTuple) return RebuiltTuple(inst);
  return nullptr;
}

int64_t RunOnComputation(Computation& comp) {
  // Stored order is the text order, operands first, so a chain folds in one
  // walk (a forward reference only delays a fold to the next run).
  std::optional<absl::flat_hash_set<const Instruction*>> control;  // built on first use
  std::vector<Instruction*> replaced;
  for (const auto& owned : comp.instructions()) {
    Instruction* inst = owned.get();
    Instruction* with = Replacement(*inst);
    if (with == nullptr || with == inst) continue;
    if (!control) control = ControlRelated(comp);
    if (control->contains(inst) || !AllowRewrite(*inst)) continue;
    inst->ReplaceAllUsesWith(with);
    replaced.push_back(inst);
  }
  RemoveDeadFrom(comp, replaced);
  return static_cast<int64_t>(replaced.size());
}

class TupleSimplifier : public Pass {
 public:
  std::string_view name() const override { return "tuple-simplifier"; }
  std::string_view description() const override {
    return "folds get-tuple-element of tuple, and tuples rebuilt from one tuple";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    int64_t n = 0;
    for (const auto& comp : module.computations()) {
      // Both folds need a tuple instruction in the computation.
      if (comp->CountOf(Opcode::kTuple) > 0) n += RunOnComputation(*comp);
    }
    return n > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateTupleSimplifier() { return std::make_unique<TupleSimplifier>(); }

}  // namespace hlo
