#include "eval/fusion/transpose_folding.h"

#include <cstdint>

#include "eval/kernels/dot.h"
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

// The layout of `value` in the array a slice under it reads, for
// value = reshape(slice(x)) or slice(x), each read only by the next (the
// value by `reader`); x is written to *array. nullopt otherwise.
std::optional<gemm::StridedLayout> ViewOfSlice(
    const Instruction& value, const Instruction& reader,
    absl::FunctionRef<bool(const Instruction&, const Instruction&)> foldable,
    absl::InlinedVector<const Instruction*, 2>* skipped, const Instruction** array) {
  const Instruction* slice = &value;
  if (value.opcode() == Opcode::kReshape && value.operand_count() == 1) {
    slice = value.operand(0);
  }
  if (slice->opcode() != Opcode::kSlice || slice->operand_count() != 1 ||
      !foldable(value, reader) || (slice != &value && !foldable(*slice, value))) {
    return std::nullopt;
  }
  const Shape& in = slice->operand(0)->shape();
  const SliceSpec* spec = slice->slice();
  if (!in.IsArray() || !slice->shape().IsArray() || !value.shape().IsArray() ||
      in.element_type() != value.shape().element_type() ||
      slice->shape().element_type() != value.shape().element_type() || spec == nullptr ||
      static_cast<int64_t>(spec->size()) != in.rank()) {
    return std::nullopt;
  }
  gemm::Dims starts, steps;
  for (const SliceDim& d : *spec) {
    starts.push_back(d.start);
    steps.push_back(d.stride);
  }
  std::optional<gemm::StridedLayout> layout =
      gemm::SliceLayout(in.dims(), starts, steps, slice->shape().dims());
  if (layout && slice != &value) layout = gemm::ReshapeLayout(*layout, value.shape().dims());
  if (!layout) return std::nullopt;
  *skipped = {&value};
  if (slice != &value) skipped->push_back(slice);
  *array = slice->operand(0);
  return layout;
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
    f.layouts[k] = ViewOfSlice(*t->operand(0), *t, foldable, &f.viewed_away[k], &array);
    if (f.layouts[k]) f.reads[k] = array;
  }
  if (!f.folded[0] && !f.folded[1]) return std::nullopt;
  return f;
}

}  // namespace hlo
