// shrink-constants: a constant array of more than one element becomes a
// broadcast of its first element.
#include "ir/literal.h"
#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

class ShrinkConstantsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    for (const auto& comp : module.computations()) {
      for (Instruction* inst : comp->PostOrder()) {
        const Literal* lit = inst->literal();
        if (inst->opcode() != Opcode::kConstant || lit == nullptr || !inst->shape().IsArray() ||
            lit->IsTuple() || lit->element_count() < 2) {
          continue;
        }
        if (!select.Pick()) continue;
        const Shape* scalar =
            module.Intern(Shape::Array(inst->shape().element_type(), {}).WithDefaultLayout());
        auto first = Literal::Create(*scalar);
        if (!first.ok()) continue;
        first->SetBits(0, lit->GetBits(0));
        auto c =
            std::make_unique<Instruction>(Opcode::kConstant, module.UniqueName("constant"), scalar);
        c->set_literal(std::make_shared<Literal>(*std::move(first)));
        Instruction* made = comp->AddInstruction(std::move(c));
        auto b = std::make_unique<Instruction>(Opcode::kBroadcast, module.UniqueName("broadcast"),
                                               inst->shape_ptr());
        b->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
        b->AppendOperand(made);
        inst->ReplaceAllUsesWith(comp->AddInstruction(std::move(b)));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateShrinkConstantsDelta() {
  return std::make_unique<ShrinkConstantsDelta>();
}

}  // namespace hlo::reduce
