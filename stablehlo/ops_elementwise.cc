// Elementwise ops, constants, iota, compare, select, clamp, conversions.
#include <cstdio>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/dense.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

// StableHLO op -> HLO opcode, for ops that map one to one.
const absl::flat_hash_map<std::string_view, std::string_view>& Opcodes() {
  static const auto* m = new absl::flat_hash_map<std::string_view, std::string_view>{
      {"stablehlo.abs", "abs"},
      {"stablehlo.add", "add"},
      {"stablehlo.and", "and"},
      {"stablehlo.atan2", "atan2"},
      {"stablehlo.bitcast_convert", "bitcast-convert"},
      {"stablehlo.cbrt", "cbrt"},
      {"stablehlo.ceil", "ceil"},
      {"stablehlo.complex", "complex"},
      {"stablehlo.convert", "convert"},
      {"stablehlo.cosine", "cosine"},
      {"stablehlo.count_leading_zeros", "count-leading-zeros"},
      {"stablehlo.divide", "divide"},
      {"stablehlo.exponential", "exponential"},
      {"stablehlo.exponential_minus_one", "exponential-minus-one"},
      {"stablehlo.floor", "floor"},
      {"stablehlo.imag", "imag"},
      {"stablehlo.is_finite", "is-finite"},
      {"stablehlo.log", "log"},
      {"stablehlo.log_plus_one", "log-plus-one"},
      {"stablehlo.logistic", "logistic"},
      {"stablehlo.maximum", "maximum"},
      {"stablehlo.minimum", "minimum"},
      {"stablehlo.multiply", "multiply"},
      {"stablehlo.negate", "negate"},
      {"stablehlo.not", "not"},
      {"stablehlo.or", "or"},
      {"stablehlo.popcnt", "popcnt"},
      {"stablehlo.power", "power"},
      {"stablehlo.real", "real"},
      {"stablehlo.remainder", "remainder"},
      {"stablehlo.round_nearest_afz", "round-nearest-afz"},
      {"stablehlo.round_nearest_even", "round-nearest-even"},
      {"stablehlo.rsqrt", "rsqrt"},
      {"stablehlo.shift_left", "shift-left"},
      {"stablehlo.shift_right_arithmetic", "shift-right-arithmetic"},
      {"stablehlo.shift_right_logical", "shift-right-logical"},
      {"stablehlo.sign", "sign"},
      {"stablehlo.sine", "sine"},
      {"stablehlo.sqrt", "sqrt"},
      {"stablehlo.subtract", "subtract"},
      {"stablehlo.tan", "tan"},
      {"stablehlo.tanh", "tanh"},
      {"stablehlo.xor", "xor"},
  };
  return *m;
}

int Arity(std::string_view opcode) {
  static const auto* binary = new absl::flat_hash_set<std::string_view>{"add",
                                                                        "and",
                                                                        "atan2",
                                                                        "complex",
                                                                        "divide",
                                                                        "maximum",
                                                                        "minimum",
                                                                        "multiply",
                                                                        "or",
                                                                        "power",
                                                                        "remainder",
                                                                        "shift-left",
                                                                        "shift-right-arithmetic",
                                                                        "shift-right-logical",
                                                                        "subtract",
                                                                        "xor"};
  return binary->contains(opcode) ? 2 : 1;
}

absl::Status Elementwise(Translator& t, const Op& op, Scope& s) {
  std::string_view opcode = Opcodes().at(op.name);
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, Arity(opcode)));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  std::string body = StrCat(opcode, "(", Names(in), ")");
  if (opcode == "convert" && in[0].type.element[0] == 'c' && type.element[0] != 'c') {
    // Complex to real: the real part, as StableHLO's reference interpreter
    // converts it (HLO's convert has no such conversion).
    Type part = in[0].type;
    part.element = part.element == "c128" ? "f64" : "f32";
    body = StrCat("convert(", t.Emit(s, op, "real", part, StrCat("real(", in[0].name, ")")), ")");
  }
  if (const Attr* acc = op.FindAttr("result_accuracy"); acc && !acc->text.empty()) {
    // #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>: the
    // default mode needs nothing.
    if (acc->text.find("DEFAULT") == std::string::npos) {
      return t.Error(acc->pos, "result_accuracy other than DEFAULT is not supported yet");
    }
  }
  return t.BindResults(s, op, t.Emit(s, op, opcode, type, body));
}

// constant ::= value = dense<...>
absl::Status Constant(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 0));
  const Attr* value = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"value"}, &value));
  if (value->kind != Attr::Kind::kDense) return t.Error(value->pos, "expected a dense<...> value");
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  Type storage = type;  // a quantized constant's value holds its storage integers
  storage.quant = nullptr;
  if (!(storage == value->type)) {
    return t.Error(value->pos, StrCat("type mismatch: the value is ", value->type.Mlir(),
                                      " but the result is ", type.Mlir()));
  }
  DenseText d;
  HLO_RETURN_IF_ERROR(DenseToHloLiteral(t.lex(), *value, type, &d));
  std::string name = d.splat ? t.Splat(s, op, type, d.text)
                             : t.Emit(s, op, "constant", type, StrCat("constant(", d.text, ")"));
  t.constants()[name] = value;
  return t.BindResults(s, op, name);
}

absl::Status Iota(Translator& t, const Op& op, Scope& s) {
  int64_t dim = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"iota_dimension"}, 0, &dim));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(s, op, t.Emit(s, op, "iota", type, StrCat("iota(), iota_dimension=", dim)));
}

// The default comparison type of an element type (XLA prints others).
std::string_view DefaultCompareType(const std::string& element) {
  if (element[0] == 's') return "SIGNED";
  if (element[0] == 'u' || element == "pred") return "UNSIGNED";
  return "FLOAT";
}

absl::Status Compare(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  const Attr* dir_attr = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"comparison_direction"}, &dir_attr));
  std::string dir, cmp_type;
  HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *dir_attr, "comparison_direction", &dir));
  static const char* kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  bool known = false;
  for (const char* d : kDirs) known = known || dir == d;
  if (!known) return t.Error(dir_attr->pos, StrCat("unknown comparison direction '", dir, "'"));
  std::string body = StrCat("compare(", Names(in), "), direction=", dir);
  if (const Attr* ct = op.FindAttr("compare_type")) {
    HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *ct, "compare_type", &cmp_type));
    if (cmp_type != "FLOAT" && cmp_type != "TOTALORDER" && cmp_type != "SIGNED" &&
        cmp_type != "UNSIGNED" && cmp_type != "NOTYPE") {
      return t.Error(ct->pos, StrCat("unknown comparison type '", cmp_type, "'"));
    }
    if (cmp_type != "NOTYPE" && cmp_type != DefaultCompareType(in[0].type.element)) {
      StrAppend(&body, ", type=", cmp_type);
    }
  }
  return t.BindResults(s, op, t.Emit(s, op, "compare", type, body));
}

absl::Status Select(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 3));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  if (in[0].type.dims.empty() && !type.dims.empty()) {  // a scalar predicate
    Type pred = type;
    pred.element = "pred";
    in[0].name =
        t.Emit(s, op, "broadcast", pred, StrCat("broadcast(", in[0].name, "), dimensions={}"));
  }
  return t.BindResults(s, op, t.Emit(s, op, "select", type, StrCat("select(", Names(in), ")")));
}

absl::Status Clamp(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 3));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  return t.BindResults(s, op, t.Emit(s, op, "clamp", type, StrCat("clamp(", Names(in), ")")));
}

// format = e5m10, or exponent_bits / mantissa_bits.
absl::Status ReducePrecision(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  int64_t e = -1, m = -1;
  if (const Attr* f = op.FindAttr("format")) {
    if (f->kind != Attr::Kind::kWord || std::sscanf(f->s.c_str(), "e%ldm%ld", &e, &m) != 2) {
      return t.Error(f->pos, "format must be like e5m10");
    }
  } else {
    HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"exponent_bits"}, -1, &e));
    HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"mantissa_bits"}, -1, &m));
  }
  if (e < 1 || m < 0)
    return t.Error(op.name_pos, "reduce_precision needs exponent and mantissa bits");
  return t.BindResults(s, op,
                       t.Emit(s, op, "reduce-precision", type,
                              StrCat("reduce-precision(", in[0].name, "), exponent_bits=", e,
                                     ", mantissa_bits=", m)));
}

}  // namespace

std::vector<OpEntry> ElementwiseOps() {
  std::vector<OpEntry> out;
  for (const auto& [name, opcode] : Opcodes()) out.push_back({name, &Elementwise});
  out.push_back({"stablehlo.constant", &Constant});
  out.push_back({"stablehlo.iota", &Iota});
  out.push_back({"stablehlo.compare", &Compare});
  out.push_back({"stablehlo.select", &Select});
  out.push_back({"stablehlo.clamp", &Clamp});
  out.push_back({"stablehlo.reduce_precision", &ReducePrecision});
  return out;
}

}  // namespace hlo::stablehlo
