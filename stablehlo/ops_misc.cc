// Batch normalization, triangular_solve, rng, and the dynamic-shape ops
// (get_dimension_size, dynamic_iota, dynamic_reshape,
// dynamic_broadcast_in_dim, real_dynamic_slice, ...): their static forms
// where the result's shape is known, as XLA's translation does; with an
// unbounded result (`tensor<?x4xf32>`), the custom calls XLA's translation
// writes, which refine-shapes makes static once the inputs' shapes are known.
#include <cstdio>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

// `, epsilon=E, feature_index=F`
absl::Status BatchNormAttrs(const Translator& t, const Op& op, std::string* out) {
  const Attr* eps = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"epsilon"}, &eps));
  double epsilon = eps->kind == Attr::Kind::kFloat ? eps->f : static_cast<double>(eps->i);
  int64_t feature = 0;
  const Attr* fi = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"feature_index"}, &fi));
  HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *fi, "feature_index", &feature));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", epsilon);
  *out = StrCat(", epsilon=", buf, ", feature_index=", feature);
  return absl::OkStatus();
}

absl::Status BatchNorm(Translator& t, const Op& op, Scope& s) {
  std::string_view opcode = op.name == "stablehlo.batch_norm_inference"  ? "batch-norm-inference"
                            : op.name == "stablehlo.batch_norm_training" ? "batch-norm-training"
                                                                         : "batch-norm-grad";
  const size_t operands = opcode == "batch-norm-inference"  ? 5
                          : opcode == "batch-norm-training" ? 3
                                                            : 5;
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, operands));
  HLO_RETURN_IF_ERROR(ExpectResults(t, op, opcode == "batch-norm-inference" ? 1 : 3));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::string attrs;
  HLO_RETURN_IF_ERROR(BatchNormAttrs(t, op, &attrs));
  return t.BindResults(
      s, op, t.Emit(s, op, opcode, t.ResultType(op), StrCat(opcode, "(", Names(in), ")", attrs)));
}

absl::Status TriangularSolve(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 2));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  std::string transpose = "NO_TRANSPOSE";
  if (const Attr* a = op.FindAttr("transpose_a")) {
    HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *a, "transpose_a", &transpose));
  }
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" && transpose != "ADJOINT") {
    return t.Error(op.name_pos, StrCat("unknown transpose_a '", transpose, "'"));
  }
  auto flag = [&](const char* key) { return OptionalBool(op, key) ? "true" : "false"; };
  return t.BindResults(
      s, op,
      t.Emit(s, op, "triangular-solve", type,
             StrCat("triangular-solve(", Names(in), "), left_side=", flag("left_side"),
                    ", lower=", flag("lower"), ", unit_diagonal=", flag("unit_diagonal"),
                    ", transpose_a=", transpose)));
}

// rng(a, b, shape): the shape operand is the result type's.
absl::Status Rng(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 3));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  const Attr* d = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"rng_distribution", "distribution"}, &d));
  std::string dist;
  HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *d, "rng_distribution", &dist));
  if (dist != "UNIFORM" && dist != "NORMAL") {
    return t.Error(d->pos, StrCat("unknown rng distribution '", dist, "'"));
  }
  return t.BindResults(s, op,
                       t.Emit(s, op, "rng", type,
                              StrCat("rng(", in[0].name, ", ", in[1].name, "), distribution=",
                                     dist == "UNIFORM" ? "rng_uniform" : "rng_normal")));
}

// get_dimension_size and set_dimension_size: the operands, the result type
// and the dimension (`dim` pretty, `dimension` generic), checked.
absl::Status DimensionSizeOp(Translator& t, const Op& op, Scope& s, size_t operands,
                             std::vector<Value>* in, Type* type, int64_t* dim) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, operands));
  HLO_ASSIGN_OR_RETURN(*in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(*type, t.SingleResult(op));
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"dim", "dimension"}, 0, dim));
  if (*dim < 0 || *dim >= static_cast<int64_t>((*in)[0].type.dims.size())) {
    return t.Error(op.name_pos,
                   StrCat("dimension ", *dim, " is out of range for ", (*in)[0].type.Mlir()));
  }
  return absl::OkStatus();
}

absl::Status GetDimensionSize(Translator& t, const Op& op, Scope& s) {
  std::vector<Value> in;
  Type type;
  int64_t dim = 0;
  HLO_RETURN_IF_ERROR(DimensionSizeOp(t, op, s, 1, &in, &type, &dim));
  if (in[0].type.is_dynamic(dim)) {
    return t.BindResults(
        s, op,
        t.Emit(s, op, "get-dimension-size", type,
               StrCat("get-dimension-size(", in[0].name, "), dimensions={", dim, "}")));
  }
  // A static size: the constant XLA's builder folds it to.
  return t.BindResults(s, op, t.Splat(s, op, type, StrCat(in[0].type.dims[dim])));
}

// set_dimension_size: HLO's set-dimension-size, the result bounded.
absl::Status SetDimensionSize(Translator& t, const Op& op, Scope& s) {
  std::vector<Value> in;
  Type type;
  int64_t dim = 0;
  HLO_RETURN_IF_ERROR(DimensionSizeOp(t, op, s, 2, &in, &type, &dim));
  return t.BindResults(
      s, op,
      t.Emit(s, op, "set-dimension-size", type,
             StrCat("set-dimension-size(", Names(in), "), dimensions={", dim, "}")));
}

// An unbounded result: the custom call XLA's translation makes of the op
// (`mhlo.dynamic_broadcast_in_dim`, `mhlo.dynamic_reshape`,
// `mhlo.real_dynamic_slice`; `mhlo.dynamic_iota` is ours, XLA's has no form
// for it), its operands the op's, its attributes in backend_config.
absl::Status UnboundedCustomCall(Translator& t, const Op& op, Scope& s,
                                 const std::vector<Value>& in, const Type& type,
                                 std::string_view config) {
  std::string target = StrCat("mhlo.", op.name.substr(op.name.find('.') + 1));
  std::string body = StrCat("custom-call(", Names(in), "), custom_call_target=\"", target, "\"");
  if (!config.empty()) StrAppend(&body, ", backend_config=", HloQuoted(config));
  return t.BindResults(s, op, t.Emit(s, op, "custom-call", type, body));
}

// dynamic_iota, dynamic_reshape, dynamic_broadcast_in_dim: with a static
// or bounded result, their static forms.
absl::Status DynamicStatic(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
  if (in.empty()) return t.Error(op.name_pos, StrCat(op.name, " needs operands"));
  const bool unbounded = type.has_unbounded();
  if (op.name == "stablehlo.dynamic_iota") {
    int64_t dim = 0;
    HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"iota_dimension", "dim"}, 0, &dim));  // `dim`: pretty
    if (unbounded) {
      return UnboundedCustomCall(t, op, s, in, type, StrCat("{iota_dimension=", dim, "}"));
    }
    return t.BindResults(s, op,
                         t.Emit(s, op, "iota", type, StrCat("iota(), iota_dimension=", dim)));
  }
  if (op.name == "stablehlo.dynamic_reshape") {
    if (unbounded) return UnboundedCustomCall(t, op, s, in, type, "");
    return t.BindResults(s, op,
                         t.Emit(s, op, "reshape", type, StrCat("reshape(", in[0].name, ")")));
  }
  std::vector<int64_t> dims;
  // `dims = [...]`: the pretty form's name
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"broadcast_dimensions", "dims"}, &dims));
  if (unbounded) {
    return UnboundedCustomCall(t, op, s, in, type,
                               StrCat("{broadcast_dimensions=[", StrJoin(dims, ","), "]}"));
  }
  HLO_ASSIGN_OR_RETURN(std::string name, BroadcastTo(t, s, op, in[0], type, dims, op.name_pos));
  return t.BindResults(s, op, name);
}

}  // namespace

// dynamic_pad, dynamic_gather, dynamic_conv and real_dynamic_slice whose
// sizes are constants: their static ops (pad, gather, convolution, slice),
// the constants' values as the attributes (as StableHLO's simplification
// folds them). A real_dynamic_slice with an unbounded result is XLA's
// custom call; other sizes are an error.
absl::Status DynamicWithConstants(Translator& t, const Op& op, Scope& s) {
  struct Form {
    std::string_view name, static_name;
    size_t kept;                                   // leading operands the static op takes
    std::vector<std::string_view> constant_attrs;  // then one attribute per operand
  };
  static const Form kForms[] = {
      {"stablehlo.dynamic_pad",
       "stablehlo.pad",
       2,
       {"edge_padding_low", "edge_padding_high", "interior_padding"}},
      {"stablehlo.dynamic_gather", "stablehlo.gather", 2, {"slice_sizes"}},
      {"stablehlo.dynamic_conv", "stablehlo.convolution", 2, {"padding"}},
      {"stablehlo.real_dynamic_slice",
       "stablehlo.slice",
       1,
       {"start_indices", "limit_indices", "strides"}},
  };
  const Form* form = nullptr;
  for (const Form& f : kForms) {
    if (f.name == op.name) form = &f;
  }
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, form->kept + form->constant_attrs.size()));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (op.name == "stablehlo.real_dynamic_slice") {
    HLO_ASSIGN_OR_RETURN(Type type, t.SingleResult(op));
    if (type.has_unbounded()) return UnboundedCustomCall(t, op, s, in, type, "");
  }
  Op fixed = op;
  fixed.name = std::string(form->static_name);
  fixed.operands.resize(form->kept);
  fixed.operand_types.resize(form->kept);
  for (size_t i = 0; i < form->constant_attrs.size(); ++i) {
    auto c = t.constants().find(in[form->kept + i].name);
    if (c == t.constants().end()) {
      return t.Error(op.operands[form->kept + i].pos,
                     StrCat(op.name, "'s ", form->constant_attrs[i],
                            " must be a constant here (sizes computed at run time are read "
                            "for dynamic_broadcast_in_dim, dynamic_reshape, dynamic_iota "
                            "and real_dynamic_slice with unbounded results)"));
    }
    fixed.attrs.emplace_back(std::string(form->constant_attrs[i]), *c->second);
  }
  return FindOpTranslator(fixed.name)(t, fixed, s);
}

std::vector<OpEntry> MiscOps() {
  return {
      {"stablehlo.batch_norm_inference", &BatchNorm},
      {"stablehlo.batch_norm_training", &BatchNorm},
      {"stablehlo.batch_norm_grad", &BatchNorm},
      {"stablehlo.triangular_solve", &TriangularSolve},
      {"stablehlo.rng", &Rng},
      {"stablehlo.get_dimension_size", &GetDimensionSize},
      {"stablehlo.set_dimension_size", &SetDimensionSize},
      {"stablehlo.dynamic_iota", &DynamicStatic},
      {"stablehlo.dynamic_reshape", &DynamicStatic},
      {"stablehlo.dynamic_broadcast_in_dim", &DynamicStatic},
      {"stablehlo.dynamic_pad", &DynamicWithConstants},
      {"stablehlo.dynamic_gather", &DynamicWithConstants},
      {"stablehlo.dynamic_conv", &DynamicWithConstants},
      {"stablehlo.real_dynamic_slice", &DynamicWithConstants},
  };
}

}  // namespace hlo::stablehlo
