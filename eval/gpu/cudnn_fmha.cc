// XLA:GPU's cuDNN fused attention (xla/service/gpu/cublas_cudnn.h; operands
// and results as xla/backends/gpu/transforms/cudnn_custom_call_compiler.cc
// reads them, the graph as xla/stream_executor/cuda/cuda_dnn.cc builds it):
//
//   __cudnn$fmhaSoftmax[Dropout] (q, k, v[, seq_q, seq_kv])
//   __cudnn$fmhaScaleBiasSoftmax[Dropout] (q, k, v, bias[, seq_q, seq_kv])
//     -> (o[, stats], u8[workspace])
//
// with S = fmha_scale * q.k^T (bmm1_dot_dimension_numbers) + bias, masked, P =
// softmax(S) along the keys, o = P.v (bmm2_dot_dimension_numbers' rhs); stats,
// the softmax statistics the backward call takes, is the log-sum-exp of each
// row of S (its max plus the log of the sum of exp(S - max), as
// cudnn-frontend's softmax node writes its Stats). q and k are read as [B, H,
// S, D] and v as [B, H, Skv, Dv] through the dot dimension numbers; o, stats
// and bias are [B, H, Sq, Dv], [B, H, Sq] and [B|1, H|1, Sq|1, Skv|1] in their
// own dim order, whatever their layouts. Masks (mask_type): CAUSAL hides key j
// > query i (top-left aligned, as XLA's causal reference modules build it);
// PADDING takes seq_q and seq_kv (one length per batch) and hides keys j >=
// seq_kv[b] and whole queries i >= seq_q[b]; PADDING_CAUSAL both;
// sliding_window_length w > 0 also hides keys j <= i - w (cudnn-frontend's
// masks: a top-left causal diagonal, a left bound keeping j + w > i, padding by
// the two lengths). A query that sees no key gets a zero output row and stats
// -inf (XLA's padding test expects zeros past seq_q). The arithmetic runs in
// f32 (cuda_dnn.cc sets cuDNN's compute and intermediate data types to FLOAT;
// f64 for f64 operands, as --precision=f64 makes them) and rounds once to the
// result types. Refused with an error: dropout (dropout_rate > 0: cuDNN's
// Philox mask cannot be reproduced), ALIBI (cuda_dnn.cc sets no ALiBi option:
// its meaning is not in XLA's sources), packed segments (max_seg_per_batch >
// 1), paged attention, score_mod computations, and the f8 targets (their
// intermediate f8 quantisation with scale and amax operands is cuDNN's own).
#include "eval/gpu/cudnn_fmha.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "eval/gpu/float_codec.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/kernels/strided_axes.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/float_formats.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace fmha {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> s(shape.rank(), 1);
  for (int64_t i = shape.rank() - 2; i >= 0; --i) s[i] = s[i + 1] * shape.dim(i + 1);
  return s;
}

// The mask types of CudnnfMHABackendConfig.MaskType, by name or number.
absl::Status ReadMask(Config& c) {
  absl::StatusOr<std::string> m = EnumField(c.message, "mask_type", "NO_MASK");
  if (!m.ok()) return m.status();
  std::string mask = *m;
  const char* names[] = {"NO_MASK", "PADDING", "CAUSAL", "PADDING_CAUSAL", "ALIBI"};
  for (int i = 0; i < 5; ++i) {
    if (mask == StrCat(i)) mask = names[i];
  }
  if (mask == "ALIBI") {
    return Invalid(StrCat("custom-call ", c.target,
                          ": mask_type ALIBI is not implemented (XLA's cuDNN graph sets no ALiBi "
                          "option, so its meaning is not in XLA's sources)"));
  }
  if (mask != "NO_MASK" && mask != "PADDING" && mask != "CAUSAL" && mask != "PADDING_CAUSAL") {
    return Invalid(
        StrCat("custom-call ", c.target, ": mask_type ", *m, " is not one hlo-run knows"));
  }
  c.padding = mask == "PADDING" || mask == "PADDING_CAUSAL";
  c.causal = mask == "CAUSAL" || mask == "PADDING_CAUSAL";
  absl::StatusOr<bool> old_causal = BoolField(c.message, "is_causal_mask", false);
  if (!old_causal.ok()) return old_causal.status();
  if (*old_causal && !c.causal) {
    return Invalid(
        StrCat("custom-call ", c.target, ": is_causal_mask true conflicts with mask_type ", mask));
  }
  return absl::OkStatus();
}

// The options hlo-run does not implement, each a located error.
absl::Status Refusals(const Instruction& inst, const Config& c) {
  absl::StatusOr<double> rate = DoubleField(c.message, "dropout_rate", 0);
  if (!rate.ok()) return rate.status();
  if (*rate != 0) {
    return Invalid(StrCat("custom-call ", c.target, " with dropout_rate ", *rate,
                          ": cuDNN draws the dropout mask from its Philox stream, which hlo-run "
                          "cannot reproduce"));
  }
  absl::StatusOr<int64_t> segs = IntField(c.message, "max_seg_per_batch", 0);
  if (!segs.ok()) return segs.status();
  if (*segs > 1) {
    return Invalid(StrCat("custom-call ", c.target, ": packed sequences (max_seg_per_batch ", *segs,
                          ") are not implemented"));
  }
  absl::StatusOr<bool> paged = BoolField(c.message, "is_paged_attention", false);
  if (!paged.ok()) return paged.status();
  if (*paged) {
    return Invalid(StrCat("custom-call ", c.target, ": paged attention is not implemented"));
  }
  if (!inst.called_computations().empty()) {
    return Invalid(StrCat("custom-call ", c.target,
                          ": a score_mod computation (called_computations) is not implemented"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<View> MatmulView(const Config& c, const Shape& shape, const DotSide& side,
                                bool contracting_last, const std::string& what) {
  if (!shape.IsArray() || shape.rank() != 4 || side.batch.size() != 2 ||
      side.contracting.size() != 1) {
    return Invalid(StrCat("custom-call ", c.target, ": ", what,
                          " must be 4-d with 2 batch and 1 contracting dimensions, not ",
                          shape.ToString(false), " with batch {", StrJoin(side.batch, ","),
                          "} and contracting {", StrJoin(side.contracting, ","), "}"));
  }
  bool used[4] = {false, false, false, false};
  int64_t order[4];
  const int64_t named[3] = {side.batch[0], side.batch[1], side.contracting[0]};
  for (int64_t n : named) {
    if (n < 0 || n > 3 || used[n]) {
      return Invalid(StrCat("custom-call ", c.target, ": ", what, "'s batch {",
                            StrJoin(side.batch, ","), "} and contracting {",
                            StrJoin(side.contracting, ","),
                            "} dimensions are not distinct dimensions of a 4-d array"));
    }
    used[n] = true;
  }
  const int64_t free = std::find(used, used + 4, false) - used;
  order[0] = side.batch[0];
  order[1] = side.batch[1];
  order[2] = contracting_last ? free : side.contracting[0];
  order[3] = contracting_last ? side.contracting[0] : free;
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  View v;
  for (int k = 0; k < 4; ++k) {
    v.dim[k] = shape.dim(order[k]);
    v.stride[k] = strides[order[k]];
  }
  return v;
}

absl::StatusOr<View> PlainView(const Config& c, const Shape& shape, const std::string& what) {
  if (!shape.IsArray() || shape.rank() != 4) {
    return Invalid(
        StrCat("custom-call ", c.target, ": ", what, " must be 4-d, not ", shape.ToString(false)));
  }
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  View v;
  for (int k = 0; k < 4; ++k) {
    v.dim[k] = shape.dim(k);
    v.stride[k] = strides[k];
  }
  return v;
}

absl::StatusOr<DotSide> ReadDotSide(const Config& c, std::string_view field, bool lhs) {
  const Json& config = c.message;
  if (!config.is_object() || !config.contains(std::string(field)) ||
      !config[std::string(field)].is_object()) {
    return Invalid(StrCat("custom-call ", c.target, ": cudnn_fmha_backend_config needs ", field));
  }
  const Json& m = config[std::string(field)];
  DotSide side;
  absl::StatusOr<std::vector<int64_t>> b =
      IntListField(m, lhs ? "lhs_batch_dimensions" : "rhs_batch_dimensions");
  if (!b.ok()) return b.status();
  absl::StatusOr<std::vector<int64_t>> contracting =
      IntListField(m, lhs ? "lhs_contracting_dimensions" : "rhs_contracting_dimensions");
  if (!contracting.ok()) return contracting.status();
  side.batch = *std::move(b);
  side.contracting = *std::move(contracting);
  return side;
}

absl::StatusOr<Config> ReadConfig(const Instruction& inst, bool bias) {
  Config c;
  c.target = TargetOf(inst);
  c.bias = bias;
  absl::StatusOr<Json> m = ConfigMessage(inst, "cudnn_fmha_backend_config");
  if (!m.ok()) return m.status();
  c.message = *std::move(m);
  if (auto st = Refusals(inst, c); !st.ok()) return st;
  if (auto st = ReadMask(c); !st.ok()) return st;
  // proto3: an absent fmha_scale is 0 (XLA's rewriter writes 1 when unscaled).
  absl::StatusOr<double> scale = DoubleField(c.message, "fmha_scale", 0);
  if (!scale.ok()) return scale.status();
  c.scale = *scale;
  absl::StatusOr<int64_t> window = IntField(c.message, "sliding_window_length", 0);
  if (!window.ok()) return window.status();
  c.window = *window > 0 ? *window : 0;  // "ignored if the value <= 0"
  return c;
}

absl::StatusOr<Dims> CheckQkv(const Config& c, const View& q, const View& k, const View& v) {
  Dims d{q.dim[0], q.dim[1], k.dim[1], q.dim[2], k.dim[2], q.dim[3], v.dim[3]};
  for (int i = 0; i < 4; ++i) {
    if (q.dim[i] == 0 || k.dim[i] == 0 || v.dim[i] == 0) {
      return Invalid(StrCat("custom-call ", c.target,
                            ": cuDNN attention takes no zero-size dimension (q [",
                            StrJoin(q.dim, ","), "], k [", StrJoin(k.dim, ","), "], v [",
                            StrJoin(v.dim, ","), "] as [B, H, S, D])"));
    }
  }
  if (k.dim[0] != d.b || v.dim[0] != d.b || v.dim[1] != d.hk || k.dim[3] != d.d ||
      v.dim[2] != d.skv || d.hq % d.hk != 0) {
    return Invalid(StrCat("custom-call ", c.target, ": q [", StrJoin(q.dim, ","), "], k [",
                          StrJoin(k.dim, ","), "] and v [", StrJoin(v.dim, ","),
                          "] (as [B, H, S, D] through the dot dimension numbers) do not fit: "
                          "the batches, k's and v's heads and sequences, q's and k's features "
                          "must agree, and k's heads divide q's"));
  }
  return d;
}

absl::Status CheckDims(const Config& c, const View& view, const int64_t (&want)[4],
                       const std::string& what) {
  if (std::equal(view.dim, view.dim + 4, want)) return absl::OkStatus();
  return Invalid(StrCat("custom-call ", c.target, ": ", what, " must be [", StrJoin(want, ","),
                        "], not [", StrJoin(view.dim, ","), "]"));
}

absl::Status CheckBiasDims(const Config& c, const View& bias, const Dims& d,
                           const std::string& what) {
  const int64_t full[4] = {d.b, d.hq, d.sq, d.skv};
  for (int i = 0; i < 4; ++i) {
    if (bias.dim[i] != 1 && bias.dim[i] != full[i]) {
      return Invalid(StrCat("custom-call ", c.target, ": ", what, " [", StrJoin(bias.dim, ","),
                            "] must have each dimension 1 or that of [B, H, Sq, Skv] = [",
                            StrJoin(full, ","), "]"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckFloat(const Config& c, Operands ops, size_t i, const std::string& what,
                        const PrimitiveType* type) {
  if (!ops[i]->is_array()) {
    return Invalid(StrCat("operand ", i, " (", what, ") of ", c.target, " is a tuple"));
  }
  const PrimitiveType t = ops[i]->array().element_type();
  if (!IsFloat(t) || (type != nullptr && t != *type)) {
    return Invalid(StrCat("operand ", i, " (", what, ") of ", c.target, " must be ",
                          type != nullptr ? PrimitiveTypeName(*type) : "a float type", ", not ",
                          PrimitiveTypeName(t)));
  }
  return absl::OkStatus();
}

template <typename T>
std::vector<T> Gather(const Literal& lit, const View& view) {
  std::vector<T> out;
  out.reserve(lit.element_count());
  auto gather = [&](auto read) {
    for (int64_t a = 0; a < view.dim[0]; ++a) {
      for (int64_t b = 0; b < view.dim[1]; ++b) {
        for (int64_t c = 0; c < view.dim[2]; ++c) {
          int64_t at = a * view.stride[0] + b * view.stride[1] + c * view.stride[2];
          for (int64_t d = 0; d < view.dim[3]; ++d, at += view.stride[3]) {
            out.push_back(static_cast<T>(read(at)));
          }
        }
      }
    }
  };
  // Typed reads of the common types, each the value GetDouble gives.
  switch (lit.element_type()) {
    case PrimitiveType::kF32:
      gather([p = lit.typed<float>()](int64_t at) { return p[at]; });
      break;
    case PrimitiveType::kF64:
      gather([p = lit.typed<double>()](int64_t at) { return p[at]; });
      break;
    case PrimitiveType::kBF16:
    case PrimitiveType::kF16:
      gather([p = reinterpret_cast<const uint16_t*>(lit.data()),
              t = lit.element_type()](int64_t at) { return WidenHalf(t, p[at]); });
      break;
    default:
      gather([&lit](int64_t at) { return lit.GetDouble(at); });
      break;
  }
  return out;
}

// acc[j] += a * row[j]: each lane's multiply, then its add.
template <typename T>
HLO_VECTOR_CLONES void AddScaledRow(T* __restrict acc, T a, const T* __restrict row, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += a * row[j];
}

template <typename T>
HLO_VECTOR_CLONES void AddScaledRows4(T* __restrict acc, T a0, T a1, T a2, T a3,
                                      const T* __restrict r0, const T* __restrict r1,
                                      const T* __restrict r2, const T* __restrict r3, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    T x = acc[j];
    x += a0 * r0[j];
    x += a1 * r1[j];
    x += a2 * r2[j];
    x += a3 * r3[j];
    acc[j] = x;
  }
}

template <typename T>
void AddScaledRows(T* acc, const T* a, const T* rows, int64_t stride, int64_t count, int64_t n) {
  int64_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const T* at = rows + r * stride;
    AddScaledRows4(acc, a[r], a[r + 1], a[r + 2], a[r + 3], at, at + stride, at + 2 * stride,
                   at + 3 * stride, n);
  }
  for (; r < count; ++r) AddScaledRow(acc, a[r], rows + r * stride, n);
}

// Each key's dot with query i accumulates over e from 0, one product at a
// time, as a dot of its own would; the keys go side by side (k transposed),
// so the lanes are the keys, not the terms of one sum.
template <typename T>
void Problem<T>::Scores(int64_t b, int64_t h, int64_t i, std::vector<T>& s) const {
  const int64_t hk = h / (d.hq / d.hk);
  const T* qi = &q[((b * d.hq + h) * d.sq + i) * d.d];
  const T* kb = &kt[(b * d.hk + hk) * d.d * d.skv];
  const View& bv = bias_view;
  s.assign(d.skv, 0);
  AddScaledRows(s.data(), qi, kb, d.skv, d.d, d.skv);
  for (int64_t j = 0; j < d.skv; ++j) {
    s[j] = scale * s[j];
    if (!bias.empty()) {
      s[j] += bias[b * bv.stride[0] + h * bv.stride[1] + i * bv.stride[2] + j * bv.stride[3]];
    }
  }
}

template <typename T>
std::vector<T> TransposedRows(const std::vector<T>& x, int64_t heads, int64_t rows, int64_t cols) {
  std::vector<T> t(x.size());
  // Per head, to[e * rows + j] = from[j * cols + e] (the data kernels' tiled transpose).
  data_internal::StridedCopy(sizeof(T), reinterpret_cast<uint8_t*>(t.data()),
                             reinterpret_cast<const uint8_t*>(x.data()),
                             {{heads, rows * cols, rows * cols}, {rows, 1, cols}, {cols, rows, 1}});
  return t;
}

template <typename T>
absl::Status FillProblem(const Config& c, Operands ops, size_t bias_index, size_t seq_index,
                         Problem<T>& p) {
  p.kt = TransposedRows(p.k, p.d.b * p.d.hk, p.d.skv, p.d.d);
  p.causal = c.causal;
  p.padding = c.padding;
  p.window = c.window;
  p.scale = static_cast<T>(c.scale);
  size_t next = bias_index;
  if (c.bias) {
    if (auto st = CheckFloat(c, ops, next, "bias", nullptr); !st.ok()) return st;
    const Literal& bias = ops[next]->array();
    absl::StatusOr<View> bv = PlainView(c, bias.shape(), "the bias");
    if (!bv.ok()) return bv.status();
    if (auto st = CheckBiasDims(c, *bv, p.d, "the bias"); !st.ok()) return st;
    p.bias = Gather<T>(bias, *bv);
    p.bias_view = *bv;
    for (int i = 0; i < 4; ++i) {
      if (bv->dim[i] == 1) p.bias_view.stride[i] = 0;  // broadcast
    }
  }
  p.seq_q.assign(p.d.b, p.d.sq);
  p.seq_kv.assign(p.d.b, p.d.skv);
  if (!c.padding) return absl::OkStatus();
  next = seq_index;
  for (int side = 0; side < 2; ++side, ++next) {
    const char* what = side == 0 ? "seq_q" : "seq_kv";
    if (!ops[next]->is_array() || !IsInteger(ops[next]->array().element_type()) ||
        ops[next]->array().element_count() != p.d.b) {
      return Invalid(StrCat("operand ", next, " (", what, ") of ", c.target,
                            " must hold one integer per batch (", p.d.b, ")"));
    }
    std::vector<int64_t>& len = side == 0 ? p.seq_q : p.seq_kv;
    const int64_t full = side == 0 ? p.d.sq : p.d.skv;
    for (int64_t b = 0; b < p.d.b; ++b) {
      len[b] = std::clamp<int64_t>(ops[next]->array().GetInt(b), 0, full);
    }
  }
  return absl::OkStatus();
}

template void AddScaledRow<float>(float*, float, const float*, int64_t);
template void AddScaledRow<double>(double*, double, const double*, int64_t);
template void AddScaledRows<float>(float*, const float*, const float*, int64_t, int64_t, int64_t);
template void AddScaledRows<double>(double*, const double*, const double*, int64_t, int64_t,
                                    int64_t);
template std::vector<float> TransposedRows<float>(const std::vector<float>&, int64_t, int64_t,
                                                  int64_t);
template std::vector<double> TransposedRows<double>(const std::vector<double>&, int64_t, int64_t,
                                                    int64_t);
template struct Problem<float>;
template struct Problem<double>;
template std::vector<float> Gather<float>(const Literal&, const View&);
template std::vector<double> Gather<double>(const Literal&, const View&);
template absl::Status FillProblem<float>(const Config&, Operands, size_t, size_t, Problem<float>&);
template absl::Status FillProblem<double>(const Config&, Operands, size_t, size_t,
                                          Problem<double>&);

namespace {

// The forward call's operands read into `p`, checked with its results'
// shapes (o, and stats when the call returns them).
template <typename T>
absl::Status ReadForward(const Instruction& inst, Operands ops, const Config& c, Problem<T>& p) {
  absl::StatusOr<DotSide> q_side = ReadDotSide(c, "bmm1_dot_dimension_numbers", true);
  if (!q_side.ok()) return q_side.status();
  absl::StatusOr<DotSide> k_side = ReadDotSide(c, "bmm1_dot_dimension_numbers", false);
  if (!k_side.ok()) return k_side.status();
  absl::StatusOr<DotSide> v_side = ReadDotSide(c, "bmm2_dot_dimension_numbers", false);
  if (!v_side.ok()) return v_side.status();
  absl::StatusOr<View> q = MatmulView(c, ops[0]->array().shape(), *q_side, true, "q (operand 0)");
  if (!q.ok()) return q.status();
  absl::StatusOr<View> k = MatmulView(c, ops[1]->array().shape(), *k_side, true, "k (operand 1)");
  if (!k.ok()) return k.status();
  absl::StatusOr<View> v = MatmulView(c, ops[2]->array().shape(), *v_side, false, "v (operand 2)");
  if (!v.ok()) return v.status();
  absl::StatusOr<Dims> d = CheckQkv(c, *q, *k, *v);
  if (!d.ok()) return d.status();
  p.d = *d;
  const Shape& s = inst.shape();
  absl::StatusOr<View> o = PlainView(c, s.tuple_shape(0), "the output (result 0)");
  if (!o.ok()) return o.status();
  if (auto st = CheckDims(c, *o, {d->b, d->hq, d->sq, d->dv}, "the output (result 0)"); !st.ok()) {
    return st;
  }
  if (s.tuple_size() == 3) {
    const Shape& stats = s.tuple_shape(1);
    if (!stats.IsArray() || !IsFloat(stats.element_type()) || stats.rank() != 3 ||
        stats.dim(0) != d->b || stats.dim(1) != d->hq || stats.dim(2) != d->sq) {
      return Invalid(StrCat("custom-call ", c.target, ": the softmax stats (result 1) must be [",
                            d->b, ",", d->hq, ",", d->sq, "] of a float type, not ",
                            stats.ToString(false)));
    }
  }
  p.q = Gather<T>(ops[0]->array(), *q);
  p.k = Gather<T>(ops[1]->array(), *k);
  p.v = Gather<T>(ops[2]->array(), *v);
  return FillProblem(c, ops, 3, c.bias ? 4 : 3, p);
}

// The rows of one (batch, head) pair.
template <typename T>
void AttendHead(const Problem<T>& p, int64_t b, int64_t h, Literal& o, Literal* stats) {
  const Dims& d = p.d;
  std::vector<T> s, acc(d.dv);
  const T* vb = &p.v[(b * d.hk + h / (d.hq / d.hk)) * d.skv * d.dv];
  for (int64_t i = 0; i < d.sq; ++i) {
    const int64_t row = (b * d.hq + h) * d.sq + i;
    p.Scores(b, h, i, s);
    T max = -std::numeric_limits<T>::infinity();
    bool any = false;
    for (int64_t j = 0; j < d.skv; ++j) {
      if (p.Allowed(b, i, j)) any = true, max = std::max(max, s[j]);
    }
    std::fill(acc.begin(), acc.end(), T(0));
    T sum = 0;
    for (int64_t j = 0; any && j < d.skv; ++j) {
      if (!p.Allowed(b, i, j)) continue;
      const T e = std::exp(s[j] - max);
      sum += e;
      AddScaledRow(acc.data(), e, vb + j * d.dv, d.dv);
    }
    for (int64_t f = 0; f < d.dv; ++f) acc[f] = any ? acc[f] / sum : T(0);
    StoreRowLikeSetDouble(o, row * d.dv, acc.data(), d.dv);
    if (stats != nullptr) {
      StoreLikeSetDouble(*stats, row,
                         any ? max + std::log(sum) : -std::numeric_limits<double>::infinity());
    }
  }
}

// softmax(S).v per query row, and the row's log-sum-exp; the (batch, head)
// pairs go to the cores.
template <typename T>
void Attend(const Problem<T>& p, Literal& o, Literal* stats) {
  const Dims& d = p.d;
  ParallelRows(d.b * d.hq, 1, [&](int64_t begin, int64_t end) {
    for (int64_t bh = begin; bh < end; ++bh) AttendHead(p, bh / d.hq, bh % d.hq, o, stats);
  });
}

template <typename T>
absl::StatusOr<Value> Forward(const Instruction& inst, Operands ops, const Config& c) {
  Problem<T> p;
  if (auto st = ReadForward(inst, ops, c, p); !st.ok()) return st;
  const Shape& s = inst.shape();
  absl::StatusOr<Value> o = NewArray(s.tuple_shape(0));
  if (!o.ok()) return o;
  std::vector<Value> results;
  results.push_back(*std::move(o));
  if (s.tuple_size() == 3) {
    absl::StatusOr<Value> stats = NewArray(s.tuple_shape(1));
    if (!stats.ok()) return stats;
    results.push_back(*std::move(stats));
  }
  Attend(p, results[0].mutable_array(),
         results.size() == 2 ? &results[1].mutable_array() : nullptr);
  return WithWorkspaces(inst, std::move(results));
}

absl::StatusOr<Value> EvalForward(const Instruction& inst, Operands ops, bool bias) {
  absl::StatusOr<Config> c = ReadConfig(inst, bias);
  if (!c.ok()) return c.status();
  const size_t want = 3 + (bias ? 1 : 0) + (c->padding ? 2 : 0);
  if (ops.size() != want) {
    return Invalid(StrCat("custom-call ", c->target, " takes ", want, " operands (q, k, v",
                          bias ? ", bias" : "", c->padding ? ", seq_q, seq_kv" : "", "), not ",
                          ops.size()));
  }
  const Shape& s = inst.shape();
  if (!s.IsTuple() || (s.tuple_size() != 2 && s.tuple_size() != 3)) {
    return Invalid(StrCat("custom-call ", c->target,
                          " returns (output[, softmax stats], u8[workspace]), not ",
                          s.ToString(false)));
  }
  if (auto st = CheckFloat(*c, ops, 0, "q", nullptr); !st.ok()) return st;
  const PrimitiveType type = ops[0]->array().element_type();
  for (size_t i = 1; i < 3; ++i) {
    if (auto st = CheckFloat(*c, ops, i, i == 1 ? "k" : "v", &type); !st.ok()) return st;
  }
  if (!s.tuple_shape(0).IsArray() || s.tuple_shape(0).element_type() != type) {
    return Invalid(StrCat("custom-call ", c->target, ": the output (result 0) must be ",
                          PrimitiveTypeName(type), " as q is, not ",
                          s.tuple_shape(0).ToString(false)));
  }
  if (type == PrimitiveType::kF64) return Forward<double>(inst, ops, *c);
  return Forward<float>(inst, ops, *c);
}

}  // namespace
}  // namespace fmha

absl::StatusOr<Value> EvalCudnnFmhaSoftmax(const Instruction& inst, Operands ops, KernelContext&) {
  return fmha::EvalForward(inst, ops, /*bias=*/false);
}

absl::StatusOr<Value> EvalCudnnFmhaScaleBiasSoftmax(const Instruction& inst, Operands ops,
                                                    KernelContext&) {
  return fmha::EvalForward(inst, ops, /*bias=*/true);
}

absl::StatusOr<Value> EvalCudnnFmhaSoftmaxBackward(const Instruction& inst, Operands ops,
                                                   KernelContext&) {
  absl::StatusOr<fmha::Config> c = fmha::ReadConfig(inst, /*bias=*/false);
  if (!c.ok()) return c.status();
  return fmha::EvalBackward(inst, ops, *c);
}

absl::StatusOr<Value> EvalCudnnFmhaScaleBiasSoftmaxBackward(const Instruction& inst, Operands ops,
                                                            KernelContext&) {
  absl::StatusOr<fmha::Config> c = fmha::ReadConfig(inst, /*bias=*/true);
  if (!c.ok()) return c.status();
  return fmha::EvalBackward(inst, ops, *c);
}

absl::StatusOr<Value> EvalCudnnFmhaF8(const Instruction& inst, Operands, KernelContext&) {
  return absl::UnimplementedError(
      StrCat("custom-call ", TargetOf(inst),
             " is not implemented: cuDNN's f8 attention quantises its intermediate softmax to f8 "
             "with the call's scale operands and returns amax values, which hlo-run does not "
             "reproduce"));
}

}  // namespace hlo::gpu
