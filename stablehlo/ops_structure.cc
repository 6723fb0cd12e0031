// Ops with regions or callees: func.call, reduce, reduce_window, sort,
// while, case/if, scatter, select_and_scatter, map, custom_call,
// sdy.manual_computation, composite, random numbers.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

absl::Status ExpectRegions(const Translator& t, const Op& op, size_t n) {
  if (op.regions.size() == n) return absl::OkStatus();
  return t.Error(op.name_pos, StrCat(op.name, " has ", n, " region(s), not ", op.regions.size()));
}

absl::Status Call(Translator& t, const Op& op, Scope& s) {
  const Attr* callee = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"callee"}, &callee));
  const Func* f = nullptr;
  for (const Func& g : t.module().funcs) {
    if (g.name == callee->s) f = &g;
  }
  if (f == nullptr) return t.Error(callee->pos, StrCat("call of undefined function @", callee->s));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in.size() != f->args.size()) {
    return t.Error(op.name_pos,
                   StrCat("@", f->name, " takes ", f->args.size(), " arguments, not ", in.size()));
  }
  for (size_t i = 0; i < in.size(); ++i) {
    if (!(in[i].type == f->args[i].type)) {
      return t.Error(op.operands[i].pos,
                     StrCat("type mismatch: argument ", i, " of @", f->name, " is ",
                            f->args[i].type.Mlir(), ", not ", in[i].type.Mlir()));
    }
  }
  if (op.result_types != f->results) {
    return t.Error(op.name_pos, StrCat("the call's result types differ from @", f->name, "'s"));
  }
  std::string name =
      t.Emit(s, op, "call", t.ResultType(op), StrCat("call(", Names(in), "), to_apply=", f->name));
  return t.BindResults(s, op, name);
}

// reduce(inputs..., inits...), dimensions={...}, to_apply=body
absl::Status Reduce(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 1));
  std::vector<int64_t> dims;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"dimensions"}, &dims));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in.size() % 2 != 0 || in.empty()) {
    return t.Error(op.name_pos, "reduce takes inputs and as many init values");
  }
  HLO_ASSIGN_OR_RETURN(std::string body, t.RegionComputation(op.regions[0], "region", false,
                                                             in.size() > 2, s, in.size()));
  std::string name =
      t.Emit(s, op, "reduce", t.ResultType(op),
             StrCat("reduce(", Names(in), "), dimensions=", IntList(dims), ", to_apply=", body));
  return t.BindResults(s, op, name);
}

absl::Status ReduceWindow(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in.size() % 2 != 0 || in.empty()) {
    return t.Error(op.name_pos, "reduce_window takes inputs and as many init values");
  }
  std::vector<int64_t> size, stride, base, win;
  HLO_RETURN_IF_ERROR(RequireInts(t, op, {"window_dimensions"}, &size));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"window_strides"}, &stride));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"base_dilations"}, &base));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"window_dilations"}, &win));
  std::vector<std::vector<int64_t>> pad;
  if (const Attr* p = op.FindAttr("padding")) {
    HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *p, "padding", &pad));
  }
  const size_t n = size.size();
  for (auto* v : {&stride, &base, &win}) {
    if (v->empty()) v->assign(n, 1);
  }
  if (pad.empty()) pad.assign(n, {0, 0});
  if (stride.size() != n || base.size() != n || win.size() != n || pad.size() != n) {
    return t.Error(op.name_pos, "reduce_window's window attributes differ in length");
  }
  std::vector<std::string> pads;
  for (const auto& p : pad) {
    if (p.size() != 2) return t.Error(op.name_pos, "padding needs [low, high] pairs");
    pads.push_back(StrCat(p[0], "_", p[1]));
  }
  std::string window = n == 0
                           ? "{}"
                           : StrCat("{size=", StrJoin(size, "x"), " stride=", StrJoin(stride, "x"),
                                    " pad=", StrJoin(pads, "x"), " lhs_dilate=", StrJoin(base, "x"),
                                    " rhs_dilate=", StrJoin(win, "x"), "}");
  HLO_ASSIGN_OR_RETURN(std::string body, t.RegionComputation(op.regions[0], "region", false,
                                                             in.size() > 2, s, in.size()));
  std::string name =
      t.Emit(s, op, "reduce-window", t.ResultType(op),
             StrCat("reduce-window(", Names(in), "), window=", window, ", to_apply=", body));
  return t.BindResults(s, op, name);
}

absl::Status Sort(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  int64_t dim = -1;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"dimension"}, -1, &dim));
  if (dim < 0 && !in.empty()) dim += static_cast<int64_t>(in[0].type.dims.size());
  HLO_ASSIGN_OR_RETURN(std::string cmp, t.RegionComputation(op.regions[0], "region", false, false,
                                                            s, 2 * in.size()));
  std::string body = StrCat("sort(", Names(in), "), dimensions={", dim, "}");
  if (OptionalBool(op, "is_stable")) body += ", is_stable=true";
  StrAppend(&body, ", to_apply=", cmp);
  return t.BindResults(s, op, t.Emit(s, op, "sort", t.ResultType(op), body));
}

// The names a region uses that it does not define (its implicit captures),
// in the order first used.
void FreeNames(const Region& region, absl::flat_hash_set<std::string>& defined,
               std::vector<Use>& free) {
  for (const Block& b : region.blocks) {
    for (const auto& [name, type] : b.args) defined.insert(name);
    for (const Op& op : b.ops) {
      for (const Use& u : op.operands) {
        if (!defined.contains(u.name) && std::none_of(free.begin(), free.end(), [&](const Use& f) {
              return f.name == u.name;
            })) {
          free.push_back(u);
        }
      }
      for (const Region& r : op.regions) FreeNames(r, defined, free);
      for (const std::string& name : op.results) defined.insert(name);
    }
  }
}

// A while whose regions use values from outside becomes, as XLA's
// translation makes it, one that carries them as extra loop values: operands,
// block arguments of the same names (which shadow the outer values inside),
// passed through unchanged by the body, and unused results.
// The op itself when it captures nothing.
absl::StatusOr<const Op*> CarryCaptures(Translator& t, const Op& op, const Scope& s, Op* copy) {
  std::vector<Use> free;
  for (const Region& r : op.regions) {
    absl::flat_hash_set<std::string> defined;
    FreeNames(r, defined, free);
  }
  if (free.empty()) return &op;
  Op& out = *copy;
  out = op;
  for (const Use& u : free) {
    HLO_ASSIGN_OR_RETURN(Value v, t.Lookup(s, u));
    out.operands.push_back(u);
    out.operand_types.push_back(v.type);
    out.result_types.push_back(v.type);
    out.results.push_back(StrCat("%", t.NewName("while_capture")));
    for (Region& r : out.regions) {
      if (r.blocks.size() != 1) return t.Error(r.pos, "a while region of one block expected");
      r.blocks[0].args.emplace_back(u.name, v.type);
      r.blocks[0].arg_pos.push_back(u.pos);
    }
    Block& body = out.regions[1].blocks[0];
    if (body.ops.empty()) return t.Error(out.regions[1].pos, "the while body returns nothing");
    body.ops.back().operands.push_back(u);
    body.ops.back().operand_types.push_back(v.type);
  }
  return copy;
}

// while(tuple(operands)), condition=c, body=b; the results are its elements.
absl::Status While(Translator& t, const Op& original, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, original, 2));
  Op copy;
  HLO_ASSIGN_OR_RETURN(const Op* with_captures, CarryCaptures(t, original, s, &copy));
  const Op& op = *with_captures;
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  Type tuple;
  tuple.kind = Type::Kind::kTuple;
  for (const Value& v : in) tuple.elements.push_back(v.type);
  if (op.result_types != tuple.elements) {
    return t.Error(op.name_pos, "while's result types differ from its operands'");
  }
  HLO_ASSIGN_OR_RETURN(std::string cond,
                       t.RegionComputation(op.regions[0], "region", true, false, s, in.size()));
  HLO_ASSIGN_OR_RETURN(std::string body,
                       t.RegionComputation(op.regions[1], "region", true, true, s, in.size()));
  std::string tup = t.Emit(s, op, "tuple", tuple, StrCat("tuple(", Names(in), ")"));
  std::string loop =
      t.Emit(s, op, "while", tuple, StrCat("while(", tup, "), condition=", cond, ", body=", body));
  return t.BindTupleResults(s, op, loop);
}

// case / if: conditional(index or pred, one tuple per branch); each branch
// takes the values it uses from outside (implicit captures) as its tuple.
absl::Status Case(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in.size() != 1) return t.Error(op.name_pos, StrCat(op.name, " takes one operand"));
  if (op.regions.empty()) return t.Error(op.name_pos, StrCat(op.name, " needs branches"));
  if (op.name == "stablehlo.if" && op.regions.size() != 2) {
    return t.Error(op.name_pos, "if has two regions");
  }
  std::vector<std::string> branches, args;
  for (const Region& r : op.regions) {
    std::vector<Value> captured;
    HLO_ASSIGN_OR_RETURN(std::string b, t.BranchComputation(r, s, &captured));
    branches.push_back(b);
    Type tuple;
    tuple.kind = Type::Kind::kTuple;
    for (const Value& v : captured) tuple.elements.push_back(v.type);
    args.push_back(t.Emit(s, op, "tuple", tuple, StrCat("tuple(", Names(captured), ")")));
  }
  Type result;
  result.kind = Type::Kind::kTuple;
  result.elements = op.result_types;
  std::string body = StrCat("conditional(", in[0].name, ", ", StrJoin(args, ", "), "), ");
  if (op.name == "stablehlo.if") {
    StrAppend(&body, "true_computation=", branches[0], ", false_computation=", branches[1]);
  } else {
    StrAppend(&body, "branch_computations={", StrJoin(branches, ", "), "}");
  }
  return t.BindTupleResults(s, op, t.Emit(s, op, "conditional", result, body));
}

absl::Status Scatter(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in.size() < 3 || in.size() % 2 == 0) {
    return t.Error(op.name_pos, "scatter takes inputs, indices and as many updates as inputs");
  }
  const size_t n = (in.size() - 1) / 2;
  const Attr* dn = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"scatter_dimension_numbers"}, &dn));
  HLO_ASSIGN_OR_RETURN(std::string body_comp,
                       t.RegionComputation(op.regions[0], "region", false, n > 1, s, 2 * n));
  std::string body = StrCat("scatter(", Names(in), ")");
  for (const char* key : {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                          "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"}) {
    std::vector<int64_t> v;
    if (const Attr* a = dn->Find(key)) HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *a, key, &v));
    std::string_view k = key;
    if (!v.empty() || (k != "input_batching_dims" && k != "scatter_indices_batching_dims")) {
      StrAppend(&body, ", ", key, "=", IntList(v));
    }
  }
  int64_t ivd = 0;
  if (const Attr* a = dn->Find("index_vector_dim")) {
    HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *a, "index_vector_dim", &ivd));
  }
  StrAppend(&body, ", index_vector_dim=", ivd);
  if (OptionalBool(op, "indices_are_sorted")) body += ", indices_are_sorted=true";
  if (OptionalBool(op, "unique_indices")) body += ", unique_indices=true";
  StrAppend(&body, ", to_apply=", body_comp);
  return t.BindResults(s, op, t.Emit(s, op, "scatter", t.ResultType(op), body));
}

absl::Status Map(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::vector<int64_t> dims;
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"dimensions"}, &dims));
  HLO_ASSIGN_OR_RETURN(std::string comp,
                       t.RegionComputation(op.regions[0], "region", false, false, s, in.size()));
  return t.BindResults(
      s, op,
      t.Emit(s, op, "map", t.ResultType(op),
             StrCat("map(", Names(in), "), dimensions=", IntList(dims), ", to_apply=", comp)));
}

absl::Status SelectAndScatter(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 2));
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 3));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::vector<int64_t> size, stride;
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"window_dimensions"}, &size));
  HLO_RETURN_IF_ERROR(OptionalInts(t, op, {"window_strides"}, &stride));
  std::vector<std::vector<int64_t>> pad;
  if (const Attr* p = op.FindAttr("padding")) {
    HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *p, "padding", &pad));
  }
  const size_t n = in[0].type.dims.size();
  if (size.empty()) size.assign(n, 1);
  if (stride.empty()) stride.assign(n, 1);
  if (pad.empty()) pad.assign(n, {0, 0});
  if (size.size() != n || stride.size() != n || pad.size() != n) {
    return t.Error(op.name_pos, "select_and_scatter's window attributes differ in length");
  }
  std::vector<std::string> pads;
  for (const auto& p : pad) {
    if (p.size() != 2) return t.Error(op.name_pos, "padding needs [low, high] pairs");
    pads.push_back(StrCat(p[0], "_", p[1]));
  }
  HLO_ASSIGN_OR_RETURN(std::string select,
                       t.RegionComputation(op.regions[0], "region", false, false, s, 2));
  HLO_ASSIGN_OR_RETURN(std::string scatter,
                       t.RegionComputation(op.regions[1], "region", false, false, s, 2));
  std::string window = n == 0
                           ? "{}"
                           : StrCat("{size=", StrJoin(size, "x"), " stride=", StrJoin(stride, "x"),
                                    " pad=", StrJoin(pads, "x"), "}");
  return t.BindResults(s, op,
                       t.Emit(s, op, "select-and-scatter", t.ResultType(op),
                              StrCat("select-and-scatter(", Names(in), "), window=", window,
                                     ", select=", select, ", scatter=", scatter)));
}

absl::Status RngBitGenerator(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::string algorithm = "DEFAULT";
  if (const Attr* a = FindAny(op, {"algorithm", "rng_algorithm"})) {
    HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *a, "rng_algorithm", &algorithm));
  }
  std::string hlo = algorithm == "THREE_FRY" ? "rng_three_fry"
                    : algorithm == "PHILOX"  ? "rng_philox"
                                             : "rng_default";
  std::string name = t.Emit(s, op, "rng-bit-generator", t.ResultType(op),
                            StrCat("rng-bit-generator(", in[0].name, "), algorithm=", hlo));
  return t.BindResults(s, op, name);
}

// called_computations = [@f, ...]: the functions' names, each checked.
absl::Status CalledComputations(Translator& t, const Op& op, std::vector<std::string>* called) {
  const Attr* cc = op.FindAttr("called_computations");
  if (cc == nullptr) return absl::OkStatus();
  for (const Attr& sym : cc->list) {
    bool found = false;
    for (const Func& g : t.module().funcs) found |= g.name == sym.s;
    if (sym.kind != Attr::Kind::kSymbol || !found) {
      return t.Error(sym.pos, StrCat("called_computations names no function: @", sym.s));
    }
    called->push_back(sym.s);
  }
  return absl::OkStatus();
}

// api_version as a number (1 when absent); a dictionary backend config is a
// typed FFI call's (4).
absl::Status CustomCallApi(Translator& t, const Op& op, int64_t* api) {
  *api = 1;
  if (const Attr* a = op.FindAttr("api_version")) {
    if (a->kind == Attr::Kind::kInt) {
      *api = a->i;
    } else {
      std::string w;
      HLO_RETURN_IF_ERROR(AttrWord(t.lex(), *a, "api_version", &w));
      *api = w == "API_VERSION_STATUS_RETURNING"           ? 2
             : w == "API_VERSION_STATUS_RETURNING_UNIFIED" ? 3
             : w == "API_VERSION_TYPED_FFI"                ? 4
                                                           : 1;
    }
  }
  const Attr* config = op.FindAttr("backend_config");
  if (op.FindAttr("mhlo.backend_config") != nullptr ||
      (config != nullptr && config->kind == Attr::Kind::kDict)) {
    *api = 4;
  }
  if (*api < 0 || *api > 4) return t.Error(op.name_pos, StrCat("unknown api_version ", *api));
  return absl::OkStatus();
}

// Each type with its layout from a list of minor-to-major lists, as HLO
// shapes ("f32[2,3]{0,1}").
absl::Status ShapesWithLayouts(Translator& t, const std::vector<const Type*>& types,
                               const Attr& layouts, const char* what,
                               std::vector<std::string>* out) {
  if (layouts.list.size() != types.size()) {
    return t.Error(layouts.pos, StrCat("one ", what, " layout per ", what));
  }
  for (size_t i = 0; i < types.size(); ++i) {
    std::vector<int64_t> minor_to_major;
    HLO_RETURN_IF_ERROR(AttrInts(t.lex(), layouts.list[i], "layout", &minor_to_major));
    if (minor_to_major.size() != types[i]->dims.size()) {
      return t.Error(layouts.list[i].pos, StrCat("a layout of ", minor_to_major.size(),
                                                 " dimensions for ", types[i]->Mlir()));
    }
    out->push_back(StrCat(types[i]->Hlo(), "{", StrJoin(minor_to_major, ","), "}"));
  }
  return absl::OkStatus();
}

// output_operand_aliases = [#stablehlo.output_operand_alias<...>, ...] as
// HLO's output_to_operand_aliasing entries.
absl::Status OperandAliases(Translator& t, const Attr& aliases, std::string* body) {
  std::vector<std::string> parts;
  for (const Attr& a : aliases.list) {
    std::vector<int64_t> out_index, operand_index;
    int64_t operand = 0;
    if (const Attr* x = a.Find("output_tuple_indices")) {
      HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *x, "output_tuple_indices", &out_index));
    }
    if (const Attr* x = a.Find("operand_tuple_indices")) {
      HLO_RETURN_IF_ERROR(AttrInts(t.lex(), *x, "operand_tuple_indices", &operand_index));
    }
    if (const Attr* x = a.Find("operand_index")) {
      HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *x, "operand_index", &operand));
    }
    parts.push_back(StrCat("{", StrJoin(out_index, ","), "}: (", operand, ", {",
                           StrJoin(operand_index, ","), "})"));
  }
  StrAppend(body, ", output_to_operand_aliasing={", StrJoin(parts, ", "), "}");
  return absl::OkStatus();
}

// The attributes after the layouts: side effect, sharding, aliasing, api
// version, frontend attributes and the backend config.
absl::Status CustomCallTail(Translator& t, const Op& op, std::string_view target, int64_t api,
                            std::string* body) {
  if (OptionalBool(op, "has_side_effect")) *body += ", custom_call_has_side_effect=true";
  if (const Attr* sh = op.FindAttr("mhlo.sharding"); sh && sh->kind == Attr::Kind::kString) {
    StrAppend(body, ", sharding=", sh->s);  // @Sharding, @SPMDFullToShardShape, ...
  }
  if (const Attr* al = op.FindAttr("output_operand_aliases"); al && !al->list.empty()) {
    HLO_RETURN_IF_ERROR(OperandAliases(t, *al, body));
  }
  static const char* kApi[] = {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
                               "API_VERSION_STATUS_RETURNING",
                               "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
  if (api != 1) StrAppend(body, ", api_version=", kApi[api]);
  std::vector<std::string> frontend = FrontendAttributeEntries(op);
  if (const Attr* rule = op.FindAttr("sdy.sharding_rule"); rule && !rule->text.empty()) {
    frontend.push_back(
        StrCat("xla.sdy.sharding_rule=", HloQuoted(StrCat("#", rule->s, rule->text))));
  }
  if (!frontend.empty()) StrAppend(body, ", frontend_attributes={", StrJoin(frontend, ","), "}");
  const Attr* dict_config = op.FindAttr("mhlo.backend_config");
  const Attr* config = op.FindAttr("backend_config");
  if (api == 4) {
    const Attr* d = dict_config != nullptr ? dict_config : config;
    std::string text = d != nullptr && d->kind == Attr::Kind::kDict ? d->text : "{}";
    StrAppend(body, ", backend_config=", text);
  } else if (config != nullptr && config->kind == Attr::Kind::kString && !config->s.empty()) {
    StrAppend(body, ", backend_config=", HloQuoted(config->s));
  } else if (const Attr* m = op.FindAttr("error_message");
             m != nullptr && m->kind == Attr::Kind::kString && target == "shape_assertion") {
    // JAX's shape assertion: its message, for refine-shapes to report.
    StrAppend(body, ", backend_config=", HloQuoted(m->s));
  }
  return absl::OkStatus();
}

// custom_call: target, api_version, backend_config (string, or the
// dictionary of a typed-FFI call), layouts, aliasing, side effects, frontend
// attributes (sdy's sharding rule among them, as XLA keeps it).
absl::Status CustomCall(Translator& t, const Op& op, Scope& s) {
  const Attr* target = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"call_target_name"}, &target));
  if (target->s == "ragged_all_to_all") return RaggedAllToAllCall(t, op, s);
  if (target->s.starts_with("check.")) return CheckCustomCall(t, op, s);
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::vector<std::string> called;
  HLO_RETURN_IF_ERROR(CalledComputations(t, op, &called));
  int64_t api = 1;
  HLO_RETURN_IF_ERROR(CustomCallApi(t, op, &api));
  // Result layouts go on the result shape, operand layouts in a list.
  std::string result_shape = t.ResultType(op).Hlo();
  if (const Attr* rl = op.FindAttr("result_layouts")) {
    std::vector<const Type*> types;
    for (const Type& type : op.result_types) types.push_back(&type);
    std::vector<std::string> parts;
    HLO_RETURN_IF_ERROR(ShapesWithLayouts(t, types, *rl, "result", &parts));
    result_shape = parts.size() == 1 ? parts[0] : StrCat("(", StrJoin(parts, ", "), ")");
  }
  std::string body =
      StrCat("custom-call(", Names(in), "), custom_call_target=", HloQuoted(target->s));
  if (const Attr* ol = op.FindAttr("operand_layouts")) {
    std::vector<const Type*> types;
    for (const Value& v : in) types.push_back(&v.type);
    std::vector<std::string> parts;
    HLO_RETURN_IF_ERROR(ShapesWithLayouts(t, types, *ol, "operand", &parts));
    StrAppend(&body, ", operand_layout_constraints={", StrJoin(parts, ", "), "}");
  }
  if (!called.empty()) StrAppend(&body, ", called_computations={", StrJoin(called, ", "), "}");
  HLO_RETURN_IF_ERROR(CustomCallTail(t, op, target->s, api, &body));
  Type shape_only = t.ResultType(op);
  std::string name = t.Emit(s, op, "custom-call", shape_only, body);
  // The layouts: rewrite the shape text of the line just emitted.
  HloLine& line = s.comp->lines.back();
  std::string plain = shape_only.Hlo();
  size_t at = line.text.find(" = ") + 3;
  line.text.replace(at, plain.size(), result_shape);
  return t.BindResults(s, op, name);
}

// sdy.manual_computation, as XLA's Shardy export writes it: each operand
// through xla.sdy.GlobalToLocalShape, the body a called computation, its
// results through xla.sdy.LocalToGlobalShape.
absl::Status ManualComputation(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectRegions(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  const Region& region = op.regions[0];
  if (region.blocks.size() != 1 || region.blocks[0].args.size() != in.size()) {
    return t.Error(region.pos, StrCat("the body takes ", in.size(), " arguments"));
  }
  auto text = [&](const char* key) {
    const Attr* a = op.FindAttr(key);
    return a == nullptr ? std::string() : a->text;
  };
  auto escape = [](std::string_view v) {
    std::string out;
    for (char c : v) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    return out;
  };
  std::string manual = escape(StrCat("#sdy<manual_axes", text("manual_axes"), ">"));
  std::string in_sh = escape(StrCat("#sdy.sharding_per_value<", text("in_shardings"), ">"));
  std::string out_sh = escape(StrCat("#sdy.sharding_per_value<", text("out_shardings"), ">"));
  std::vector<Value> locals;
  for (size_t i = 0; i < in.size(); ++i) {
    const Type& local = region.blocks[0].args[i].second;
    std::string l = t.Emit(s, op, "custom-call", local,
                           StrCat("custom-call(", in[i].name,
                                  "), custom_call_target=\"xla.sdy.GlobalToLocalShape\", "
                                  "custom_call_has_side_effect=true, frontend_attributes={"
                                  "xla.sdy.in_shardings=\"",
                                  in_sh, "\",xla.sdy.manual_axes=\"", manual, "\"}"));
    locals.push_back(Value{l, local});
  }
  HLO_ASSIGN_OR_RETURN(
      std::string body,
      t.RegionComputation(region, "xla.sdy.manual_computation_body", false, true, s, in.size()));
  // The body's result types (local) come from its return.
  const Op& ret = region.blocks[0].ops.back();
  Type local_tuple;
  local_tuple.kind = Type::Kind::kTuple;
  local_tuple.elements = ret.operand_types;
  if (local_tuple.elements.size() != op.result_types.size()) {
    return t.Error(ret.pos, StrCat("the body returns ", local_tuple.elements.size(), " values for ",
                                   op.result_types.size(), " results"));
  }
  std::string call = t.Emit(s, op, "call", local_tuple,
                            StrCat("call(", Names(locals), "), to_apply=", body,
                                   ", frontend_attributes={inlineable=\"xla_late\"}"));
  std::vector<std::string> parts;
  for (size_t i = 0; i < local_tuple.elements.size(); ++i) {
    parts.push_back(t.Emit(s, op, "get-tuple-element", local_tuple.elements[i],
                           StrCat("get-tuple-element(", call, "), index=", i)));
  }
  Type global = t.ResultType(op);
  if (global.kind != Type::Kind::kTuple) {
    global.kind = Type::Kind::kTuple;
    global.elements = op.result_types;
  }
  std::string g = t.Emit(s, op, "custom-call", global,
                         StrCat("custom-call(", StrJoin(parts, ", "),
                                "), custom_call_target=\"xla.sdy.LocalToGlobalShape\", "
                                "custom_call_has_side_effect=true, frontend_attributes={"
                                "xla.sdy.manual_axes=\"",
                                manual, "\",xla.sdy.out_shardings=\"", out_sh, "\"}"));
  return t.BindTupleResults(s, op, g);
}

// composite: a call of its decomposition.
absl::Status Composite(Translator& t, const Op& op, Scope& s) {
  const Attr* d = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"decomposition"}, &d));
  Op call = op;
  call.attrs.emplace_back("callee", *d);
  return FindOpTranslator("func.call")(t, call, s);
}

}  // namespace

std::vector<OpEntry> StructureOps() {
  return {
      {"func.call", &Call},
      {"stablehlo.reduce", &Reduce},
      {"stablehlo.reduce_window", &ReduceWindow},
      {"stablehlo.sort", &Sort},
      {"stablehlo.while", &While},
      {"stablehlo.case", &Case},
      {"stablehlo.if", &Case},
      {"stablehlo.scatter", &Scatter},
      {"stablehlo.map", &Map},
      {"stablehlo.select_and_scatter", &SelectAndScatter},
      {"stablehlo.rng_bit_generator", &RngBitGenerator},
      {"stablehlo.custom_call", &CustomCall},
      {"sdy.manual_computation", &ManualComputation},
      {"stablehlo.composite", &Composite},
  };
}

}  // namespace hlo::stablehlo
