// dot, dot_general and convolution on quantized tensors, by the rules of
// StableHLO's stablehlo-legalize-quant-to-math pass:
// - lhs per-tensor, rhs and result both per-tensor or both per-axis: the
//   storage integers are multiplied into i32 and
//     result = dot(lhs, rhs) * combined_scale + res_zp - zp_offset * combined_scale,
//     combined_scale = lhs_scale * rhs_scale / res_scale (per-axis: of channel 0),
//     zp_offset = rhs_zp * sum(lhs) + lhs_zp * sum(rhs) - lhs_zp * rhs_zp * K,
//   each product by combined_scale done in f32 and truncated to i32 (skipped
//   when it is within 0.001 of 1), the result converted to the storage type
//   without clamping. A convolution takes this path only in NHWC, NCHW,
//   NDHWC or NCDHW layout, without lhs dilation and with zero kernel zero
//   points (padding becomes an explicit pad with the lhs zero point);
// - float lhs, quantized rhs, float result ("hybrid", weight-only): the
//   rhs is dequantized and the op runs in f32;
// - anything else: dequantize -> op in f32 -> quantize.
// The pass's own quirks are kept, since its results are the reference:
// zero-point sums are broadcast with batch dimensions in ascending order,
// and NCDHW reads the kernel as [i, o, spatial...] but sums it over
// dimension 1.
#include <cmath>
#include <cstdint>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/op_util.h"
#include "stablehlo/quant.h"

namespace hlo::stablehlo::quant {

namespace {

struct DotLikeDims {
  std::vector<int64_t> lhs_batch, lhs_spatial, lhs_contracting;
  std::vector<int64_t> rhs_batch, rhs_spatial, rhs_contracting;
};

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v) {
    if (e == x) return true;
  }
  return false;
}

std::vector<int64_t> Concat(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

absl::Status DotDims(Translator& t, const Op& op, size_t lhs_rank, DotLikeDims* d) {
  if (op.name == "stablehlo.dot") {
    d->lhs_contracting = {lhs_rank == 1 ? 0 : 1};
    d->rhs_contracting = {0};
    return absl::OkStatus();
  }
  const Attr* dn = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"dot_dimension_numbers"}, &dn));
  for (auto [key, v] : {std::pair{"lhs_batching_dimensions", &d->lhs_batch},
                        {"rhs_batching_dimensions", &d->rhs_batch},
                        {"lhs_contracting_dimensions", &d->lhs_contracting},
                        {"rhs_contracting_dimensions", &d->rhs_contracting}}) {
    if (const Attr* a = dn->Find(key)) HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *a, key, v));
  }
  return absl::OkStatus();
}

// The convolution's dimensions when the integer path takes it (false when
// it falls back to float).
absl::StatusOr<bool> ConvDims(Translator& t, const Op& op, const QuantParams& rhs,
                              const QuantParams& res, int64_t rhs_rank, DotLikeDims* d) {
  for (int64_t zp :
       Concat(rhs.zero_points, res.per_axis() ? res.zero_points : std::vector<int64_t>{})) {
    if (zp != 0) return false;
  }
  if (rhs.per_axis()) {
    if (rhs.axis != rhs_rank - 1) return false;
    const double ratio0 = res.scales[0] / rhs.scales[0];
    for (size_t i = 0; i < res.scales.size() && i < rhs.scales.size(); ++i) {
      const double ratio = res.scales[i] / rhs.scales[i];
      if (std::abs((ratio - ratio0) / ratio0) > 0.001) return false;
    }
  }
  std::vector<int64_t> lhs_dilation;
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"lhs_dilation"}, &lhs_dilation));
  for (int64_t x : lhs_dilation) {
    if (x != 1) return false;
  }
  const Attr* dn = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"dimension_numbers"}, &dn));
  std::string labels;
  std::vector<int64_t> kernel_spatial;
  HLO_RETURN_IF_ERROR(ConvLabels(t, *dn, &labels, &kernel_spatial));
  if (labels == "b01f_01io->b01f") {
    *d = {{0}, {1, 2}, {3}, {}, {0, 1}, {2}};
  } else if (labels == "bf01_oi01->bf01") {
    *d = {{0}, {2, 3}, {1}, {}, {2, 3}, {1}};
  } else if (labels == "b012f_012io->b012f") {
    *d = {{0}, {1, 2, 3}, {4}, {}, {0, 1, 2}, {3}};
  } else if (labels == "bf012_io012->bf012") {
    *d = {{0}, {2, 3, 4}, {1}, {}, {2, 3, 4}, {1}};
  } else {
    return false;
  }
  return true;
}

// sum over `dims` of `v` (as i32) times `other_zp`, broadcast to `out`:
// kept batch dimensions in ascending order first, then the others from
// `free_start` on.
absl::StatusOr<std::string> ZeroPointPart(Translator& t, Scope& s, const Op& op, const Value& v,
                                          int64_t other_zp, const std::vector<int64_t>& dims,
                                          const std::vector<int64_t>& batch, int64_t free_start,
                                          const Type& out) {
  Type whole = Plain(v.type, "s32");
  Builder b{t, s, op, whole};
  std::string x = b.Un("convert", v.name, whole);
  Type reduced = whole;
  reduced.dims.clear();
  std::vector<int64_t> map;
  int64_t next_batch = 0, next_free = free_start;
  for (size_t i = 0; i < whole.dims.size(); ++i) {
    if (Contains(dims, static_cast<int64_t>(i))) continue;
    reduced.dims.push_back(whole.dims[i]);
    map.push_back(Contains(batch, static_cast<int64_t>(i)) ? next_batch++ : next_free++);
  }
  Type scalar = Plain(whole, "s32");
  scalar.dims.clear();
  const std::string zero = t.Emit(s, op, "constant", scalar, "constant(0)");
  std::string sum = t.Emit(s, op, "reduce", reduced,
                           StrCat("reduce(", x, ", ", zero, "), dimensions=", IntList(dims),
                                  ", to_apply=", t.ScalarComputation("add", "s32")));
  Builder rb{t, s, op, reduced};
  sum = rb.Bin("multiply", sum, rb.Const(StrCat(static_cast<int32_t>(other_zp)), reduced), reduced);
  return BroadcastTo(t, s, op, Value{sum, reduced}, out, map, op.pos);
}

// zp_offset = rhs_zp * sum(lhs) + lhs_zp * sum(rhs) - lhs_zp * rhs_zp * K
// (empty when both zero points are).
absl::StatusOr<std::string> ZeroPointOffset(Translator& t, Scope& s, const Op& op, const Value& lhs,
                                            const Value& rhs, int64_t lhs_zp, int64_t rhs_zp,
                                            const Type& out, const DotLikeDims& d) {
  Builder b{t, s, op, out};
  std::string result;
  if (rhs_zp != 0) {
    HLO_ASSIGN_OR_RETURN(
        result, ZeroPointPart(t, s, op, lhs, rhs_zp, Concat(d.lhs_spatial, d.lhs_contracting),
                              d.lhs_batch, static_cast<int64_t>(d.lhs_batch.size()), out));
  }
  if (lhs_zp != 0) {
    int64_t free_start =
        static_cast<int64_t>(lhs.type.dims.size()) - static_cast<int64_t>(d.lhs_contracting.size());
    if (!d.lhs_spatial.empty() && !d.rhs_spatial.empty()) free_start = d.lhs_contracting[0];
    HLO_ASSIGN_OR_RETURN(std::string part, ZeroPointPart(t, s, op, rhs, lhs_zp,
                                                         Concat(d.rhs_spatial, d.rhs_contracting),
                                                         d.rhs_batch, free_start, out));
    result = result.empty() ? part : b.Bin("add", result, part, out);
  }
  if (lhs_zp != 0 && rhs_zp != 0) {
    uint32_t k = 1;  // i32 arithmetic, wrapping as the pass's
    for (int64_t i : Concat(d.rhs_spatial, d.rhs_contracting)) {
      k *= static_cast<uint32_t>(rhs.type.dims[i]);
    }
    const uint32_t zz = static_cast<uint32_t>(static_cast<int32_t>(lhs_zp)) *
                        static_cast<uint32_t>(static_cast<int32_t>(rhs_zp)) * k;
    result = b.Bin("subtract", result, b.Const(StrCat(static_cast<int32_t>(zz)), out), out);
  }
  return result;
}

// Weight-only: op(lhs, dequantize(rhs)) in f32.
absl::Status Hybrid(Translator& t, const Op& op, Scope& s, std::vector<Value> in) {
  const QuantParams& q = *in[1].type.quant;
  if (q.expressed != "f32" || in[0].type.element != "f32") {
    return t.Error(op.name_pos,
                   StrCat(op.name, " of ", in[0].type.Mlir(), " and ", in[1].type.Mlir(),
                          ": StableHLO's quantized lowering computes in f32 only"));
  }
  Builder b{t, s, op, Plain(in[1].type, "f32")};
  std::string f = b.Un("convert", in[1].name, b.type);
  bool any_zp = false;
  for (int64_t zp : q.zero_points) any_zp = any_zp || zp != 0;
  if (any_zp) f = b.Bin("subtract", f, Param(b, "f32", ZeroPointTexts(q, true), q.axis), b.type);
  f = b.Bin("multiply", f, Param(b, "f32", ScaleTexts(q), q.axis), b.type);
  in[1] = Value{f, b.type};
  HLO_ASSIGN_OR_RETURN(std::vector<Value> out, Reissue(t, s, op, in, op.result_types, op.attrs));
  return Bind(t, s, op, out);
}

// The lhs padded explicitly with its zero point (a convolution's padding
// would add zeros, which are not the zero point's value); the attributes
// without the padding.
absl::Status PadWithZeroPoint(Translator& t, Scope& s, const Op& op, const DotLikeDims& d,
                              Value* lhs, std::vector<NamedAttr>* attrs) {
  std::vector<std::vector<int64_t>> pad;
  if (const Attr* p = op.FindAttr("padding")) {
    HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *p, "padding", &pad));
  }
  bool any = false;
  for (const auto& p : pad) any = any || (p.size() == 2 && (p[0] != 0 || p[1] != 0));
  if (!any) return absl::OkStatus();
  if (pad.size() != d.lhs_spatial.size()) {
    return t.Error(op.name_pos, "padding needs a [low, high] pair per spatial dimension");
  }
  const QuantParams& q = *lhs->type.quant;
  Type padded = lhs->type;
  std::vector<std::string> config(padded.dims.size(), "0_0");
  for (size_t i = 0; i < d.lhs_spatial.size(); ++i) {
    const int64_t dim = d.lhs_spatial[i];
    if (pad[i].size() != 2 || pad[i][0] < 0 || pad[i][1] < 0) {
      return t.Error(op.name_pos, "negative padding of a quantized convolution");
    }
    padded.dims[dim] += pad[i][0] + pad[i][1];
    config[dim] = StrCat(pad[i][0], "_", pad[i][1]);
  }
  Type scalar = Plain(lhs->type, q.storage);
  scalar.dims.clear();
  // The pass builds the zero point as an i8 constant.
  const std::string zp =
      t.Emit(s, op, "constant", scalar,
             StrCat("constant(", static_cast<int>(static_cast<int8_t>(q.zero_points[0])), ")"));
  const std::string name =
      t.Emit(s, op, "pad", padded,
             StrCat("pad(", lhs->name, ", ", zp, "), padding=", StrJoin(config, "x")));
  *lhs = Value{name, padded};
  std::erase_if(*attrs, [](const NamedAttr& a) { return a.first == "padding"; });
  return absl::OkStatus();
}

// Every dimension named is one of its operand's (the zero-point sums index
// by them before the HLO verifier sees the op).
absl::Status CheckDims(const Translator& t, const Op& op, const DotLikeDims& d, size_t lhs_rank,
                       size_t rhs_rank) {
  for (const auto* dims : {&d.lhs_batch, &d.lhs_spatial, &d.lhs_contracting, &d.rhs_batch,
                           &d.rhs_spatial, &d.rhs_contracting}) {
    const bool lhs = dims == &d.lhs_batch || dims == &d.lhs_spatial || dims == &d.lhs_contracting;
    for (int64_t x : *dims) {
      if (x < 0 || x >= static_cast<int64_t>(lhs ? lhs_rank : rhs_rank)) {
        return t.Error(op.name_pos,
                       StrCat("dimension ", x, " of the ", lhs ? "lhs" : "rhs",
                              " is out of range for its rank ", lhs ? lhs_rank : rhs_rank));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Integer(Translator& t, const Op& op, Scope& s, std::vector<Value> in,
                     const DotLikeDims& d) {
  HLO_RETURN_IF_ERROR(CheckDims(t, op, d, in[0].type.dims.size(), in[1].type.dims.size()));
  const QuantParams& ql = *in[0].type.quant;
  const QuantParams& qr = *in[1].type.quant;
  const Type& result = op.result_types[0];
  const QuantParams& qo = *result.quant;
  std::vector<NamedAttr> attrs = op.attrs;
  if (op.name == "stablehlo.convolution")
    HLO_RETURN_IF_ERROR(PadWithZeroPoint(t, s, op, d, &in[0], &attrs));
  const Type i32 = Plain(result, "s32");
  HLO_ASSIGN_OR_RETURN(std::vector<Value> out, Reissue(t, s, op, in, {i32}, attrs));
  std::string res = out[0].name;
  const int64_t rhs_zp = qr.per_axis() ? 0 : qr.zero_points[0];
  HLO_ASSIGN_OR_RETURN(std::string offset,
                       ZeroPointOffset(t, s, op, in[0], in[1], ql.zero_points[0], rhs_zp, i32, d));
  const double combined = ql.scales[0] * qr.scales[0] / qo.scales[0];
  Builder b{t, s, op, i32};
  const Type f32 = b.Of("f32");
  if (std::abs(combined - 1.0) > 0.001) {
    const std::string scale = b.Const(FloatText(combined), f32);
    res = b.Un("convert", b.Bin("multiply", b.Un("convert", res, f32), scale, f32), i32);
    if (!offset.empty()) {
      offset = b.Un("convert", b.Bin("multiply", b.Un("convert", offset, f32), scale, f32), i32);
    }
  }
  std::string zp =
      b.Const(StrCat(qo.per_axis() ? 0 : static_cast<int32_t>(qo.zero_points[0])), i32);
  if (!offset.empty()) zp = b.Bin("subtract", zp, offset, i32);
  res = b.Bin("add", res, zp, i32);
  if (qo.storage != "s32") res = b.Un("convert", res, b.Of(qo.storage));
  return Bind(t, s, op, {Value{res, result}});
}

}  // namespace

absl::Status DotLike(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(Type result, t.SingleResult(op));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  const QuantParams* ql = in[0].type.quant.get();
  const QuantParams* qr = in[1].type.quant.get();
  const QuantParams* qo = result.quant.get();
  if (ql == nullptr && qr != nullptr && qo == nullptr) return Hybrid(t, op, s, std::move(in));
  const bool integer = ql != nullptr && !ql->per_axis() && qr != nullptr && qo != nullptr &&
                       qr->per_axis() == qo->per_axis();
  if (!integer) return DequantizeOpQuantize(t, op, s);
  DotLikeDims d;
  if (op.name == "stablehlo.convolution") {
    HLO_ASSIGN_OR_RETURN(
        bool ok, ConvDims(t, op, *qr, *qo, static_cast<int64_t>(in[1].type.dims.size()), &d));
    if (!ok) return DequantizeOpQuantize(t, op, s);
  } else {
    HLO_RETURN_IF_ERROR(DotDims(t, op, in[0].type.dims.size(), &d));
  }
  return Integer(t, op, s, std::move(in), d);
}

}  // namespace hlo::stablehlo::quant
