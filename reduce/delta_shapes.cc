// shapes: when the entry is elementwise through and through (every array
// of it has the same dimensions, but scalar constants and their
// broadcasts), a dimension of all of them is halved: every use allows it.
// One target per dimension above 1; rounds repeat the halving.
#include <optional>
#include <vector>

#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

// The dimensions every array of the entry shares, or nullopt when an
// instruction is not elementwise on them.
std::optional<std::vector<int64_t>> SharedDims(const Computation& entry) {
  std::optional<std::vector<int64_t>> dims;
  for (const auto& inst : entry.instructions()) {
    const Shape& shape = inst->shape();
    if (!shape.IsArray() || !shape.IsStatic()) return std::nullopt;
    const Opcode op = inst->opcode();
    if (op == Opcode::kConstant) {
      if (shape.rank() != 0) return std::nullopt;
      continue;
    }
    const bool scalar_broadcast = op == Opcode::kBroadcast && inst->operand(0)->shape().rank() == 0;
    if (op != Opcode::kParameter && !scalar_broadcast &&
        !(IsElementwise(op) && op != Opcode::kMap)) {
      return std::nullopt;
    }
    std::vector<int64_t> d(shape.dims().begin(), shape.dims().end());
    if (d.empty()) {
      if (op == Opcode::kParameter) continue;  // unused, or the whole entry is scalar
      return std::nullopt;
    }
    if (!dims) {
      dims = d;
    } else if (*dims != d) {
      return std::nullopt;
    }
  }
  return dims;
}

class ShapesDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    Computation* entry = module.entry();
    std::optional<std::vector<int64_t>> dims = SharedDims(*entry);
    if (!dims) return;
    std::vector<int64_t> smaller = *dims;
    bool any = false;
    for (int64_t& d : smaller) {
      if (d <= 1) continue;
      if (select.Pick()) {
        d /= 2;
        any = true;
      }
    }
    if (!any) return;
    for (const auto& inst : entry->instructions()) {
      const Shape& shape = inst->shape();
      if (shape.rank() == 0) continue;
      inst->set_shape(
          module.Intern(Shape::Array(shape.element_type(), smaller).WithDefaultLayout()));
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateShapesDelta() { return std::make_unique<ShapesDelta>(); }

}  // namespace hlo::reduce
