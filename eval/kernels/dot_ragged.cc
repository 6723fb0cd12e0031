// ragged-dot and scaled-dot.
//
// ragged-dot (JAX's ragged_dot_general): lhs has one ragged dimension whose
// index range is split into consecutive groups by group_sizes (the last
// dimension of group_sizes counts the groups g). The ragged dimension's kind
// picks the mode:
//   * free (non-contracting) m: rhs has a group dimension; rows of group j are
//     multiplied by rhs[group j]; result dims as dot (group dim dropped);
//   * contracting k: the result has a leading g dimension; result[j] is the
//     dot over the k indices of group j only;
//   * batch b: as dot, over the batch indices inside some group.
// Indices past the sum of the group sizes give zeros. group_sizes is [g], or
// for the first two modes may carry leading dims: the lhs batch dims and, in
// the free mode, the lhs free dims before the ragged one ([b..., x..., g]); in
// the batch mode the lhs batch dims listed before the ragged one ([x..., g]).
// Each group is one dot over narrowed views (eval/kernels/gemm.h's DotCore).
//
// scaled-dot: dot(lhs * lhs_scale, rhs * rhs_scale) where a scale has the
// operand's rank and each of its elements scales a block of
// operand_dim / scale_dim consecutive indices per dimension (microscaling).
#include <algorithm>
#include <vector>

#include "eval/kernels/dot_internal.h"
#include "ir/strings.h"

namespace hlo {
namespace dot_internal {
namespace {

using gemm::Dims;
using gemm::View;

template <typename T>
void Narrow(View<T>& v, int64_t d, int64_t start, int64_t size) {
  v.base += start * v.strides[d];
  v.dims[d] = size;
}

int64_t IndexOf(const Dims& v, int64_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int64_t>(it - v.begin());
}

enum class Mode { kFree, kContracting, kBatch };

// A dim fixed per group_sizes prefix index: the lhs dim, its rhs pair (-1
// for none; rhs numbering with the group dim) and the result dim (without
// the leading group dim of the contracting mode).
struct PrefixDim {
  int64_t lhs, rhs, out;
};

struct Ragged {
  Mode mode = Mode::kFree;
  int64_t ragged = 0;      // lhs dim
  int64_t rhs_group = -1;  // rhs dim (free mode)
  int64_t groups = 0;
  gemm::DotDimNumbers d;  // rhs dims numbered without the group dim
  std::vector<PrefixDim> prefix;
  int64_t ragged_out = -1;  // result dim of the ragged dim (free, batch)
  int64_t ragged_rhs = -1;  // paired rhs dim, group-dim numbering (contracting, batch)
  Dims want;                // result dims
};

// rhs dim number with the group dim counted.
int64_t RawRhs(const Ragged& r, int64_t x) {
  return r.rhs_group >= 0 && x >= r.rhs_group ? x + 1 : x;
}

absl::Status ReadPrefix(const Shape& gs, const std::vector<PrefixDim>& full, Ragged& r,
                        const Shape& lhs) {
  if (gs.rank() == 1) return absl::OkStatus();  // one row of sizes for every index
  if (gs.rank() - 1 != static_cast<int64_t>(full.size())) {
    return Invalid(StrCat("group_sizes ", gs.ToString(false), " must be [g] or have ", full.size(),
                          " leading dims matching lhs"));
  }
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i].lhs < 0 || gs.dim(i) != lhs.dim(full[i].lhs)) {
      return Invalid(StrCat("group_sizes dimension ", i, " has size ", gs.dim(i),
                            " but must match lhs dimension ", full[i].lhs));
    }
  }
  r.prefix = full;
  return absl::OkStatus();
}

absl::StatusOr<Ragged> ReadRagged(const Instruction& inst, const Shape& lhs, const Shape& rhs,
                                  const Shape& gs) {
  Ragged r;
  absl::Span<const int64_t> lr = inst.GetInts(AttrKind::kLhsRaggedDims);
  absl::Span<const int64_t> rg = inst.GetInts(AttrKind::kRhsGroupDims);
  if (lr.size() != 1 || lr[0] < 0 || lr[0] >= lhs.rank()) {
    return Invalid(
        StrCat("lhs_ragged_dims ", DimsText(lr), " must name exactly one dimension of lhs"));
  }
  if (rg.size() > 1 || (rg.size() == 1 && (rg[0] < 0 || rg[0] >= rhs.rank()))) {
    return Invalid(
        StrCat("rhs_group_dims ", DimsText(rg), " must be empty or name one dimension of rhs"));
  }
  if (!IsInteger(gs.element_type()) || gs.rank() < 1) {
    return Invalid(StrCat("group_sizes must be an integer array of rank at least 1, not ",
                          gs.ToString(false)));
  }
  r.ragged = lr[0];
  r.rhs_group = rg.empty() ? -1 : rg[0];
  r.groups = gs.dim(gs.rank() - 1);
  r.d = DotDimNumbersOf(inst);
  Dims rdims(rhs.dims().begin(), rhs.dims().end());
  if (r.rhs_group >= 0) {
    for (Dims* list : {&r.d.rhs_batch, &r.d.rhs_contracting}) {
      if (IndexOf(*list, r.rhs_group) >= 0) {
        return Invalid(StrCat("rhs dimension ", r.rhs_group,
                              " is both the group dimension and a batch or contracting one"));
      }
      for (int64_t& x : *list) {
        if (x > r.rhs_group) --x;
      }
    }
    rdims.erase(rdims.begin() + r.rhs_group);
  }
  if (auto st = CheckDotDims(lhs.dims(), rdims, r.d, r.want); !st.ok()) return st;
  const int64_t ic = IndexOf(r.d.lhs_contracting, r.ragged);
  const int64_t ib = IndexOf(r.d.lhs_batch, r.ragged);
  r.mode = ic >= 0 ? Mode::kContracting : ib >= 0 ? Mode::kBatch : Mode::kFree;
  if ((r.mode == Mode::kFree) != (r.rhs_group >= 0)) {
    return Invalid(r.mode == Mode::kFree
                       ? std::string("the lhs ragged dimension is a free dimension, so rhs "
                                     "needs one group dimension in rhs_group_dims")
                       : std::string("the lhs ragged dimension is a batch or contracting "
                                     "dimension, so rhs_group_dims must be empty"));
  }
  if (r.mode == Mode::kFree && rhs.dim(r.rhs_group) != r.groups) {
    return Invalid(StrCat("group_sizes counts ", r.groups, " groups but rhs group dimension ",
                          r.rhs_group, " has size ", rhs.dim(r.rhs_group)));
  }
  const int64_t nb = static_cast<int64_t>(r.d.lhs_batch.size());
  std::vector<PrefixDim> full;
  const int64_t batch_prefix = r.mode == Mode::kBatch ? ib : nb;
  for (int64_t i = 0; i < batch_prefix; ++i) {
    full.push_back({r.d.lhs_batch[i], RawRhs(r, r.d.rhs_batch[i]), i});
  }
  if (r.mode == Mode::kFree) {
    int64_t free_pos = 0;
    for (int64_t x = 0; x < lhs.rank(); ++x) {
      if (IndexOf(r.d.lhs_batch, x) >= 0 || IndexOf(r.d.lhs_contracting, x) >= 0) continue;
      if (x == r.ragged) {
        r.ragged_out = nb + free_pos;
        break;
      }
      full.push_back({x, -1, nb + free_pos});
      ++free_pos;
    }
  } else if (r.mode == Mode::kContracting) {
    r.ragged_rhs = RawRhs(r, r.d.rhs_contracting[ic]);
    if (ic > 0 && gs.rank() > 1) {
      return absl::UnimplementedError(
          "ragged-dot with per-index group sizes over several contracting dims is not supported");
    }
    r.want.insert(r.want.begin(), r.groups);
  } else {
    r.ragged_rhs = RawRhs(r, r.d.rhs_batch[ib]);
    r.ragged_out = ib;
  }
  if (auto st = ReadPrefix(gs, full, r, lhs); !st.ok()) return st;
  return r;
}

template <typename C>
absl::Status RunRagged(const Ragged& r, const Literal& lhs, const Literal& rhs, const Literal& gs,
                       Literal& out) {
  ScratchBuffer<C> lbuf, rbuf;
  std::vector<C> obuf;  // zeroed: outputs of empty groups stay 0
  auto lv = OperandView<C>(lhs, lbuf);
  if (!lv.ok()) return lv.status();
  auto rv = OperandView<C>(rhs, rbuf);
  if (!rv.ok()) return rv.status();
  auto ov = ResultView<C>(out, obuf);
  if (!ov.ok()) return ov.status();
  const int64_t shift = r.mode == Mode::kContracting ? 1 : 0;
  const int64_t extent = lhs.shape().dim(r.ragged);
  const int64_t rows = r.groups == 0 ? 0 : gs.element_count() / r.groups;
  std::vector<int64_t> pidx(r.prefix.size(), 0);
  for (int64_t p = 0; p < rows; ++p) {
    View<const C> l = *lv, rr = *rv;
    View<C> o = *ov;
    for (size_t i = 0; i < r.prefix.size(); ++i) {
      Narrow(l, r.prefix[i].lhs, pidx[i], 1);
      if (r.prefix[i].rhs >= 0) Narrow(rr, r.prefix[i].rhs, pidx[i], 1);
      Narrow(o, r.prefix[i].out + shift, pidx[i], 1);
    }
    int64_t start = 0;
    for (int64_t j = 0; j < r.groups; ++j) {
      const int64_t size = std::clamp<int64_t>(gs.GetInt(p * r.groups + j), 0, extent);
      const int64_t s = start, e = std::min(extent, start + size);
      start = e;
      if (e <= s) continue;
      View<const C> l2 = l, r2 = rr;
      View<C> o2 = o;
      Narrow(l2, r.ragged, s, e - s);
      if (r.mode == Mode::kFree) {
        gemm::FixDim(r2, r.rhs_group, j);
        Narrow(o2, r.ragged_out, s, e - s);
      } else {
        Narrow(r2, r.ragged_rhs, s, e - s);
        if (r.mode == Mode::kContracting) {
          gemm::FixDim(o2, 0, j);
        } else {
          Narrow(o2, r.ragged_out, s, e - s);
        }
      }
      if (auto st = gemm::DotCore<C>(l2, r2, o2, r.d); !st.ok()) return st;
    }
    for (int64_t i = static_cast<int64_t>(pidx.size()) - 1; i >= 0; --i) {
      if (++pidx[i] < gs.shape().dim(i)) break;
      pidx[i] = 0;
    }
  }
  FinishResult(out, obuf);
  return absl::OkStatus();
}

// ---- scaled-dot ------------------------------------------------------------------

absl::Status CheckScale(const Shape& x, const Shape& scale, const char* name) {
  if (scale.rank() != x.rank()) {
    return Invalid(StrCat(name, "_scale ", scale.ToString(false), " must have the rank of ", name,
                          " ", x.ToString(false)));
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    const int64_t blocks = scale.dim(d);
    if (blocks == 0 ? x.dim(d) != 0 : x.dim(d) % blocks != 0) {
      return Invalid(StrCat(name, " dimension ", d, " (", x.dim(d),
                            ") does not split evenly into the ", blocks, " blocks of ", name,
                            "_scale dimension ", d));
    }
  }
  return absl::OkStatus();
}

// x * scale (each scale element covering a block), in C, into buf.
template <typename C>
absl::Status Scaled(const Literal& x, const Literal& scale, std::vector<C>& buf) {
  std::vector<C> sbuf;
  if (auto st = gemm::ToComputeBuffer<C>(x, buf); !st.ok()) return st;
  if (auto st = gemm::ToComputeBuffer<C>(scale, sbuf); !st.ok()) return st;
  const Shape& xs = x.shape();
  const int64_t rank = xs.rank();
  std::vector<int64_t> idx(rank, 0), block(rank, 1), sstride(rank, 1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    block[d] = scale.shape().dim(d) == 0 ? 1 : xs.dim(d) / scale.shape().dim(d);
    if (d + 1 < rank) sstride[d] = sstride[d + 1] * scale.shape().dim(d + 1);
  }
  for (int64_t i = 0; i < x.element_count(); ++i) {
    int64_t so = 0;
    for (int64_t d = 0; d < rank; ++d) so += idx[d] / block[d] * sstride[d];
    buf[i] *= sbuf[so];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < xs.dim(d)) break;
      idx[d] = 0;
    }
  }
  return absl::OkStatus();
}

template <typename C>
absl::Status RunScaled(Operands ops, const gemm::DotDimNumbers& d, Literal& out) {
  std::vector<C> lbuf, rbuf, obuf;
  if (auto st = Scaled<C>(ops[0]->array(), ops[2]->array(), lbuf); !st.ok()) return st;
  if (auto st = Scaled<C>(ops[1]->array(), ops[3]->array(), rbuf); !st.ok()) return st;
  auto ov = ResultView<C>(out, obuf);
  if (!ov.ok()) return ov.status();
  auto lv = gemm::RowMajorView<const C>(lbuf.data(), ops[0]->array().shape().dims());
  auto rv = gemm::RowMajorView<const C>(rbuf.data(), ops[1]->array().shape().dims());
  if (auto st = gemm::DotCore<C>(lv, rv, *ov, d); !st.ok()) return st;
  FinishResult(out, obuf);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> EvalRaggedDot(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandsAndResult(inst, ops, 3); !st.ok()) return st;
  const Literal& lhs = ops[0]->array();
  const Literal& rhs = ops[1]->array();
  const Literal& gs = ops[2]->array();
  auto r = ReadRagged(inst, lhs.shape(), rhs.shape(), gs.shape());
  if (!r.ok()) return r.status();
  if (auto st = CheckResultDims(inst, r->want); !st.ok()) return st;
  absl::StatusOr<Value> out = NewArray(inst.shape());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  absl::Status st;
  gemm::DispatchCompute(
      gemm::ComputeTypeOf(lhs.element_type(), rhs.element_type(), o.element_type()),
      [&](auto c) { st = RunRagged<decltype(c)>(*r, lhs, rhs, gs, o); });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<Value> EvalScaledDot(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandsAndResult(inst, ops, 4); !st.ok()) return st;
  const Literal& lhs = ops[0]->array();
  const Literal& rhs = ops[1]->array();
  if (auto st = CheckScale(lhs.shape(), ops[2]->array().shape(), "lhs"); !st.ok()) return st;
  if (auto st = CheckScale(rhs.shape(), ops[3]->array().shape(), "rhs"); !st.ok()) return st;
  const gemm::DotDimNumbers d = DotDimNumbersOf(inst);
  gemm::Dims want;
  if (auto st = CheckDotDims(lhs.shape().dims(), rhs.shape().dims(), d, want); !st.ok()) {
    return st;
  }
  if (auto st = CheckResultDims(inst, want); !st.ok()) return st;
  absl::StatusOr<Value> out = NewArray(inst.shape());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  absl::Status st;
  gemm::DispatchCompute(
      gemm::ComputeTypeOf(lhs.element_type(), rhs.element_type(), o.element_type()),
      [&](auto c) { st = RunScaled<decltype(c)>(ops, d, o); });
  if (!st.ok()) return st;
  return out;
}

}  // namespace dot_internal
}  // namespace hlo
