#include "eval/fusion/row_broadcast_op.h"

#include <algorithm>
#include <type_traits>

#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/kernels.h"
#include "eval/runtime/parallel.h"

namespace hlo {
namespace {

// Elements per core's part, as the fused groups' (eval/fusion/fusion_plan.cc).
constexpr int64_t kMinPartElements = 64 * 1024;

// out[0, n) = x[0, n) op v (or v op x).
template <Opcode op, typename T>
void Combine(const T* x, T v, T* out, int64_t n, bool row_first) {
  if (row_first) {
    for (int64_t c = 0; c < n; ++c) {
      if constexpr (op == Opcode::kAdd) out[c] = v + x[c];
      if constexpr (op == Opcode::kSubtract) out[c] = v - x[c];
      if constexpr (op == Opcode::kMultiply) out[c] = v * x[c];
      if constexpr (op == Opcode::kDivide) out[c] = v / x[c];
    }
  } else {
    for (int64_t c = 0; c < n; ++c) {
      if constexpr (op == Opcode::kAdd) out[c] = x[c] + v;
      if constexpr (op == Opcode::kSubtract) out[c] = x[c] - v;
      if constexpr (op == Opcode::kMultiply) out[c] = x[c] * v;
      if constexpr (op == Opcode::kDivide) out[c] = x[c] / v;
    }
  }
}

// exp(x - v) in one pass (a softmax's shifted exponentials) where libmvec
// serves f32: the bits of the two passes; false: the caller makes them.
template <Opcode op, typename T>
bool ExpOfDifference(const RowBroadcastOp& p, const T* x, T v, T* out, int64_t n) {
  if constexpr (op == Opcode::kSubtract && std::is_same_v<T, float>) {
    if (!p.row_first && *p.then == Opcode::kExp) {
      return elementwise::VecExpOfDifference(x, v, out, n);
    }
  }
  return false;
}

// Rows [r0, r1); with a unary op after, in chunks through a scratch
// buffer that stays in L1 (the unary's output may be x's own buffer:
// each chunk of x is read before it is written).
template <Opcode op, typename T>
void RowLoop(const RowBroadcastOp& p, const T* x, const T* s, T* out, int64_t r0, int64_t r1) {
  constexpr int64_t kChunk = 2048;
  std::vector<T> scratch(p.then ? static_cast<size_t>(std::min(kChunk, p.inner)) : 0);
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * p.inner;
    T* o = out + r * p.inner;
    if (!p.then) {
      Combine<op>(xr, s[r], o, p.inner, p.row_first);
      continue;
    }
    for (int64_t c = 0; c < p.inner; c += kChunk) {
      const int64_t n = std::min(kChunk, p.inner - c);
      if (ExpOfDifference<op>(p, xr + c, s[r], o + c, n)) continue;
      Combine<op>(xr + c, s[r], scratch.data(), n, p.row_first);
      elementwise::UnaryFloatKernel<T>(*p.then, scratch.data(), o + c, n);
    }
  }
}

template <typename T>
void RunTyped(const RowBroadcastOp& op, const T* x, const T* s, T* out) {
  auto run = [&](auto tag) {
    constexpr Opcode o = decltype(tag)::value;
    ParallelRows(op.rows, std::max<int64_t>(1, kMinPartElements / std::max<int64_t>(1, op.inner)),
                 [&](int64_t r0, int64_t r1) { RowLoop<o, T>(op, x, s, out, r0, r1); });
  };
  switch (op.op) {
    case Opcode::kAdd:
      run(std::integral_constant<Opcode, Opcode::kAdd>{});
      break;
    case Opcode::kSubtract:
      run(std::integral_constant<Opcode, Opcode::kSubtract>{});
      break;
    case Opcode::kMultiply:
      run(std::integral_constant<Opcode, Opcode::kMultiply>{});
      break;
    default:
      run(std::integral_constant<Opcode, Opcode::kDivide>{});
      break;
  }
}

}  // namespace

std::optional<RowBroadcastOp> MatchRowBroadcastOp(const Instruction& root,
                                                  absl::Span<const Instruction* const> members,
                                                  absl::Span<const Instruction* const> inputs,
                                                  bool flush_denormals) {
  if (members.size() == 3 && root.operand_count() == 1 && IsElementwise(root.opcode()) &&
      root.shape().IsArray() && root.operand(0)->shape().IsArray() &&
      root.shape().element_type() == root.operand(0)->shape().element_type() &&
      (!flush_denormals || HardwareFlushes(root))) {
    // A unary float math op (one the typed kernel has) of the pair.
    const bool known =
        root.shape().element_type() == PrimitiveType::kF32
            ? elementwise::UnaryFloatKernel<float>(root.opcode(), nullptr, nullptr, 0)
            : elementwise::UnaryFloatKernel<double>(root.opcode(), nullptr, nullptr, 0);
    const Instruction* inner = root.operand(0);
    std::vector<const Instruction*> pair;
    for (const Instruction* m : members) {
      if (m != &root) pair.push_back(m);
    }
    if (!known || std::find(pair.begin(), pair.end(), inner) == pair.end()) return std::nullopt;
    std::optional<RowBroadcastOp> op = MatchRowBroadcastOp(*inner, pair, inputs, flush_denormals);
    if (op) op->then = root.opcode();
    return op;
  }
  const Opcode code = root.opcode();
  if (code != Opcode::kAdd && code != Opcode::kSubtract && code != Opcode::kMultiply &&
      code != Opcode::kDivide) {
    return std::nullopt;
  }
  const Shape& shape = root.shape();
  if (members.size() != 2 || root.operand_count() != 2 || !shape.IsArray() ||
      (shape.element_type() != PrimitiveType::kF32 &&
       shape.element_type() != PrimitiveType::kF64) ||
      (flush_denormals && !HardwareFlushes(root))) {
    return std::nullopt;
  }
  const Instruction* b = members[0] == &root ? members[1] : members[0];
  if (b->opcode() != Opcode::kBroadcast || b->operand_count() != 1 ||
      root.operand(0) == root.operand(1)) {
    return std::nullopt;
  }
  const bool row_first = root.operand(0) == b;
  const Instruction* x = root.operand(row_first ? 1 : 0);
  const Instruction* s = b->operand(0);
  const Shape& ss = s->shape();
  if (x->shape().dims() != shape.dims() || x->shape().element_type() != shape.element_type() ||
      !ss.IsArray() || ss.element_type() != shape.element_type() || ss.rank() < 1 ||
      ss.rank() > shape.rank()) {
    return std::nullopt;
  }
  // The broadcast keeps s's dims as the result's leading ones, in order.
  absl::Span<const int64_t> map = b->GetInts(AttrKind::kDimensions);
  if (static_cast<int64_t>(map.size()) != ss.rank()) return std::nullopt;
  RowBroadcastOp op;
  op.rows = 1;
  for (int64_t d = 0; d < ss.rank(); ++d) {
    if (map[d] != d || ss.dims()[d] != shape.dims()[d]) return std::nullopt;
    op.rows *= ss.dims()[d];
  }
  op.inner = 1;
  for (int64_t d = ss.rank(); d < shape.rank(); ++d) op.inner *= shape.dims()[d];
  auto x_at = std::find(inputs.begin(), inputs.end(), x);
  auto s_at = std::find(inputs.begin(), inputs.end(), s);
  if (x_at == inputs.end() || s_at == inputs.end() || inputs.size() != 2) return std::nullopt;
  op.op = code;
  op.type = shape.element_type();
  op.row_first = row_first;
  op.x_input = static_cast<size_t>(x_at - inputs.begin());
  op.row_input = static_cast<size_t>(s_at - inputs.begin());
  return op;
}

absl::StatusOr<Value> RunRowBroadcastOp(const RowBroadcastOp& op, const Shape& shape,
                                        absl::Span<const Value* const> inputs,
                                        const std::vector<bool>& reusable) {
  const Value* x = inputs[op.x_input];
  const Value* s = inputs[op.row_input];
  if (x == nullptr || s == nullptr || !x->is_array() || !s->is_array() ||
      x->array().element_type() != op.type || s->array().element_type() != op.type ||
      x->array().element_count() != op.rows * op.inner || s->array().element_count() != op.rows) {
    return absl::InvalidArgumentError("a fused input has the wrong type");
  }
  // Each element is read before it is written, so the result may take
  // over x's buffer.
  absl::StatusOr<Value> result = TakeOrNewArray(*x, reusable[op.x_input], shape);
  if (!result.ok()) return result.status();
  Literal& out = result->mutable_array();
  if (op.type == PrimitiveType::kF32) {
    RunTyped<float>(op, x->array().typed<float>(), s->array().typed<float>(), out.typed<float>());
  } else {
    RunTyped<double>(op, x->array().typed<double>(), s->array().typed<double>(),
                     out.typed<double>());
  }
  return result;
}

}  // namespace hlo
