// algsimp, shape family: no-op reshape/transpose/broadcast/copy/reverse,
// chains of them composed into one, reshape/transpose/reverse of a
// broadcast scalar turned into one broadcast, and a reshape that only adds
// or drops dimensions of size 1 folded into the broadcast under it. These only move elements, so
// every rewrite is exact for every element type.
#include <algorithm>
#include <vector>

#include "passes/algebraic_simplifier_internal.h"

namespace hlo::algsimp {
namespace {

std::vector<int64_t> Dims(const Instruction* inst) {
  auto d = inst->GetInts(AttrKind::kDimensions);
  return std::vector<int64_t>(d.begin(), d.end());
}

bool IsIdentityPermutation(absl::Span<const int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool SameDims(const Shape& a, const Shape& b) { return a.dims() == b.dims(); }

// Whether every dim is in [0, rank) and none repeats (a module run
// unverified may hold others).
bool DimsInRange(absl::Span<const int64_t> dims, int64_t rank) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

// A broadcast of a rank-0 value: any reshape or transpose of it is the same
// scalar broadcast to the new shape.
Instruction* ScalarBroadcastOperand(const Instruction* x) {
  if (x->opcode() != Opcode::kBroadcast || x->operand(0)->shape().rank() != 0) return nullptr;
  return x->operand(0);
}

Instruction* NewBroadcast(Context& ctx, Instruction* operand, const Shape& shape,
                          std::vector<int64_t> dims) {
  Instruction* b = ctx.Add(Opcode::kBroadcast, shape, {operand});
  b->SetAttr(AttrKind::kDimensions, std::move(dims));
  return b;
}

// reshape(broadcast(y)) where the reshape only inserts or deletes
// dimensions of size 1 and y has none: a broadcast of y with its dimensions
// renumbered (the larger dimensions keep their order).
Instruction* ReshapeOfBroadcast(Context& ctx, Instruction* inst, Instruction* b) {
  Instruction* y = b->operand(0);
  std::vector<int64_t> dims = Dims(b);
  const Shape& from = b->shape();
  const Shape& to = inst->shape();
  if (static_cast<int64_t>(dims.size()) != y->shape().rank() || !DimsInRange(dims, from.rank())) {
    return nullptr;
  }
  for (int64_t d : y->shape().dims()) {
    if (d == 1) return nullptr;
  }
  std::vector<int64_t> to_big;  // result dims of size != 1, in order
  for (int64_t j = 0; j < to.rank(); ++j) {
    if (to.dim(j) != 1) to_big.push_back(j);
  }
  std::vector<int64_t> map(from.rank(), -1);
  size_t k = 0;
  for (int64_t i = 0; i < from.rank(); ++i) {
    if (from.dim(i) == 1) continue;
    if (k >= to_big.size() || to.dim(to_big[k]) != from.dim(i)) return nullptr;
    map[i] = to_big[k++];
  }
  if (k != to_big.size()) return nullptr;
  std::vector<int64_t> new_dims;
  for (int64_t d : dims) new_dims.push_back(map[d]);
  return NewBroadcast(ctx, y, to, std::move(new_dims));
}

Instruction* SimplifyReshape(Context& ctx, Instruction* inst) {
  Instruction* x = inst->operand(0);
  if (SameDims(x->shape(), inst->shape())) return x;
  if (x->opcode() == Opcode::kReshape) {
    // reshape(reshape(y)) = reshape(y): both follow row-major order.
    Instruction* y = x->operand(0);
    if (SameDims(y->shape(), inst->shape())) return y;
    return ctx.Add(Opcode::kReshape, inst->shape(), {y});
  }
  if (Instruction* s = ScalarBroadcastOperand(x)) return NewBroadcast(ctx, s, inst->shape(), {});
  if (x->opcode() == Opcode::kBroadcast) return ReshapeOfBroadcast(ctx, inst, x);
  return nullptr;
}

// A transpose that only moves dimensions of size 1 keeps the row-major
// order of the elements: it is a reshape.
bool TransposeIsReshape(const Shape& operand, absl::Span<const int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (operand.dim(p) == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

Instruction* SimplifyTranspose(Context& ctx, Instruction* inst) {
  Instruction* x = inst->operand(0);
  std::vector<int64_t> perm = Dims(inst);
  if (static_cast<int64_t>(perm.size()) != x->shape().rank() ||
      !DimsInRange(perm, x->shape().rank())) {
    return nullptr;
  }
  if (IsIdentityPermutation(perm)) return x;
  if (x->opcode() == Opcode::kTranspose) {
    // out[i] = x[perm[i]] = y[inner[perm[i]]].
    std::vector<int64_t> inner = Dims(x);
    Instruction* y = x->operand(0);
    if (static_cast<int64_t>(inner.size()) != y->shape().rank() ||
        !DimsInRange(inner, y->shape().rank())) {
      return nullptr;
    }
    std::vector<int64_t> composed(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) composed[i] = inner[perm[i]];
    if (IsIdentityPermutation(composed)) return y;
    Instruction* t = ctx.Add(Opcode::kTranspose, inst->shape(), {y});
    t->SetAttr(AttrKind::kDimensions, std::move(composed));
    return t;
  }
  if (Instruction* s = ScalarBroadcastOperand(x)) return NewBroadcast(ctx, s, inst->shape(), {});
  if (TransposeIsReshape(x->shape(), perm)) return ctx.Add(Opcode::kReshape, inst->shape(), {x});
  return nullptr;
}

Instruction* SimplifyBroadcast(Context& ctx, Instruction* inst) {
  Instruction* x = inst->operand(0);
  std::vector<int64_t> dims = Dims(inst);
  if (static_cast<int64_t>(dims.size()) != x->shape().rank() ||
      !DimsInRange(dims, inst->shape().rank())) {
    return nullptr;
  }
  if (SameDims(x->shape(), inst->shape()) && IsIdentityPermutation(dims)) return x;
  if (x->opcode() == Opcode::kBroadcast) {
    // y dim i -> x dim inner[i] -> result dim dims[inner[i]].
    Instruction* y = x->operand(0);
    std::vector<int64_t> inner = Dims(x);
    if (static_cast<int64_t>(inner.size()) != y->shape().rank() ||
        !DimsInRange(inner, x->shape().rank())) {
      return nullptr;
    }
    std::vector<int64_t> composed(inner.size());
    for (size_t i = 0; i < inner.size(); ++i) composed[i] = dims[inner[i]];
    if (SameDims(y->shape(), inst->shape()) && IsIdentityPermutation(composed)) return y;
    return NewBroadcast(ctx, y, inst->shape(), std::move(composed));
  }
  return nullptr;
}

Instruction* SimplifyCopy(Instruction* inst) {
  Instruction* x = inst->operand(0);
  if (CanReplace(*inst, *x)) return x;  // the same layout: nothing to copy
  // copy(copy(y)) back to y's own layout.
  if (x->opcode() == Opcode::kCopy && CanReplace(*inst, *x->operand(0))) return x->operand(0);
  return nullptr;
}

Instruction* SimplifyReverse(Instruction* inst) {
  Instruction* x = inst->operand(0);
  if (ScalarBroadcastOperand(x) != nullptr) return x;  // every element is the same
  std::vector<int64_t> dims = Dims(inst);
  bool noop = true;
  for (int64_t d : dims) {
    if (d < 0 || d >= x->shape().rank()) return nullptr;
    if (x->shape().dim(d) > 1) noop = false;
  }
  if (noop) return x;  // reversing dimensions of size 0 or 1
  if (x->opcode() == Opcode::kReverse) {
    std::vector<int64_t> inner = Dims(x);
    std::sort(dims.begin(), dims.end());
    std::sort(inner.begin(), inner.end());
    if (dims == inner) return x->operand(0);
  }
  return nullptr;
}

}  // namespace

Instruction* SimplifyShape(Context& ctx, Instruction* inst) {
  switch (inst->opcode()) {
    case Opcode::kReshape:
      return SimplifyReshape(ctx, inst);
    case Opcode::kTranspose:
      return SimplifyTranspose(ctx, inst);
    case Opcode::kBroadcast:
      return SimplifyBroadcast(ctx, inst);
    case Opcode::kCopy:
      return SimplifyCopy(inst);
    case Opcode::kReverse:
      return SimplifyReverse(inst);
    default:
      return nullptr;
  }
}

}  // namespace hlo::algsimp
