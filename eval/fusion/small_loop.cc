#include "eval/fusion/small_loop.h"

#include "absl/container/inlined_vector.h"
#include "eval/runtime/new_array.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace {

const Computation* Called(const Instruction& inst, AttrKind kind) {
  const Attribute* a = inst.FindAttr(kind);
  if (a == nullptr) return nullptr;
  const auto* v = std::get_if<std::vector<Computation*>>(&a->value);
  return v != nullptr && v->size() == 1 ? (*v)[0] : nullptr;
}

// A flat tuple of static arrays.
bool StateShape(const Shape& s) {
  if (!s.IsTuple()) return false;
  for (const Shape* e : s.tuple_shapes()) {
    if (!e->IsArray() || !e->IsStatic()) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<SmallLoop> CompileSmallLoop(const Instruction& loop, bool flush_denormals) {
  const Computation* cond = Called(loop, AttrKind::kCondition);
  const Computation* body = Called(loop, AttrKind::kBody);
  const Shape& shape = loop.shape();
  if (loop.opcode() != Opcode::kWhile || cond == nullptr || body == nullptr ||
      loop.operand_count() != 1 || !StateShape(shape) || cond->parameter_count() != 1 ||
      body->parameter_count() != 1 || !(cond->parameter(0)->shape() == shape) ||
      !(body->parameter(0)->shape() == shape) || !(body->root()->shape() == shape)) {
    return nullptr;
  }
  const Shape& go = cond->root()->shape();
  if (!go.IsArray() || go.rank() != 0 || go.element_type() != PrimitiveType::kPred) return nullptr;
  auto program = std::make_unique<SmallLoop>();
  absl::StatusOr<std::unique_ptr<SmallProgram>> c = SmallProgram::Compile(*cond, flush_denormals);
  if (!c.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<SmallProgram>> b = SmallProgram::Compile(*body, flush_denormals);
  if (!b.ok()) return nullptr;
  program->condition = *std::move(c);
  program->body = *std::move(b);
  const int64_t n = static_cast<int64_t>(shape.tuple_shapes().size());
  if (program->condition->input_count() != n || program->condition->result_count() != 1 ||
      program->body->input_count() != n || program->body->result_count() != n) {
    return nullptr;
  }
  for (int64_t r = 0; r < n; ++r) {
    program->passed_through.push_back(program->body->result_input(r) == r);
  }
  return program;
}

bool SmallLoopFits(const Instruction& loop, const Value& state) {
  const Shape& shape = loop.shape();
  if (!state.is_tuple() || state.elements().size() != shape.tuple_shapes().size()) return false;
  for (size_t k = 0; k < state.elements().size(); ++k) {
    const Value& e = state.elements()[k];
    const Shape& want = *shape.tuple_shapes()[k];
    if (!e.is_array() || e.array().element_type() != want.element_type() ||
        !(e.array().shape().dims() == want.dims()) ||
        e.array().size_bytes() !=
            static_cast<size_t>(want.ElementCount() * ByteWidth(want.element_type()))) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<Value> RunSmallLoop(SmallLoop& program, const Instruction& loop, const Value& state,
                                   int64_t max_iterations,
                                   std::optional<SmallProgram::KernelRunner> kernels) {
  const Shape& shape = loop.shape();
  const size_t n = state.elements().size();
  std::vector<Value> current(state.elements().begin(), state.elements().end());
  // Two buffers per element the body changes: one read, one written.
  // Those of the last run that someone else still holds (its result) are
  // not written; the others are.
  std::vector<Value>* buffers = program.buffers;
  for (int b = 0; b < 2; ++b) {
    buffers[b].resize(n);
    for (Value& buffer : buffers[b]) {
      if (buffer.is_array() && !buffer.unique()) buffer = Value();
    }
  }
  absl::InlinedVector<const void*, 8> inputs(n);
  absl::InlinedVector<const Value*, 8> input_values(n);  // (current never resizes)
  absl::InlinedVector<void*, 8> outputs(n);
  for (size_t k = 0; k < n; ++k) {
    inputs[k] = current[k].array().data();
    input_values[k] = &current[k];
  }
  // Elements the body updates in place (result_updates_input) once they
  // are the loop's own buffers (from the second trip: the first writes a
  // copy of the caller's).
  std::vector<bool> updated_in_place(n, false);
  bool go = false;
  void* go_out = &go;
  for (int64_t trip = 0;; ++trip) {
    if (absl::Status st =
            program.condition->Run(inputs, absl::MakeSpan(&go_out, 1), kernels, input_values);
        !st.ok()) {
      return st;
    }
    if (!go) break;
    if (max_iterations >= 0 && trip >= max_iterations) {
      return absl::ResourceExhaustedError(
          StrCat("the loop ran ", trip, " iterations, the limit set by --max-iterations"));
    }
    std::vector<Value>& written = buffers[trip & 1];
    for (size_t k = 0; k < n; ++k) {
      if (program.passed_through[k] || updated_in_place[k]) {
        outputs[k] = const_cast<void*>(inputs[k]);  // not written, or updated where it lies
        continue;
      }
      if (!written[k].is_array()) {
        absl::StatusOr<Value> fresh = NewArrayUninitialized(*shape.tuple_shapes()[k]);
        if (!fresh.ok()) return fresh.status();
        written[k] = *std::move(fresh);
      }
      outputs[k] = written[k].mutable_array().data();
    }
    if (absl::Status st = program.body->Run(inputs, outputs, kernels, input_values); !st.ok())
      return st;
    for (size_t k = 0; k < n; ++k) {
      if (program.passed_through[k] || updated_in_place[k]) continue;
      current[k] = written[k];
      inputs[k] = outputs[k];
      updated_in_place[k] =
          program.body->result_updates_input(static_cast<int64_t>(k)) == static_cast<int64_t>(k);
    }
  }
  return Value::Tuple(std::move(current));
}

}  // namespace hlo
