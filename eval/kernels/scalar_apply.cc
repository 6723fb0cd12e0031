#include "eval/kernels/scalar_apply.h"

#include <cstring>

#include "eval/interp/batch_program.h"
#include "ir/strings.h"

namespace hlo {

std::optional<Opcode> SimpleBinaryReducer(const Computation& c) {
  if (c.parameter_count() != 2 || c.instruction_count() != 3) return std::nullopt;
  const Instruction* root = c.root();
  if (!root || root->operand_count() != 2 || !root->shape().IsArray() ||
      root->shape().rank() != 0) {
    return std::nullopt;
  }
  switch (root->opcode()) {
    case Opcode::kAdd:
    case Opcode::kMultiply:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      break;
    default:
      return std::nullopt;
  }
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  bool params = a->opcode() == Opcode::kParameter && b->opcode() == Opcode::kParameter && a != b;
  // All of these ops are commutative, so either parameter order works.
  if (!params) return std::nullopt;
  if (a->shape().element_type() != root->shape().element_type() ||
      b->shape().element_type() != root->shape().element_type()) {
    return std::nullopt;
  }
  return root->opcode();
}

Value ScalarAt(const Literal& array, int64_t i) {
  auto lit = Literal::Create(Shape::Array(array.element_type(), {}));
  int w = ByteWidth(array.element_type());
  std::memcpy(lit->data(), array.data() + i * w, w);
  return Value::Array(std::make_shared<Literal>(*std::move(lit)));
}

void StoreScalar(Literal& array, int64_t i, const Literal& scalar) {
  int w = ByteWidth(array.element_type());
  std::memcpy(array.data() + i * w, scalar.data(), w);
}

absl::StatusOr<Value> MapScalarComputation(const Computation& computation, Operands ops,
                                           const Shape& result, KernelContext& evaluator) {
  auto out = NewArray(result);
  if (!out.ok()) return out.status();
  Literal& dst = out->mutable_array();
  if (BatchProgram* program = evaluator.BatchProgramFor(computation);
      program != nullptr && program->result_count() == 1 &&
      program->result_type(0) == dst.element_type() &&
      program->parameter_count() == static_cast<int64_t>(ops.size())) {
    // The operands are contiguous arrays of the parameters' types: the
    // program reads them in place.
    std::vector<const void*> inputs;
    for (size_t k = 0; k < ops.size(); ++k) {
      const Literal& a = ops[k]->array();
      if (a.element_type() != program->parameter_type(static_cast<int64_t>(k)) ||
          a.element_count() != dst.element_count()) {
        return absl::InvalidArgumentError("map's operands must match its computation");
      }
      inputs.push_back(a.data());
    }
    void* outputs[1] = {dst.data()};
    if (absl::Status st = program->Run(inputs, outputs, dst.element_count()); !st.ok()) return st;
    return out;
  }
  std::vector<Value> scalars(ops.size());
  std::vector<const Value*> args(ops.size());
  for (int64_t i = 0; i < dst.element_count(); ++i) {
    for (size_t k = 0; k < ops.size(); ++k) {
      scalars[k] = ScalarAt(ops[k]->array(), i);
      args[k] = &scalars[k];
    }
    auto r = evaluator.Call(computation, args);
    if (!r.ok()) return r.status();
    if (!r->is_array() || r->array().element_type() != dst.element_type()) {
      return absl::InvalidArgumentError(
          "map's computation must return a scalar of the "
          "result's element type");
    }
    StoreScalar(dst, i, r->array());
  }
  return out;
}

}  // namespace hlo
