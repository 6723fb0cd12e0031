#include "eval/fusion/transpose_folding.h"

#include <algorithm>
#include <cstdint>

#include "eval/kernels/dot.h"
#include "eval/kernels/kernels.h"
#include "ir/dot_transpose_fold.h"
#include "ir/permutation.h"

namespace hlo {
namespace {

// The permutation of a well-formed transpose whose result has the
// permuted dims of its operand, in its type (the kernel reports any other):
// result dim j is operand dim perm[j].
std::optional<absl::Span<const int64_t>> PermutationOf(const Instruction& t) {
  if (!IsWellFormedTranspose(t)) return std::nullopt;
  const Shape& in = t.operand(0)->shape();
  const Shape& out = t.shape();
  absl::Span<const int64_t> perm = t.GetInts(AttrKind::kDimensions);
  if (in.element_type() != out.element_type()) return std::nullopt;
  for (int64_t j = 0; j < out.rank(); ++j) {
    if (in.dims()[perm[j]] != out.dims()[j]) return std::nullopt;
  }
  return perm;
}

// The transpose `op` is, or a copy of it, that may be skipped for `dot`.
const Instruction* FoldableTranspose(
    const Instruction& dot, const Instruction& op,
    absl::FunctionRef<bool(const Instruction&, const Instruction&)> foldable) {
  if (!foldable(op, dot)) return nullptr;
  if (op.opcode() == Opcode::kTranspose) return &op;
  if (op.opcode() != Opcode::kCopy || op.operand_count() != 1) return nullptr;
  const Instruction& t = *op.operand(0);
  if (t.opcode() != Opcode::kTranspose || !t.shape().IsArray() || !op.shape().IsArray() ||
      t.shape().element_type() != op.shape().element_type() ||
      t.shape().dims() != op.shape().dims() || !foldable(t, op)) {
    return nullptr;
  }
  return &t;
}

// An op a view chain may hold: one operand, the chain's element type, and
// a result whose row-major elements are its operand's rearranged (storage
// is row-major whatever the layouts, so a copy changes nothing).
bool IsViewOp(const Instruction& inst, PrimitiveType type) {
  if (inst.operand_count() != 1 || !inst.shape().IsArray() || inst.shape().element_type() != type ||
      !inst.operand(0)->shape().IsArray() || inst.operand(0)->shape().element_type() != type) {
    return false;
  }
  switch (inst.opcode()) {
    case Opcode::kCopy:
    case Opcode::kReshape:
    case Opcode::kSlice:
      return true;
    case Opcode::kTranspose:
      return IsWellFormedTranspose(inst);
    case Opcode::kBitcast:
      return BitcastIsReshape(inst);
    default:
      return false;
  }
}

// The view `inst` makes of its operand's view `v`.
std::optional<gemm::StridedLayout> ApplyViewOp(const Instruction& inst,
                                               const gemm::StridedLayout& v) {
  absl::Span<const int64_t> out = inst.shape().dims();
  std::optional<gemm::StridedLayout> r;
  switch (inst.opcode()) {
    case Opcode::kCopy:
      r = v;
      break;
    case Opcode::kReshape:
    case Opcode::kBitcast:
      return gemm::ReshapeLayout(v, out);
    case Opcode::kTranspose:
      r = gemm::TransposeOf(v, inst.GetInts(AttrKind::kDimensions));
      break;
    case Opcode::kSlice: {
      const SliceSpec* spec = inst.slice();
      if (spec == nullptr || spec->size() != v.dims.size()) return std::nullopt;
      gemm::Dims starts, steps;
      for (const SliceDim& d : *spec) {
        starts.push_back(d.start);
        steps.push_back(d.stride);
      }
      return gemm::SliceOf(v, starts, steps, out);
    }
    default:
      return std::nullopt;
  }
  if (r && !std::equal(out.begin(), out.end(), r->dims.begin(), r->dims.end())) return std::nullopt;
  return r;
}

// The layout of `value` in the array a chain of view ops under it reads
// (slices, reshapes, bitcasts that are reshapes, copies, transposes; XLA's
// transpose fusions, inlined, are bitcast, slice, bitcast), each read only
// by the next (the value by `reader`) and at least one of them a slice;
// the chain goes to *skipped and the array to *array. nullopt otherwise.
std::optional<gemm::StridedLayout> ViewOfChain(
    const Instruction& value, const Instruction& reader,
    absl::FunctionRef<bool(const Instruction&, const Instruction&)> foldable,
    absl::InlinedVector<const Instruction*, 4>* skipped, const Instruction** array) {
  if (!value.shape().IsArray()) return std::nullopt;
  const PrimitiveType type = value.shape().element_type();
  absl::InlinedVector<const Instruction*, 4> chain;  // value first
  bool sliced = false;
  for (const Instruction *at = &value, *by = &reader; IsViewOp(*at, type) && foldable(*at, *by);
       by = at, at = at->operand(0)) {
    chain.push_back(at);
    sliced = sliced || at->opcode() == Opcode::kSlice;
  }
  if (!sliced) return std::nullopt;
  const Instruction* base = chain.back()->operand(0);
  std::optional<gemm::StridedLayout> v = gemm::RowMajorLayout(base->shape().dims());
  for (auto it = chain.rbegin(); v && it != chain.rend(); ++it) v = ApplyViewOp(**it, *v);
  if (!v) return std::nullopt;
  skipped->assign(chain.begin(), chain.end());
  *array = base;
  return v;
}

}  // namespace

std::optional<FoldedDot> FoldTransposes(
    const Instruction& dot,
    absl::FunctionRef<bool(const Instruction& value, const Instruction& reader)> foldable) {
  if (dot.opcode() != Opcode::kDot || dot.operand_count() != 2) return std::nullopt;
  FoldedDot f;
  f.dims = DotDimNumbersOf(dot);
  gemm::Dims* batch[2] = {&f.dims.lhs_batch, &f.dims.rhs_batch};
  gemm::Dims* contracting[2] = {&f.dims.lhs_contracting, &f.dims.rhs_contracting};
  for (int64_t k = 0; k < 2; ++k) {
    const Instruction* op = dot.operand(k);
    f.reads[k] = op;
    const Instruction* t = FoldableTranspose(dot, *op, foldable);
    std::optional<absl::Span<const int64_t>> perm;
    if (t != nullptr) perm = PermutationOf(*t);
    if (!perm) continue;
    std::optional<DotSideDims> mapped = DotSideThroughTranspose(*perm, *batch[k], *contracting[k]);
    if (!mapped) continue;
    batch[k]->assign(mapped->batch.begin(), mapped->batch.end());
    contracting[k]->assign(mapped->contracting.begin(), mapped->contracting.end());
    f.reads[k] = t->operand(0);
    f.folded[k] = true;
    if (t != op) f.through_copy[k] = t;
    const Instruction* array = nullptr;
    f.layouts[k] = ViewOfChain(*t->operand(0), *t, foldable, &f.viewed_away[k], &array);
    if (f.layouts[k]) f.reads[k] = array;
  }
  if (!f.folded[0] && !f.folded[1]) return std::nullopt;
  return f;
}

std::optional<FoldedDot> FoldOutputTranspose(const Instruction& transpose, const FoldedDot* dot) {
  if (transpose.opcode() != Opcode::kTranspose || transpose.operand_count() != 1) {
    return std::nullopt;
  }
  const Instruction& d = *transpose.operand(0);
  const std::optional<absl::Span<const int64_t>> perm = PermutationOf(transpose);
  if (d.opcode() != Opcode::kDot || d.operand_count() != 2 || !perm || perm->empty() ||
      perm->back() != static_cast<int64_t>(perm->size()) - 1 ||
      d.GetInts(AttrKind::kLhsBatchDims).empty() || d.users().size() != 1 ||
      (dot != nullptr && dot->dot != nullptr)) {
    return std::nullopt;
  }
  FoldedDot f;
  if (dot != nullptr) {
    f = *dot;
  } else {
    f.reads = {d.operand(0), d.operand(1)};
    f.dims = DotDimNumbersOf(d);
  }
  f.dot = &d;
  return f;
}

}  // namespace hlo
