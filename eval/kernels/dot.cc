// dot (dot_general): batch and contracting dims in any order and number,
// every numeric type and pred, the result's element type taken from the
// instruction (preferred_element_type). precision_config, operand_precision
// and algorithm are accepted and do not change the numerics.
//
// Operands are viewed in the compute type (eval/kernels/gemm_convert.h): f32/f64/c64/c128
// operands in place, others converted once. The dot core (eval/kernels/gemm.cc) hands
// contiguous matrices to OpenBLAS with transpose flags and packs the rest.
// ragged-dot and scaled-dot are in eval/kernels/dot_ragged.cc.
#include "eval/kernels/dot.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/kernels/dot_internal.h"
#include "eval/kernels/gemm_int8.h"
#include "eval/runtime/parallel.h"
#include "ir/strings.h"

namespace hlo {
namespace dot_internal {

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

absl::StatusOr<const Literal*> ArrayOperand(const Instruction& inst, Operands ops, size_t i) {
  if (i >= ops.size() || ops[i] == nullptr) {
    return Invalid(StrCat(inst.OpcodeText(), " is missing operand ", i));
  }
  if (!ops[i]->is_array()) {
    return Invalid(StrCat("operand ", i, " of ", inst.OpcodeText(), " must be an array, not ",
                          ops[i]->is_tuple() ? "a tuple" : "a token"));
  }
  return &ops[i]->array();
}

absl::Status CheckOperandsAndResult(const Instruction& inst, Operands ops, size_t n) {
  if (ops.size() != n) {
    return Invalid(StrCat(inst.OpcodeText(), " takes ", n, " operands but has ", ops.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (auto a = ArrayOperand(inst, ops, i); !a.ok()) return a.status();
  }
  const Shape& s = inst.shape();
  if (!s.IsArray() || !IsArrayType(s.element_type())) {
    return Invalid(StrCat(inst.OpcodeText(), " must produce an array, not ", s.ToString(false)));
  }
  return absl::OkStatus();
}

namespace {

// One side's batch and contracting dims: in range, distinct, disjoint.
absl::Status CheckSide(std::string_view side, absl::Span<const int64_t> dims,
                       const gemm::Dims& batch, const gemm::Dims& contracting) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> used(rank, false);
  for (const gemm::Dims* list : {&batch, &contracting}) {
    for (int64_t d : *list) {
      if (d < 0 || d >= rank) {
        return Invalid(StrCat(side, (list == &batch ? "_batch_dims " : "_contracting_dims "),
                              DimsText(*list), " name dimension ", d, " of a rank-", rank,
                              " operand"));
      }
      if (used[d]) {
        return Invalid(
            StrCat(side, " dimension ", d, " appears twice in the batch and contracting dims"));
      }
      used[d] = true;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPairs(std::string_view kind, absl::Span<const int64_t> lhs, const gemm::Dims& l,
                        absl::Span<const int64_t> rhs, const gemm::Dims& r) {
  if (l.size() != r.size()) {
    return Invalid(StrCat("lhs has ", l.size(), " ", kind, " dims ", DimsText(l), " but rhs has ",
                          r.size(), " ", DimsText(r)));
  }
  for (size_t i = 0; i < l.size(); ++i) {
    if (lhs[l[i]] != rhs[r[i]]) {
      return Invalid(StrCat("lhs ", kind, " dimension ", l[i], " has size ", lhs[l[i]], " but rhs ",
                            kind, " dimension ", r[i], " has size ", rhs[r[i]]));
    }
  }
  return absl::OkStatus();
}

void AppendFree(absl::Span<const int64_t> dims, const gemm::Dims& batch,
                const gemm::Dims& contracting, gemm::Dims& out) {
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), i) == contracting.end()) {
      out.push_back(dims[i]);
    }
  }
}

gemm::Dims Ints(const Instruction& inst, AttrKind k) {
  absl::Span<const int64_t> v = inst.GetInts(k);
  return gemm::Dims(v.begin(), v.end());
}

}  // namespace

absl::Status CheckDotDims(absl::Span<const int64_t> lhs, absl::Span<const int64_t> rhs,
                          const gemm::DotDimNumbers& d, gemm::Dims& result_dims) {
  if (auto st = CheckSide("lhs", lhs, d.lhs_batch, d.lhs_contracting); !st.ok()) return st;
  if (auto st = CheckSide("rhs", rhs, d.rhs_batch, d.rhs_contracting); !st.ok()) return st;
  if (auto st = CheckPairs("batch", lhs, d.lhs_batch, rhs, d.rhs_batch); !st.ok()) return st;
  if (auto st = CheckPairs("contracting", lhs, d.lhs_contracting, rhs, d.rhs_contracting);
      !st.ok()) {
    return st;
  }
  result_dims.clear();
  for (int64_t b : d.lhs_batch) result_dims.push_back(lhs[b]);
  AppendFree(lhs, d.lhs_batch, d.lhs_contracting, result_dims);
  AppendFree(rhs, d.rhs_batch, d.rhs_contracting, result_dims);
  return absl::OkStatus();
}

absl::Status CheckResultDims(const Instruction& inst, const gemm::Dims& want) {
  absl::Span<const int64_t> got = inst.shape().dims();
  if (!std::equal(got.begin(), got.end(), want.begin(), want.end())) {
    return Invalid(StrCat(inst.OpcodeText(), " of these operands has dims ", DimsText(want),
                          ", but the result shape is ", inst.shape().ToString(false)));
  }
  return absl::OkStatus();
}

namespace {

// Per operand, the layout it is read through, or null (eval/kernels/dot.h).
using Layouts = std::array<const gemm::StridedLayout*, 2>;

// `out_perm`: out holds the product transposed, out dim j being the
// product's dim out_perm[j]; empty: out holds the product.
template <typename C>
absl::Status RunDot(const Literal& lhs, const Literal& rhs, Literal& out,
                    const gemm::DotDimNumbers& d, Layouts layouts,
                    absl::Span<const int64_t> out_perm = {}) {
  ScratchBuffer<C> lbuf, rbuf, obuf;
  auto lv = OperandView<C>(lhs, lbuf, layouts[0]);
  if (!lv.ok()) return lv.status();
  auto rv = OperandView<C>(rhs, rbuf, layouts[1]);
  if (!rv.ok()) return rv.status();
  auto ov = UnzeroedResultView<C>(out, obuf);
  if (!ov.ok()) return ov.status();
  if (!out_perm.empty()) {  // the product's dims over out's storage
    gemm::View<C> product = *ov;
    for (size_t j = 0; j < out_perm.size(); ++j) {
      product.dims[out_perm[j]] = ov->dims[j];
      product.strides[out_perm[j]] = ov->strides[j];
    }
    *ov = product;
  }
  if (auto st = gemm::DotCore<C>(*lv, *rv, *ov, d); !st.ok()) return st;
  FinishResult(out, obuf);
  return absl::OkStatus();
}

// The gemm::Gemm call of a product of two matrices or of a matrix and a
// vector, which the dot core would plan from views and axis lists (about
// 0.25 us a call: a tenth of a while loop's f32[256,256] gemv, a third of an
// RNN step's [4,32] x [32,32]): the same arguments, so the same bits. Sizes
// of at least 2 keep the core's axis merges out of play.
struct GemmCall {
  bool trans_a = false, trans_b = false;
  int64_t m = 1, n = 1, k = 0, lda = 0, ldb = 0, ldc = 0;
};

// lhs [m,k] . rhs [k], lhs [k,m] . rhs [k] (contracting lhs dim 0),
// lhs [k] . rhs [k,n], lhs [k] . rhs [n,k] (contracting rhs dim 1), and
// lhs [m,k] or [k,m] . rhs [k,n] or [n,k]; no batch dims; nullopt for
// anything else (the general path checks it).
// A dot without batch dims and with one contracting dim on each side:
// those dims (lhs, rhs); nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> SingleContractingDims(const Instruction& inst) {
  if (!inst.GetInts(AttrKind::kLhsBatchDims).empty() ||
      !inst.GetInts(AttrKind::kRhsBatchDims).empty()) {
    return std::nullopt;
  }
  absl::Span<const int64_t> lc = inst.GetInts(AttrKind::kLhsContractingDims);
  absl::Span<const int64_t> rc = inst.GetInts(AttrKind::kRhsContractingDims);
  if (lc.size() != 1 || rc.size() != 1) return std::nullopt;
  return std::make_pair(lc[0], rc[0]);
}

std::optional<GemmCall> MatchGemmCall(const Instruction& inst, absl::Span<const int64_t> l,
                                      absl::Span<const int64_t> r) {
  const std::optional<std::pair<int64_t, int64_t>> contracting = SingleContractingDims(inst);
  if (!contracting) return std::nullopt;
  const int64_t lc[1] = {contracting->first}, rc[1] = {contracting->second};
  absl::Span<const int64_t> out = inst.shape().dims();
  if (l.size() > 2 || r.size() > 2 || out.size() != l.size() + r.size() - 2 || out.empty() ||
      lc[0] < 0 || lc[0] >= 2 || rc[0] < 0 || rc[0] >= 2) {
    return std::nullopt;
  }
  GemmCall c;
  if (l.size() == 2) {  // op(A) is lhs or its transpose
    c.trans_a = lc[0] == 0;
    c.m = l[1 - lc[0]];
    c.k = l[lc[0]];
    c.lda = l[1];
    if (out[0] != c.m || c.m < 2) return std::nullopt;
  } else {  // a row vector
    c.k = l[0];
    c.lda = c.k;
  }
  if (r.size() == 2) {  // op(B) is rhs or its transpose
    c.trans_b = rc[0] == 1;
    c.n = r[1 - rc[0]];
    if (r[rc[0]] != c.k || out.back() != c.n || c.n < 2) return std::nullopt;
    c.ldb = r[1];
  } else {  // a column vector
    if (r[0] != c.k || rc[0] != 0) return std::nullopt;
    c.ldb = 1;
  }
  if (l.size() == 1 && lc[0] != 0) return std::nullopt;
  c.ldc = r.size() == 2 ? c.n : 1;
  if (c.k < 2) return std::nullopt;
  return c;
}

// The product when it is one gemm call (PlanDirectGemm: a matrix or a
// vector on each side, all f32 or all f64), the call small programs make.
std::optional<absl::StatusOr<Value>> DirectGemm(const Instruction& inst, const Literal& lhs,
                                                const Literal& rhs) {
  const std::optional<PlannedGemm> plan = PlanDirectGemm(inst, lhs.shape(), rhs.shape());
  if (!plan) return std::nullopt;
  absl::StatusOr<Value> out = NewArrayUninitialized(inst.shape());
  if (!out.ok()) return out;
  RunPlannedGemm(*plan, lhs.data(), rhs.data(), out->mutable_array().data());
  return out;
}

// lhs [free..., k] or [k, free...] . rhs [k, free...] or [free..., k], no
// batch dims: one gemm with each side's free dims merged (row-major, so
// the result [lhs free..., rhs free...] is C as it lies), m and n their
// products; nullopt for anything else. (A dense layer over [batch, seq,
// features] activations is one product.)
std::optional<GemmCall> MatchMergedGemmCall(const Instruction& inst, const Literal& lhs,
                                            const Literal& rhs) {
  const std::optional<std::pair<int64_t, int64_t>> contracting = SingleContractingDims(inst);
  absl::Span<const int64_t> l = lhs.shape().dims(), r = rhs.shape().dims();
  if (!contracting || l.empty() || r.empty()) return std::nullopt;
  const int64_t lc[1] = {contracting->first}, rc[1] = {contracting->second};
  const int64_t lrank = static_cast<int64_t>(l.size()), rrank = static_cast<int64_t>(r.size());
  if ((lc[0] != 0 && lc[0] != lrank - 1) || (rc[0] != 0 && rc[0] != rrank - 1)) {
    return std::nullopt;
  }
  GemmCall c;
  c.k = l[lc[0]];
  if (c.k < 1 || r[rc[0]] != c.k) return std::nullopt;
  gemm::Dims out;
  for (int64_t i = 0; i < lrank; ++i) {
    if (i != lc[0]) out.push_back(l[i]);
  }
  for (int64_t i = 0; i < rrank; ++i) {
    if (i != rc[0]) out.push_back(r[i]);
  }
  absl::Span<const int64_t> result = inst.shape().dims();
  if (!std::equal(result.begin(), result.end(), out.begin(), out.end())) return std::nullopt;
  c.m = lhs.element_count() / c.k;
  c.n = rhs.element_count() / c.k;
  c.trans_a = lrank > 1 && lc[0] == 0;
  c.lda = c.trans_a ? c.m : c.k;
  c.trans_b = rrank > 1 && rc[0] == rrank - 1;
  c.ldb = c.trans_b ? c.k : c.n;
  c.ldc = c.n;
  return c;
}

// lhs [batch..., m, k] or [batch..., k, m] . rhs [batch..., k, n] or
// [batch..., n, k], the batch dims leading on both sides in order (an
// attention head's scores and values): `batches` products of one shape,
// each operand's and the result's matrices one after another; nullopt for
// anything else.
struct BatchedGemmCall {
  GemmCall c;
  int64_t batches = 1;
};

std::optional<BatchedGemmCall> MatchBatchedGemmCall(const Instruction& inst, const Literal& lhs,
                                                    const Literal& rhs) {
  absl::Span<const int64_t> lb = inst.GetInts(AttrKind::kLhsBatchDims);
  absl::Span<const int64_t> rb = inst.GetInts(AttrKind::kRhsBatchDims);
  absl::Span<const int64_t> lc = inst.GetInts(AttrKind::kLhsContractingDims);
  absl::Span<const int64_t> rc = inst.GetInts(AttrKind::kRhsContractingDims);
  absl::Span<const int64_t> l = lhs.shape().dims(), r = rhs.shape().dims();
  absl::Span<const int64_t> out = inst.shape().dims();
  const int64_t nb = static_cast<int64_t>(lb.size());
  if (nb == 0 || rb.size() != lb.size() || lc.size() != 1 || rc.size() != 1 ||
      static_cast<int64_t>(l.size()) != nb + 2 || static_cast<int64_t>(r.size()) != nb + 2 ||
      static_cast<int64_t>(out.size()) != nb + 2 || (lc[0] != nb && lc[0] != nb + 1) ||
      (rc[0] != nb && rc[0] != nb + 1)) {
    return std::nullopt;
  }
  BatchedGemmCall b;
  for (int64_t i = 0; i < nb; ++i) {
    if (lb[i] != i || rb[i] != i || l[i] != r[i] || out[i] != l[i]) return std::nullopt;
    b.batches *= l[i];
  }
  GemmCall& c = b.c;
  c.trans_a = lc[0] == nb;
  c.trans_b = rc[0] == nb + 1;
  c.k = l[lc[0]];
  c.m = l[c.trans_a ? nb + 1 : nb];
  c.n = r[c.trans_b ? nb : nb + 1];
  if (c.k < 1 || r[rc[0]] != c.k || out[nb] != c.m || out[nb + 1] != c.n) return std::nullopt;
  c.lda = c.trans_a ? c.m : c.k;
  c.ldb = c.trans_b ? c.k : c.n;
  c.ldc = c.n;
  return b;
}

// The batches of an 8-bit product on Int8Gemm, across the cores a batch
// each where there are enough of them (each then on one core), else one
// after another, each split across the cores; false where Int8Gemm
// declined (C is then to be computed anew).
bool BatchedInt8Gemm(PrimitiveType lt, PrimitiveType rt, PrimitiveType ot,
                     const BatchedGemmCall& bc, const uint8_t* a, const uint8_t* b, uint8_t* c) {
  const GemmCall& g = bc.c;
  const int64_t c_bytes = g.m * g.n * ByteWidth(ot);
  auto run = [&](int64_t batch) {
    return gemm::Int8Gemm(lt, rt, ot, g.trans_a, g.trans_b, g.m, g.n, g.k, a + batch * g.m * g.k,
                          g.lda, b + batch * g.k * g.n, g.ldb, c + batch * c_bytes, g.ldc,
                          bc.batches);
  };
  if (bc.batches < CoreCount()) {
    for (int64_t batch = 0; batch < bc.batches; ++batch) {
      if (!run(batch)) return false;
    }
    return true;
  }
  std::atomic<bool> ok{true};
  ParallelRows(bc.batches, 1, [&](int64_t begin, int64_t end) {
    for (int64_t batch = begin; batch < end && ok; ++batch) {
      if (!run(batch)) ok = false;
    }
  });
  return ok;
}

// An 8-bit integer product that is one gemm, or a batch of them, on
// oneDNN's int8 kernels where they apply (eval/kernels/gemm_int8.h).
std::optional<absl::StatusOr<Value>> DirectInt8Gemm(const Instruction& inst, const Literal& lhs,
                                                    const Literal& rhs) {
  const PrimitiveType lt = lhs.element_type(), rt = rhs.element_type();
  const bool bytes = (lt == PrimitiveType::kS8 || lt == PrimitiveType::kU8) &&
                     (rt == PrimitiveType::kS8 || rt == PrimitiveType::kU8);
  if (!bytes || !IsInteger(inst.shape().element_type())) return std::nullopt;
  const std::optional<GemmCall> c = MatchMergedGemmCall(inst, lhs, rhs);
  const std::optional<BatchedGemmCall> batched =
      c ? std::nullopt : MatchBatchedGemmCall(inst, lhs, rhs);
  if (!c && !batched) return std::nullopt;
  absl::StatusOr<Value> out = NewArrayUninitialized(inst.shape());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  const bool done =
      c ? gemm::Int8Gemm(lt, rt, o.element_type(), c->trans_a, c->trans_b, c->m, c->n, c->k,
                         lhs.data(), c->lda, rhs.data(), c->ldb, o.data(), c->ldc)
        : BatchedInt8Gemm(lt, rt, o.element_type(), *batched,
                          static_cast<const uint8_t*>(lhs.data()),
                          static_cast<const uint8_t*>(rhs.data()), static_cast<uint8_t*>(o.data()));
  if (!done) return std::nullopt;
  return out;
}

// The general path, with the dims given (the instruction's, or those of a
// transpose folded into it).
// `transpose`: a transpose of the dot's result, which the product is
// written as (its result, in place of the dot's).
absl::StatusOr<Value> DotOf(const Instruction& inst, Operands ops, const gemm::DotDimNumbers& d,
                            Layouts layouts = {}, const Instruction* transpose = nullptr) {
  const Literal& lhs = ops[0]->array();
  const Literal& rhs = ops[1]->array();
  auto dims_of = [&](int k, const Literal& lit) -> absl::Span<const int64_t> {
    if (layouts[k] != nullptr) return layouts[k]->dims;
    return lit.shape().dims();
  };
  gemm::Dims want;
  if (auto st = CheckDotDims(dims_of(0, lhs), dims_of(1, rhs), d, want); !st.ok()) return st;
  if (auto st = CheckResultDims(inst, want); !st.ok()) return st;
  absl::Span<const int64_t> perm;
  if (transpose != nullptr) {
    perm = transpose->GetInts(AttrKind::kDimensions);
    const Shape& t = transpose->shape();
    bool fits = t.IsArray() && t.element_type() == inst.shape().element_type() &&
                perm.size() == want.size() && t.rank() == static_cast<int64_t>(want.size());
    for (size_t j = 0; fits && j < perm.size(); ++j) {
      fits = perm[j] >= 0 && perm[j] < static_cast<int64_t>(want.size()) &&
             t.dims()[j] == want[perm[j]];
    }
    if (!fits) {
      return Invalid(StrCat("the transpose written by this dot has shape ", t.ToString(false),
                            ", not its result's dims ", DimsText(want), " permuted"));
    }
  }
  // DotCore writes every element (zeros for an empty contraction; BLAS with
  // beta = 0 and the exact loop overwrite), so no zero-fill first: that was
  // a pass over every product's result (a transformer layer's 34 MB).
  absl::StatusOr<Value> out =
      NewArrayUninitialized(transpose != nullptr ? transpose->shape() : inst.shape());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  absl::Status st;
  gemm::DispatchCompute(
      gemm::ComputeTypeOf(lhs.element_type(), rhs.element_type(), o.element_type()),
      [&](auto c) { st = RunDot<decltype(c)>(lhs, rhs, o, d, layouts, perm); });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<Value> Dot(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandsAndResult(inst, ops, 2); !st.ok()) return st;
  const Literal& lhs = ops[0]->array();
  const Literal& rhs = ops[1]->array();
  if (auto r = DirectGemm(inst, lhs, rhs)) return *std::move(r);
  if (auto r = DirectInt8Gemm(inst, lhs, rhs)) return *std::move(r);
  return DotOf(inst, ops, DotDimNumbersOf(inst));
}

}  // namespace
}  // namespace dot_internal

gemm::DotDimNumbers DotDimNumbersOf(const Instruction& inst) {
  using dot_internal::Ints;
  gemm::DotDimNumbers d;
  d.lhs_batch = Ints(inst, AttrKind::kLhsBatchDims);
  d.lhs_contracting = Ints(inst, AttrKind::kLhsContractingDims);
  d.rhs_batch = Ints(inst, AttrKind::kRhsBatchDims);
  d.rhs_contracting = Ints(inst, AttrKind::kRhsContractingDims);
  return d;
}

absl::StatusOr<Value> EvalDotWithDims(const Instruction& inst, Operands ops,
                                      const gemm::DotDimNumbers& dims,
                                      std::array<const gemm::StridedLayout*, 2> layouts,
                                      const Instruction* transpose) {
  if (inst.opcode() != Opcode::kDot ||
      (transpose != nullptr && transpose->opcode() != Opcode::kTranspose)) {
    return absl::InvalidArgumentError(
        StrCat("EvalDotWithDims cannot evaluate '", inst.OpcodeText(), "'"));
  }
  if (auto st = dot_internal::CheckOperandsAndResult(inst, ops, 2); !st.ok()) return st;
  return dot_internal::DotOf(inst, ops, dims, layouts, transpose);
}

std::optional<PlannedGemm> PlanDirectGemm(const Instruction& inst, const Shape& lhs,
                                          const Shape& rhs) {
  const PrimitiveType t = inst.shape().element_type();
  if (inst.opcode() != Opcode::kDot || (t != PrimitiveType::kF32 && t != PrimitiveType::kF64) ||
      !lhs.IsArray() || !rhs.IsArray() || lhs.element_type() != t || rhs.element_type() != t) {
    return std::nullopt;
  }
  const std::optional<dot_internal::GemmCall> c =
      dot_internal::MatchGemmCall(inst, lhs.dims(), rhs.dims());
  if (!c) return std::nullopt;
  return PlannedGemm{t, c->trans_a, c->trans_b, c->m, c->n, c->k, c->lda, c->ldb, c->ldc};
}

void RunPlannedGemm(const PlannedGemm& g, const void* lhs, const void* rhs, void* out) {
  if (g.type == PrimitiveType::kF32) {
    gemm::Gemm<float>(g.trans_a, g.trans_b, g.m, g.n, g.k, static_cast<const float*>(lhs), g.lda,
                      static_cast<const float*>(rhs), g.ldb, static_cast<float*>(out), g.ldc);
  } else {
    gemm::Gemm<double>(g.trans_a, g.trans_b, g.m, g.n, g.k, static_cast<const double*>(lhs), g.lda,
                       static_cast<const double*>(rhs), g.ldb, static_cast<double*>(out), g.ldc);
  }
}

absl::StatusOr<Value> EvalDot(const Instruction& inst, Operands ops, KernelContext&) {
  switch (inst.opcode()) {
    case Opcode::kDot:
      return dot_internal::Dot(inst, ops);
    case Opcode::kRaggedDot:
      return dot_internal::EvalRaggedDot(inst, ops);
    case Opcode::kScaledDot:
      return dot_internal::EvalScaledDot(inst, ops);
    default:
      return absl::InvalidArgumentError(
          StrCat("EvalDot cannot evaluate '", inst.OpcodeText(), "'"));
  }
}

}  // namespace hlo
