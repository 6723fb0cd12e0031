// algsimp, reduce, dot and sort family (sort along a dimension of size <= 1
// of one array is its operand).
//
// reduce: over an empty input it is its init value broadcast; over no
// dimensions or only dimensions of size 1 each result is f(init, x), which is
// x exactly when init is an identity of f for every x — checked, not
// assumed: 0 for integer add but -0.0 for float add (+0.0 + -0.0 is +0.0),
// 1 for multiply, -inf / MIN for max, +inf / MAX for min, all ones for and,
// 0 for or and xor. Then it is a reshape.
//
// dot: with every contracting dimension of size 1 (or none) each result is
// one product: a multiply of the two operands broadcast to the result
// (converted to the result type first). For integers that is all (exact
// modulo 2^n); a float dot is the spec's reduce from +0.0, so the rewrite
// keeps +0.0 + product (XLA drops it, which turns +0.0 into -0.0 when the
// product is -0.0).
#include <algorithm>
#include <vector>

#include "passes/algebraic_simplifier_internal.h"
#include "passes/shape_inference.h"

namespace hlo::algsimp {
namespace {

// The binary opcode of a reduction computation whose root is op(p0, p1) or
// op(p1, p0) on scalars.
std::optional<Opcode> ReductionOpcode(const Computation* c) {
  if (c == nullptr || c->parameter_count() != 2 || c->root() == nullptr) return std::nullopt;
  const Instruction* root = c->root();
  if (root->operand_count() != 2 || !IsElementwiseBinary(root->opcode())) return std::nullopt;
  const Instruction* p0 = c->parameter(0);
  const Instruction* p1 = c->parameter(1);
  bool direct = root->operand(0) == p0 && root->operand(1) == p1;
  bool swapped = root->operand(0) == p1 && root->operand(1) == p0;
  if (!direct && !swapped) return std::nullopt;
  return root->opcode();
}

bool IsIdentityOf(Opcode op, const Splat& s) {
  PrimitiveType t = s.type();
  bool is_float = IsFloat(t) && !IsComplex(t);
  bool is_int = IsInteger(t) || IsPred(t);
  switch (op) {
    case Opcode::kAdd:
      return is_int ? IsIntZero(s) : is_float && IsFloatNegZero(s);
    case Opcode::kMultiply:
      if (IsPred(t)) return IsAllOnes(s);
      return is_int ? IsIntOne(s) : is_float && IsFloatOne(s);
    case Opcode::kMaximum:
      return is_int ? IsIntMin(s) : is_float && IsFloatInf(s, true);
    case Opcode::kMinimum:
      return is_int ? IsIntMax(s) : is_float && IsFloatInf(s, false);
    case Opcode::kAnd:
      return is_int && IsAllOnes(s);
    case Opcode::kOr:
    case Opcode::kXor:
      return is_int && IsIntZero(s);
    default:
      return false;
  }
}

Instruction* SimplifyReduceOp(Context& ctx, Instruction* inst) {
  if (inst->operand_count() != 2 || !inst->shape().IsArray()) return nullptr;
  Instruction* x = inst->operand(0);
  Instruction* init = inst->operand(1);
  if (init->shape().rank() != 0) return nullptr;
  // An init of another float type than the result (XLA's verifier allows
  // it) would need a convert first: left alone.
  if (init->shape().element_type() != inst->shape().element_type()) return nullptr;
  // Nothing to reduce: every result is the init value.
  if (x->shape().ElementCount() == 0) return ctx.BroadcastScalar(init, inst->shape());
  for (int64_t d : inst->GetInts(AttrKind::kDimensions)) {
    if (d < 0 || d >= x->shape().rank() || x->shape().dim(d) != 1) return nullptr;
  }
  std::optional<Opcode> op = ReductionOpcode(inst->to_apply());
  std::optional<Splat> s = ctx.SplatOf(init);
  if (!op || !s || !IsIdentityOf(*op, *s)) return nullptr;
  if (x->shape().element_type() != inst->shape().element_type()) return nullptr;
  if (x->shape().dims() == inst->shape().dims()) return x;
  return ctx.Add(Opcode::kReshape, inst->shape(), {x});
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// One dot operand as an array of the result's shape: contracting dims (all
// of size 1) dropped, converted to the result type, broadcast with its batch
// dims first and its free dims at `free_offset`.
Instruction* DotOperandAsResult(Context& ctx, Instruction* operand,
                                const std::vector<int64_t>& batch,
                                const std::vector<int64_t>& contracting, int64_t free_offset,
                                const Shape& result) {
  const Shape& s = operand->shape();
  std::vector<int64_t> kept_dims, mapping;
  int64_t free_index = 0;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (Contains(contracting, i)) continue;
    kept_dims.push_back(s.dim(i));
    auto it = std::find(batch.begin(), batch.end(), i);
    mapping.push_back(it != batch.end() ? it - batch.begin() : free_offset + free_index++);
  }
  for (size_t i = 1; i < mapping.size(); ++i) {
    if (mapping[i] <= mapping[i - 1]) return nullptr;  // keep broadcasts monotone
  }
  Instruction* v = operand;
  if (kept_dims.size() != static_cast<size_t>(s.rank())) {
    v = ctx.Add(Opcode::kReshape, ctx.ShapeLike(s.element_type(), kept_dims, result), {v});
  }
  if (s.element_type() != result.element_type()) {
    v = ctx.Add(Opcode::kConvert, ctx.ShapeLike(result.element_type(), kept_dims, result), {v});
  }
  bool identity = kept_dims.size() == static_cast<size_t>(result.rank());
  for (size_t i = 0; i < mapping.size() && identity; ++i) {
    identity = mapping[i] == static_cast<int64_t>(i);
  }
  if (identity) return v;  // already the result's dims (the result layout is checked later)
  Instruction* b =
      ctx.Add(Opcode::kBroadcast, ctx.ShapeLike(result.element_type(), result.dims(), result), {v});
  b->SetAttr(AttrKind::kDimensions, std::move(mapping));
  return b;
}

Instruction* SimplifyDot(Context& ctx, Instruction* inst) {
  if (inst->operand_count() != 2) return nullptr;
  Instruction* lhs = inst->operand(0);
  Instruction* rhs = inst->operand(1);
  PrimitiveType t = inst->shape().element_type();
  auto is_real = [](PrimitiveType p) { return IsFloat(p) && !IsComplex(p); };
  bool ints = IsInteger(t) && IsInteger(lhs->shape().element_type()) &&
              IsInteger(rhs->shape().element_type());
  bool floats =
      is_real(t) && is_real(lhs->shape().element_type()) && is_real(rhs->shape().element_type());
  // An algorithm may round the operands first (bf16 passes): leave it.
  if ((!ints && !floats) || inst->HasAttr(AttrKind::kAlgorithm)) return nullptr;
  DotDims d = DotDimsOf(*inst);
  if (d.lhs_batch.size() != d.rhs_batch.size() ||
      d.lhs_contracting.size() != d.rhs_contracting.size()) {
    return nullptr;
  }
  for (int64_t c : d.lhs_contracting) {
    if (c < 0 || c >= lhs->shape().rank() || lhs->shape().dim(c) != 1) return nullptr;
  }
  for (int64_t c : d.rhs_contracting) {
    if (c < 0 || c >= rhs->shape().rank() || rhs->shape().dim(c) != 1) return nullptr;
  }
  int64_t nb = static_cast<int64_t>(d.lhs_batch.size());
  int64_t lhs_free = lhs->shape().rank() - nb - static_cast<int64_t>(d.lhs_contracting.size());
  Instruction* a = DotOperandAsResult(ctx, lhs, d.lhs_batch, d.lhs_contracting, nb, inst->shape());
  if (a == nullptr) return nullptr;
  Instruction* b =
      DotOperandAsResult(ctx, rhs, d.rhs_batch, d.rhs_contracting, nb + lhs_free, inst->shape());
  if (b == nullptr) return nullptr;
  if (ints) return ctx.Add(Opcode::kMultiply, inst->shape(), {a, b});
  // The spec's sum starts from +0.0: keep that add, so a -0.0 product
  // becomes +0.0 exactly as in the dot.
  Instruction* product =
      ctx.Add(Opcode::kMultiply, ctx.ShapeLike(t, inst->shape().dims(), inst->shape()), {a, b});
  Instruction* zeros = ctx.ZerosLike(product->shape());
  return zeros ? ctx.Add(Opcode::kAdd, inst->shape(), {zeros, product}) : nullptr;
}

}  // namespace

Instruction* SimplifyReduce(Context& ctx, Instruction* inst) {
  switch (inst->opcode()) {
    case Opcode::kReduce:
      return SimplifyReduceOp(ctx, inst);
    case Opcode::kDot:
      return SimplifyDot(ctx, inst);
    case Opcode::kSort: {
      // Sorting one array along a dimension of size 0 or 1 moves nothing.
      int64_t d = inst->GetInt(AttrKind::kDimensions, -1);
      auto dims = inst->GetInts(AttrKind::kDimensions);
      if (dims.size() == 1) d = dims[0];
      if (inst->operand_count() != 1 || d < 0 || d >= inst->shape().rank()) return nullptr;
      return inst->shape().dim(d) <= 1 ? inst->operand(0) : nullptr;
    }
    default:
      return nullptr;
  }
}

}  // namespace hlo::algsimp
