#include "eval/fusion/gelu_tanh.h"

#include <algorithm>
#include <initializer_list>

#include "eval/fusion/pattern_match.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/runtime/new_array.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace {

// Elements per piece of a row: its h and its tanh argument stay in L1.
constexpr int64_t kPiece = 2048;
// Elements per core's part.
constexpr int64_t kMinPartElements = 16 * 1024;

// `inst` = opcode(v, broadcast(scalar)) in either order, of `shape`:
// v, with the broadcast in *scalar; null otherwise.
const Instruction* WithScalar(const Instruction& inst, Opcode opcode, const Shape& shape,
                              const Instruction** scalar) {
  if (inst.opcode() != opcode || inst.operand_count() != 2 || !SameArray(inst.shape(), shape)) {
    return nullptr;
  }
  for (int side : {0, 1}) {
    if (IsScalarBroadcast(*inst.operand(side), shape)) {
      *scalar = inst.operand(side);
      return inst.operand(1 - side);
    }
  }
  return nullptr;
}

// `inst` = opcode(h, other) in either order: other; null otherwise.
const Instruction* OtherThan(const Instruction& inst, Opcode opcode, const Instruction* h) {
  if (inst.opcode() != opcode || inst.operand_count() != 2) return nullptr;
  if (inst.operand(0) == h) return inst.operand(1);
  if (inst.operand(1) == h) return inst.operand(0);
  return nullptr;
}

// h's bias: h = add(x, broadcast(b)) (either order), b of [cols] along
// the last dimension; the broadcast, or null.
const Instruction* BiasOf(const Instruction& h, const Shape& shape) {
  if (h.opcode() != Opcode::kAdd || h.operand_count() != 2) return nullptr;
  for (int side : {0, 1}) {
    const Instruction& b = *h.operand(side);
    if (b.opcode() != Opcode::kBroadcast || b.operand_count() != 1 ||
        !SameArray(b.shape(), shape) || !SameArray(h.operand(1 - side)->shape(), shape)) {
      continue;
    }
    const Shape& in = b.operand(0)->shape();
    absl::Span<const int64_t> map = b.GetInts(AttrKind::kDimensions);
    if (in.IsArray() && in.element_type() == shape.element_type() && in.rank() == 1 &&
        in.dims()[0] == shape.dims().back() && map.size() == 1 && map[0] == shape.rank() - 1) {
      return &b;
    }
  }
  return nullptr;
}

// h = x (+ b), kept; s = (h + ((h * h) * h) * c1) * c2.
HLO_VECTOR_CLONES void TanhArgument(const float* x, float* h, float* s, int64_t n, float c1,
                                    float c2) {
  for (int64_t k = 0; k < n; ++k) {
    const float hk = x[k];
    h[k] = hk;
    s[k] = (hk + ((hk * hk) * hk) * c1) * c2;
  }
}
HLO_VECTOR_CLONES void TanhArgumentBiased(const float* x, const float* b, float* h, float* s,
                                          int64_t n, float c1, float c2) {
  for (int64_t k = 0; k < n; ++k) {
    const float hk = x[k] + b[k];
    h[k] = hk;
    s[k] = (hk + ((hk * hk) * hk) * c1) * c2;
  }
}
// out = h * ((t + c3) * c4); out may be x's buffer (read before).
HLO_VECTOR_CLONES void GeluProduct(const float* h, const float* t, float* out, int64_t n, float c3,
                                   float c4) {
  for (int64_t k = 0; k < n; ++k) out[k] = h[k] * ((t[k] + c3) * c4);
}

void GeluRows(const GeluTanh& op, const float* x, const float* bias, const float c[4], float* out,
              int64_t r0, int64_t r1) {
  alignas(64) float h[kPiece];
  alignas(64) float s[kPiece];
  const elementwise::UnaryFloatFn tanh_loop =
      elementwise::UnaryFloatKernelFor(Opcode::kTanh, PrimitiveType::kF32);
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t c0 = 0; c0 < op.cols; c0 += kPiece) {
      const int64_t n = std::min(kPiece, op.cols - c0);
      const int64_t at = r * op.cols + c0;
      if (bias != nullptr) {
        TanhArgumentBiased(x + at, bias + c0, h, s, n, c[0], c[1]);
      } else {
        TanhArgument(x + at, h, s, n, c[0], c[1]);
      }
      if (tanh_loop != nullptr) {
        tanh_loop(s, s, n);
      } else {
        elementwise::UnaryFloatKernel<float>(Opcode::kTanh, s, s, n);
      }
      GeluProduct(h, s, out + at, n, c[2], c[3]);
    }
  }
}

}  // namespace

// gelu ::= multiply(h, w)
//   w = multiply(u, c4)  u = add(tanh(multiply(a, c2)), c3)
//   a = add(h, multiply(multiply(multiply(h, h), h), c1))
//   h = x | add(x, broadcast(bias)) ;  every op in either operand order
std::optional<GeluTanh> MatchGeluTanh(const Instruction& root,
                                      std::vector<const Instruction*>* members,
                                      std::vector<const Instruction*>* inputs) {
  const Shape& shape = root.shape();
  if (root.opcode() != Opcode::kMultiply || root.operand_count() != 2 || !shape.IsArray() ||
      shape.element_type() != PrimitiveType::kF32 || shape.rank() < 1 ||
      shape.ElementCount() < 16 || !root.control_predecessors().empty()) {
    return std::nullopt;
  }
  for (int side : {0, 1}) {
    const Instruction& w = *root.operand(side);
    const Instruction* c1 = nullptr;
    const Instruction* c2 = nullptr;
    const Instruction* c3 = nullptr;
    const Instruction* c4 = nullptr;
    const Instruction* u = WithScalar(w, Opcode::kMultiply, shape, &c4);
    const Instruction* t = u ? WithScalar(*u, Opcode::kAdd, shape, &c3) : nullptr;
    if (t == nullptr || t->opcode() != Opcode::kTanh || !SameArray(t->shape(), shape)) continue;
    const Instruction* a = WithScalar(*t->operand(0), Opcode::kMultiply, shape, &c2);
    if (a == nullptr || a->opcode() != Opcode::kAdd || a->operand_count() != 2) continue;
    // a = add(h, m): h is the operand that m's cube is made of.
    for (int a_side : {0, 1}) {
      const Instruction* h = a->operand(a_side);
      const Instruction& m = *a->operand(1 - a_side);
      const Instruction* p = WithScalar(m, Opcode::kMultiply, shape, &c1);
      const Instruction* q = p ? OtherThan(*p, Opcode::kMultiply, h) : nullptr;
      if (q == nullptr || q == h || OtherThan(*q, Opcode::kMultiply, h) != h ||
          root.operand(1 - side) != h || !SameArray(h->shape(), shape) ||
          !SameArray(q->shape(), shape) || !SameArray(p->shape(), shape)) {
        continue;
      }
      const Instruction* tanh_arg = t->operand(0);
      if (!OnlyUsers(w, {&root}) || !OnlyUsers(*u, {&w}) || !OnlyUsers(*t, {u}) ||
          !OnlyUsers(*tanh_arg, {t}) || !OnlyUsers(*a, {tanh_arg}) || !OnlyUsers(m, {a}) ||
          !OnlyUsers(*p, {&m}) || !OnlyUsers(*q, {p})) {
        continue;
      }
      GeluTanh op;
      op.cols = shape.dims().back();
      op.rows = shape.ElementCount() / std::max<int64_t>(1, op.cols);
      *members = {&root, &w, u, t, tanh_arg, a, &m, p, q, c1, c2, c3, c4};
      const Instruction* bias = BiasOf(*h, shape);
      if (bias != nullptr && OnlyUsers(*h, {q, p, a, &root})) {
        op.bias = true;
        members->push_back(h);
        members->push_back(bias);
        const Instruction* x = h->operand(0) == bias ? h->operand(1) : h->operand(0);
        *inputs = {x, bias->operand(0)};
      } else {
        *inputs = {h};
      }
      for (const Instruction* c : {c1, c2, c3, c4}) inputs->push_back(c->operand(0));
      std::sort(members->begin(), members->end());  // (one broadcast may be two of c1 ... c4)
      members->erase(std::unique(members->begin(), members->end()), members->end());
      return op;
    }
  }
  return std::nullopt;
}

absl::StatusOr<Value> RunGeluTanh(const GeluTanh& op, const Shape& shape,
                                  absl::Span<const Value* const> inputs,
                                  const std::vector<bool>& reusable) {
  const size_t scalars = op.bias ? 2 : 1;
  if (inputs.size() != scalars + 4) return absl::InvalidArgumentError("a fused input is missing");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    const int64_t want = i == 0 ? op.rows * op.cols : i == 1 && op.bias ? op.cols : 1;
    if (v == nullptr || !v->is_array() || v->array().element_type() != PrimitiveType::kF32 ||
        v->array().element_count() != want) {
      return absl::InvalidArgumentError("a fused input has the wrong type or shape");
    }
  }
  absl::StatusOr<Value> result = TakeOrNewArray(*inputs[0], reusable[0], shape);
  if (!result.ok()) return result.status();
  const float* x = inputs[0]->array().typed<float>();
  const float* bias = op.bias ? inputs[1]->array().typed<float>() : nullptr;
  float c[4];
  for (size_t k = 0; k < 4; ++k) c[k] = inputs[scalars + k]->array().typed<float>()[0];
  float* out = result->mutable_array().typed<float>();
  ParallelRows(op.rows, std::max<int64_t>(1, kMinPartElements / std::max<int64_t>(1, op.cols)),
               [&](int64_t r0, int64_t r1) { GeluRows(op, x, bias, c, out, r0, r1); });
  return result;
}

}  // namespace hlo
