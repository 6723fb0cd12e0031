// algsimp, slice family: full and composed slices, slices of a broadcast
// scalar, of one concatenated operand or undoing a pad, concatenate of one
// operand, of empty operands, of adjacent slices, of broadcasts of one
// scalar and of nested concatenates, pad without padding, dynamic-slice
// with constant (clamped) starts, and dynamic-update-slice that replaces
// everything or nothing or writes back what it read. All of them only select elements: exact for
// every element type.
#include <algorithm>
#include <memory>
#include <vector>

#include "passes/algebraic_simplifier_internal.h"

namespace hlo::algsimp {
namespace {

Instruction* NewSlice(Context& ctx, Instruction* operand, const Shape& shape, SliceSpec spec) {
  Instruction* s = ctx.Add(Opcode::kSlice, shape, {operand});
  s->SetAttr(AttrKind::kSlice, std::make_shared<const SliceSpec>(std::move(spec)));
  return s;
}

int64_t SliceCount(const SliceDim& d) {
  return d.limit <= d.start ? 0 : (d.limit - d.start + d.stride - 1) / d.stride;
}

bool ValidSpec(const SliceSpec* spec, const Shape& operand) {
  if (spec == nullptr || static_cast<int64_t>(spec->size()) != operand.rank()) return false;
  for (const SliceDim& d : *spec) {
    if (d.stride < 1 || d.start < 0 || d.limit < d.start) return false;
  }
  return true;
}

// slice(slice(y)): element j of the outer slice is y[s1 + (s2 + j*t2)*t1].
Instruction* ComposeSlices(Context& ctx, Instruction* inst, Instruction* inner) {
  const SliceSpec& outer = *inst->slice();
  const SliceSpec& in = *inner->slice();
  Instruction* y = inner->operand(0);
  if (!ValidSpec(&in, y->shape())) return nullptr;
  SliceSpec spec(outer.size());
  for (size_t i = 0; i < outer.size(); ++i) {
    int64_t n = SliceCount(outer[i]);
    int64_t stride = in[i].stride * outer[i].stride;
    int64_t start = in[i].start + outer[i].start * in[i].stride;
    if (n == 0) {
      spec[i] = SliceDim{0, 0, 1};
    } else {
      spec[i] = SliceDim{start, start + (n - 1) * stride + 1, stride};
    }
  }
  return NewSlice(ctx, y, inst->shape(), std::move(spec));
}

// A slice inside one operand of a concatenate along the concatenated
// dimension is a slice of that operand.
Instruction* SliceOfConcat(Context& ctx, Instruction* inst, Instruction* concat) {
  auto dims = concat->GetInts(AttrKind::kDimensions);
  if (dims.size() != 1) return nullptr;
  int64_t d = dims[0];
  SliceSpec spec = *inst->slice();
  if (d < 0 || d >= static_cast<int64_t>(spec.size()) || SliceCount(spec[d]) == 0) {
    return nullptr;
  }
  int64_t offset = 0;
  for (Instruction* op : concat->operands()) {
    int64_t size = op->shape().dim(d);
    if (spec[d].start >= offset && spec[d].limit <= offset + size) {
      spec[d].start -= offset;
      spec[d].limit -= offset;
      return NewSlice(ctx, op, inst->shape(), std::move(spec));
    }
    offset += size;
  }
  return nullptr;
}

// A unit-stride slice that keeps exactly the operand of a pad (no interior
// padding, no negative padding) gives that operand back.
bool SliceUndoesPad(const SliceSpec& spec, const Instruction& pad) {
  const PaddingConfig* config = pad.padding();
  const Shape& operand = pad.operand(0)->shape();
  if (config == nullptr || config->size() != spec.size()) return false;
  for (size_t i = 0; i < spec.size(); ++i) {
    const PaddingDim& p = (*config)[i];
    if (p.interior != 0 || p.low < 0 || p.high < 0 || spec[i].stride != 1) return false;
    if (spec[i].start != p.low || spec[i].limit != p.low + operand.dim(i)) return false;
  }
  return true;
}

Instruction* SimplifySliceOp(Context& ctx, Instruction* inst) {
  Instruction* x = inst->operand(0);
  if (!ValidSpec(inst->slice(), x->shape())) return nullptr;
  // Same dims as the operand: start 0, and stride 1 or a dimension of 1.
  if (x->shape().dims() == inst->shape().dims()) return x;
  if (x->opcode() == Opcode::kSlice) return ComposeSlices(ctx, inst, x);
  if (x->opcode() == Opcode::kBroadcast && x->operand(0)->shape().rank() == 0) {
    Instruction* b = ctx.Add(Opcode::kBroadcast, inst->shape(), {x->operand(0)});
    b->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
    return b;
  }
  if (x->opcode() == Opcode::kConcatenate) return SliceOfConcat(ctx, inst, x);
  if (x->opcode() == Opcode::kPad && SliceUndoesPad(*inst->slice(), *x)) return x->operand(0);
  return nullptr;
}

// Two operands of a concatenate along `d` that are unit-stride slices of the
// same value, equal on the other dimensions and touching along `d`.
bool Adjacent(const Instruction* a, const Instruction* b, int64_t d) {
  if (a->opcode() != Opcode::kSlice || b->opcode() != Opcode::kSlice ||
      a->operand(0) != b->operand(0)) {
    return false;
  }
  const SliceSpec* sa = a->slice();
  const SliceSpec* sb = b->slice();
  if (!ValidSpec(sa, a->operand(0)->shape()) || !ValidSpec(sb, b->operand(0)->shape())) {
    return false;
  }
  for (size_t i = 0; i < sa->size(); ++i) {
    if ((*sa)[i].stride != 1 || (*sb)[i].stride != 1) return false;
    if (static_cast<int64_t>(i) == d) continue;
    if ((*sa)[i] != (*sb)[i]) return false;
  }
  return (*sa)[d].limit == (*sb)[d].start;
}

// Merges runs of adjacent slices; returns the new operand list, or nothing
// when no run exists.
std::optional<std::vector<Instruction*>> MergeSlices(Context& ctx, const Instruction* inst,
                                                     int64_t d) {
  std::vector<Instruction*> out;
  bool merged = false;
  auto ops = inst->operands();
  for (size_t i = 0; i < ops.size();) {
    size_t j = i;
    while (j + 1 < ops.size() && Adjacent(ops[j], ops[j + 1], d)) ++j;
    if (j == i) {
      out.push_back(ops[i++]);
      continue;
    }
    SliceSpec spec = *ops[i]->slice();
    spec[d].limit = (*ops[j]->slice())[d].limit;
    std::vector<int64_t> dims(ops[i]->shape().dims().begin(), ops[i]->shape().dims().end());
    dims[d] = spec[d].limit - spec[d].start;
    Shape shape = ctx.ShapeLike(ops[i]->shape().element_type(), dims, inst->shape());
    out.push_back(NewSlice(ctx, ops[i]->operand(0), shape, std::move(spec)));
    merged = true;
    i = j + 1;
  }
  if (!merged) return std::nullopt;
  return out;
}

Instruction* SimplifyConcatenate(Context& ctx, Instruction* inst) {
  auto dims = inst->GetInts(AttrKind::kDimensions);
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= inst->shape().rank()) return nullptr;
  int64_t d = dims[0];
  // (Operands of another rank: a module run unverified.)
  for (const Instruction* op : inst->operands()) {
    if (!op->shape().IsArray() || op->shape().rank() != inst->shape().rank()) return nullptr;
  }
  if (inst->operand_count() == 1) return inst->operand(0);
  // An operand that is itself a concatenate along d: splice its operands.
  for (Instruction* op : inst->operands()) {
    if (op->opcode() != Opcode::kConcatenate || op->GetInts(AttrKind::kDimensions) != dims) {
      continue;
    }
    std::vector<Instruction*> flat;
    for (Instruction* o : inst->operands()) {
      bool splice =
          o->opcode() == Opcode::kConcatenate && o->GetInts(AttrKind::kDimensions) == dims;
      if (splice) {
        flat.insert(flat.end(), o->operands().begin(), o->operands().end());
      } else {
        flat.push_back(o);
      }
    }
    Instruction* c = ctx.Add(Opcode::kConcatenate, inst->shape(), flat);
    c->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{d});
    return c;
  }
  // Every operand a broadcast of the same scalar: one broadcast of it.
  Instruction* scalar = nullptr;
  for (Instruction* op : inst->operands()) {
    bool scalar_broadcast = op->opcode() == Opcode::kBroadcast &&
                            op->operand(0)->shape().rank() == 0 &&
                            (scalar == nullptr || op->operand(0) == scalar);
    scalar = scalar_broadcast ? op->operand(0) : nullptr;
    if (scalar == nullptr) break;
  }
  if (scalar != nullptr) {
    Instruction* b = ctx.Add(Opcode::kBroadcast, inst->shape(), {scalar});
    b->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
    return b;
  }
  // Operands of size 0 along d add nothing (when the result is not empty).
  std::vector<Instruction*> kept;
  if (inst->shape().ElementCount() > 0) {
    for (Instruction* op : inst->operands()) {
      if (op->shape().dim(d) != 0) kept.push_back(op);
    }
  }
  if (!kept.empty() && kept.size() < static_cast<size_t>(inst->operand_count())) {
    if (kept.size() == 1) return kept[0];
    Instruction* c = ctx.Add(Opcode::kConcatenate, inst->shape(), kept);
    c->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{d});
    return c;
  }
  std::optional<std::vector<Instruction*>> merged = MergeSlices(ctx, inst, d);
  if (!merged) return nullptr;
  if (merged->size() == 1) {
    // One slice covering the result: give it the concatenate's shape.
    Instruction* s = (*merged)[0];
    return NewSlice(ctx, s->operand(0), inst->shape(), *s->slice());
  }
  Instruction* c = ctx.Add(Opcode::kConcatenate, inst->shape(), *merged);
  c->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{d});
  return c;
}

Instruction* SimplifyPad(Instruction* inst) {
  const PaddingConfig* pad = inst->padding();
  if (pad == nullptr) return nullptr;
  for (const PaddingDim& p : *pad) {
    if (p.low != 0 || p.high != 0 || p.interior != 0) return nullptr;
  }
  return inst->operand(0);
}

// Start index as the spec clamps it: into [0, dim - size].
std::optional<int64_t> ClampedStart(Context& ctx, const Instruction* index, int64_t dim,
                                    int64_t size) {
  std::optional<Splat> s = ctx.SplatOf(index);
  if (!s || index->shape().rank() != 0) return std::nullopt;
  PrimitiveType t = s->type();
  if (!IsInteger(t)) return std::nullopt;
  int64_t v = s->int_value();
  if (IsUnsignedInt(t) && v < 0) v = INT64_MAX;  // a u64 above INT64_MAX
  return std::clamp<int64_t>(v, 0, dim - size);
}

Instruction* SimplifyDynamicSlice(Context& ctx, Instruction* inst) {
  Instruction* x = inst->operand(0);
  const Shape& xs = x->shape();
  auto sizes = inst->GetInts(AttrKind::kDynamicSliceSizes);
  if (static_cast<int64_t>(sizes.size()) != xs.rank() || inst->operand_count() != xs.rank() + 1) {
    return nullptr;
  }
  // The whole operand: every start clamps to 0.
  if (xs.dims() == inst->shape().dims()) return x;
  SliceSpec spec(sizes.size());
  for (int64_t i = 0; i < xs.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > xs.dim(i)) return nullptr;
    std::optional<int64_t> start = ClampedStart(ctx, inst->operand(i + 1), xs.dim(i), sizes[i]);
    if (!start) return nullptr;
    spec[i] = SliceDim{*start, *start + sizes[i], 1};
  }
  return NewSlice(ctx, x, inst->shape(), std::move(spec));
}

Instruction* SimplifyDynamicUpdateSlice(Instruction* inst) {
  Instruction* x = inst->operand(0);
  Instruction* update = inst->operand(1);
  // An update as large as the operand replaces all of it (starts clamp to
  // 0); an empty update changes nothing.
  if (update->shape().dims() == x->shape().dims()) return update;
  if (update->shape().ElementCount() == 0) return x;
  // Writing back what a dynamic-slice of x read at the same starts: both
  // clamp the starts the same way, so x is unchanged.
  if (update->opcode() == Opcode::kDynamicSlice && update->operand(0) == x &&
      update->operand_count() == inst->operand_count() - 1) {
    for (int64_t i = 2; i < inst->operand_count(); ++i) {
      if (inst->operand(i) != update->operand(i - 1)) return nullptr;
    }
    return x;
  }
  return nullptr;
}

}  // namespace

Instruction* SimplifySlice(Context& ctx, Instruction* inst) {
  switch (inst->opcode()) {
    case Opcode::kSlice:
      return SimplifySliceOp(ctx, inst);
    case Opcode::kConcatenate:
      return SimplifyConcatenate(ctx, inst);
    case Opcode::kPad:
      return SimplifyPad(inst);
    case Opcode::kDynamicSlice:
      return SimplifyDynamicSlice(ctx, inst);
    case Opcode::kDynamicUpdateSlice:
      return SimplifyDynamicUpdateSlice(inst);
    default:
      return nullptr;
  }
}

}  // namespace hlo::algsimp
