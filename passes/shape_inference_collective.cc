// Shape inference for collectives, their -start/-done forms, async ops,
// send/recv, infeed/outfeed, copy-start/done, domain and opt-barrier.
//
// XLA's conventions decide (hlo_verifier.cc, shape_inference.cc): the group
// size of all-gather/reduce-scatter/all-to-all comes from replica_groups, or
// from the module's replica/partition counts when the groups are empty; the
// "context" elements at the end of a -start op's tuple are the backend's
// business and are taken as declared, as are the data shapes of recv and
// infeed and the result of a sugared async op that is not a collective.
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/computation.h"
#include "ir/module.h"
#include "ir/status_macros.h"
#include "passes/shape_inference.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

// ---- shapes -----------------------------------------------------------------

// `s` without layouts; tuple elements are interned in `pool`.
Shape Plain(const Shape& s, ShapePool& pool) {
  if (!s.IsTuple()) return s.WithoutLayout();
  std::vector<const Shape*> elements;
  for (const Shape* e : s.tuple_shapes()) elements.push_back(pool.Intern(Plain(*e, pool)));
  return Shape::Tuple(std::move(elements));
}

Shape TupleOf(const std::vector<Shape>& elements, ShapePool& pool) {
  std::vector<const Shape*> interned;
  for (const Shape& e : elements) interned.push_back(pool.Intern(Plain(e, pool)));
  return Shape::Tuple(std::move(interned));
}

// XLA's variadic collectives: one operand gives its own shape, several a tuple.
Shape OneOrTuple(const std::vector<Shape>& shapes, ShapePool& pool) {
  return shapes.size() == 1 ? Plain(shapes[0], pool) : TupleOf(shapes, pool);
}

std::vector<Shape> Values(const std::vector<const Shape*>& shapes) {
  std::vector<Shape> out;
  for (const Shape* s : shapes) out.push_back(*s);
  return out;
}

Shape U32Scalar() { return Shape::Array(PrimitiveType::kU32, {}); }

// `s` with dimension d resized, keeping its element type and dynamism.
Shape WithDim(const Shape& s, int64_t d, int64_t size) {
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  dims[d] = size;
  Shape out = Shape::Array(s.element_type(), dims);
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (s.is_dynamic_dim(i)) out = out.WithDynamicDim(i, true);
  }
  return out;
}

// Element i of a tuple, or an error naming `what` and the expected form.
absl::StatusOr<const Shape*> Element(const Shape& s, int64_t i, std::string_view what,
                                     std::string_view form) {
  if (s.IsTuple() && s.tuple_size() > i) return &s.tuple_shape(i);
  return ShapeError(what, " must have the shape ", form, ", but has ", ShapeText(s));
}

// The declared elements from `first` on: the context of a -start op, which
// XLA leaves to the backend (u32[] for collective-permute, s32[] for
// custom-call, nothing at all for some).
void AppendContext(const Shape& declared, int64_t first, std::vector<Shape>& out) {
  if (!declared.IsTuple()) return;
  for (int64_t i = first; i < declared.tuple_size(); ++i) out.push_back(declared.tuple_shape(i));
}

std::string_view Article(std::string_view word) {
  return !word.empty() && std::string_view("aeiou").find(word[0]) != std::string_view::npos ? "an "
                                                                                            : "a ";
}

const std::vector<std::vector<int64_t>>* IntListList(const Instruction& inst, AttrKind kind) {
  const Attribute* a = inst.FindAttr(kind);
  return a ? std::get_if<std::vector<std::vector<int64_t>>>(&a->value) : nullptr;
}

// ---- the op being inferred ----------------------------------------------------

// For a sugared async-start (`reduce-scatter-start`) this is the wrapped op:
// its opcode, with the start's operands and attributes, and element 1 of the
// start's declared shape as its declared result.
struct Op {
  Opcode opcode;
  const Instruction& inst;  // attributes and the module
  std::vector<const Shape*> operands;
  const Shape* declared;  // the declared result, or null when unknown
  ShapePool& pool;

  std::string_view name() const { return OpcodeName(opcode); }
  const Shape& operand(int64_t i) const { return *operands[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands.size()); }
};

Op OpOf(const Instruction& inst, Opcode opcode, const Shape* declared, ShapePool& pool) {
  std::vector<const Shape*> shapes;
  for (const Instruction* o : inst.operands()) shapes.push_back(o->shape_ptr());
  return Op{opcode, inst, std::move(shapes), declared, pool};
}

absl::Status ExpectArrayOperands(const Op& op) {
  if (op.operands.empty()) return ShapeError(op.name(), " needs at least one operand");
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    HLO_RETURN_IF_ERROR(ExpectArray(op.operand(i), StrCat(op.name(), " operand ", i)));
  }
  return absl::OkStatus();
}

absl::Status ExpectToken(const Shape& s, std::string_view what) {
  if (s.IsToken()) return absl::OkStatus();
  return ShapeError(what, " must be a token, but has shape ", ShapeText(s));
}

// The single dimension of `dimensions={d}`, in range for every operand.
absl::StatusOr<int64_t> OneDimension(const Op& op) {
  absl::Span<const int64_t> dims = op.inst.GetInts(AttrKind::kDimensions);
  if (dims.size() != 1) {
    return ShapeError(op.name(), " needs one dimension in dimensions, but has ", DimsText(dims));
  }
  for (const Shape* s : op.operands) {
    HLO_RETURN_IF_ERROR(ExpectDimensions(dims, s->rank(), StrCat(op.name(), " dimensions")));
  }
  return dims[0];
}

// ---- channel_id, use_global_device_ids, replica_groups -------------------------

absl::Status CheckChannelId(const Instruction& inst) {
  if (!inst.HasAttr(AttrKind::kChannelId)) return absl::OkStatus();
  int64_t id = inst.GetInt(AttrKind::kChannelId);
  if (id > 0) return absl::OkStatus();
  return ShapeError("channel_id must be positive, but is ", id);
}

// XLA's CollectiveOpGroupMode: which devices the ids in replica_groups name.
enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

// Ops whose XLA class has use_global_device_ids: with a channel_id and
// without that flag, their groups span the replicas of every partition.
bool HasGlobalIdsFlag(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveReduce:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<GroupMode> GroupModeOf(const Op& op) {
  bool channel = op.inst.HasAttr(AttrKind::kChannelId);
  bool global = op.inst.GetBool(AttrKind::kUseGlobalDeviceIds);
  if (!channel) {
    if (global) return ShapeError("use_global_device_ids=true needs a channel_id");
    return GroupMode::kCrossReplica;
  }
  if (!HasGlobalIdsFlag(op.opcode)) return GroupMode::kCrossPartition;
  return global ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

struct DeviceCounts {
  int64_t replicas = 1;
  int64_t partitions = 1;
};

// The module header's counts; 1 (XLA's default, "not set") outside a module.
DeviceCounts CountsOf(const Instruction& inst) {
  const Computation* c = inst.parent();
  const Module* m = c != nullptr ? c->parent() : nullptr;
  if (m == nullptr) return {};
  return {m->replica_count(), m->num_partitions()};
}

// How many ids the groups must name together in `mode`, and its name.
std::pair<int64_t, std::string> IdSpace(GroupMode mode, DeviceCounts c) {
  switch (mode) {
    case GroupMode::kCrossPartition:
      return {c.partitions, StrCat("num_partitions=", c.partitions)};
    case GroupMode::kFlattenedId:
      return {c.replicas * c.partitions,
              StrCat("replica_count*num_partitions=", c.replicas * c.partitions)};
    default:
      return {c.replicas, StrCat("replica_count=", c.replicas)};
  }
}

// Explicit groups: none empty, ids >= 0, none repeated, together naming
// 0..n-1 (XLA's CheckReplicaGroups), of equal size when `uniform`.
absl::StatusOr<int64_t> CheckExplicitGroups(const std::vector<std::vector<int64_t>>& groups,
                                            bool uniform, std::string_view op_name) {
  std::vector<int64_t> ids;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) return ShapeError("replica_groups has an empty group");
    if (uniform && groups[g].size() != groups[0].size()) {
      return ShapeError("replica_groups of ", op_name, " must have equal sizes, but ",
                        DimsText(groups[0]), " has ", groups[0].size(), " ids and ",
                        DimsText(groups[g]), " has ", groups[g].size());
    }
    ids.insert(ids.end(), groups[g].begin(), groups[g].end());
  }
  std::sort(ids.begin(), ids.end());
  if (ids[0] < 0) return ShapeError("replica_groups has a negative id ", ids[0]);
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] == ids[i - 1]) return ShapeError("replica_groups repeats id ", ids[i]);
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != static_cast<int64_t>(i)) {
      return ShapeError("replica_groups name ", ids.size(), " ids, which must be 0 to ",
                        ids.size() - 1, ", but ", i, " is missing");
    }
  }
  return static_cast<int64_t>(ids.size());
}

// The iota form `[G,S]<=[...]` names 0..G*S-1 in G groups of S by
// construction, so only its form needs checking (and nothing is expanded:
// the parser allows up to 2^40 devices).
absl::Status CheckIotaGroups(const IotaTileAssignment& iota) {
  int64_t n = 1, listed = 0;
  bool overflow = false;
  for (int64_t d : iota.reshape_dims) overflow |= d < 1 || __builtin_mul_overflow(n, d, &n);
  if (overflow || iota.dims.size() != 2 || iota.dims[0] < 1 || iota.dims[1] < 1 ||
      __builtin_mul_overflow(iota.dims[0], iota.dims[1], &listed) || listed != n) {
    return ShapeError("iota replica_groups must be [groups,group_size]<=[...] naming ", n,
                      " devices, but has the dimensions ", DimsText(iota.dims));
  }
  return absl::OkStatus();
}

// Checks channel_id/use_global_device_ids/replica_groups and returns XLA's
// subgroup size (GetSubgroupSize): how many devices one instance of the op
// spans. nullopt when unknown: empty groups and a count of 1, which may just
// mean the module header does not say.
absl::StatusOr<std::optional<int64_t>> CheckGroups(const Op& op, bool uniform) {
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GroupModeOf(op));
  DeviceCounts counts = CountsOf(op.inst);
  const ReplicaGroups* rg = op.inst.replica_groups();
  int64_t size = 0;
  if (rg != nullptr && rg->iota) {
    HLO_RETURN_IF_ERROR(CheckIotaGroups(*rg->iota));
    size = rg->iota->dims[1];
    auto [expected, what] = IdSpace(mode, counts);
    if (expected != 1 && rg->iota->dims[0] * size != expected) {
      return ShapeError("replica_groups name ", rg->iota->dims[0] * size,
                        " ids but the module has ", what);
    }
  } else if (rg != nullptr && rg->mesh) {
    // Groups over mesh axes split the mesh's devices (a permutation of
    // 0..n-1, which the parser checked) into equal groups.
    const Mesh& mesh = rg->mesh->mesh;
    if (mesh.maximal_device && *mesh.maximal_device != 0) {
      return ShapeError("replica_groups name only id ", *mesh.maximal_device,
                        ", but a single group must name 0");
    }
    const int64_t n = mesh.device_count();
    if (n == 0) return ShapeError("replica_groups over the empty mesh name no devices");
    size = 1;
    for (const MeshAxisRef& r : rg->mesh->axes) size *= mesh.Size(r);
    auto [expected, what] = IdSpace(mode, counts);
    if (expected != 1 && n != expected) {
      return ShapeError("replica_groups name ", n, " ids but the module has ", what);
    }
  } else if (rg != nullptr && !rg->groups.empty()) {
    HLO_ASSIGN_OR_RETURN(int64_t n, CheckExplicitGroups(rg->groups, uniform, op.name()));
    auto [expected, what] = IdSpace(mode, counts);
    if (expected != 1 && n != expected) {
      return ShapeError("replica_groups name ", n, " ids but the module has ", what);
    }
    size = static_cast<int64_t>(rg->groups[0].size());
  } else if (mode == GroupMode::kFlattenedId) {
    return ShapeError("use_global_device_ids=true needs replica_groups");
  } else {
    size = mode == GroupMode::kCrossPartition ? counts.partitions : counts.replicas;
    if (mode == GroupMode::kCrossReplicaAndPartition) size *= counts.partitions;
    if (size <= 1) return std::optional<int64_t>();
    return std::optional<int64_t>(size);
  }
  if (mode == GroupMode::kCrossReplicaAndPartition) size *= counts.partitions;
  return std::optional<int64_t>(size);
}

// ---- all-reduce, collective-reduce, collective-broadcast ------------------------

std::string SignatureText(const ProgramShape& p) {
  std::vector<std::string> params;
  for (const Shape* s : p.params) params.push_back(ShapeText(*s));
  return StrCat("(", StrJoin(params, ", "), ") -> ",
                p.result != nullptr ? ShapeText(*p.result) : std::string("?"));
}

bool IsScalarOf(const Shape* s, PrimitiveType t) {
  return s != nullptr && s->IsArray() && s->rank() == 0 && s->element_type() == t;
}

// to_apply combines two scalars of the operands' element type into one.
absl::Status CheckReducer(const Op& op) {
  const Computation* comp = op.inst.to_apply();
  if (comp == nullptr) return ShapeError(op.name(), " needs a to_apply computation");
  ProgramShape p = ProgramShapeOf(*comp);
  PrimitiveType t = p.result != nullptr ? p.result->element_type() : PrimitiveType::kF32;
  if (p.params.size() != 2 || !IsScalarOf(p.result, t) || !IsScalarOf(p.params[0], t) ||
      !IsScalarOf(p.params[1], t)) {
    return ShapeError("to_apply %", comp->name(), " of ", op.name(),
                      " must have the signature (T[], T[]) -> T[], but is ", SignatureText(p));
  }
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    if (op.operand(i).element_type() != t) {
      return ShapeError(op.name(), " operand ", i, " has element type ",
                        PrimitiveTypeName(op.operand(i).element_type()), " but to_apply %",
                        comp->name(), " reduces ", PrimitiveTypeName(t));
    }
  }
  return absl::OkStatus();
}

// all-reduce, all-reduce-start, collective-reduce: groups may differ in
// size (XLA checks all-reduce with uniform_replica_group_size=false).
absl::StatusOr<Shape> InferAllReduce(const Op& op) {
  HLO_RETURN_IF_ERROR(CheckGroups(op, /*uniform=*/false).status());
  HLO_RETURN_IF_ERROR(ExpectArrayOperands(op));
  HLO_RETURN_IF_ERROR(CheckReducer(op));
  return OneOrTuple(Values(op.operands), op.pool);
}

// With has_dynamic_root=true the last operand names the root and is not
// broadcast (XLA's InferCollectiveBroadcastShape; XLA's verifier accepts
// any array there, as its parser test CollectiveBroadcastDynamicRoot shows).
absl::StatusOr<Shape> InferCollectiveBroadcast(const Op& op) {
  HLO_RETURN_IF_ERROR(CheckGroups(op, /*uniform=*/false).status());
  HLO_RETURN_IF_ERROR(ExpectArrayOperands(op));
  std::vector<const Shape*> data = op.operands;
  if (op.inst.GetBool(AttrKind::kHasDynamicRoot)) {
    if (data.size() < 2) {
      return ShapeError(op.name(),
                        " with has_dynamic_root=true needs the root as a last "
                        "operand after the data");
    }
    data.pop_back();
  }
  return OneOrTuple(Values(data), op.pool);
}

// ---- all-gather, reduce-scatter ------------------------------------------------

// The declared result for operand i (the shape itself for one operand, its
// element i for several) when it is an array of the operand's rank.
const Shape* DeclaredFor(const Op& op, int64_t i) {
  const Shape* d = op.declared;
  if (d != nullptr && op.operand_count() > 1) {
    d = d->IsTuple() && d->tuple_size() == op.operand_count() ? &d->tuple_shape(i) : nullptr;
  }
  return d != nullptr && d->IsArray() && d->rank() == op.operand(i).rank() ? d : nullptr;
}

// The factor dimension d grows by (all-gather) or shrinks by (reduce-
// scatter): the group size, or when that is unknown, what the declared
// first result says, as XLA's verifier derives it, if it is a whole factor.
absl::StatusOr<int64_t> ShardCount(const Op& op, int64_t d, std::optional<int64_t> group,
                                   bool gather) {
  if (group) return *group;
  const Shape* declared = DeclaredFor(op, 0);
  if (declared == nullptr || declared->is_unbounded_dim(d) || op.operand(0).is_unbounded_dim(d)) {
    return 1;
  }
  int64_t in = op.operand(0).dim(d), out = declared->dim(d);
  int64_t big = gather ? out : in, small = gather ? in : out;
  // A whole factor >= 1: gathering never shrinks, scattering never grows.
  bool whole = small == 0 ? big == 0 : big >= small && big % small == 0;
  if (!whole) {
    if (gather) {
      return ShapeError("all-gather result dimension ", d, " is ", out,
                        ", which is not a multiple of operand dimension ", d, " (", in, ")");
    }
    return ShapeError(op.name(), " result dimension ", d, " is ", out,
                      ", which does not divide operand dimension ", d, " (", in, ")");
  }
  return small == 0 ? 1 : big / small;
}

std::string_view FactorName(std::optional<int64_t> group) {
  return group ? "the group size" : "the shard count";
}

absl::StatusOr<Shape> GatherOne(const Op& op, int64_t i, int64_t d, int64_t factor,
                                std::optional<int64_t> group) {
  const Shape& in = op.operand(i);
  if (in.is_unbounded_dim(d)) return in.WithoutLayout();
  int64_t size = 0;
  if (__builtin_mul_overflow(in.dim(d), factor, &size)) {
    return ShapeError(op.name(), " result dimension ", d, " overflows");
  }
  const Shape* declared = DeclaredFor(op, i);
  if (declared != nullptr && declared->dim(d) != size) {
    return ShapeError(op.name(), " result dimension ", d, " is ", declared->dim(d),
                      " but operand dimension ", d, " (", in.dim(d), ") times ", FactorName(group),
                      " ", factor, " is ", size);
  }
  return WithDim(in, d, size);
}

absl::StatusOr<Shape> ScatterOne(const Op& op, int64_t i, int64_t d, int64_t factor,
                                 std::optional<int64_t> group) {
  const Shape& in = op.operand(i);
  if (in.is_unbounded_dim(d)) return in.WithoutLayout();
  if (in.dim(d) % factor != 0) {
    return ShapeError(op.name(), " operand dimension ", d, " (", in.dim(d),
                      ") is not divisible by ", FactorName(group), " ", factor);
  }
  int64_t size = in.dim(d) / factor;
  const Shape* declared = DeclaredFor(op, i);
  if (declared != nullptr && declared->dim(d) != size) {
    return ShapeError(op.name(), " result dimension ", d, " is ", declared->dim(d),
                      " but operand dimension ", d, " (", in.dim(d), ") divided by ",
                      FactorName(group), " ", factor, " is ", size);
  }
  return WithDim(in, d, size);
}

// all-gather multiplies dimension d by the group size; reduce-scatter
// divides it. Several operands give a tuple.
absl::StatusOr<Shape> InferGatherOrScatter(const Op& op, bool gather) {
  HLO_ASSIGN_OR_RETURN(std::optional<int64_t> group, CheckGroups(op, /*uniform=*/true));
  HLO_RETURN_IF_ERROR(ExpectArrayOperands(op));
  if (!gather) HLO_RETURN_IF_ERROR(CheckReducer(op));
  HLO_ASSIGN_OR_RETURN(int64_t d, OneDimension(op));
  HLO_ASSIGN_OR_RETURN(int64_t factor, ShardCount(op, d, group, gather));
  std::vector<Shape> results;
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    HLO_ASSIGN_OR_RETURN(
        Shape r, gather ? GatherOne(op, i, d, factor, group) : ScatterOne(op, i, d, factor, group));
    results.push_back(std::move(r));
  }
  return OneOrTuple(results, op.pool);
}

// ---- all-to-all, ragged-all-to-all ----------------------------------------------

// With dimensions={d}: one operand, split along d into group-size pieces and
// concatenated back along d, so the shape stays. Without: one operand per
// group member, all of one shape, and a tuple of them.
absl::StatusOr<Shape> InferAllToAll(const Op& op) {
  HLO_ASSIGN_OR_RETURN(std::optional<int64_t> group, CheckGroups(op, /*uniform=*/true));
  HLO_RETURN_IF_ERROR(ExpectArrayOperands(op));
  if (op.inst.HasAttr(AttrKind::kDimensions)) {
    if (op.operand_count() != 1) {
      return ShapeError("all-to-all with dimensions takes one operand, but has ",
                        op.operand_count());
    }
    HLO_ASSIGN_OR_RETURN(int64_t d, OneDimension(op));
    const Shape& in = op.operand(0);
    if (group && !in.is_unbounded_dim(d) && in.dim(d) % *group != 0) {
      return ShapeError("all-to-all operand dimension ", d, " (", in.dim(d),
                        ") is not divisible by the group size ", *group);
    }
    return in.WithoutLayout();
  }
  if (group && op.operand_count() != *group) {
    return ShapeError("all-to-all without dimensions takes one operand per group member (", *group,
                      "), but has ", op.operand_count());
  }
  for (int64_t i = 1; i < op.operand_count(); ++i) {
    if (!op.operand(i).Compatible(op.operand(0))) {
      return ShapeError("all-to-all operands must have the same shape, but operand 0 is ",
                        ShapeText(op.operand(0)), " and operand ", i, " is ",
                        ShapeText(op.operand(i)));
    }
  }
  return TupleOf(Values(op.operands), op.pool);
}

// Rows of `input` land in `output` at the given offsets, so the two agree in
// type and in every dimension but the first; the four offset/size operands
// are integer arrays of one shape, rank 1 or 2 (XLA's verifier).
absl::StatusOr<Shape> InferRaggedAllToAll(const Op& op) {
  static constexpr const char* kNames[] = {"input",      "output",         "input_offsets",
                                           "send_sizes", "output_offsets", "recv_sizes"};
  HLO_RETURN_IF_ERROR(CheckGroups(op, /*uniform=*/true).status());
  if (op.operand_count() != 6) {
    return ShapeError(
        "ragged-all-to-all takes 6 operands (input, output, input_offsets, "
        "send_sizes, output_offsets, recv_sizes), but has ",
        op.operand_count());
  }
  for (int i = 0; i < 6; ++i) {
    HLO_RETURN_IF_ERROR(ExpectArray(op.operand(i), StrCat("ragged-all-to-all ", kNames[i])));
  }
  const Shape &in = op.operand(0), &out = op.operand(1);
  HLO_RETURN_IF_ERROR(ExpectSameType(in, "ragged-all-to-all input", out, "output"));
  bool rows_agree = in.rank() == out.rank() && in.rank() >= 1 &&
                    std::equal(in.dims().begin() + 1, in.dims().end(), out.dims().begin() + 1);
  if (!rows_agree) {
    return ShapeError("ragged-all-to-all input ", ShapeText(in), " and output ", ShapeText(out),
                      " must have the same rank (at least 1) and agree in every dimension "
                      "but the first");
  }
  for (int i = 2; i < 6; ++i) {
    const Shape& s = op.operand(i);
    if (!IsInteger(s.element_type()) || (s.rank() != 1 && s.rank() != 2)) {
      return ShapeError("ragged-all-to-all ", kNames[i],
                        " must be an integer array of rank 1 or 2, but has shape ", ShapeText(s));
    }
    if (!s.Compatible(op.operand(2))) {
      return ShapeError("ragged-all-to-all ", kNames[i], " ", ShapeText(s),
                        " must have the shape of input_offsets ", ShapeText(op.operand(2)));
    }
  }
  return out.WithoutLayout();
}

// ---- collective-permute -------------------------------------------------------

// The in-place form: (input, output, input offsets, output offsets) with
// slice_sizes; XLA's parser builds it only when slice_sizes is given.
bool IsInPlace(const Op& op) { return op.inst.HasAttr(AttrKind::kSliceSizes); }

// XLA's CheckBufferOffset: one index per buffer dimension, or a tuple of
// such index tuples (one per source-target pair).
absl::Status CheckOffsets(const Shape& buffer, const Shape& offsets, std::string_view what) {
  bool ok = offsets.IsTuple();
  bool all_arrays = true, all_tuples = true;
  for (const Shape* e : offsets.tuple_shapes()) {
    all_arrays = all_arrays && e->IsArray();
    all_tuples = all_tuples && e->IsTuple() && e->tuple_size() == buffer.rank();
  }
  ok = ok && ((all_arrays && offsets.tuple_size() == buffer.rank()) ||
              (all_tuples && offsets.tuple_size() > 0));
  if (ok) return absl::OkStatus();
  return ShapeError("collective-permute ", what, " offsets ", ShapeText(offsets),
                    " must be a tuple of ", buffer.rank(),
                    " indices (or a tuple of such "
                    "tuples) for the buffer ",
                    ShapeText(buffer));
}

absl::Status CheckInPlaceOperands(const Op& op) {
  if (op.operand_count() != 4) {
    return ShapeError(
        "collective-permute with slice_sizes takes 4 operands (input, output, "
        "input offsets, output offsets), but has ",
        op.operand_count());
  }
  const Shape &in = op.operand(0), &out = op.operand(1);
  if (in.IsArray() && out.IsArray()) {
    HLO_RETURN_IF_ERROR(CheckOffsets(in, op.operand(2), "input"));
    return CheckOffsets(out, op.operand(3), "output");
  }
  if (!in.IsTuple() || !out.IsTuple() || in.tuple_size() != out.tuple_size()) {
    return ShapeError("collective-permute input ", ShapeText(in), " and output ", ShapeText(out),
                      " must both be arrays or both be tuples of the same size");
  }
  for (int64_t k : {2, 3}) {
    const Shape& buffers = op.operand(k - 2);
    const Shape& offsets = op.operand(k);
    std::string_view what = k == 2 ? "input" : "output";
    if (!offsets.IsTuple() || offsets.tuple_size() != buffers.tuple_size()) {
      return ShapeError("collective-permute ", what, " offsets ", ShapeText(offsets),
                        " must be a tuple of one offset list per buffer of ", ShapeText(buffers));
    }
    for (int64_t i = 0; i < buffers.tuple_size(); ++i) {
      HLO_RETURN_IF_ERROR(CheckOffsets(buffers.tuple_shape(i), offsets.tuple_shape(i), what));
    }
  }
  return absl::OkStatus();
}

// How often one id may appear as a source (or target): once, or in the
// in-place form once per slice (XLA's CheckDuplicatedSourceOrTarget).
int64_t AllowedRepeats(const Op& op) {
  if (!IsInPlace(op)) return 1;
  const Shape& offsets = op.operand(2);
  if (op.operand(0).IsArray()) return offsets.tuple_size();
  return offsets.tuple_size() > 0 ? offsets.tuple_shape(0).tuple_size() : 1;
}

absl::Status CheckPairId(int64_t id, std::string_view role, int64_t limit,
                         const std::string& limit_name) {
  if (id < 0) return ShapeError("source_target_pairs has a negative ", role, " ", id);
  if (limit > 1 && id >= limit) {
    return ShapeError("source_target_pairs ", role, " ", id, " is out of range for ", limit_name);
  }
  return absl::OkStatus();
}

absl::Status CheckSourceTargetPairs(const Op& op) {
  const auto* pairs = IntListList(op.inst, AttrKind::kSourceTargetPairs);
  if (pairs == nullptr) return absl::OkStatus();
  HLO_ASSIGN_OR_RETURN(GroupMode mode, GroupModeOf(op));
  auto [limit, limit_name] = IdSpace(mode, CountsOf(op.inst));
  int64_t allowed = AllowedRepeats(op);
  absl::flat_hash_map<int64_t, int64_t> sources, targets;
  for (const std::vector<int64_t>& p : *pairs) {
    if (p.size() != 2)
      return ShapeError("source_target_pairs entry ", DimsText(p), " is not a pair");
    for (int k = 0; k < 2; ++k) {
      std::string_view role = k == 0 ? "source" : "target";
      HLO_RETURN_IF_ERROR(CheckPairId(p[k], role, limit, limit_name));
      int64_t seen = ++(k == 0 ? sources : targets)[p[k]];
      if (seen > allowed && allowed == 1) {
        return ShapeError("source_target_pairs repeats ", role, " ", p[k]);
      }
      if (seen > allowed) {
        return ShapeError("source_target_pairs names ", role, " ", p[k], " more than ", allowed,
                          " times");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPermute(const Op& op) {
  if (IsInPlace(op)) {
    HLO_RETURN_IF_ERROR(CheckInPlaceOperands(op));
  } else {
    HLO_RETURN_IF_ERROR(ExpectArrayOperands(op));
  }
  return CheckSourceTargetPairs(op);
}

// The operand (a tuple for several), or the in-place form's output buffer.
absl::StatusOr<Shape> InferCollectivePermute(const Op& op) {
  HLO_RETURN_IF_ERROR(CheckPermute(op));
  if (IsInPlace(op)) return Plain(op.operand(1), op.pool);
  return OneOrTuple(Values(op.operands), op.pool);
}

// (input, output, context...): input and output are both the operand (or the
// tuple of operands), or the in-place form's two buffers.
absl::StatusOr<Shape> InferCollectivePermuteStart(const Op& op) {
  HLO_RETURN_IF_ERROR(CheckPermute(op));
  std::vector<Shape> elements;
  if (IsInPlace(op)) {
    elements = {op.operand(0), op.operand(1)};
  } else {
    Shape buffer = OneOrTuple(Values(op.operands), op.pool);
    elements = {buffer, buffer};
  }
  AppendContext(*op.declared, 2, elements);
  return TupleOf(elements, op.pool);
}

// ---- ops with a replica group, and their async forms -----------------------------

absl::StatusOr<Shape> InferGroupCollective(const Op& op) {
  switch (op.opcode) {
    case Opcode::kAllGather:
      return InferGatherOrScatter(op, /*gather=*/true);
    case Opcode::kReduceScatter:
      return InferGatherOrScatter(op, /*gather=*/false);
    case Opcode::kAllToAll:
      return InferAllToAll(op);
    case Opcode::kRaggedAllToAll:
      return InferRaggedAllToAll(op);
    case Opcode::kCollectivePermute:
      return InferCollectivePermute(op);
    case Opcode::kCollectiveBroadcast:
      return InferCollectiveBroadcast(op);
    default:
      return InferAllReduce(op);
  }
}

// ((operand or operands), result) per XLA's InferAllGatherStartShape.
absl::StatusOr<Shape> InferAllGatherStart(const Instruction& inst, ShapePool& pool) {
  const Shape& declared = inst.shape();
  const Shape* result =
      declared.IsTuple() && declared.tuple_size() == 2 ? &declared.tuple_shape(1) : nullptr;
  Op op = OpOf(inst, Opcode::kAllGather, result, pool);
  HLO_ASSIGN_OR_RETURN(Shape gathered, InferGatherOrScatter(op, /*gather=*/true));
  return TupleOf({OneOrTuple(Values(op.operands), pool), gathered}, pool);
}

// ---- -done ops -------------------------------------------------------------------

// Error unless operand 0 comes from one of `allowed`: a -done op consumes
// its own -start (XLA's VerifyAsynchronousInstructionPairs).
absl::Status ExpectProducer(const Instruction& inst, std::initializer_list<Opcode> allowed) {
  const Instruction& p = *inst.operand(0);
  std::vector<std::string> names;
  for (Opcode a : allowed) {
    if (p.opcode() == a && !p.has_wrapped_opcode()) return absl::OkStatus();
    names.push_back(StrCat(Article(OpcodeName(a)), OpcodeName(a)));
  }
  return ShapeError(inst.OpcodeText(), " operand must be ", StrJoin(names, " or "), ", but %",
                    p.name(), " is ", Article(p.OpcodeText()), p.OpcodeText());
}

// all-reduce-done, all-gather-done, collective-permute-done, copy-done: a
// part of the start's shape (element -1: all of it).
absl::StatusOr<Shape> InferLegacyDone(const Instruction& inst, Opcode start, int64_t element,
                                      ShapePool& pool) {
  HLO_RETURN_IF_ERROR(ExpectProducer(inst, {start}));
  const Shape& s = inst.operand(0)->shape();
  if (element < 0) return Plain(s, pool);
  HLO_ASSIGN_OR_RETURN(const Shape* second, Element(s, 1, StrCat(inst.OpcodeText(), " operand"),
                                                    "a tuple of at least 2 elements"));
  if (inst.opcode() == Opcode::kCopyDone && !s.tuple_shape(0).Compatible(*second)) {
    return ShapeError("copy-done operand elements 0 (", ShapeText(s.tuple_shape(0)), ") and 1 (",
                      ShapeText(*second), ") must have the same shape");
  }
  return Plain(s.tuple_shape(element), pool);
}

// ---- send, recv, infeed, outfeed ---------------------------------------------------

// A send-done/recv-done and its send/recv share channel_id and
// is_host_transfer (XLA's CheckSameChannel, CheckSameIsHostTransfer).
absl::Status CheckSameChannel(const Instruction& done) {
  const Instruction& start = *done.operand(0);
  if (start.opcode() != Opcode::kSend && start.opcode() != Opcode::kRecv) {
    return absl::OkStatus();  // pipelined through a get-tuple-element
  }
  auto channel = [](const Instruction& i) {
    return i.HasAttr(AttrKind::kChannelId) ? StrCat(i.GetInt(AttrKind::kChannelId))
                                           : std::string("none");
  };
  if (channel(done) != channel(start)) {
    return ShapeError(done.OpcodeText(), " has channel_id ", channel(done), " but its ",
                      start.OpcodeText(), " %", start.name(), " has ", channel(start));
  }
  if (done.GetBool(AttrKind::kIsHostTransfer) != start.GetBool(AttrKind::kIsHostTransfer)) {
    return ShapeError(done.OpcodeText(), " and its ", start.OpcodeText(), " %", start.name(),
                      " must agree on is_host_transfer");
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferSendRecv(const Instruction& inst, ShapePool& pool) {
  const Shape& declared = inst.shape();
  switch (inst.opcode()) {
    case Opcode::kSend:
      HLO_RETURN_IF_ERROR(ExpectToken(inst.operand(1)->shape(), "send operand 1"));
      return TupleOf({inst.operand(0)->shape(), U32Scalar(), Shape::Token()}, pool);
    case Opcode::kRecv: {
      // The received data's shape is free: it is whatever the recv declares.
      HLO_RETURN_IF_ERROR(ExpectToken(inst.operand(0)->shape(), "recv operand"));
      HLO_ASSIGN_OR_RETURN(const Shape* data,
                           Element(declared, 0, "recv", "(data, u32[], token[])"));
      return TupleOf({*data, U32Scalar(), Shape::Token()}, pool);
    }
    case Opcode::kSendDone:
      HLO_RETURN_IF_ERROR(ExpectProducer(inst, {Opcode::kSend, Opcode::kGetTupleElement}));
      HLO_RETURN_IF_ERROR(CheckSameChannel(inst));
      return Shape::Token();
    default: {  // recv-done
      HLO_RETURN_IF_ERROR(ExpectProducer(inst, {Opcode::kRecv, Opcode::kGetTupleElement}));
      HLO_RETURN_IF_ERROR(CheckSameChannel(inst));
      HLO_ASSIGN_OR_RETURN(
          const Shape* data,
          Element(inst.operand(0)->shape(), 0, "recv-done operand", "(data, u32[], token[])"));
      return TupleOf({*data, Shape::Token()}, pool);
    }
  }
}

absl::StatusOr<Shape> InferInfeed(const Instruction& inst, ShapePool& pool) {
  // The data shape is free: it is whatever the infeed declares.
  HLO_RETURN_IF_ERROR(ExpectToken(inst.operand(0)->shape(), "infeed operand"));
  HLO_ASSIGN_OR_RETURN(const Shape* data, Element(inst.shape(), 0, "infeed", "(data, token[])"));
  return TupleOf({*data, Shape::Token()}, pool);
}

absl::StatusOr<Shape> InferOutfeed(const Instruction& inst) {
  HLO_RETURN_IF_ERROR(ExpectToken(inst.operand(1)->shape(), "outfeed operand 1"));
  const Attribute* a = inst.FindAttr(AttrKind::kOutfeedShape);
  const Shape* const* given = a ? std::get_if<const Shape*>(&a->value) : nullptr;
  const Shape& data = inst.operand(0)->shape();
  if (given != nullptr && *given != nullptr && !(*given)->Compatible(data)) {
    return ShapeError("outfeed_shape ", ShapeText(**given), " differs from the operand's shape ",
                      ShapeText(data));
  }
  return Shape::Token();
}

// ---- async-start, async-update, async-done -----------------------------------------

std::string_view ThreadName(std::string_view thread) { return thread.empty() ? "main" : thread; }

// XLA's IsShapePrefix (hlo_verifier.cc): `a` is `b`, or `()`, or a tuple
// whose elements are prefixes of `b`'s first elements. Late binding (an
// async-update that adds operands or result buffers) grows a chain's shapes
// this way.
bool IsShapePrefix(const Shape& a, const Shape& b) {
  if (a.Compatible(b)) return true;
  if (!a.IsTuple()) return false;
  if (a.tuple_size() == 0) return true;
  if (!b.IsTuple() || a.tuple_size() > b.tuple_size()) return false;
  for (int64_t i = 0; i < a.tuple_size(); ++i) {
    if (!IsShapePrefix(a.tuple_shape(i), b.tuple_shape(i))) return false;
  }
  return true;
}

// The generic form: `calls` names the wrapped computation, which runs on the
// start's async_execution_thread. The start's operands are its first
// parameters; async-updates may bind the rest (late binding), and the start
// may declare a prefix of its result.
absl::StatusOr<Shape> CalledResult(const Instruction& inst, ShapePool& pool) {
  const Computation* comp = inst.to_apply();
  if (comp == nullptr) return ShapeError("async-start needs calls=<computation>");
  std::string_view thread = ThreadName(inst.GetString(AttrKind::kAsyncExecutionThread));
  if (thread != ThreadName(comp->execution_thread())) {
    return ShapeError("async-start runs on thread \"", thread, "\" but %", comp->name(),
                      " belongs to thread \"", ThreadName(comp->execution_thread()), "\"");
  }
  ProgramShape p = ProgramShapeOf(*comp);
  if (static_cast<int64_t>(p.params.size()) < inst.operand_count()) {
    return ShapeError("async-start has ", inst.operand_count(), " operands but %", comp->name(),
                      " takes ", p.params.size(), " parameters");
  }
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (!inst.operand(i)->shape().Compatible(*p.params[i])) {
      return ShapeError("async-start operand ", i, " has shape ",
                        ShapeText(inst.operand(i)->shape()), " but %", comp->name(), " takes ",
                        ShapeText(*p.params[i]));
    }
  }
  if (p.result == nullptr) return ShapeError("%", comp->name(), " has no root");
  const Shape& declared = inst.shape();
  if (declared.IsTuple() && declared.tuple_size() >= 2 &&
      IsShapePrefix(declared.tuple_shape(1), *p.result)) {
    return Plain(declared.tuple_shape(1), pool);
  }
  return Plain(*p.result, pool);
}

// The sugared form (`reduce-scatter-start`): the wrapped computation is not
// in the text. A wrapped collective is inferred from the start's operands
// and attributes; any other wrapped op's result is taken as declared.
absl::StatusOr<Shape> WrappedResult(const Instruction& inst, ShapePool& pool) {
  const Shape& declared = inst.shape();
  const Shape* result =
      declared.IsTuple() && declared.tuple_size() >= 2 ? &declared.tuple_shape(1) : nullptr;
  if (IsGroupCollective(inst.wrapped_opcode())) {
    return InferGroupCollective(OpOf(inst, inst.wrapped_opcode(), result, pool));
  }
  if (result == nullptr) {
    return ShapeError(inst.OpcodeText(),
                      " must have the shape ((operands...), result, "
                      "context...), but has ",
                      ShapeText(declared));
  }
  return Plain(*result, pool);
}

// ((operands...), result, context...).
absl::StatusOr<Shape> InferAsyncStart(const Instruction& inst, ShapePool& pool) {
  std::vector<Shape> operands;
  for (const Instruction* o : inst.operands()) operands.push_back(o->shape());
  Shape params = TupleOf(operands, pool);
  const Shape& declared = inst.shape();
  if (declared.IsTuple() && declared.tuple_size() >= 1 &&
      !declared.tuple_shape(0).Compatible(params)) {
    return ShapeError(inst.OpcodeText(), " shape element 0 is ", ShapeText(declared.tuple_shape(0)),
                      " but its operands are ", ShapeText(params));
  }
  HLO_ASSIGN_OR_RETURN(Shape result, inst.has_wrapped_opcode() ? WrappedResult(inst, pool)
                                                               : CalledResult(inst, pool));
  std::vector<Shape> elements = {params, result};
  AppendContext(declared, 2, elements);
  return TupleOf(elements, pool);
}

// async-update and async-done follow an async-start or async-update of the
// same kind (sugared with the same wrapped op, or generic with the same
// computation where both name it).
absl::Status ExpectAsyncProducer(const Instruction& inst) {
  const Instruction& p = *inst.operand(0);
  bool async = p.opcode() == Opcode::kAsyncStart || p.opcode() == Opcode::kAsyncUpdate;
  bool same_kind = p.has_wrapped_opcode() == inst.has_wrapped_opcode() &&
                   (!inst.has_wrapped_opcode() || p.wrapped_opcode() == inst.wrapped_opcode());
  if (!async || !same_kind) {
    std::string prefix(inst.has_wrapped_opcode() ? OpcodeName(inst.wrapped_opcode()) : "async");
    return ShapeError(inst.OpcodeText(), " operand must be ", Article(prefix), prefix, "-start or ",
                      prefix, "-update, but %", p.name(), " is ", Article(p.OpcodeText()),
                      p.OpcodeText());
  }
  // The chain's computation is the first one named from here up to its
  // async-start; an update or done that names one must name the same (XLA:
  // "Expect async_wrapped_computation to be ...").
  const Instruction* start = &p;
  const Computation* theirs = p.to_apply();
  const Instruction* named_by = &p;
  while (start->opcode() == Opcode::kAsyncUpdate && start->operand_count() > 0 &&
         start->operand(0) != nullptr) {
    start = start->operand(0);
    if (theirs == nullptr && start->to_apply() != nullptr) {
      theirs = start->to_apply();
      named_by = start;
    }
  }
  const Computation* mine = inst.to_apply();
  if (mine != nullptr && theirs != nullptr && mine != theirs) {
    return ShapeError(inst.OpcodeText(), " calls %", mine->name(), " but %", named_by->name(),
                      " of its chain calls %", theirs->name());
  }
  // A thread named on an update or done must be the start's (main by
  // default), as XLA's parser checks.
  if (inst.HasAttr(AttrKind::kAsyncExecutionThread)) {
    std::string_view want = start->HasAttr(AttrKind::kAsyncExecutionThread)
                                ? start->GetString(AttrKind::kAsyncExecutionThread)
                                : std::string_view("main");
    std::string_view got = inst.GetString(AttrKind::kAsyncExecutionThread);
    if (got != want) {
      return ShapeError(inst.OpcodeText(), " runs on async_execution_thread \"", got,
                        "\" but its async-start %", start->name(), " runs on \"", want, "\"");
    }
  }
  return absl::OkStatus();
}

// The async-start of the chain `inst` (an update or done) continues.
const Instruction& ChainStart(const Instruction& inst) {
  const Instruction* start = inst.operand(0);
  while (start->opcode() == Opcode::kAsyncUpdate && start->operand_count() > 0 &&
         start->operand(0) != nullptr) {
    start = start->operand(0);
  }
  return *start;
}

// async-update: the chain's shape, with its operands after the first bound
// as the next parameters of the wrapped op (late binding, as in XLA), and a
// result that may grow (a prefix of the declared one).
absl::StatusOr<Shape> InferAsyncUpdate(const Instruction& inst, const Shape& chain,
                                       ShapePool& pool) {
  HLO_RETURN_IF_ERROR(Element(chain, 1, StrCat(inst.OpcodeText(), " operand"),
                              "((operands...), result, context...)")
                          .status());
  const Shape* bound = &chain.tuple_shape(0);
  if (!bound->IsTuple()) {
    return ShapeError(inst.OpcodeText(),
                      " operand must have the shape ((operands...), result, "
                      "context...), but has ",
                      ShapeText(chain));
  }
  std::vector<Shape> params = Values(bound->tuple_shapes());
  for (int64_t i = 1; i < inst.operand_count(); ++i) params.push_back(inst.operand(i)->shape());
  const Instruction& start = ChainStart(inst);
  if (const Computation* comp = start.to_apply(); comp != nullptr && !inst.has_wrapped_opcode()) {
    ProgramShape p = ProgramShapeOf(*comp);
    if (params.size() > p.params.size()) {
      return ShapeError(inst.OpcodeText(), " binds ", params.size(), " operands in all but %",
                        comp->name(), " takes ", p.params.size(), " parameter",
                        p.params.size() == 1 ? "" : "s");
    }
    for (size_t i = bound->tuple_size(); i < params.size(); ++i) {
      if (!params[i].Compatible(*p.params[i])) {
        return ShapeError(inst.OpcodeText(), " operand ", i - bound->tuple_size() + 1,
                          " has shape ", ShapeText(params[i]), " but parameter ", i, " of %",
                          comp->name(), " is ", ShapeText(*p.params[i]));
      }
    }
  }
  std::vector<Shape> elements = {TupleOf(params, pool), chain.tuple_shape(1)};
  const Shape& declared = inst.shape();
  if (declared.IsTuple() && declared.tuple_size() >= 2 &&
      IsShapePrefix(chain.tuple_shape(1), declared.tuple_shape(1))) {
    elements[1] = declared.tuple_shape(1);
  }
  AppendContext(chain, 2, elements);
  return TupleOf(elements, pool);
}

// async-done: the wrapped op's result. A generic chain must have bound every
// parameter of its computation by now (XLA: "fully bound").
absl::StatusOr<Shape> InferAsyncDone(const Instruction& inst, const Shape& chain, ShapePool& pool) {
  HLO_ASSIGN_OR_RETURN(const Shape* result, Element(chain, 1, StrCat(inst.OpcodeText(), " operand"),
                                                    "((operands...), result, context...)"));
  const Instruction& start = ChainStart(inst);
  if (const Computation* comp = start.to_apply(); comp != nullptr && !inst.has_wrapped_opcode()) {
    ProgramShape p = ProgramShapeOf(*comp);
    const int64_t bound = chain.tuple_shape(0).IsTuple() ? chain.tuple_shape(0).tuple_size() : 0;
    // (Binding too many is the start's or an update's error.)
    if (bound < static_cast<int64_t>(p.params.size())) {
      return ShapeError(inst.OpcodeText(), " ends a chain that binds ", bound, " operand",
                        bound == 1 ? "" : "s", " but %", comp->name(), " takes ", p.params.size(),
                        " parameter", p.params.size() == 1 ? "" : "s",
                        " (the start and its async-updates bind them)");
    }
    // A result the chain left `()` (or a prefix) is the computation's; one
    // that differs is the start's error, and the done follows the chain.
    if (p.result != nullptr && !result->Compatible(*p.result) &&
        IsShapePrefix(*result, *p.result)) {
      return Plain(*p.result, pool);
    }
    return Plain(*result, pool);
  }
  if (IsShapePrefix(*result, inst.shape())) return Plain(inst.shape(), pool);
  return Plain(*result, pool);
}

absl::StatusOr<Shape> InferAsyncUpdateOrDone(const Instruction& inst, ShapePool& pool) {
  if (inst.operand_count() < 1) {
    return ShapeError(inst.OpcodeText(), " needs its async-start or async-update as operand 0");
  }
  HLO_RETURN_IF_ERROR(ExpectAsyncProducer(inst));
  const Shape& chain = inst.operand(0)->shape();
  if (inst.opcode() == Opcode::kAsyncDone) return InferAsyncDone(inst, chain, pool);
  return InferAsyncUpdate(inst, chain, pool);
}

}  // namespace

absl::StatusOr<Shape> InferCollectiveShape(const Instruction& inst, ShapePool& pool) {
  int arity = OpcodeArity(inst.opcode());
  if (arity != kVariadic && inst.operand_count() != arity) {
    return ShapeError(inst.OpcodeText(), " takes ", arity, " operand", arity == 1 ? "" : "s",
                      " but has ", inst.operand_count());
  }
  HLO_RETURN_IF_ERROR(CheckChannelId(inst));
  switch (inst.opcode()) {
    case Opcode::kAllReduceStart:
      return InferAllReduce(OpOf(inst, Opcode::kAllReduceStart, &inst.shape(), pool));
    case Opcode::kAllGatherStart:
      return InferAllGatherStart(inst, pool);
    case Opcode::kCollectivePermuteStart:
      return InferCollectivePermuteStart(OpOf(inst, inst.opcode(), &inst.shape(), pool));
    case Opcode::kAllReduceDone:
      return InferLegacyDone(inst, Opcode::kAllReduceStart, -1, pool);
    case Opcode::kAllGatherDone:
      return InferLegacyDone(inst, Opcode::kAllGatherStart, 1, pool);
    case Opcode::kCollectivePermuteDone:
      return InferLegacyDone(inst, Opcode::kCollectivePermuteStart, 1, pool);
    case Opcode::kCopyDone:
      return InferLegacyDone(inst, Opcode::kCopyStart, 0, pool);
    case Opcode::kCopyStart:
      // (destination, source, context): the destination differs only in
      // layout or memory space, which inference does not carry.
      return TupleOf({inst.operand(0)->shape(), inst.operand(0)->shape(), U32Scalar()}, pool);
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return U32Scalar();
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      return InferSendRecv(inst, pool);
    case Opcode::kInfeed:
      return InferInfeed(inst, pool);
    case Opcode::kOutfeed:
      return InferOutfeed(inst);
    case Opcode::kAsyncStart:
      return InferAsyncStart(inst, pool);
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return InferAsyncUpdateOrDone(inst, pool);
    case Opcode::kDomain:
    case Opcode::kOptimizationBarrier:
      return Plain(inst.operand(0)->shape(), pool);
    default:
      if (IsGroupCollective(inst.opcode())) {
        return InferGroupCollective(OpOf(inst, inst.opcode(), &inst.shape(), pool));
      }
      return ShapeError("internal: no collective rule for ", inst.OpcodeText());
  }
}

}  // namespace hlo
