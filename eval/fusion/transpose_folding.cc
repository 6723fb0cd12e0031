#include "eval/fusion/transpose_folding.h"

#include <cstdint>
#include <vector>

#include "eval/kernels/dot.h"
#include "ir/dot_transpose_fold.h"

namespace hlo {
namespace {

// The permutation of a well-formed transpose (the kernel reports any
// other): result dim j is operand dim perm[j].
std::optional<absl::Span<const int64_t>> PermutationOf(const Instruction& t) {
  if (t.opcode() != Opcode::kTranspose || t.operand_count() != 1) return std::nullopt;
  const Shape& in = t.operand(0)->shape();
  const Shape& out = t.shape();
  if (!in.IsArray() || !out.IsArray() || in.element_type() != out.element_type()) {
    return std::nullopt;
  }
  absl::Span<const int64_t> perm = t.GetInts(AttrKind::kDimensions);
  const int64_t rank = out.rank();
  if (static_cast<int64_t>(perm.size()) != rank || in.rank() != rank) return std::nullopt;
  std::vector<bool> seen(rank, false);
  for (int64_t j = 0; j < rank; ++j) {
    const int64_t p = perm[j];
    if (p < 0 || p >= rank || seen[p] || in.dims()[p] != out.dims()[j]) return std::nullopt;
    seen[p] = true;
  }
  return perm;
}

}  // namespace

std::optional<FoldedDot> FoldTransposes(const Instruction& dot,
                                        absl::FunctionRef<bool(const Instruction&)> foldable) {
  if (dot.opcode() != Opcode::kDot || dot.operand_count() != 2) return std::nullopt;
  FoldedDot f;
  f.dims = DotDimNumbersOf(dot);
  gemm::Dims* batch[2] = {&f.dims.lhs_batch, &f.dims.rhs_batch};
  gemm::Dims* contracting[2] = {&f.dims.lhs_contracting, &f.dims.rhs_contracting};
  for (int64_t k = 0; k < 2; ++k) {
    const Instruction* op = dot.operand(k);
    f.reads[k] = op;
    std::optional<absl::Span<const int64_t>> perm = PermutationOf(*op);
    if (!perm || !foldable(*op)) continue;
    std::optional<DotSideDims> mapped = DotSideThroughTranspose(*perm, *batch[k], *contracting[k]);
    if (!mapped) continue;
    batch[k]->assign(mapped->batch.begin(), mapped->batch.end());
    contracting[k]->assign(mapped->contracting.begin(), mapped->contracting.end());
    f.reads[k] = op->operand(0);
    f.folded[k] = true;
  }
  if (!f.folded[0] && !f.folded[1]) return std::nullopt;
  return f;
}

}  // namespace hlo
