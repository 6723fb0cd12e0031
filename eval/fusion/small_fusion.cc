#include "eval/fusion/small_fusion.h"

#include <vector>

#include "absl/container/inlined_vector.h"
#include "eval/runtime/new_array.h"
#include "ir/computation.h"

namespace hlo {

std::unique_ptr<SmallProgram> CompileSmallFusion(const Instruction& fusion, bool flush_denormals) {
  const Computation* body = fusion.to_apply();
  const Shape& shape = fusion.shape();
  if ((fusion.opcode() != Opcode::kFusion && fusion.opcode() != Opcode::kCall) || body == nullptr ||
      body->parameter_count() != fusion.operand_count()) {
    return nullptr;
  }
  // The result's arrays, as the program's results are made.
  absl::InlinedVector<const Shape*, 4> results;
  if (shape.IsTuple()) {
    results.assign(shape.tuple_shapes().begin(), shape.tuple_shapes().end());
  } else {
    results.push_back(&shape);
  }
  const Shape& root = body->root()->shape();
  if (shape.IsTuple() != root.IsTuple() ||
      (shape.IsTuple() && root.tuple_shapes().size() != results.size())) {
    return nullptr;
  }
  for (size_t r = 0; r < results.size(); ++r) {
    const Shape& want = shape.IsTuple() ? *root.tuple_shapes()[r] : root;
    if (!results[r]->IsArray() || !results[r]->IsStatic() ||
        results[r]->element_type() != want.element_type() || !(results[r]->dims() == want.dims())) {
      return nullptr;
    }
  }
  absl::StatusOr<std::unique_ptr<SmallProgram>> program =
      SmallProgram::Compile(*body, flush_denormals);
  if (!program.ok() || (*program)->result_count() != static_cast<int64_t>(results.size()) ||
      (*program)->input_count() != body->parameter_count()) {
    return nullptr;
  }
  return *std::move(program);
}

bool SmallFusionFits(const Instruction& fusion, absl::Span<const Value> args) {
  const Computation& body = *fusion.to_apply();
  if (static_cast<int64_t>(args.size()) != body.parameter_count()) return false;
  for (size_t p = 0; p < args.size(); ++p) {
    const Shape& want = body.parameter(static_cast<int64_t>(p))->shape();
    if (!args[p].is_array()) return false;
    const Literal& lit = args[p].array();
    if (lit.element_type() != want.element_type() || !(lit.shape().dims() == want.dims()) ||
        lit.size_bytes() !=
            static_cast<size_t>(want.ElementCount() * ByteWidth(want.element_type()))) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<Value> RunSmallFusion(SmallProgram& program, const Instruction& fusion,
                                     absl::Span<const Value> args,
                                     std::optional<SmallProgram::KernelRunner> kernels) {
  absl::InlinedVector<const void*, 8> inputs;
  for (const Value& v : args) inputs.push_back(v.array().data());
  const Shape& shape = fusion.shape();
  absl::InlinedVector<void*, 4> outputs;
  Value result;
  if (shape.IsTuple()) {
    std::vector<Value> elements;
    for (const Shape* s : shape.tuple_shapes()) {
      absl::StatusOr<Value> e = NewArrayUninitialized(*s);
      if (!e.ok()) return e.status();
      outputs.push_back(e->mutable_array().data());
      elements.push_back(*std::move(e));
    }
    result = Value::Tuple(std::move(elements));
  } else {
    absl::StatusOr<Value> out = NewArrayUninitialized(shape);
    if (!out.ok()) return out.status();
    outputs.push_back(out->mutable_array().data());
    result = *std::move(out);
  }
  if (absl::Status st = program.Run(inputs, outputs, kernels); !st.ok()) return st;
  return result;
}

}  // namespace hlo
