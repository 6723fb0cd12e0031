// The check ops of StableHLO's interpreter tests (its tests/CheckOps.td):
// each becomes a custom call with a side effect and no result,
// `custom-call(actual, expected), custom_call_target="stablehlo.check.expect_eq"`,
// which hlo-run evaluates (eval/kernels/stablehlo_check.cc): a mismatch is an error
// at the check's line. The `_const` forms first emit their expected value as
// a constant; the tolerance and the ULP bounds go in backend_config. A
// value of one device of interpreter.run_parallel's grid is checked on that
// device only: a third operand says whether this is it. interpreter.probe
// records values that check.expect_serialized_eq compares.
#include <cstdio>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {
namespace {

bool IsFloatOrComplex(const std::string& element) {
  return element.starts_with("f") || element == "bf16" || element.starts_with("c");
}

// `tolerance = X` (default 1e-4, as CheckOps.td's).
absl::StatusOr<double> Tolerance(const Translator& t, const Op& op) {
  const Attr* a = op.FindAttr("tolerance");
  if (a == nullptr) return 1e-4;
  if (a->kind == Attr::Kind::kFloat) return a->f;
  if (a->kind == Attr::Kind::kInt) return static_cast<double>(a->i);
  return t.Error(a->pos, "expected a number for tolerance");
}

// The expected value of a `_const` form: a constant instruction.
absl::StatusOr<Value> ExpectedConstant(Translator& t, const Op& op, Scope& s) {
  const Attr* value = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"value"}, &value));
  if (value->kind != Attr::Kind::kDense) return t.Error(value->pos, "expected a dense<...> value");
  Op c;
  c.name = "stablehlo.constant";
  c.results = {StrCat("%", t.NewName("check_expected"))};
  c.attrs.emplace_back("value", *value);
  c.result_types = {value->type};
  c.pos = op.pos;
  c.name_pos = op.name_pos;
  c.loc = op.loc;
  HLO_RETURN_IF_ERROR(FindOpTranslator(c.name)(t, c, s));
  return t.Lookup(s, Use{c.results[0], value->pos});
}

// The check as a custom call (kind: expect_eq, expect_almost_eq, ...).
absl::Status EmitCheck(Translator& t, Scope& s, const Op& op, std::vector<Value> in,
                       std::string_view kind, std::string_view config) {
  // A value of one device of interpreter.run_parallel's grid: checked there
  // only (a third operand, whether this device is that one).
  auto owner = t.device_values().find(in[0].name);
  if (owner != t.device_values().end()) {
    Type u32;
    u32.element = "u32";
    Type pred;
    pred.element = "pred";
    const std::string device = t.Splat(s, op, u32, StrCat(owner->second.device));
    in.push_back(Value{
        t.Emit(s, op, "compare", pred,
               StrCat("compare(", owner->second.device_index, ", ", device, "), direction=EQ")),
        pred});
  }
  std::string body = StrCat("custom-call(", Names(in), "), custom_call_target=\"stablehlo.check.",
                            kind, "\", custom_call_has_side_effect=true");
  if (!config.empty()) StrAppend(&body, ", backend_config=", HloQuoted(config));
  Type none;
  none.kind = Type::Kind::kTuple;
  t.Emit(s, op, "check", none, body);
  return absl::OkStatus();
}

// A string attribute's value (`probe_id = "x"`).
absl::StatusOr<std::string> ProbeId(const Translator& t, const Op& op) {
  const Attr* id = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"probe_id"}, &id));
  if (id->kind != Attr::Kind::kString) return t.Error(id->pos, "probe_id is a string");
  return id->s;
}

// interpreter.probe: the operand itself, recorded under its probe_id each
// time it runs (`stablehlo.interpreter.probe`, eval/collectives/
// probe_kernels.cc), for check.expect_serialized_eq to compare.
absl::Status Probe(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_RETURN_IF_ERROR(ExpectResults(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(std::string id, ProbeId(t, op));
  if (in[0].type.kind != Type::Kind::kTensor) {
    return t.Error(op.name_pos,
                   StrCat("interpreter.probe records tensors, not ", in[0].type.Mlir()));
  }
  return t.BindResults(s, op,
                       t.Emit(s, op, "custom-call", in[0].type,
                              StrCat("custom-call(", in[0].name,
                                     "), custom_call_target=\"stablehlo.interpreter.probe\", "
                                     "custom_call_has_side_effect=true, backend_config=",
                                     HloQuoted(StrCat("probe_id=", id)))));
}

// interpreter.print %x: the value printed on standard output as it runs
// (`stablehlo.interpreter.print`, eval/collectives/probe_kernels.cc).
absl::Status Print(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_RETURN_IF_ERROR(ExpectResults(t, op, 0));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in[0].type.kind != Type::Kind::kTensor) {
    return t.Error(op.name_pos,
                   StrCat("interpreter.print prints tensors, not ", in[0].type.Mlir()));
  }
  Type none;
  none.kind = Type::Kind::kTuple;
  t.Emit(s, op, "print", none,
         StrCat("custom-call(", in[0].name,
                "), custom_call_target=\"stablehlo.interpreter.print\", "
                "custom_call_has_side_effect=true"));
  return absl::OkStatus();
}

// check.expect_serialized_eq %v, probe_id = "id"[, iter = N]: the value the
// probe recorded the N-th time it ran (default the first) equals %v.
absl::Status SerializedCheck(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectResults(t, op, 0));
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(std::string id, ProbeId(t, op));
  int64_t iter = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"iter"}, 0, &iter));
  if (iter < 0) return t.Error(op.name_pos, "iter is a count from 0");
  if (in[0].type.kind != Type::Kind::kTensor) {
    return t.Error(op.name_pos, StrCat(op.name, " compares tensors, not ", in[0].type.Mlir()));
  }
  // The probe id last: it may hold commas.
  return EmitCheck(t, s, op, std::move(in), "expect_serialized_eq",
                   StrCat("iter=", iter, ",probe_id=", id));
}

absl::Status Check(Translator& t, const Op& op, Scope& s) {
  if (op.name == "check.expect_serialized_eq") return SerializedCheck(t, op, s);
  HLO_RETURN_IF_ERROR(ExpectResults(t, op, 0));
  const bool is_const = op.name.ends_with("_const");
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, is_const ? 1 : 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (is_const) {
    HLO_ASSIGN_OR_RETURN(Value expected, ExpectedConstant(t, op, s));
    in.push_back(std::move(expected));
  }
  if (!(in[0].type == in[1].type)) {
    return t.Error(op.name_pos, StrCat("type mismatch: the actual value is ", in[0].type.Mlir(),
                                       " but the expected one ", in[1].type.Mlir()));
  }
  if (in[0].type.kind != Type::Kind::kTensor) {
    return t.Error(op.name_pos, StrCat(op.name, " compares tensors, not ", in[0].type.Mlir()));
  }
  std::string kind(op.name.substr(6));  // expect_eq, expect_almost_eq_const, ...
  if (is_const) kind.resize(kind.size() - 6);
  std::string config;
  if (kind != "expect_eq" && !IsFloatOrComplex(in[0].type.element)) {
    return t.Error(op.name_pos,
                   StrCat(op.name, " compares floats or complex numbers, not ", in[0].type.Mlir()));
  }
  if (kind == "expect_almost_eq") {
    HLO_ASSIGN_OR_RETURN(double tolerance, Tolerance(t, op));
    char buf[40];
    std::snprintf(buf, sizeof(buf), "tolerance=%.17g", tolerance);
    config = buf;
  } else if (kind == "expect_close") {
    int64_t max_ulp = 1, min_ulp = 0;
    HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"max_ulp_difference"}, 1, &max_ulp));
    HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"min_ulp_difference"}, 0, &min_ulp));
    if (max_ulp < 0 || min_ulp < 0) {
      return t.Error(op.name_pos, "ULP differences are unsigned");
    }
    config = StrCat("max_ulp_difference=", max_ulp, ",min_ulp_difference=", min_ulp);
  }
  return EmitCheck(t, s, op, std::move(in), kind, config);
}

}  // namespace

// custom_call @check.eq(expected, actual) of StableHLO's testdata (exact for
// integers, within 1e-4 for floats, as stablehlo-translate's), and
// @check.expect_eq / expect_almost_eq (1e-3) / expect_close (0 to 3 ULP):
// the check, and `true` for its i1 result.
absl::Status CheckCustomCall(Translator& t, const Op& op, Scope& s) {
  const Attr* target = op.FindAttr("call_target_name");
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (!(in[0].type == in[1].type) || in[0].type.kind != Type::Kind::kTensor) {
    return t.Error(op.name_pos, StrCat(target->s, " compares two tensors of one type, not ",
                                       in[0].type.Mlir(), " and ", in[1].type.Mlir()));
  }
  const bool is_float = IsFloatOrComplex(in[0].type.element);
  std::string kind, config;
  if (target->s == "check.eq") {
    kind = is_float ? "expect_almost_eq" : "expect_eq";
    if (is_float) config = "tolerance=0.0001";
  } else if (target->s == "check.expect_eq") {
    kind = "expect_eq";
  } else if (target->s == "check.expect_almost_eq") {
    kind = "expect_almost_eq";
    config = "tolerance=0.001";
  } else if (target->s == "check.expect_close") {
    kind = "expect_close";
    config = "max_ulp_difference=3,min_ulp_difference=0";
  } else {
    return t.Error(target->pos, StrCat("unknown check target @", target->s));
  }
  if (kind != "expect_eq" && !is_float) {
    return t.Error(op.name_pos, StrCat(target->s, " compares floats or complex numbers, not ",
                                       in[0].type.Mlir()));
  }
  HLO_RETURN_IF_ERROR(EmitCheck(t, s, op, std::move(in), kind, config));
  if (op.result_types.empty()) return absl::OkStatus();
  std::vector<Value> results;
  for (const Type& r : op.result_types) {
    if (r.kind != Type::Kind::kTensor || r.element != "pred") {
      return t.Error(op.name_pos, StrCat(target->s, " gives i1 tensors, not ", r.Mlir()));
    }
  }
  if (op.result_types.size() != 1) return t.Error(op.name_pos, "a check has one result");
  return t.BindResults(s, op, t.Splat(s, op, op.result_types[0], "true"));
}

std::vector<OpEntry> CheckOps() {
  return {
      {"check.expect_eq", &Check},        {"check.expect_eq_const", &Check},
      {"check.expect_almost_eq", &Check}, {"check.expect_almost_eq_const", &Check},
      {"check.expect_close", &Check},     {"check.expect_serialized_eq", &Check},
      {"interpreter.probe", &Probe},      {"interpreter.print", &Print},
  };
}

}  // namespace hlo::stablehlo
