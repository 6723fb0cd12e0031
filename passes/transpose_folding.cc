// transpose-folding: folds a transpose operand of dot or convolution into
// the op's dimension numbers, as XLA's TransposeFolding.
//
// A transpose with dimensions P has result dim i = operand dim P[i], so a
// dot or convolution reading dim d of the transpose reads dim P[d] of its
// operand:
//  - convolution: dim_labels name every dimension's role, so the input's
//    (lhs) or kernel's (rhs) labels are mapped through P; always exact.
//  - dot: batch and contracting dims are mapped through P (pairs keep their
//    order). The result lists each side's free dims in increasing order, so
//    the fold is exact only when P keeps the free dims in order; otherwise
//    the dot is left alone. (XLA folds the rank-2 "row/column" case, where
//    one free dim trivially keeps its order; this covers it.)
// Sparse dots (sparsity=...) are left alone. A transpose left without users
// is removed. Linear: each dot and convolution is looked at once.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/dot_transpose_fold.h"
#include "passes/layout_assignment_util.h"
#include "passes/passes.h"
#include "passes/post_order.h"

namespace hlo {
namespace {

// The operand's transpose permutation when `op` is a foldable transpose.
absl::Span<const int64_t> FoldablePerm(const Instruction* op) {
  if (!IsWellFormedTranspose(*op)) return {};
  absl::Span<const int64_t> perm = op->GetInts(AttrKind::kDimensions);
  if (IsIdentityPermutation(perm)) return {};
  return perm;
}

// Folds operand `k` (0 lhs, 1 rhs) of a dot when exact.
bool FoldIntoDot(Instruction& dot, int64_t k) {
  const Instruction* t = dot.operand(k);
  absl::Span<const int64_t> perm = FoldablePerm(t);
  if (perm.empty()) return false;
  AttrKind batch_kind = k == 0 ? AttrKind::kLhsBatchDims : AttrKind::kRhsBatchDims;
  AttrKind contract_kind = k == 0 ? AttrKind::kLhsContractingDims : AttrKind::kRhsContractingDims;
  std::optional<DotSideDims> mapped =
      DotSideThroughTranspose(perm, dot.GetInts(batch_kind), dot.GetInts(contract_kind));
  if (!mapped) return false;
  if (!mapped->batch.empty()) dot.SetAttr(batch_kind, std::move(mapped->batch));
  if (!mapped->contracting.empty()) dot.SetAttr(contract_kind, std::move(mapped->contracting));
  dot.ReplaceOperand(k, t->operand(0));
  return true;
}

// Folds operand `k` (0 input, 1 kernel) of a convolution.
bool FoldIntoConvolution(Instruction& conv, int64_t k) {
  const Instruction* t = conv.operand(k);
  absl::Span<const int64_t> perm = FoldablePerm(t);
  const ConvDims* labels = conv.conv_dims();
  if (perm.empty() || !labels) return false;
  const int64_t rank = t->shape().rank();
  ConvDims d = *labels;
  auto map = [&](int64_t& dim) {
    if (dim < 0 || dim >= rank) return false;
    dim = perm[dim];
    return true;
  };
  bool ok = true;
  if (k == 0) {
    ok = map(d.input_batch) && map(d.input_feature);
    for (int64_t& s : d.input_spatial) ok = ok && map(s);
  } else {
    ok = map(d.kernel_input_feature) && map(d.kernel_output_feature);
    for (int64_t& s : d.kernel_spatial) ok = ok && map(s);
  }
  if (!ok) return false;
  conv.SetAttr(AttrKind::kDimLabels, std::make_shared<const ConvDims>(std::move(d)));
  conv.ReplaceOperand(k, t->operand(0));
  return true;
}

// Whether some dot or convolution reads a transpose: nothing folds otherwise
// (and the computation is not ordered).
bool AnyTransposeOperand(const Computation& comp) {
  for (const auto& inst : comp.instructions()) {
    if (inst->opcode() != Opcode::kDot && inst->opcode() != Opcode::kConvolution) continue;
    for (const Instruction* op : inst->operands()) {
      if (op != nullptr && op->opcode() == Opcode::kTranspose) return true;
    }
  }
  return false;
}

bool FoldComputation(Computation& comp) {
  if (!AnyTransposeOperand(comp)) return false;
  bool changed = false;
  std::vector<Instruction*> folded;
  // Folding adds no control edge: the set from the ordering walk still holds
  // when the unused transposes go.
  absl::flat_hash_set<const Instruction*> control;
  for (Instruction* inst : PostOrderOf(comp, &control)) {
    bool dot = inst->opcode() == Opcode::kDot && inst->operand_count() == 2 &&
               !inst->HasAttr(AttrKind::kSparsity);
    bool conv = inst->opcode() == Opcode::kConvolution && inst->operand_count() == 2;
    if (!dot && !conv) continue;
    for (int64_t k = 0; k < 2; ++k) {
      Instruction* t = inst->operand(k);
      if (dot ? FoldIntoDot(*inst, k) : FoldIntoConvolution(*inst, k)) {
        folded.push_back(t);
        changed = true;
      }
    }
  }
  // Transposes nothing uses any more.
  absl::flat_hash_set<const Instruction*> dead;
  for (Instruction* t : folded) {
    if (t->users().empty() && t != comp.root() && !control.contains(t)) dead.insert(t);
  }
  comp.RemoveInstructions(dead);
  return changed;
}

class TransposeFolding : public Pass {
 public:
  std::string_view name() const override { return "transpose-folding"; }
  std::string_view description() const override {
    return "folds transposes into dot and convolution dimension numbers";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (const auto& c : module.computations()) {
      if (!c->is_fusion_computation()) changed |= FoldComputation(*c);  // as XLA
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateTransposeFolding() { return std::make_unique<TransposeFolding>(); }

}  // namespace hlo
