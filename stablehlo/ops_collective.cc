// Collectives: all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_permute, collective_broadcast; replica groups as dense lists
// or Shardy mesh axes.
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

// `, channel_id=N, replica_groups=..., use_global_device_ids=true`
absl::Status CommonAttrs(const Translator& t, const Op& op, std::string* out) {
  if (const Attr* ch = op.FindAttr("channel_handle")) {
    int64_t handle = 0;
    if (const Attr* h = ch->Find("handle"))
      HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *h, "handle", &handle));
    if (handle > 0) StrAppend(out, ", channel_id=", handle);
  }
  if (const Attr* rg = op.FindAttr("replica_groups")) {
    if (rg->kind == Attr::Kind::kDialect && rg->s == "stablehlo.replica_group_mesh_axes") {
      const Attr* mesh = rg->Find("mesh");
      const Attr* axes = rg->Find("axes");
      if (mesh == nullptr || axes == nullptr) return t.Error(rg->pos, "mesh and axes needed");
      const Mesh* m = nullptr;
      for (const Mesh& x : t.module().meshes) {
        if (x.name == mesh->s) m = &x;
      }
      if (m == nullptr) return t.Error(mesh->pos, StrCat("undefined mesh @", mesh->s));
      std::vector<std::string> all, used;
      for (const auto& [axis, size] : m->axes) all.push_back(StrCat("'", axis, "'=", size));
      for (const Attr& a : axes->list) {
        const Attr* name = a.Find("name");
        if (name == nullptr || a.Find("sub_axis_info") != nullptr) {
          return t.Error(a.pos,
                         "only whole mesh axes (#stablehlo.axis_ref<name = ...>) are supported");
        }
        used.push_back(StrCat("'", name->s, "'"));
      }
      StrAppend(out, ", replica_groups=mesh[", StrJoin(all, ","), "] {", StrJoin(used, ","), "}");
    } else {
      std::vector<std::vector<int64_t>> groups;
      if (!(rg->kind == Attr::Kind::kDense && rg->elems.empty())) {
        HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *rg, "replica_groups", &groups));
      }
      std::vector<std::string> parts;
      for (auto& g : groups) {
        // -1 pads short groups.
        std::vector<int64_t> ids;
        for (int64_t x : g) {
          if (x >= 0) ids.push_back(x);
        }
        parts.push_back(IntList(ids));
      }
      StrAppend(out, ", replica_groups={", StrJoin(parts, ","), "}");
    }
  }
  if (OptionalBool(op, "use_global_device_ids")) *out += ", use_global_device_ids=true";
  return absl::OkStatus();
}

absl::Status AllReduce(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (op.regions.size() != 1) return t.Error(op.name_pos, "all_reduce has one region");
  std::string attrs;
  HLO_RETURN_IF_ERROR(CommonAttrs(t, op, &attrs));
  HLO_ASSIGN_OR_RETURN(std::string comp,
                       t.RegionComputation(op.regions[0], "region", false, false, s, 2));
  return t.BindResults(s, op,
                       t.Emit(s, op, "all-reduce", t.ResultType(op),
                              StrCat("all-reduce(", Names(in), ")", attrs, ", to_apply=", comp)));
}

absl::Status AllGather(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::string attrs;
  HLO_RETURN_IF_ERROR(CommonAttrs(t, op, &attrs));
  int64_t dim = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"all_gather_dim"}, 0, &dim));
  return t.BindResults(
      s, op,
      t.Emit(s, op, "all-gather", t.ResultType(op),
             StrCat("all-gather(", Names(in), ")", attrs, ", dimensions={", dim, "}")));
}

absl::Status ReduceScatter(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (op.regions.size() != 1) return t.Error(op.name_pos, "reduce_scatter has one region");
  std::string attrs;
  HLO_RETURN_IF_ERROR(CommonAttrs(t, op, &attrs));
  int64_t dim = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"scatter_dimension"}, 0, &dim));
  HLO_ASSIGN_OR_RETURN(std::string comp,
                       t.RegionComputation(op.regions[0], "region", false, false, s, 2));
  return t.BindResults(s, op,
                       t.Emit(s, op, "reduce-scatter", t.ResultType(op),
                              StrCat("reduce-scatter(", Names(in), ")", attrs, ", dimensions={",
                                     dim, "}, to_apply=", comp)));
}

// all_to_all of one operand with split_dimension != concat_dimension, as
// XLA's builder (XlaBuilder::AllToAll) lowers it: the split dimension cut
// into [split_count, the rest], an array all-to-all along the new dimension
// (its index k then holds device k's block), that dimension moved before the
// concat dimension and merged into it.
absl::StatusOr<std::string> AllToAllAcross(Translator& t, Scope& s, const Op& op, const Value& v,
                                           const Type& out, const std::string& attrs, int64_t split,
                                           int64_t concat) {
  const auto rank = static_cast<int64_t>(v.type.dims.size());
  int64_t n = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"split_count"}, 0, &n));
  if (split < 0 || concat < 0 || split >= rank || concat >= rank || n <= 0 ||
      v.type.dims[split] % n != 0 || out.ElementCount() != v.type.ElementCount()) {
    return t.Error(op.name_pos, StrCat("all_to_all: split_dimension ", split, ", concat_dimension ",
                                       concat, " and split_count ", n, " do not fit ",
                                       v.type.Mlir(), " -> ", out.Mlir()));
  }
  Type cut = v.type;
  cut.dims[split] = v.type.dims[split] / n;
  cut.dims.insert(cut.dims.begin() + split, n);
  std::string a = t.Emit(s, op, "reshape", cut, StrCat("reshape(", v.name, ")"));
  std::string b = t.Emit(s, op, "all-to-all", cut,
                         StrCat("all-to-all(", a, ")", attrs, ", dimensions={", split, "}"));
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == concat) perm.push_back(split);
    perm.push_back(d < split ? d : d + 1);
  }
  Type moved = cut;
  for (size_t i = 0; i < perm.size(); ++i) moved.dims[i] = cut.dims[perm[i]];
  std::string c =
      t.Emit(s, op, "transpose", moved, StrCat("transpose(", b, "), dimensions=", IntList(perm)));
  return t.Emit(s, op, "reshape", out, StrCat("reshape(", c, ")"));
}

absl::Status AllToAll(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::string attrs;
  HLO_RETURN_IF_ERROR(CommonAttrs(t, op, &attrs));
  int64_t split = 0, concat = 0;
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"split_dimension"}, 0, &split));
  HLO_RETURN_IF_ERROR(OptionalInt(t, op, {"concat_dimension"}, split, &concat));
  if (split != concat) {
    // Each operand on its own: a variadic all_to_all exchanges them independently.
    if (op.result_types.size() != in.size() || op.results.size() != in.size()) {
      return t.Error(op.name_pos, "all_to_all has one result per operand");
    }
    for (size_t i = 0; i < in.size(); ++i) {
      HLO_ASSIGN_OR_RETURN(
          std::string r, AllToAllAcross(t, s, op, in[i], op.result_types[i], attrs, split, concat));
      s.values[op.results[i]] = Value{r, op.result_types[i]};
    }
    return absl::OkStatus();
  }
  return t.BindResults(
      s, op,
      t.Emit(s, op, "all-to-all", t.ResultType(op),
             StrCat("all-to-all(", Names(in), ")", attrs, ", dimensions={", split, "}")));
}

}  // namespace

absl::Status RaggedAllToAllCall(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  if (in.size() != 6) {
    return t.Error(op.name_pos, StrCat("ragged_all_to_all takes 6 operands, not ", in.size()));
  }
  const Attr* config = op.FindAttr("backend_config");
  if (config == nullptr || config->kind != Attr::Kind::kDict) {
    return t.Error(op.name_pos, "ragged_all_to_all needs its dictionary backend_config");
  }
  std::string attrs;
  if (const Attr* ch = config->Find("channel_id")) {
    int64_t id = 0;
    HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *ch, "channel_id", &id));
    if (id > 0) StrAppend(&attrs, ", channel_id=", id);
  }
  Op groups;  // the config's replica_groups, read as a collective's
  if (const Attr* rg = config->Find("replica_groups"))
    groups.attrs.emplace_back("replica_groups", *rg);
  HLO_RETURN_IF_ERROR(CommonAttrs(t, groups, &attrs));
  return t.BindResults(s, op,
                       t.Emit(s, op, "ragged-all-to-all", t.ResultType(op),
                              StrCat("ragged-all-to-all(", Names(in), ")", attrs)));
}

namespace {

absl::Status CollectivePermute(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::string attrs;
  HLO_RETURN_IF_ERROR(CommonAttrs(t, op, &attrs));
  std::vector<std::vector<int64_t>> pairs;
  const Attr* p = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, {"source_target_pairs"}, &p));
  HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *p, "source_target_pairs", &pairs));
  std::vector<std::string> parts;
  for (const auto& pr : pairs) parts.push_back(IntList(pr));
  return t.BindResults(s, op,
                       t.Emit(s, op, "collective-permute", t.ResultType(op),
                              StrCat("collective-permute(", Names(in), ")", attrs,
                                     ", source_target_pairs={", StrJoin(parts, ","), "}")));
}

// collective_broadcast with has_dynamic_root (the last operand, tensor<Nxi32>,
// holds each result's source as an index into its process group): each
// operand all-gathered over the group (in group order), and the root's slice
// taken. Cross-replica groups only (no channel).
absl::Status DynamicRootBroadcast(Translator& t, const Op& op, Scope& s,
                                  const std::vector<Value>& in, const std::string& attrs) {
  const size_t n = in.empty() ? 0 : in.size() - 1;
  if (n == 0 || in.back().type.element != "s32" || in.back().type.dims.size() != 1 ||
      in.back().type.dims[0] != static_cast<int64_t>(n) || op.results.size() != n ||
      op.result_types.size() != n) {
    return t.Error(op.name_pos,
                   "collective_broadcast with has_dynamic_root takes N operands, "
                   "then a tensor<Nxi32> of roots, and gives N results");
  }
  if (attrs.find("channel_id") != std::string::npos) {
    return t.Error(op.name_pos,
                   "collective_broadcast with has_dynamic_root across partitions (a channel) is "
                   "not supported yet");
  }
  const Attr* rg = op.FindAttr("replica_groups");
  std::vector<std::vector<int64_t>> groups;
  if (rg != nullptr) HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *rg, "replica_groups", &groups));
  if (groups.empty()) {
    return t.Error(op.name_pos, "collective_broadcast with has_dynamic_root needs replica_groups");
  }
  const Value& root = in.back();
  Type index;
  index.element = "s32";
  const std::string zero = t.Splat(s, op, index, "0");
  for (size_t j = 0; j < n; ++j) {
    const Value& v = in[j];
    Type one = v.type;  // [1, dims...]
    one.dims.insert(one.dims.begin(), 1);
    Type all = one;  // [group size, dims...]
    all.dims[0] = static_cast<int64_t>(groups[0].size());
    std::string x = t.Emit(s, op, "reshape", one, StrCat("reshape(", v.name, ")"));
    std::string g =
        t.Emit(s, op, "all-gather", all, StrCat("all-gather(", x, ")", attrs, ", dimensions={0}"));
    Type first = index;
    first.dims = {1};
    std::string r = t.Emit(s, op, "slice", first,
                           StrCat("slice(", root.name, "), slice={[", j, ":", j + 1, "]}"));
    std::vector<std::string> starts = {t.Emit(s, op, "reshape", index, StrCat("reshape(", r, ")"))};
    for (size_t d = 0; d < v.type.dims.size(); ++d) starts.push_back(zero);
    const std::vector<int64_t> sizes(one.dims.begin(), one.dims.end());
    std::string picked = t.Emit(s, op, "dynamic-slice", one,
                                StrCat("dynamic-slice(", g, ", ", StrJoin(starts, ", "),
                                       "), dynamic_slice_sizes=", IntList(sizes)));
    s.values[op.results[j]] =
        Value{t.Emit(s, op, "reshape", v.type, StrCat("reshape(", picked, ")")), v.type};
  }
  return absl::OkStatus();
}

absl::Status CollectiveBroadcast(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  std::string attrs;
  HLO_RETURN_IF_ERROR(CommonAttrs(t, op, &attrs));
  if (OptionalBool(op, "has_dynamic_root")) return DynamicRootBroadcast(t, op, s, in, attrs);
  return t.BindResults(s, op,
                       t.Emit(s, op, "collective-broadcast", t.ResultType(op),
                              StrCat("collective-broadcast(", Names(in), ")", attrs)));
}

}  // namespace

std::vector<OpEntry> CollectiveOps() {
  return {
      {"stablehlo.all_reduce", &AllReduce},
      {"stablehlo.all_gather", &AllGather},
      {"stablehlo.reduce_scatter", &ReduceScatter},
      {"stablehlo.all_to_all", &AllToAll},
      {"stablehlo.collective_permute", &CollectivePermute},
      {"stablehlo.collective_broadcast", &CollectiveBroadcast},
  };
}

}  // namespace hlo::stablehlo
