// Ops on quantized tensors (`!quant.uniform`), lowered to integer and float
// HLO by the rules of StableHLO's own stablehlo-legalize-quant-to-math pass,
// which the reference interpreter runs before it interprets a quantized
// program (and so produced the expected values of StableHLO's quantized
// tests):
// - uniform_quantize / uniform_dequantize become f32 arithmetic on the
//   storage integers (scale and zero point broadcast along the quantized
//   dimension when per-axis); a quantized-to-quantized uniform_quantize
//   requantizes through one merged scale and zero point;
// - add of per-tensor types requantizes both operands to the result's
//   parameters and adds integers; dot, dot_general and (NHWC/NCHW/NDHWC/NCDHW,
//   zero kernel zero point) convolution multiply the storage integers into
//   i32 and correct for the zero points; a float lhs with a quantized rhs is
//   weight-only ("hybrid"): the rhs is dequantized first;
// - data movement (transpose, reshape, gather, concatenate, ...) and
//   min/max/select of one type work on the storage integers;
// - every other op the specification defines on quantized types is
//   dequantize -> op in f32 -> quantize (its dequantize_op_quantize).
// All arithmetic is in f32, as the pass's: the expressed type must be f32.
#include "stablehlo/quant.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {
namespace quant {

bool IsQuant(const Type& t) { return t.kind == Type::Kind::kTensor && t.quant != nullptr; }

Type Plain(const Type& t, std::string_view element) {
  Type r = t;
  r.element = std::string(element);
  r.quant = nullptr;
  return r;
}

std::string FloatText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  return buf;
}

namespace {

int StorageBits(std::string_view element) {
  return std::atoi(std::string(element.substr(1)).c_str());
}

absl::Status RequireF32(Translator& t, const Op& op, const QuantParams& q) {
  if (q.expressed == "f32") return absl::OkStatus();
  return t.Error(op.name_pos, StrCat(op.name, " on ", q.Mlir(),
                                     ": StableHLO's quantized lowering computes in f32 and takes "
                                     "f32 as the expressed type only"));
}

}  // namespace

std::string Param(Builder& b, std::string_view element, const std::vector<std::string>& texts,
                  int64_t axis) {
  Type full = b.Of(element);
  if (axis < 0) return b.Const(texts[0], full);
  Type vec;
  vec.element = std::string(element);
  vec.dims = {static_cast<int64_t>(texts.size())};
  std::string c =
      b.t.Emit(b.s, b.op, "constant", vec, StrCat("constant({", StrJoin(texts, ", "), "})"));
  return b.t.Emit(b.s, b.op, "broadcast", full,
                  StrCat("broadcast(", c, "), dimensions={", axis, "}"));
}

std::vector<std::string> ScaleTexts(const QuantParams& q) {
  std::vector<std::string> out;
  for (double v : q.scales) out.push_back(FloatText(v));
  return out;
}

std::vector<std::string> ZeroPointTexts(const QuantParams& q, bool as_float) {
  std::vector<std::string> out;
  for (int64_t v : q.zero_points) {
    out.push_back(as_float ? FloatText(static_cast<double>(v)) : StrCat(static_cast<int32_t>(v)));
  }
  return out;
}

// dequantize(x) = (convert<i32>(x) - zp) converted to f32, times the scale.
absl::StatusOr<Value> Dequantize(Translator& t, Scope& s, const Op& op, const Value& v) {
  const QuantParams& q = *v.type.quant;
  HLO_RETURN_IF_ERROR(RequireF32(t, op, q));
  Builder b{t, s, op, Plain(v.type, "f32")};
  std::string i = b.Un("convert", v.name, b.Of("s32"));
  i = b.Bin("subtract", i, Param(b, "s32", ZeroPointTexts(q, false), q.axis), b.Of("s32"));
  std::string f = b.Un("convert", i, b.type);
  f = b.Bin("multiply", f, Param(b, "f32", ScaleTexts(q), q.axis), b.type);
  return Value{f, b.type};
}

namespace {

// x (f32) clamped to the storage range of `q`, the bounds as f32.
std::string ClampToStorage(Builder& b, const std::string& x, const QuantParams& q) {
  const Type f32 = b.Of("f32");
  const std::string lo = b.Const(FloatText(static_cast<double>(q.storage_min)), f32);
  const std::string hi = b.Const(FloatText(static_cast<double>(q.storage_max)), f32);
  return b.Clamp(lo, x, hi, f32);
}

// quantize(x) = convert<storage>(round_nearest_even(clamp(min, x / scale + zp, max))).
absl::StatusOr<Value> Quantize(Translator& t, Scope& s, const Op& op, const Value& v,
                               const Type& result) {
  const QuantParams& q = *result.quant;
  HLO_RETURN_IF_ERROR(RequireF32(t, op, q));
  if (v.type.element != "f32") {
    return t.Error(op.name_pos, StrCat("quantizing ", v.type.Mlir(),
                                       ": StableHLO's quantized lowering quantizes f32 only"));
  }
  Builder b{t, s, op, Plain(v.type, "f32")};
  std::string f = b.Bin("divide", v.name, Param(b, "f32", ScaleTexts(q), q.axis), b.type);
  f = b.Bin("add", f, Param(b, "f32", ZeroPointTexts(q, true), q.axis), b.type);
  f = b.Un("round-nearest-even", ClampToStorage(b, f, q), b.type);
  return Value{b.Un("convert", f, b.Of(q.storage)), result};
}

// Requantization from `in` to `out` parameters: x * merged_scale + merged_zp
// in f32 (clamped to out's storage range when `element` is narrower than 32
// bits), rounded to even and converted to `element`.
std::string Requantize(Builder& b, const std::string& x, const QuantParams& in,
                       const QuantParams& out, std::string_view element) {
  if (in == out) return b.Un("convert", x, b.Of(element));
  std::string f = b.Un("convert", x, b.Of("f32"));
  // One merged scale and zero point per channel of the per-axis side (one
  // when both are per-tensor).
  const QuantParams& axis_of = out.per_axis() ? out : in;
  std::vector<std::string> scales, zps;
  bool any_zp = false;
  for (size_t i = 0; i < axis_of.scales.size(); ++i) {
    const size_t ii = in.per_axis() ? i : 0, oi = out.per_axis() ? i : 0;
    const double scale = in.scales[ii] / out.scales[oi];
    const double zp =
        static_cast<double>(out.zero_points[oi]) - static_cast<double>(in.zero_points[ii]) * scale;
    scales.push_back(FloatText(scale));
    zps.push_back(FloatText(zp));
    // The pass compares the per-tensor zero point as a double, the per-axis
    // ones as floats.
    any_zp = any_zp || (axis_of.per_axis() ? static_cast<float>(zp) != 0 : zp != 0);
  }
  f = b.Bin("multiply", f, Param(b, "f32", scales, axis_of.axis), b.Of("f32"));
  if (any_zp) f = b.Bin("add", f, Param(b, "f32", zps, axis_of.axis), b.Of("f32"));
  if (StorageBits(element) < 32) f = ClampToStorage(b, f, out);
  f = b.Un("round-nearest-even", f, b.Of("f32"));
  return b.Un("convert", f, b.Of(element));
}

}  // namespace

absl::StatusOr<std::vector<Value>> Reissue(Translator& t, Scope& s, const Op& op,
                                           const std::vector<Value>& in,
                                           const std::vector<Type>& results,
                                           const std::vector<NamedAttr>& attrs) {
  Op o;
  o.name = op.name;
  o.attrs = attrs;
  o.loc = op.loc;
  o.pos = op.pos;
  o.name_pos = op.name_pos;
  for (size_t i = 0; i < in.size(); ++i) {
    // A space cannot appear in an MLIR name: no clash with the program's.
    std::string name = StrCat("%quant ", t.NewName("operand"));
    s.values[name] = in[i];
    o.operands.push_back(Use{name, op.operands[i].pos});
    o.operand_types.push_back(in[i].type);
  }
  o.result_types = results;
  for (size_t i = 0; i < results.size(); ++i) {
    o.results.push_back(StrCat("%quant ", t.NewName("result")));
  }
  HLO_RETURN_IF_ERROR(FindOpTranslator(o.name)(t, o, s));
  std::vector<Value> out;
  for (const std::string& r : o.results) {
    HLO_ASSIGN_OR_RETURN(Value v, t.Lookup(s, Use{r, op.pos}));
    out.push_back(std::move(v));
  }
  return out;
}

absl::Status Bind(Translator& t, Scope& s, const Op& op, const std::vector<Value>& values) {
  if (op.results.size() != values.size()) {
    return t.Error(op.pos, StrCat(op.name, " has ", values.size(), " results but ",
                                  op.results.size(), " are named"));
  }
  for (size_t i = 0; i < values.size(); ++i) s.values[op.results[i]] = values[i];
  return absl::OkStatus();
}

absl::Status DequantizeOpQuantize(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  for (Value& v : in) {
    if (IsQuant(v.type)) {
      HLO_ASSIGN_OR_RETURN(v, Dequantize(t, s, op, v));
    }
  }
  std::vector<Type> results;
  for (const Type& r : op.result_types) {
    if (IsQuant(r)) HLO_RETURN_IF_ERROR(RequireF32(t, op, *r.quant));
    results.push_back(IsQuant(r) ? Plain(r, "f32") : r);
  }
  HLO_ASSIGN_OR_RETURN(std::vector<Value> out, Reissue(t, s, op, in, results, op.attrs));
  for (size_t i = 0; i < out.size(); ++i) {
    if (IsQuant(op.result_types[i])) {
      HLO_ASSIGN_OR_RETURN(out[i], Quantize(t, s, op, out[i], op.result_types[i]));
    }
  }
  return Bind(t, s, op, out);
}

namespace {

absl::Status UniformQuantize(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(Type result, t.SingleResult(op));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (!IsQuant(result)) {
    return t.Error(op.name_pos,
                   StrCat("uniform_quantize gives a quantized tensor, not ", result.Mlir()));
  }
  if (!IsQuant(in[0].type)) {
    HLO_ASSIGN_OR_RETURN(Value q, Quantize(t, s, op, in[0], result));
    return Bind(t, s, op, {q});
  }
  const QuantParams& from = *in[0].type.quant;
  const QuantParams& to = *result.quant;
  if (from.per_axis() && to.per_axis() && from.axis != to.axis) {
    return t.Error(op.name_pos, "cannot requantize while changing the quantized dimension");
  }
  Builder b{t, s, op, Plain(result, to.storage)};
  return Bind(t, s, op, {Value{Requantize(b, in[0].name, from, to, to.storage), result}});
}

absl::Status UniformDequantize(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(Type result, t.SingleResult(op));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (!IsQuant(in[0].type) || IsQuant(result) || result.element != "f32") {
    return t.Error(op.name_pos, StrCat("uniform_dequantize takes a quantized tensor to f32, not ",
                                       in[0].type.Mlir(), " to ", result.Mlir()));
  }
  HLO_ASSIGN_OR_RETURN(Value v, Dequantize(t, s, op, in[0]));
  return Bind(t, s, op, {v});
}

// add of per-tensor types: both operands requantized to the result's
// parameters (as i32), added, the zero point taken off once, clamped to the
// storage range. Per-axis: only one i32 type for all three.
absl::Status Add(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(Type result, t.SingleResult(op));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (!IsQuant(in[0].type) || !IsQuant(in[1].type) || !IsQuant(result)) {
    return DequantizeOpQuantize(t, op, s);
  }
  const QuantParams& ql = *in[0].type.quant;
  const QuantParams& qr = *in[1].type.quant;
  const QuantParams& qo = *result.quant;
  Builder b{t, s, op, Plain(result, qo.storage)};
  if (ql.per_axis() || qr.per_axis() || qo.per_axis()) {
    if (!(ql == qo) || !(qr == qo) || StorageBits(qo.storage) != 32) {
      return DequantizeOpQuantize(t, op, s);
    }
    std::string sum = b.Bin("add", in[0].name, in[1].name, b.type);
    bool any_zp = false;
    for (int64_t zp : qo.zero_points) any_zp = any_zp || zp != 0;
    if (any_zp)
      sum = b.Bin("subtract", sum, Param(b, "s32", ZeroPointTexts(qo, false), qo.axis), b.type);
    return Bind(t, s, op, {Value{sum, result}});
  }
  std::string l = Requantize(b, in[0].name, ql, qo, "s32");
  std::string r = Requantize(b, in[1].name, qr, qo, "s32");
  std::string sum = b.Bin("add", l, r, b.Of("s32"));
  sum = b.Bin("subtract", sum,
              b.Const(StrCat(static_cast<int32_t>(qo.zero_points[0])), b.Of("s32")), b.Of("s32"));
  if (StorageBits(qo.storage) < 32) {
    const std::string lo = b.Const(StrCat(qo.storage_min), b.Of("s32"));
    const std::string hi = b.Const(StrCat(qo.storage_max), b.Of("s32"));
    sum = b.Clamp(lo, sum, hi, b.Of("s32"));
  }
  if (qo.storage != "s32") sum = b.Un("convert", sum, b.type);
  return Bind(t, s, op, {Value{sum, result}});
}

// Ops whose quantized form works on the storage integers unchanged: the
// pass's list (data movement; min, max and select of one type) and, beyond
// it, calls and control flow, which move values only.
bool OnStorage(const Op& op) {
  static const auto* ops = new absl::flat_hash_set<std::string_view>{
      "stablehlo.bitcast_convert", "stablehlo.broadcast_in_dim", "stablehlo.composite",
      "stablehlo.concatenate", "stablehlo.constant", "stablehlo.dynamic_reshape",
      "stablehlo.dynamic_slice", "stablehlo.gather", "stablehlo.pad", "stablehlo.reduce_window",
      "stablehlo.reshape", "stablehlo.slice", "stablehlo.transpose", "stablehlo.get_dimension_size",
      "stablehlo.dynamic_broadcast_in_dim",
      // Beyond the pass: values passed through unchanged.
      "func.call", "stablehlo.optimization_barrier", "stablehlo.tuple",
      "stablehlo.get_tuple_element", "stablehlo.while", "stablehlo.case", "stablehlo.if"};
  if (ops->contains(op.name)) return true;
  if (op.name != "stablehlo.maximum" && op.name != "stablehlo.minimum" &&
      op.name != "stablehlo.select") {
    return false;
  }
  // One quantized type throughout (select's predicate aside).
  const Type* first = nullptr;
  for (const auto* types : {&op.operand_types, &op.result_types}) {
    for (const Type& ty : *types) {
      if (ty.element == "pred" && !IsQuant(ty)) continue;
      if (first == nullptr) first = &ty;
      if (!(ty == *first) || !IsQuant(ty)) return false;
    }
  }
  return true;
}

// The ops the specification computes as dequantize_op_quantize (the pass's
// QDQ list).
bool ThroughFloat(std::string_view name) {
  static const auto* ops =
      new absl::flat_hash_set<std::string_view>{"stablehlo.abs",
                                                "stablehlo.add",
                                                "stablehlo.atan2",
                                                "stablehlo.batch_norm_grad",
                                                "stablehlo.batch_norm_inference",
                                                "stablehlo.batch_norm_training",
                                                "stablehlo.cbrt",
                                                "stablehlo.ceil",
                                                "stablehlo.cholesky",
                                                "stablehlo.clamp",
                                                "stablehlo.compare",
                                                "stablehlo.convolution",
                                                "stablehlo.cosine",
                                                "stablehlo.divide",
                                                "stablehlo.dot_general",
                                                "stablehlo.dot",
                                                "stablehlo.exponential_minus_one",
                                                "stablehlo.exponential",
                                                "stablehlo.floor",
                                                "stablehlo.log_plus_one",
                                                "stablehlo.logistic",
                                                "stablehlo.log",
                                                "stablehlo.maximum",
                                                "stablehlo.minimum",
                                                "stablehlo.multiply",
                                                "stablehlo.negate",
                                                "stablehlo.power",
                                                "stablehlo.reduce_precision",
                                                "stablehlo.remainder",
                                                "stablehlo.round_nearest_afz",
                                                "stablehlo.round_nearest_even",
                                                "stablehlo.rsqrt",
                                                "stablehlo.select",
                                                "stablehlo.sign",
                                                "stablehlo.sine",
                                                "stablehlo.sqrt",
                                                "stablehlo.subtract",
                                                "stablehlo.tanh",
                                                "stablehlo.tan",
                                                "stablehlo.triangular_solve"};
  return ops->contains(name);
}

}  // namespace
}  // namespace quant

bool UsesQuantTypes(const Op& op) {
  using quant::IsQuant;
  for (const auto* types : {&op.operand_types, &op.result_types}) {
    for (const Type& ty : *types) {
      if (IsQuant(ty)) return true;
    }
  }
  return false;
}

absl::Status TranslateQuantOp(Translator& t, const Op& op, Scope& s) {
  using namespace quant;  // NOLINT
  if (op.name == "stablehlo.uniform_quantize") return UniformQuantize(t, op, s);
  if (op.name == "stablehlo.uniform_dequantize") return UniformDequantize(t, op, s);
  if (op.name == "stablehlo.add") return Add(t, op, s);
  if (op.name == "stablehlo.dot" || op.name == "stablehlo.dot_general" ||
      op.name == "stablehlo.convolution") {
    return DotLike(t, op, s);
  }
  if (OnStorage(op)) {
    OpTranslator fn = FindOpTranslator(op.name);
    if (fn != nullptr) return fn(t, op, s);
  }
  if (ThroughFloat(op.name)) return DequantizeOpQuantize(t, op, s);
  return t.Error(op.name_pos, StrCat(op.name,
                                     " on quantized types: StableHLO's quantized lowering has no "
                                     "rule for it"));
}

}  // namespace hlo::stablehlo
