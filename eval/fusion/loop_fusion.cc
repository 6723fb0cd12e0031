#include "eval/fusion/loop_fusion.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "eval/fusion/row_broadcast_op.h"
#include "eval/interp/batch_program.h"
#include "ir/computation.h"

namespace hlo {
namespace {

// What `value` is computed from inside its computation, in post order (the
// parameters it reaches are left out: they are the fusion's operands).
std::vector<const Instruction*> MadeOf(const Instruction& value) {
  std::vector<const Instruction*> order;
  absl::flat_hash_set<const Instruction*> seen;
  // Depth-first, operands before their users.
  std::vector<std::pair<const Instruction*, size_t>> stack = {{&value, 0}};
  while (!stack.empty()) {
    auto& [inst, next] = stack.back();
    if (next < inst->operands().size()) {
      const Instruction* op = inst->operand(next++);
      if (op->opcode() != Opcode::kParameter && seen.insert(op).second) {
        stack.push_back({op, 0});
      }
      continue;
    }
    if (inst != &value) order.push_back(inst);
    stack.pop_back();
  }
  return order;
}

// A smaller array than the root, read only through one broadcast: XLA's
// loop fusions compute batch- and layer-norm statistics so (mean = sum *
// 1/n, broadcast over the activations), which the loop's positions cannot
// hold. It is computed first, as a group of its own over its positions.
// What it is made of may be shared with other such values (each group
// computes it again) but not read by the loop: CompileElementwise then
// fails and the fusion runs through its computation.
struct Precompute {
  BatchProgram::Precomputed spec;
  std::unique_ptr<FusedGroup> group;
  std::vector<int64_t> args;  // the fusion operands its group reads
};

std::optional<Precompute> PrecomputeFor(const Instruction& broadcast, int64_t positions,
                                        bool flush_denormals) {
  const Instruction& value = *broadcast.operand(0);
  const Shape& shape = value.shape();
  if (value.opcode() == Opcode::kParameter || value.opcode() == Opcode::kConstant ||
      !shape.IsArray() || shape.rank() == 0 || shape.ElementCount() >= positions ||
      value.users().size() != 1) {
    return std::nullopt;
  }
  Precompute p;
  p.spec.value = &value;
  p.spec.made_of = MadeOf(value);
  std::vector<const Instruction*> members = p.spec.made_of;
  members.push_back(&value);
  std::vector<const Instruction*> inputs;
  absl::StatusOr<std::unique_ptr<BatchProgram>> program =
      BatchProgram::CompileGroup(value, members, flush_denormals, &inputs);
  if (!program.ok()) return std::nullopt;
  for (const Instruction* in : inputs) {
    if (in->opcode() != Opcode::kParameter) return std::nullopt;
    p.args.push_back(in->parameter_number());
  }
  p.group = std::make_unique<FusedGroup>();
  p.group->root = &value;
  p.group->members = std::move(members);
  p.group->inputs = std::move(inputs);
  p.group->program = *std::move(program);
  return p;
}

// Whether `value` is an array of `type` and `count` elements.
bool ArrayOf(const Value& value, PrimitiveType type, int64_t count) {
  return value.is_array() && value.array().element_type() == type &&
         value.array().element_count() == count;
}

}  // namespace

std::unique_ptr<FusedGroup> CompileLoopFusion(const Instruction& fusion, bool flush_denormals) {
  const Computation* body = fusion.to_apply();
  if (fusion.opcode() != Opcode::kFusion || body == nullptr || !fusion.shape().IsArray() ||
      !body->root()->shape().IsArray() || body->root()->shape().dims() != fusion.shape().dims() ||
      body->root()->shape().element_type() != fusion.shape().element_type()) {
    return nullptr;
  }
  auto loop = std::make_unique<FusedGroup>();
  absl::StatusOr<std::unique_ptr<BatchProgram>> program =
      BatchProgram::CompileElementwise(*body, flush_denormals);
  if (!program.ok()) {
    // Again with the smaller values read through broadcasts computed first.
    const int64_t positions = body->root()->shape().ElementCount();
    std::vector<BatchProgram::Precomputed> specs;
    for (const Instruction* inst : body->PostOrder()) {
      if (inst->opcode() != Opcode::kBroadcast || inst->operand_count() != 1) continue;
      std::optional<Precompute> p = PrecomputeFor(*inst, positions, flush_denormals);
      if (!p) continue;
      specs.push_back(std::move(p->spec));
      loop->precomputed.push_back(std::move(p->group));
      loop->precomputed_args.push_back(std::move(p->args));
    }
    if (specs.empty()) return nullptr;
    program = BatchProgram::CompileElementwise(*body, flush_denormals, specs);
    if (!program.ok()) return nullptr;
  }
  loop->root = body->root();
  loop->program = *std::move(program);
  if (loop->precomputed.empty()) {
    // One op and a per-row broadcast (XLA's softmax multiply by the
    // broadcast reciprocal of the sums): RunRowBroadcastOp's typed loop.
    std::vector<const Instruction*> members, parameters;
    for (const Instruction* inst : body->PostOrder()) {
      if (inst->opcode() != Opcode::kParameter) members.push_back(inst);
    }
    for (int64_t i = 0; i < body->parameter_count(); ++i) parameters.push_back(body->parameter(i));
    loop->row_op = MatchRowBroadcastOp(*loop->root, members, parameters, flush_denormals);
  }
  return loop;
}

bool LoopFusionFits(const FusedGroup& loop, absl::Span<const Value> args) {
  const BatchProgram& program = *loop.program;
  const int64_t n = loop.root->shape().ElementCount();
  const int64_t operands = loop.root->parent()->parameter_count();
  if (static_cast<int64_t>(args.size()) != operands) return false;
  for (int64_t i = 0; i < program.parameter_count(); ++i) {
    const int64_t source = program.parameter_source(i);
    if (source >= operands) continue;  // a precomputed value: checked below
    if (source < 0 || !args[source].is_array()) return false;
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
  // A precomputed group reads its operands whole, at their parameters' sizes.
  for (size_t k = 0; k < loop.precomputed.size(); ++k) {
    const FusedGroup& group = *loop.precomputed[k];
    for (size_t j = 0; j < loop.precomputed_args[k].size(); ++j) {
      const int64_t source = loop.precomputed_args[k][j];
      if (source < 0 || source >= operands ||
          !ArrayOf(args[source], group.program->parameter_type(static_cast<int64_t>(j)),
                   group.inputs[j]->shape().ElementCount())) {
        return false;
      }
    }
  }
  return true;
}

absl::StatusOr<Value> RunLoopFusion(FusedGroup& loop, absl::Span<Value> args) {
  const BatchProgram& program = *loop.program;
  const int64_t operands = static_cast<int64_t>(args.size());
  if (loop.row_op) {
    // (Its inputs are the body's parameters, in order.)
    std::vector<const Value*> inputs(operands);
    std::vector<bool> reusable(operands);
    for (int64_t i = 0; i < operands; ++i) {
      inputs[i] = &args[i];
      reusable[i] = args[i].array().shape().dims() == loop.root->shape().dims();
    }
    return RunRowBroadcastOp(*loop.row_op, loop.root->shape(), inputs, reusable);
  }
  // The precomputed values first, from operands the loop reads too.
  std::vector<Value> values(loop.precomputed.size());
  for (size_t k = 0; k < loop.precomputed.size(); ++k) {
    std::vector<const Value*> ins;
    for (int64_t source : loop.precomputed_args[k]) ins.push_back(&args[source]);
    absl::StatusOr<Value> v =
        RunFusedGroup(*loop.precomputed[k], ins, std::vector<bool>(ins.size(), false));
    if (!v.ok()) return v.status();
    values[k] = *std::move(v);
  }
  const int64_t count = program.parameter_count();
  std::vector<const Value*> inputs(count);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t source = program.parameter_source(i);
    inputs[i] = source < operands ? &args[source] : &values[source - operands];
  }
  // Every argument is this call's own: any held here alone, of the
  // result's dimensions (others are reshaped in the loop), may be reused.
  std::vector<bool> reusable(count);
  for (int64_t i = 0; i < count; ++i) {
    reusable[i] = program.parameter_source(i) < operands &&
                  inputs[i]->array().shape().dims() == loop.root->shape().dims();
  }
  return RunFusedGroup(loop, inputs, reusable);
}

}  // namespace hlo
