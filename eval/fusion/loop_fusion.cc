#include "eval/fusion/loop_fusion.h"

#include <vector>

#include "eval/fusion/batch_program.h"
#include "ir/computation.h"

namespace hlo {

std::unique_ptr<FusedGroup> CompileLoopFusion(const Instruction& fusion, bool flush_denormals) {
  const Computation* body = fusion.to_apply();
  if (fusion.opcode() != Opcode::kFusion || body == nullptr || !fusion.shape().IsArray() ||
      !body->root()->shape().IsArray() ||
      body->root()->shape().dims() != fusion.shape().dims() ||
      body->root()->shape().element_type() != fusion.shape().element_type()) {
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<BatchProgram>> program =
      BatchProgram::CompileElementwise(*body, flush_denormals);
  if (!program.ok()) return nullptr;
  auto loop = std::make_unique<FusedGroup>();
  loop->root = body->root();
  loop->program = *std::move(program);
  return loop;
}

bool LoopFusionFits(const FusedGroup& loop, absl::Span<const Value> args) {
  const BatchProgram& program = *loop.program;
  const int64_t n = loop.root->shape().ElementCount();
  for (int64_t i = 0; i < program.parameter_count(); ++i) {
    const int64_t source = program.parameter_source(i);
    if (source < 0 || source >= static_cast<int64_t>(args.size()) ||
        !args[source].is_array()) {
      return false;
    }
    const Literal& a = args[source].array();
    const bool scalar = program.parameter_is_scalar(i);
    // A broadcast parameter is read whole, at the body parameter's size.
    const int64_t want = program.parameter_is_broadcast(i)
                             ? loop.root->parent()->parameter(source)->shape().ElementCount()
                             : n;
    if (a.element_type() != program.parameter_type(i) ||
        (scalar ? a.element_count() <= program.parameter_offset(i) : a.element_count() != want)) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<Value> RunLoopFusion(FusedGroup& loop, absl::Span<Value> args) {
  const BatchProgram& program = *loop.program;
  const int64_t count = program.parameter_count();
  std::vector<const Value*> inputs(count);
  for (int64_t i = 0; i < count; ++i) inputs[i] = &args[program.parameter_source(i)];
  // Every argument is this call's own: any held here alone, of the
  // result's dimensions (others are reshaped in the loop), may be reused.
  std::vector<bool> reusable(count);
  for (int64_t i = 0; i < count; ++i) {
    reusable[i] = inputs[i]->array().shape().dims() == loop.root->shape().dims();
  }
  return RunFusedGroup(loop, inputs, reusable);
}

}  // namespace hlo
