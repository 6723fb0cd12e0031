// chlo ops, decomposed as XLA's CHLO legalization does: top_k to HLO's
// topk, erf and tan to their HLO ops, square to a multiply, erf_inv by
// Giles' single-precision polynomials (XLA's ErfInv32), next_after by bit
// manipulation (XLA's NextAfter), is_inf by comparisons, the broadcasting
// binary ops by explicit broadcasts, mulhi by a wider product (or 32-bit
// halves), scan and ragged_dot to HLO's scan and ragged-dot.
#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/chlo_builder.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {}  // namespace

absl::StatusOr<Value> OneOperand(Translator& t, const Op& op, const Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  return in[0];
}

namespace {

absl::Status TopK(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(Value x, OneOperand(t, op, s));
  int64_t k = 0;
  const Attr* ka = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"k"}, &ka));
  HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *ka, "k", &k));
  HLO_RETURN_IF_ERROR(ExpectResults(t, op, 2));
  bool largest = op.FindAttr("largest") == nullptr || OptionalBool(op, "largest");
  std::string name =
      t.Emit(s, op, "topk", t.ResultType(op),
             StrCat("topk(", x.name, "), k=", k, ", largest=", largest ? "true" : "false"));
  return t.BindTupleResults(s, op, name);
}

absl::Status Square(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(Value x, OneOperand(t, op, s));
  Builder b{t, s, op, x.type};
  return t.BindResults(s, op, b.Bin("multiply", x.name, x.name, x.type));
}

// chlo ops that are one HLO op. The inverse trigonometric and hyperbolic
// ops lower directly, as XLA's CHLO legalization does with its enable-acos,
// enable-sinh, ... options (by default it decomposes them; the HLO ops are
// computed by libm, and HLO -> StableHLO -> HLO stays exact).
absl::Status Direct(Translator& t, const Op& op, Scope& s) {
  static const auto* m = new absl::flat_hash_map<std::string_view, std::string_view>{
      {"chlo.erf", "erf"},    {"chlo.tan", "tan"},     {"chlo.asin", "asin"},
      {"chlo.acos", "acos"},  {"chlo.atan", "atan"},   {"chlo.sinh", "sinh"},
      {"chlo.cosh", "cosh"},  {"chlo.asinh", "asinh"}, {"chlo.acosh", "acosh"},
      {"chlo.atanh", "atanh"}};
  HLO_ASSIGN_OR_RETURN(Value x, OneOperand(t, op, s));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  Builder b{t, s, op, type};
  return t.BindResults(s, op, b.Un(m->at(op.name), x.name, type));
}

// chlo.mulhi: the high half of the double-width product, as CHLO's
// decomposition computes it: in the wider type up to 32 bits; for 64 bits
// from 32-bit halves, a signed product corrected for the sign extension
// (hi(a * b) = hi_u64(a, b) - (a < 0 ? b : 0) - (b < 0 ? a : 0)).
absl::Status Mulhi(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  const Type& ty = in[0].type;
  const std::string& e = ty.element;
  int64_t bits = 0;
  if ((e[0] != 's' && e[0] != 'u') || !ParseInt64(std::string_view(e).substr(1), &bits)) {
    return t.Error(op.name_pos, StrCat("chlo.mulhi takes integers, not ", ty.Mlir()));
  }
  const bool is_signed = e[0] == 's';
  Builder b{t, s, op, ty};
  const std::string &x = in[0].name, &y = in[1].name;
  if (bits < 64) {
    int64_t wide = 8;
    while (wide < 2 * bits) wide *= 2;
    const Type w = b.Of(StrCat(e[0], wide));
    std::string prod = b.Bin("multiply", b.Un("convert", x, w), b.Un("convert", y, w), w);
    std::string hi = b.Bin(is_signed ? "shift-right-arithmetic" : "shift-right-logical", prod,
                           b.Const(StrCat(bits), w), w);
    return t.BindResults(s, op, b.Un("convert", hi, ty));
  }
  const Type u = b.Of("u64");
  std::string xu = is_signed ? b.Un("bitcast-convert", x, u) : x;
  std::string yu = is_signed ? b.Un("bitcast-convert", y, u) : y;
  const std::string mask = b.Const("4294967295", u), k32 = b.Const("32", u);
  auto lo = [&](const std::string& v) { return b.Bin("and", v, mask, u); };
  auto high = [&](const std::string& v) { return b.Bin("shift-right-logical", v, k32, u); };
  auto add = [&](const std::string& p, const std::string& q) { return b.Bin("add", p, q, u); };
  auto mul = [&](const std::string& p, const std::string& q) { return b.Bin("multiply", p, q, u); };
  const std::string xl = lo(xu), xh = high(xu), yl = lo(yu), yh = high(yu);
  const std::string ll = mul(xl, yl), lh = mul(xl, yh), hl = mul(xh, yl), hh = mul(xh, yh);
  const std::string mid = add(add(high(ll), lo(lh)), lo(hl));
  std::string hi = add(add(add(hh, high(lh)), high(hl)), high(mid));
  if (!is_signed) return t.BindResults(s, op, hi);
  const std::string zero_s = b.Const("0", ty), zero_u = b.Const("0", u);
  hi = b.Bin("subtract", hi, b.Sel(b.Cmp("LT", x, zero_s), yu, zero_u, u), u);
  hi = b.Bin("subtract", hi, b.Sel(b.Cmp("LT", y, zero_s), xu, zero_u, u), u);
  return t.BindResults(s, op, b.Un("bitcast-convert", hi, ty));
}

// chlo.scan: HLO's scan (inputs then carries; the body returns the outputs
// then the new carries), as XLA's CHLO legalization keeps it.
absl::Status Scan(Translator& t, const Op& op, Scope& s) {
  if (op.regions.size() != 1) return t.Error(op.name_pos, "chlo.scan takes one region");
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  int64_t inits = 0, dim = 0;
  if (const Attr* seg = op.FindAttr("operandSegmentSizes")) {  // the generic form
    std::vector<int64_t> sizes;
    HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *seg, "operandSegmentSizes", &sizes));
    if (sizes.size() != 2) return t.Error(seg->pos, "expected 2 operand segment sizes");
    inits = sizes[1];
  } else {
    HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"num_inits"}, 0, &inits));
  }
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"dimension"}, 0, &dim));
  if (inits < 0 || inits > static_cast<int64_t>(in.size())) {
    return t.Error(op.name_pos, StrCat(inits, " initial carries of ", in.size(), " operands"));
  }
  const bool several = op.result_types.size() > 1;
  HLO_ASSIGN_OR_RETURN(std::string body,
                       t.RegionComputation(op.regions[0], "region", false, several, s, in.size()));
  std::string text = StrCat("scan(", Names(in), "), dimensions={", dim, "}, num_carries=", inits);
  if (OptionalBool(op, "is_reverse")) text += ", is_reverse=true";
  if (OptionalBool(op, "is_associative")) text += ", is_associative=true";
  StrAppend(&text, ", to_apply=", body);
  return t.BindResults(s, op, t.Emit(s, op, "scan", t.ResultType(op), text));
}

// chlo.ragged_dot: HLO's ragged-dot, its dimension numbers as written.
absl::Status RaggedDot(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 3));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  const Attr* dims = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"ragged_dot_dimension_numbers"}, &dims));
  std::string body = StrCat("ragged-dot(", Names(in), ")");
  for (const auto& [key, hlo] :
       {std::pair<std::string_view, std::string_view>{"lhs_batching_dimensions", "lhs_batch_dims"},
        {"rhs_batching_dimensions", "rhs_batch_dims"},
        {"lhs_contracting_dimensions", "lhs_contracting_dims"},
        {"rhs_contracting_dimensions", "rhs_contracting_dims"},
        {"lhs_ragged_dimensions", "lhs_ragged_dims"},
        {"rhs_group_dimensions", "rhs_group_dims"}}) {
    std::vector<int64_t> v;
    if (const Attr* a = dims->Find(key)) HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *a, key, &v));
    if (!v.empty()) StrAppend(&body, ", ", hlo, "=", IntList(v));
  }
  if (const Attr* pc = op.FindAttr("precision_config")) {
    for (const Attr& p : pc->list) {
      if (p.s != "DEFAULT" && p.text.find("DEFAULT") == std::string::npos) {
        return t.Error(p.pos, "chlo.ragged_dot precision other than DEFAULT is not supported yet");
      }
    }
  }
  return t.BindResults(s, op, t.Emit(s, op, "ragged-dot", type, body));
}

absl::Status IsInf(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(Value x, OneOperand(t, op, s));
  Builder b{t, s, op, x.type};
  std::string v = x.name;
  std::string inf = b.Const(op.name == "chlo.is_neg_inf" ? "-inf" : "inf", x.type);
  if (op.name == "chlo.is_inf") v = b.Un("abs", x.name, x.type);
  return t.BindResults(s, op, b.Cmp("EQ", v, inf));
}

// XLA's ErfInv32 (f16 and bf16 are computed in f32).
absl::Status ErfInv(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(Value x0, OneOperand(t, op, s));
  const std::string& e = x0.type.element;
  if (e != "f32" && e != "f16" && e != "bf16") {
    return t.Error(op.name_pos, StrCat("chlo.erf_inv of ", e, " is not supported yet"));
  }
  Builder b{t, s, op, x0.type};
  const Type f = b.Of("f32");
  std::string x = e == "f32" ? x0.name : b.Un("convert", x0.name, f);
  static const char* kLt5[] = {"2.81022636e-08",  "3.43273939e-07", "-3.5233877e-06",
                               "-4.39150654e-06", "0.00021858087",  "-0.00125372503",
                               "-0.00417768164",  "0.246640727",    "1.50140941"};
  static const char* kGe5[] = {"-0.000200214257", "0.000100950558", "0.00134934322",
                               "-0.00367342844",  "0.00573950773",  "-0.0076224613",
                               "0.00943887047",   "1.00167406",     "2.83297682"};
  std::string xx = b.Bin("multiply", x, b.Un("negate", x, f), f);
  std::string w = b.Un("negate", b.Un("log-plus-one", xx, f), f);
  std::string lt = b.Cmp("LT", w, b.Const("5", f));
  std::string w_small = b.Bin("subtract", w, b.Const("2.5", f), f);
  std::string w_large = b.Bin("subtract", b.Un("sqrt", w, f), b.Const("3", f), f);
  std::string ww = b.Sel(lt, w_small, w_large, f);
  auto coeff = [&](int i) { return b.Sel(lt, b.Const(kLt5[i], f), b.Const(kGe5[i], f), f); };
  std::string p = coeff(0);
  for (int i = 1; i < 9; ++i) p = b.Bin("add", coeff(i), b.Bin("multiply", p, ww, f), f);
  std::string result = b.Bin("multiply", p, x, f);
  std::string at_one = b.Cmp("EQ", b.Un("abs", x, f), b.Const("1", f));
  result = b.Sel(at_one, b.Bin("multiply", x, b.Const("inf", f), f), result, f);
  if (e != "f32") result = b.Un("convert", result, x0.type);
  return t.BindResults(s, op, result);
}

// XLA's NextAfter: step the bits of x towards y.
absl::Status NextAfter(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  const Type& type = in[0].type;
  std::string ie;
  if (type.element == "f32") ie = "s32";
  if (type.element == "f64") ie = "s64";
  if (type.element == "f16" || type.element == "bf16") ie = "s16";
  if (ie.empty()) {
    return t.Error(op.name_pos, StrCat("chlo.next_after of ", type.element, " is not supported"));
  }
  const int bits = ie == "s32" ? 32 : ie == "s64" ? 64 : 16;
  Builder b{t, s, op, type};
  const Type it = b.Of(ie);
  const std::string& x = in[0].name;
  const std::string& y = in[1].name;
  std::string xi = b.Un("bitcast-convert", x, it);
  std::string yi = b.Un("bitcast-convert", y, it);
  std::string nan_input = b.Bin("or", b.Cmp("NE", x, x), b.Cmp("NE", y, y), b.Of("pred"));
  std::string nan_bits = b.Un("bitcast-convert", b.Const("nan", type), it);
  const int64_t sign = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  const int64_t mag = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  std::string sign_mask = b.Const(StrCat(sign), it);
  std::string mag_mask = b.Const(StrCat(mag), it);
  std::string x_abs = b.Bin("and", xi, mag_mask, it);
  std::string y_abs = b.Bin("and", yi, mag_mask, it);
  std::string equal = b.Cmp("EQ", x, y);
  std::string zero = b.Const("0", it);
  std::string x_zero = b.Cmp("EQ", x_abs, zero);
  std::string y_zero = b.Cmp("EQ", y_abs, zero);
  std::string y_sign = b.Bin("and", yi, sign_mask, it);
  std::string tiny_towards_y = b.Bin("or", y_sign, b.Const("1", it), it);
  std::string disagree = b.Cmp("NE", b.Bin("and", xi, sign_mask, it), y_sign);
  std::string larger = b.Cmp("GT", x_abs, y_abs);
  std::string smaller = b.Bin("or", larger, disagree, b.Of("pred"));
  std::string step = b.Sel(smaller, b.Const("-1", it), b.Const("1", it), it);
  std::string r = b.Bin("add", xi, step, it);
  r = b.Sel(x_zero, b.Sel(y_zero, yi, tiny_towards_y, it), r, it);
  r = b.Sel(equal, yi, r, it);
  r = b.Sel(nan_input, nan_bits, r, it);
  return t.BindResults(s, op, b.Un("bitcast-convert", r, type));
}

// chlo.broadcast_X: each operand broadcast to the result's shape
// (broadcast_dimensions, else numpy's trailing alignment), then X.
absl::Status BroadcastBinary(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type result, t.SingleResult(op));
  std::vector<int64_t> bdims;
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"broadcast_dimensions"}, &bdims));
  // The shape both operands broadcast to: the result's dims.
  Op inner = op;
  std::string base = op.name.substr(std::string_view("chlo.broadcast_").size());
  inner.name = (base == "next_after" ? "chlo." : "stablehlo.") + base;
  inner.operand_types.clear();
  size_t max_rank = 0;
  for (const Value& v : in) max_rank = std::max(max_rank, v.type.dims.size());
  for (size_t i = 0; i < in.size(); ++i) {
    Type target = result;
    target.element = in[i].type.element;
    std::string name = in[i].name;
    if (!(in[i].type == target)) {
      const size_t rank = in[i].type.dims.size();
      std::vector<int64_t> map;
      if (!bdims.empty() && rank < max_rank) {
        map = bdims;
      } else {
        for (size_t d = 0; d < rank; ++d) map.push_back(target.dims.size() - rank + d);
      }
      HLO_ASSIGN_OR_RETURN(name, BroadcastTo(t, s, op, in[i], target, map, op.operands[i].pos));
    }
    std::string ssa = StrCat("%chlo.operand.", i);
    s.values[ssa] = Value{name, target};
    inner.operands[i].name = ssa;
    inner.operand_types.push_back(target);
  }
  OpTranslator fn = FindOpTranslator(inner.name);
  if (fn == nullptr) return t.Error(op.name_pos, StrCat("unsupported op '", op.name, "'"));
  return fn(t, inner, s);
}

}  // namespace

std::vector<OpEntry> ChloOps() {
  std::vector<OpEntry> out = {
      {"chlo.top_k", &TopK},     {"chlo.square", &Square},        {"chlo.erf", &Direct},
      {"chlo.tan", &Direct},     {"chlo.asin", &Direct},          {"chlo.acos", &Direct},
      {"chlo.atan", &Direct},    {"chlo.sinh", &Direct},          {"chlo.cosh", &Direct},
      {"chlo.asinh", &Direct},   {"chlo.acosh", &Direct},         {"chlo.atanh", &Direct},
      {"chlo.is_inf", &IsInf},   {"chlo.is_pos_inf", &IsInf},     {"chlo.is_neg_inf", &IsInf},
      {"chlo.erf_inv", &ErfInv}, {"chlo.next_after", &NextAfter}, {"chlo.mulhi", &Mulhi},
      {"chlo.scan", &Scan},      {"chlo.ragged_dot", &RaggedDot},
  };
  for (const OpEntry& e : ChloMathOps()) out.push_back(e);
  for (std::string_view name :
       {"chlo.broadcast_add", "chlo.broadcast_subtract", "chlo.broadcast_multiply",
        "chlo.broadcast_divide", "chlo.broadcast_maximum", "chlo.broadcast_minimum",
        "chlo.broadcast_power", "chlo.broadcast_remainder", "chlo.broadcast_and",
        "chlo.broadcast_or", "chlo.broadcast_xor", "chlo.broadcast_atan2", "chlo.broadcast_compare",
        "chlo.broadcast_select", "chlo.broadcast_complex", "chlo.broadcast_shift_left",
        "chlo.broadcast_shift_right_logical", "chlo.broadcast_shift_right_arithmetic",
        "chlo.broadcast_next_after"}) {
    out.push_back({name, &BroadcastBinary});
  }
  return out;
}

}  // namespace hlo::stablehlo
