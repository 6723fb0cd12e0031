// The backward cuDNN fused attention calls (eval/gpu/cudnn_fmha.h; operands
// as xla/backends/gpu/transforms/cudnn_custom_call_compiler.cc reads them):
//
//   __cudnn$fmha[ScaleBias]Softmax[Dropout]Backward
//     (q, k, v, stats, d_o[, bias], o[, seq_q, seq_kv])
//     -> (dq, dk, dv[, dbias], u8[workspace])
//
// q, k, v, d_o and o are read through the backward config's dot dimension
// numbers as cuda_dnn.cc's GetCudnnFlashAttentionBackwardOperationGraph
// does (q and k as bmm1_grad_gemm1's and bmm1_grad_gemm2's rhs, v as
// bmm2_grad_gemm2's rhs, d_o and o as bmm2_grad_gemm1's rhs); dq, dk, dv and
// dbias are [B, H, S, D] and [B|1, H|1, Sq|1, Skv|1] in their own dim
// order. With S and the masks of the forward call, P = exp(S - stats) (the
// stats the forward call returned), dP = d_o.v^T, dS = P * (dP -
// rowsum(d_o * o)) (cuDNN's softmax gradient, with o as the call passes it):
// dq = scale * dS.k, dk = scale * dS^T.q, dv = P^T.d_o (summed over the
// query heads that share a key head), dbias = dS summed over the dims the
// bias broadcasts. Hidden queries (past seq_q) and masked keys give and get
// no gradient.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "eval/gpu/cudnn_fmha.h"
#include "eval/gpu/float_codec.h"
#include "eval/runtime/parallel.h"
#include "ir/strings.h"

namespace hlo::gpu::fmha {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// The operands the backward arithmetic reads besides Problem's.
template <typename T>
struct BackwardInputs {
  std::vector<T> stats, d_o, o;  // [B, Hq, Sq], [B, Hq, Sq, Dv] twice
  std::vector<T> vt;             // v as [B, Hk, Dv, Skv]
  View dbias;                    // strides 0 along broadcast dims
  bool has_dbias = false;
};

// The result shapes: dq, dk, dv [, dbias], each checked.
absl::Status CheckResults(const Instruction& inst, const Config& c, const Dims& d,
                          PrimitiveType type, View* dbias) {
  const Shape& s = inst.shape();
  const int64_t want[3][4] = {
      {d.b, d.hq, d.sq, d.d}, {d.b, d.hk, d.skv, d.d}, {d.b, d.hk, d.skv, d.dv}};
  const char* names[3] = {"dq (result 0)", "dk (result 1)", "dv (result 2)"};
  for (int r = 0; r < 3; ++r) {
    absl::StatusOr<View> v = PlainView(c, s.tuple_shape(r), names[r]);
    if (!v.ok()) return v.status();
    if (auto st = CheckDims(c, *v, want[r], names[r]); !st.ok()) return st;
    if (s.tuple_shape(r).element_type() != type) {
      return Invalid(StrCat("custom-call ", c.target, ": ", names[r], " must be ",
                            PrimitiveTypeName(type), " as q is, not ",
                            s.tuple_shape(r).ToString(false)));
    }
  }
  if (s.tuple_size() != 5) return absl::OkStatus();
  if (!c.bias) {
    return Invalid(StrCat("custom-call ", c.target,
                          " takes no bias, so it returns (dq, dk, dv, u8[workspace]), not ",
                          s.ToString(false)));
  }
  absl::StatusOr<View> v = PlainView(c, s.tuple_shape(3), "dbias (result 3)");
  if (!v.ok()) return v.status();
  if (!IsFloat(s.tuple_shape(3).element_type())) {
    return Invalid(StrCat("custom-call ", c.target, ": dbias (result 3) must be of a float type"));
  }
  if (auto st = CheckBiasDims(c, *v, d, "dbias (result 3)"); !st.ok()) return st;
  *dbias = *v;
  for (int i = 0; i < 4; ++i) {
    if (dbias->dim[i] == 1) dbias->stride[i] = 0;
  }
  return absl::OkStatus();
}

// The intermediate_tensor_shape, when the config gives one, is P's: [B, Hq,
// Sq, Skv] through bmm2_grad_gemm1's lhs.
absl::Status CheckIntermediate(const Config& c, const Dims& d) {
  if (!c.message.contains("intermediate_tensor_shape")) return absl::OkStatus();
  const Json& shape = c.message["intermediate_tensor_shape"];
  absl::StatusOr<std::vector<int64_t>> dims = IntListField(shape, "dimensions");
  if (!dims.ok()) return dims.status();
  absl::StatusOr<DotSide> side = ReadDotSide(c, "bmm2_grad_gemm1_dot_dimension_numbers", true);
  if (!side.ok()) return side.status();
  absl::StatusOr<View> p = MatmulView(c, Shape::Array(PrimitiveType::kF32, *dims), *side, false,
                                      "intermediate_tensor_shape");
  if (!p.ok()) return p.status();
  return CheckDims(c, *p, {d.b, d.hq, d.sq, d.skv}, "intermediate_tensor_shape");
}

template <typename T>
absl::Status ReadBackward(const Instruction& inst, Operands ops, const Config& c, Problem<T>& p,
                          BackwardInputs<T>& in) {
  const size_t o_index = c.bias ? 6 : 5;
  struct Operand {
    size_t index;
    const char* name;
    const char* field;
    bool contracting_last;
  } const reads[5] = {{0, "q (operand 0)", "bmm1_grad_gemm1_dot_dimension_numbers", false},
                      {1, "k (operand 1)", "bmm1_grad_gemm2_dot_dimension_numbers", false},
                      {2, "v (operand 2)", "bmm2_grad_gemm2_dot_dimension_numbers", true},
                      {4, "d_o (operand 4)", "bmm2_grad_gemm1_dot_dimension_numbers", false},
                      {o_index, "o", "bmm2_grad_gemm1_dot_dimension_numbers", false}};
  View views[5];
  for (int r = 0; r < 5; ++r) {
    absl::StatusOr<DotSide> side = ReadDotSide(c, reads[r].field, false);
    if (!side.ok()) return side.status();
    absl::StatusOr<View> v = MatmulView(c, ops[reads[r].index]->array().shape(), *side,
                                        reads[r].contracting_last, reads[r].name);
    if (!v.ok()) return v.status();
    views[r] = *v;
  }
  absl::StatusOr<Dims> d = CheckQkv(c, views[0], views[1], views[2]);
  if (!d.ok()) return d.status();
  p.d = *d;
  for (int r = 3; r < 5; ++r) {
    if (auto st = CheckDims(c, views[r], {d->b, d->hq, d->sq, d->dv}, reads[r].name); !st.ok()) {
      return st;
    }
  }
  const Shape& stats = ops[3]->array().shape();
  if (stats.rank() != 3 || stats.dim(0) != d->b || stats.dim(1) != d->hq || stats.dim(2) != d->sq) {
    return Invalid(StrCat("custom-call ", c.target, ": the softmax stats (operand 3) must be [",
                          d->b, ",", d->hq, ",", d->sq, "], not ", stats.ToString(false)));
  }
  if (auto st = CheckIntermediate(c, *d); !st.ok()) return st;
  if (auto st = CheckResults(inst, c, *d, ops[0]->array().element_type(), &in.dbias); !st.ok()) {
    return st;
  }
  in.has_dbias = inst.shape().tuple_size() == 5;
  p.q = Gather<T>(ops[0]->array(), views[0]);
  p.k = Gather<T>(ops[1]->array(), views[1]);
  p.v = Gather<T>(ops[2]->array(), views[2]);
  in.d_o = Gather<T>(ops[4]->array(), views[3]);
  in.o = Gather<T>(ops[o_index]->array(), views[4]);
  in.stats.resize(ops[3]->array().element_count());
  for (size_t i = 0; i < in.stats.size(); ++i) {
    in.stats[i] = static_cast<T>(ops[3]->array().GetDouble(i));
  }
  in.vt = TransposedRows(p.v, p.d.b * p.d.hk, p.d.skv, p.d.dv);
  return FillProblem(c, ops, 5, o_index + 1, p);
}

template <typename T>
struct Grads {
  std::vector<T> dq, dk, dv, dbias;
};

// A part's rows of scores and of d_o . v.
template <typename T>
struct Scratch {
  std::vector<T> scores, dp;
};

// The gradients of one query row (b, h, i), added into `g`.
// Each key's dp = d_o . v accumulates over f from 0 one product at a time,
// with the keys side by side (v transposed), as Scores does.
template <typename T>
void RowGradients(const Problem<T>& p, const BackwardInputs<T>& in, int64_t b, int64_t h, int64_t i,
                  Scratch<T>& scratch, Grads<T>& g) {
  const Dims& d = p.d;
  const int64_t row = (b * d.hq + h) * d.sq + i;
  const int64_t head = b * d.hk + h / (d.hq / d.hk);
  const int64_t kv = head * d.skv;
  const T* d_o = &in.d_o[row * d.dv];
  const T* o = &in.o[row * d.dv];
  const T* q = &p.q[row * d.d];
  T* dq = &g.dq[row * d.d];
  std::vector<T>& s = scratch.scores;
  p.Scores(b, h, i, s);
  std::vector<T>& dps = scratch.dp;
  dps.assign(d.skv, 0);
  const T* vt = &in.vt[head * d.dv * d.skv];
  AddScaledRows(dps.data(), d_o, vt, d.skv, d.dv, d.skv);
  T di = 0;
  for (int64_t f = 0; f < d.dv; ++f) di += d_o[f] * o[f];
  for (int64_t j = 0; j < d.skv; ++j) {
    if (!p.Allowed(b, i, j)) continue;
    const T prob = std::exp(s[j] - in.stats[row]);
    const T ds = prob * (dps[j] - di);
    const T* k = &p.k[(kv + j) * d.d];
    T* dk = &g.dk[(kv + j) * d.d];
    T* dv = &g.dv[(kv + j) * d.dv];
    for (int64_t e = 0; e < d.d; ++e) {
      dq[e] += p.scale * ds * k[e];
      dk[e] += p.scale * ds * q[e];
    }
    for (int64_t f = 0; f < d.dv; ++f) dv[f] += prob * d_o[f];
    if (in.has_dbias) {
      const View& bv = in.dbias;
      g.dbias[b * bv.stride[0] + h * bv.stride[1] + i * bv.stride[2] + j * bv.stride[3]] += ds;
    }
  }
}

template <typename T>
void Store(const std::vector<T>& from, Literal& to) {
  StoreRowLikeSetDouble(to, 0, from.data(), static_cast<int64_t>(from.size()));
}

template <typename T>
absl::StatusOr<Value> Backward(const Instruction& inst, Operands ops, const Config& c) {
  Problem<T> p;
  BackwardInputs<T> in;
  if (auto st = ReadBackward(inst, ops, c, p, in); !st.ok()) return st;
  const Shape& s = inst.shape();
  std::vector<Value> results;
  for (int64_t r = 0; r < (in.has_dbias ? 4 : 3); ++r) {
    absl::StatusOr<Value> a = NewArray(s.tuple_shape(r));  // sizes checked here, first
    if (!a.ok()) return a;
    results.push_back(*std::move(a));
  }
  Grads<T> g;
  g.dq.assign(results[0].array().element_count(), 0);
  g.dk.assign(results[1].array().element_count(), 0);
  g.dv.assign(results[2].array().element_count(), 0);
  if (in.has_dbias) g.dbias.assign(results[3].array().element_count(), 0);
  // Batches write disjoint gradients (each in the order of the loop over
  // heads and rows) unless dbias sums over them: then one part.
  const bool batches_apart = !in.has_dbias || in.dbias.stride[0] != 0;
  ParallelRows(p.d.b, batches_apart ? 1 : p.d.b, [&](int64_t begin, int64_t end) {
    Scratch<T> scratch;
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t h = 0; h < p.d.hq; ++h) {
        for (int64_t i = 0; i < p.seq_q[b]; ++i) RowGradients(p, in, b, h, i, scratch, g);
      }
    }
  });
  Store(g.dq, results[0].mutable_array());
  Store(g.dk, results[1].mutable_array());
  Store(g.dv, results[2].mutable_array());
  if (in.has_dbias) Store(g.dbias, results[3].mutable_array());
  return WithWorkspaces(inst, std::move(results));
}

}  // namespace

absl::StatusOr<Value> EvalBackward(const Instruction& inst, Operands ops, const Config& c) {
  const size_t want = 6 + (c.bias ? 1 : 0) + (c.padding ? 2 : 0);
  if (ops.size() != want) {
    return Invalid(StrCat("custom-call ", c.target, " takes ", want,
                          " operands (q, k, v, stats, d_o", c.bias ? ", bias" : "", ", o",
                          c.padding ? ", seq_q, seq_kv" : "", "), not ", ops.size()));
  }
  const Shape& s = inst.shape();
  if (!s.IsTuple() || (s.tuple_size() != 4 && s.tuple_size() != 5)) {
    return Invalid(StrCat("custom-call ", c.target,
                          " returns (dq, dk, dv[, dbias], u8[workspace]), not ",
                          s.ToString(false)));
  }
  if (auto st = CheckFloat(c, ops, 0, "q", nullptr); !st.ok()) return st;
  const PrimitiveType type = ops[0]->array().element_type();
  const size_t o_index = c.bias ? 6 : 5;
  const std::pair<size_t, const char*> same[] = {{1, "k"}, {2, "v"}, {4, "d_o"}, {o_index, "o"}};
  for (const auto& [i, name] : same) {
    if (auto st = CheckFloat(c, ops, i, name, &type); !st.ok()) return st;
  }
  if (auto st = CheckFloat(c, ops, 3, "stats", nullptr); !st.ok()) return st;
  if (type == PrimitiveType::kF64) return Backward<double>(inst, ops, c);
  return Backward<float>(inst, ops, c);
}

}  // namespace hlo::gpu::fmha
