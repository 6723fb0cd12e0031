// The StableHLO form of the structured ops (dot, convolution, gather,
// scatter, sort, ...), the collectives and custom calls.
#include <algorithm>

#include "ir/config_ints.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/dot_algorithm.h"
#include "stablehlo/mlir_text.h"
#include "stablehlo/writer_impl.h"

namespace hlo::stablehlo::writing {
namespace {

// `name = [1, 2]` for the fields of #stablehlo.dot/gather/scatter, empty
// lists left out (the readers take them as empty).
void Field(std::vector<std::string>& fields, std::string_view name,
           absl::Span<const int64_t> values) {
  if (!values.empty()) fields.push_back(StrCat(name, " = ", I64List(values)));
}

std::string Precision(const hlo::Instruction& inst) {
  const Attribute* a = inst.FindAttr(AttrKind::kOperandPrecision);
  std::vector<std::string> parts;
  if (a != nullptr) {
    for (const std::string& p : std::get<std::vector<std::string>>(a->value)) {
      parts.push_back(Enum("precision", Upper(p)));
    }
  } else {
    parts = {Enum("precision", "DEFAULT"), Enum("precision", "DEFAULT")};
  }
  return StrCat("precision_config = [", StrJoin(parts, ", "), "]");
}

std::string Labels(int64_t rank, int64_t a, char a_label, int64_t b, char b_label,
                   const std::vector<int64_t>& spatial) {
  std::vector<std::string> labels(static_cast<size_t>(rank), "?");
  if (a >= 0 && a < rank) labels[a] = std::string(1, a_label);
  if (b >= 0 && b < rank) labels[b] = std::string(1, b_label);
  for (size_t i = 0; i < spatial.size(); ++i) {
    if (spatial[i] >= 0 && spatial[i] < rank) labels[spatial[i]] = StrCat(i);
  }
  return StrCat("[", StrJoin(labels, ", "), "]");
}

std::string Bool(bool b) { return b ? "true" : "false"; }

absl::Status Convolution(const hlo::Instruction& inst, Op& op) {
  const ConvDims* d = inst.conv_dims();
  if (d == nullptr) return absl::InvalidArgumentError("convolution has no dim_labels");
  const int64_t r = inst.operand(0)->shape().rank();
  std::vector<int64_t> stride, lhs_dil, rhs_dil;
  std::vector<std::vector<int64_t>> pad;
  std::vector<std::string> reversal;
  bool reversed = false;
  if (const Window* w = inst.window()) {
    for (const WindowDim& wd : *w) {
      stride.push_back(wd.stride);
      lhs_dil.push_back(wd.base_dilation);
      rhs_dil.push_back(wd.window_dilation);
      pad.push_back({wd.padding_low, wd.padding_high});
      reversal.push_back(Bool(wd.window_reversal));
      reversed |= wd.window_reversal;
    }
  }
  op.name = "stablehlo.convolution";
  op.properties = {
      StrCat("batch_group_count = ", inst.GetInt(AttrKind::kBatchGroupCount, 1), " : i64"),
      StrCat("dimension_numbers = #stablehlo.conv<",
             Labels(r, d->input_batch, 'b', d->input_feature, 'f', d->input_spatial), "x",
             Labels(inst.operand(1)->shape().rank(), d->kernel_input_feature, 'i',
                    d->kernel_output_feature, 'o', d->kernel_spatial),
             "->",
             Labels(inst.shape().rank(), d->output_batch, 'b', d->output_feature, 'f',
                    d->output_spatial),
             ">"),
      StrCat("feature_group_count = ", inst.GetInt(AttrKind::kFeatureGroupCount, 1), " : i64"),
      StrCat("lhs_dilation = ", I64Array(lhs_dil)),
      StrCat("padding = ", I64Matrix(pad, 2)),
      Precision(inst),
      StrCat("rhs_dilation = ", I64Array(rhs_dil)),
      StrCat("window_strides = ", I64Array(stride))};
  if (reversed) {
    op.properties.push_back(StrCat("window_reversal = array<i1: ", StrJoin(reversal, ", "), ">"));
  }
  return absl::OkStatus();
}

void Gather(const hlo::Instruction& inst, Op& op) {
  std::vector<std::string> f;
  Field(f, "offset_dims", inst.GetInts(AttrKind::kOffsetDims));
  Field(f, "collapsed_slice_dims", inst.GetInts(AttrKind::kCollapsedSliceDims));
  Field(f, "operand_batching_dims", inst.GetInts(AttrKind::kOperandBatchingDims));
  Field(f, "start_indices_batching_dims", inst.GetInts(AttrKind::kStartIndicesBatchingDims));
  Field(f, "start_index_map", inst.GetInts(AttrKind::kStartIndexMap));
  f.push_back(StrCat("index_vector_dim = ", inst.GetInt(AttrKind::kIndexVectorDim)));
  op.name = "stablehlo.gather";
  op.properties = {StrCat("dimension_numbers = #stablehlo.gather<", StrJoin(f, ", "), ">"),
                   StrCat("indices_are_sorted = ", Bool(inst.GetBool(AttrKind::kIndicesAreSorted))),
                   StrCat("slice_sizes = ", I64Array(inst.GetInts(AttrKind::kSliceSizes)))};
}

void Scatter(const hlo::Instruction& inst, Op& op) {
  std::vector<std::string> f;
  Field(f, "update_window_dims", inst.GetInts(AttrKind::kUpdateWindowDims));
  Field(f, "inserted_window_dims", inst.GetInts(AttrKind::kInsertedWindowDims));
  Field(f, "input_batching_dims", inst.GetInts(AttrKind::kInputBatchingDims));
  Field(f, "scatter_indices_batching_dims", inst.GetInts(AttrKind::kScatterIndicesBatchingDims));
  Field(f, "scatter_dims_to_operand_dims", inst.GetInts(AttrKind::kScatterDimsToOperandDims));
  f.push_back(StrCat("index_vector_dim = ", inst.GetInt(AttrKind::kIndexVectorDim)));
  op.name = "stablehlo.scatter";
  op.properties = {StrCat("indices_are_sorted = ", Bool(inst.GetBool(AttrKind::kIndicesAreSorted))),
                   StrCat("scatter_dimension_numbers = #stablehlo.scatter<", StrJoin(f, ", "), ">"),
                   StrCat("unique_indices = ", Bool(inst.GetBool(AttrKind::kUniqueIndices)))};
}

// `, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision =
// [DEFAULT, DEFAULT]`: dot_general's custom assembly after its operands.
std::string DotPretty(const hlo::Instruction& inst) {
  std::string out;
  absl::Span<const int64_t> lb = inst.GetInts(AttrKind::kLhsBatchDims);
  absl::Span<const int64_t> rb = inst.GetInts(AttrKind::kRhsBatchDims);
  if (!lb.empty() || !rb.empty()) {
    StrAppend(&out, ", batching_dims = ", I64List(lb), " x ", I64List(rb));
  }
  StrAppend(&out, ", contracting_dims = ", I64List(inst.GetInts(AttrKind::kLhsContractingDims)),
            " x ", I64List(inst.GetInts(AttrKind::kRhsContractingDims)));
  std::vector<std::string> precisions;
  if (const Attribute* a = inst.FindAttr(AttrKind::kOperandPrecision)) {
    for (const std::string& p : std::get<std::vector<std::string>>(a->value)) {
      precisions.push_back(Upper(p));
    }
  } else {
    precisions = {"DEFAULT", "DEFAULT"};
  }
  StrAppend(&out, ", precision = [", StrJoin(precisions, ", "), "]");
  return out;
}

// The replica groups as a dense matrix; shorter groups are padded with -1,
// as XLA's import writes groups of unequal sizes.
std::string ReplicaGroupsDense(const hlo::Instruction& inst) {
  std::vector<std::vector<int64_t>> groups = inst.replica_groups()->Groups();
  size_t width = 0;
  for (const auto& g : groups) width = std::max(width, g.size());
  for (auto& g : groups) g.resize(width, -1);
  return I64Matrix(groups, width);
}

// channel_handle and replica_groups of a collective.
absl::Status CollectiveAttributes(const hlo::Instruction& inst, Op& op) {
  if (inst.HasAttr(AttrKind::kChannelId)) {
    op.properties.push_back(StrCat("channel_handle = #stablehlo.channel_handle<handle = ",
                                   inst.GetInt(AttrKind::kChannelId), ", type = 1>"));
  }
  if (inst.HasAttr(AttrKind::kReplicaGroups)) {
    op.properties.push_back(StrCat("replica_groups = ", ReplicaGroupsDense(inst)));
  }
  if (inst.GetBool(AttrKind::kUseGlobalDeviceIds)) {
    op.properties.push_back("use_global_device_ids");
  }
  return absl::OkStatus();
}

int64_t FirstDimension(const hlo::Instruction& inst) {
  absl::Span<const int64_t> d = inst.GetInts(AttrKind::kDimensions);
  return d.empty() ? 0 : d[0];
}

// HLO's api_version names -> StableHLO's numbers.
int ApiVersion(std::string_view name) {
  if (name == "API_VERSION_STATUS_RETURNING") return 2;
  if (name == "API_VERSION_STATUS_RETURNING_UNIFIED") return 3;
  if (name == "API_VERSION_TYPED_FFI") return 4;
  return 1;
}

bool HasDefaultLayout(const Shape& s) {
  if (!s.IsArray() || !s.has_layout()) return true;
  const auto& m2m = s.layout().minor_to_major;
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

std::string LayoutDense(const Shape& s) {
  std::vector<int64_t> m2m;
  if (s.has_layout()) {
    m2m.assign(s.layout().minor_to_major.begin(), s.layout().minor_to_major.end());
  } else {
    for (int64_t i = s.rank() - 1; i >= 0; --i) m2m.push_back(i);
  }
  if (m2m.empty()) return "dense<> : tensor<0xindex>";
  return StrCat("dense<", I64List(m2m), "> : tensor<", m2m.size(), "xindex>");
}

// rng_default / rng_three_fry / rng_philox -> DEFAULT / THREE_FRY / PHILOX.
std::string RngAlgorithm(std::string_view hlo) {
  std::string upper = Upper(hlo);
  return upper.rfind("RNG_", 0) == 0 ? upper.substr(4) : "DEFAULT";
}

}  // namespace

absl::StatusOr<Value> Writer::Structured(const hlo::Instruction& inst, int indent) {
  Op op;
  op.results = ResultsOf(inst.shape());
  std::vector<const Computation*> regions;
  switch (inst.opcode()) {
    case Opcode::kDot: {
      std::optional<DotAlgorithmParams> algorithm;
      if (std::string_view a = inst.GetString(AttrKind::kAlgorithm);
          !a.empty() && a != "unset" && a != "alg_unset") {
        algorithm = DotAlgorithmOfHlo(a);
        if (!algorithm) return Error(inst, StrCat("dot algorithm '", a, "' is not one XLA knows"));
      }
      std::vector<std::string> f;
      Field(f, "lhs_batching_dimensions", inst.GetInts(AttrKind::kLhsBatchDims));
      Field(f, "rhs_batching_dimensions", inst.GetInts(AttrKind::kRhsBatchDims));
      Field(f, "lhs_contracting_dimensions", inst.GetInts(AttrKind::kLhsContractingDims));
      Field(f, "rhs_contracting_dimensions", inst.GetInts(AttrKind::kRhsContractingDims));
      op.name = "stablehlo.dot_general";
      op.properties = {StrCat("dot_dimension_numbers = #stablehlo.dot<", StrJoin(f, ", "), ">"),
                       Precision(inst)};
      op.pretty = PrettyForm::kFunctional;
      op.pretty_text = DotPretty(inst);
      if (algorithm) {
        const std::string fields = DotAlgorithmFields(*algorithm);
        op.properties.push_back(StrCat("algorithm = #stablehlo.dot_algorithm<", fields, ">"));
        StrAppend(&op.pretty_text, ", algorithm = <", fields, ">");
      }
      break;
    }
    case Opcode::kConvolution: {
      absl::Status st = Convolution(inst, op);
      if (!st.ok()) return Error(inst, std::string(st.message()));
      break;
    }
    case Opcode::kGather:
      Gather(inst, op);
      break;
    case Opcode::kScatter:
      Scatter(inst, op);
      regions = {inst.to_apply()};
      break;
    case Opcode::kSort:
      op.name = "stablehlo.sort";
      op.properties = {StrCat("dimension = ", FirstDimension(inst), " : i64"),
                       StrCat("is_stable = ", Bool(inst.GetBool(AttrKind::kIsStable)))};
      regions = {inst.to_apply()};
      break;
    case Opcode::kMap:
      op.name = "stablehlo.map";
      op.properties = {StrCat("dimensions = ", I64Array(inst.GetInts(AttrKind::kDimensions)))};
      regions = {inst.to_apply()};
      break;
    case Opcode::kSelectAndScatter: {
      op.name = "stablehlo.select_and_scatter";
      std::vector<int64_t> size, stride;
      std::vector<std::vector<int64_t>> pad;
      if (const Window* w = inst.window()) {
        for (const WindowDim& d : *w) {
          size.push_back(d.size);
          stride.push_back(d.stride);
          pad.push_back({d.padding_low, d.padding_high});
        }
      }
      op.properties = {StrCat("padding = ", I64Matrix(pad, 2)),
                       StrCat("window_dimensions = ", I64Array(size)),
                       StrCat("window_strides = ", I64Array(stride))};
      for (const Attribute& a : inst.attributes()) {
        if (a.kind == AttrKind::kSelect)
          regions.insert(regions.begin(), std::get<std::vector<Computation*>>(a.value)[0]);
        if (a.kind == AttrKind::kScatter)
          regions.push_back(std::get<std::vector<Computation*>>(a.value)[0]);
      }
      break;
    }
    case Opcode::kFft:
      op.name = "stablehlo.fft";
      op.properties = {
          StrCat("fft_length = ", I64Array(inst.GetInts(AttrKind::kFftLength))),
          StrCat("fft_type = ", Enum("fft_type", Upper(inst.GetString(AttrKind::kFftType))))};
      break;
    case Opcode::kTriangularSolve:
      op.name = "stablehlo.triangular_solve";
      op.properties = {
          StrCat("left_side = ", Bool(inst.GetBool(AttrKind::kLeftSide))),
          StrCat("lower = ", Bool(inst.GetBool(AttrKind::kLower))),
          StrCat("transpose_a = ", Enum("transpose", Upper(inst.GetString(AttrKind::kTransposeA)))),
          StrCat("unit_diagonal = ", Bool(inst.GetBool(AttrKind::kUnitDiagonal)))};
      break;
    case Opcode::kCholesky:
      op.name = "stablehlo.cholesky";
      op.properties = {StrCat("lower = ", Bool(inst.GetBool(AttrKind::kLower)))};
      break;
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad: {
      op.name = inst.opcode() == Opcode::kBatchNormTraining    ? "stablehlo.batch_norm_training"
                : inst.opcode() == Opcode::kBatchNormInference ? "stablehlo.batch_norm_inference"
                                                               : "stablehlo.batch_norm_grad";
      char eps[64];
      std::snprintf(eps, sizeof eps, "%.9e", inst.GetFloat(AttrKind::kEpsilon));
      op.properties = {StrCat("epsilon = ", eps, " : f32"),
                       StrCat("feature_index = ", inst.GetInt(AttrKind::kFeatureIndex), " : i64")};
      break;
    }
    case Opcode::kRngBitGenerator:
      op.name = "stablehlo.rng_bit_generator";
      op.properties = {
          StrCat("rng_algorithm = ",
                 Enum("rng_algorithm", RngAlgorithm(inst.GetString(AttrKind::kAlgorithm))))};
      break;
    case Opcode::kOptimizationBarrier: {
      op.name = "stablehlo.optimization_barrier";
      const Shape& s = inst.shape();
      HLO_ASSIGN_OR_RETURN(op.operands, Elements(ValueOf(inst.operand(0)), s, indent));
      op.operand_shapes = op.results =
          s.IsTuple() ? s.tuple_shapes() : std::vector<const Shape*>{&s};
      HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
      if (s.IsTuple()) v.flat = true;
      return v;
    }
    case Opcode::kAfterAll:
      op.name = inst.operand_count() == 0 ? "stablehlo.create_token" : "stablehlo.after_all";
      break;
    case Opcode::kTopK:
      if (!inst.GetBool(AttrKind::kLargest, true)) {
        return Error(inst, "topk with largest=false has no StableHLO form");
      }
      op.name = "chlo.top_k";
      op.properties = {StrCat("k = ", inst.GetInt(AttrKind::kK), " : i64")};
      break;
    default:
      return absl::UnimplementedError("");
  }
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  for (const Computation* c : regions) {
    if (c == nullptr) return Error(inst, "missing computation");
    HLO_ASSIGN_OR_RETURN(std::string r, Region(*c, indent, false));
    op.regions.push_back(std::move(r));
  }
  return EmitFor(inst, op, indent);
}

absl::StatusOr<Value> Writer::Collective(const hlo::Instruction& inst, int indent) {
  Op op;
  op.results = ResultsOf(inst.shape());
  bool reduces = false;
  bool start_of_pair = false;
  switch (inst.opcode()) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      op.name = "stablehlo.all_reduce";
      reduces = true;
      break;
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      op.name = "stablehlo.all_gather";
      op.properties = {StrCat("all_gather_dim = ", FirstDimension(inst), " : i64")};
      // The start's (operand, result) tuple: the gather gives the result.
      if (inst.opcode() == Opcode::kAllGatherStart && inst.shape().IsTuple() &&
          inst.shape().tuple_shapes().size() == 2 && inst.operand_count() == 1) {
        op.results = {inst.shape().tuple_shapes()[1]};
        start_of_pair = true;
      }
      break;
    case Opcode::kReduceScatter:
      op.name = "stablehlo.reduce_scatter";
      op.properties = {StrCat("scatter_dimension = ", FirstDimension(inst), " : i64")};
      reduces = true;
      break;
    case Opcode::kAllToAll: {
      if (!inst.HasAttr(AttrKind::kDimensions)) return TupleAllToAll(inst, indent);
      op.name = "stablehlo.all_to_all";
      int64_t d = FirstDimension(inst);
      int64_t groups = static_cast<int64_t>(
          inst.HasAttr(AttrKind::kReplicaGroups) && !inst.replica_groups()->Groups().empty()
              ? inst.replica_groups()->Groups()[0].size()
              : module_.replica_count() * module_.num_partitions());
      op.properties = {StrCat("concat_dimension = ", d, " : i64"),
                       StrCat("split_count = ", groups, " : i64"),
                       StrCat("split_dimension = ", d, " : i64")};
      break;
    }
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: {
      op.name = "stablehlo.collective_permute";
      const Attribute* a = inst.FindAttr(AttrKind::kSourceTargetPairs);
      std::vector<std::vector<int64_t>> pairs;
      if (a) pairs = std::get<std::vector<std::vector<int64_t>>>(a->value);
      op.properties = {StrCat("source_target_pairs = ", I64Matrix(pairs, 2))};
      if (inst.opcode() == Opcode::kCollectivePermuteStart)
        op.results = {&inst.operand(0)->shape()};
      break;
    }
    case Opcode::kCollectiveBroadcast:
      op.name = "stablehlo.collective_broadcast";
      break;
    case Opcode::kRaggedAllToAll: {
      // StableHLO has no such op: XLA's import writes a typed-FFI custom
      // call whose dictionary config holds the channel and replica groups.
      op.name = "stablehlo.custom_call";
      std::vector<std::string> config;
      if (inst.HasAttr(AttrKind::kChannelId)) {
        config.push_back(StrCat("channel_id = ", inst.GetInt(AttrKind::kChannelId), " : i64"));
      }
      if (inst.HasAttr(AttrKind::kReplicaGroups)) {
        config.push_back(StrCat("replica_groups = ", ReplicaGroupsDense(inst)));
      }
      op.properties = {"api_version = 4 : i32",
                       StrCat("backend_config = {", StrJoin(config, ", "), "}"),
                       "call_target_name = \"ragged_all_to_all\""};
      HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
      return EmitFor(inst, op, indent);
    }
    case Opcode::kAllReduceDone:
    case Opcode::kCollectivePermuteDone:
      return ValueOf(inst.operand(0));
    case Opcode::kAllGatherDone: {
      const Value& start = ValueOf(inst.operand(0));
      return Value{{start.parts.back()}, false};
    }
    default:
      return absl::UnimplementedError("");
  }
  if (op.name == "stablehlo.collective_permute" && inst.operand_count() != 1) {
    return Error(inst, "collective-permute with several operands is not written yet");
  }
  absl::Status st = CollectiveAttributes(inst, op);
  if (!st.ok()) return Error(inst, std::string(st.message()));
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  if (reduces) {
    if (inst.to_apply() == nullptr) return Error(inst, "missing to_apply");
    HLO_ASSIGN_OR_RETURN(std::string r, Region(*inst.to_apply(), indent, false));
    op.regions = {r};
  }
  if (!start_of_pair) return EmitFor(inst, op, indent);
  HLO_ASSIGN_OR_RETURN(Value gathered, Emit(op, indent));
  return Value{{op.operands[0], gathered.parts[0]}, true};
}

// all-to-all's tuple form (operand i goes to the group's member i, result
// j comes from member j): StableHLO's all_to_all splits one array, so the
// operands are stacked along a new leading dimension, exchanged chunk by
// chunk (split and concat dimension 0), and unstacked.
absl::StatusOr<Value> Writer::TupleAllToAll(const hlo::Instruction& inst, int indent) {
  const int64_t n = inst.operand_count();
  const Shape& each = inst.operand(0)->shape();
  for (int64_t i = 0; i < n; ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (!s.IsArray() || s.element_type() != each.element_type() || s.dims() != each.dims()) {
      return Error(inst,
                   "the tuple form of all-to-all is written in StableHLO only for operands "
                   "of one array type (stacked into one all_to_all)");
    }
  }
  std::vector<int64_t> one_dims = {1}, all_dims = {n};
  for (int64_t d : each.dims()) {
    one_dims.push_back(d);
    all_dims.push_back(d);
  }
  const Shape plain = Shape::Array(each.element_type(), each.dims());
  const Shape one = Shape::Array(each.element_type(), one_dims);
  const Shape all = Shape::Array(each.element_type(), all_dims);
  auto emit = [&](std::string name, std::vector<std::string> operands,
                  std::vector<const Shape*> shapes, std::vector<std::string> properties,
                  const Shape& result, PrettyForm pretty,
                  std::string pretty_text) -> absl::StatusOr<std::string> {
    Op op;
    op.name = std::move(name);
    op.operands = std::move(operands);
    op.operand_shapes = std::move(shapes);
    op.properties = std::move(properties);
    op.results = {&result};
    op.pretty = pretty;
    op.pretty_text = std::move(pretty_text);
    HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
    return v.parts[0];
  };
  std::vector<std::string> rows;
  std::vector<const Shape*> row_shapes;
  for (int64_t i = 0; i < n; ++i) {
    HLO_ASSIGN_OR_RETURN(std::string x, Operand(inst, i, indent));
    HLO_ASSIGN_OR_RETURN(std::string row,
                         emit("stablehlo.reshape", {x}, {&inst.operand(i)->shape()}, {}, one,
                              PrettyForm::kFunctional, ""));
    rows.push_back(row);
    row_shapes.push_back(&one);
  }
  HLO_ASSIGN_OR_RETURN(std::string stacked,
                       emit("stablehlo.concatenate", rows, row_shapes, {"dimension = 0 : i64"}, all,
                            PrettyForm::kFunctional, ", dim = 0"));
  Op a2a;
  a2a.name = "stablehlo.all_to_all";
  a2a.operands = {stacked};
  a2a.operand_shapes = {&all};
  a2a.results = {&all};
  a2a.properties = {"concat_dimension = 0 : i64", StrCat("split_count = ", n, " : i64"),
                    "split_dimension = 0 : i64"};
  absl::Status st = CollectiveAttributes(inst, a2a);
  if (!st.ok()) return Error(inst, std::string(st.message()));
  HLO_ASSIGN_OR_RETURN(Value exchanged, Emit(a2a, indent));
  Value out{{}, true};
  for (int64_t j = 0; j < n; ++j) {
    std::vector<int64_t> start(all_dims.size(), 0), limit = all_dims, strides(all_dims.size(), 1);
    start[0] = j;
    limit[0] = j + 1;
    std::vector<std::string> ranges;
    for (size_t k = 0; k < start.size(); ++k) ranges.push_back(StrCat(start[k], ":", limit[k]));
    HLO_ASSIGN_OR_RETURN(
        std::string row,
        emit("stablehlo.slice", {exchanged.parts[0]}, {&all},
             {StrCat("start_indices = ", I64Array(start)),
              StrCat("limit_indices = ", I64Array(limit)), StrCat("strides = ", I64Array(strides))},
             one, PrettyForm::kSlice, StrCat("[", StrJoin(ranges, ", "), "]")));
    HLO_ASSIGN_OR_RETURN(std::string element, emit("stablehlo.reshape", {row}, {&one}, {}, plain,
                                                   PrettyForm::kFunctional, ""));
    out.parts.push_back(element);
  }
  return out;
}

// The custom calls XLA's translation makes of the dynamic ops with unbounded
// results, as XLA's HLO-to-StableHLO import reads them back (and our
// mhlo.dynamic_iota); false for other targets.
absl::StatusOr<bool> Writer::DynamicOpCall(const hlo::Instruction& inst, int indent, Op& op) {
  std::string_view target = inst.GetString(AttrKind::kCustomCallTarget);
  std::string_view config = inst.GetString(AttrKind::kBackendConfig);
  if (target == "mhlo.dynamic_broadcast_in_dim") {
    auto dims = ConfigInts(config, "broadcast_dimensions");
    if (!dims) return Error(inst, "needs backend_config={broadcast_dimensions=[...]}");
    op.properties.push_back(StrCat("broadcast_dimensions = ", I64Array(*dims)));
  } else if (target == "mhlo.dynamic_iota") {
    auto dim = ConfigInts(config, "iota_dimension");
    if (!dim || dim->size() != 1) return Error(inst, "needs backend_config={iota_dimension=N}");
    op.properties.push_back(StrCat("iota_dimension = ", (*dim)[0], " : i64"));
  } else if (target != "mhlo.dynamic_reshape" && target != "mhlo.real_dynamic_slice") {
    return false;
  }
  op.name = StrCat("stablehlo.", target.substr(5));
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  return true;
}

absl::StatusOr<Value> Writer::CustomCall(const hlo::Instruction& inst, int indent) {
  Op op;
  op.results = ResultsOf(inst.shape());
  HLO_ASSIGN_OR_RETURN(bool dynamic_op, DynamicOpCall(inst, indent, op));
  if (dynamic_op) return EmitFor(inst, op, indent);
  op.name = "stablehlo.custom_call";
  const int api = ApiVersion(inst.GetString(AttrKind::kApiVersion));
  op.properties = {
      StrCat("api_version = ", api, " : i32"),
      StrCat("call_target_name = ", Quoted(inst.GetString(AttrKind::kCustomCallTarget)))};
  if (const Attribute* a = inst.FindAttr(AttrKind::kBackendConfig);
      a != nullptr && inst.GetString(AttrKind::kCustomCallTarget) == "shape_assertion") {
    // JAX's shape assertion keeps its message as an attribute of its own.
    op.attributes.push_back(
        StrCat("error_message = ", Quoted(inst.GetString(AttrKind::kBackendConfig))));
  } else if (a != nullptr) {
    const auto& bc = *std::get<std::shared_ptr<const BackendConfig>>(a->value);
    if (bc.is_json_object && api == 4) {
      op.properties.push_back(StrCat("backend_config = ", bc.text));
    } else {
      op.properties.push_back(StrCat("backend_config = ", Quoted(bc.text)));
    }
  }
  std::vector<std::string> called;
  for (const Computation* c : inst.called_computations()) called.push_back("@" + FunctionName(*c));
  if (!called.empty()) {
    op.properties.push_back(StrCat("called_computations = [", StrJoin(called, ", "), "]"));
  }
  if (inst.GetBool(AttrKind::kCustomCallHasSideEffect))
    op.properties.push_back("has_side_effect = true");
  // The layouts the call reads and writes: its constraints, else (after
  // layout assignment) its operands' and results' own when not the default.
  std::vector<const Shape*> operand_layouts;
  bool non_default = false;
  if (const Attribute* a = inst.FindAttr(AttrKind::kOperandLayoutConstraints)) {
    operand_layouts = std::get<std::vector<const Shape*>>(a->value);
    non_default = true;
  } else {
    for (const hlo::Instruction* o : inst.operands()) operand_layouts.push_back(&o->shape());
    for (const Shape* s : operand_layouts) non_default |= !HasDefaultLayout(*s);
    for (const Shape* s : op.results) non_default |= !HasDefaultLayout(*s);
  }
  if (non_default) {
    std::vector<std::string> in, out;
    for (const Shape* s : operand_layouts) in.push_back(LayoutDense(*s));
    for (const Shape* s : op.results) out.push_back(LayoutDense(*s));
    op.properties.push_back(StrCat("operand_layouts = [", StrJoin(in, ", "), "]"));
    op.properties.push_back(StrCat("result_layouts = [", StrJoin(out, ", "), "]"));
  }
  if (const Attribute* a = inst.FindAttr(AttrKind::kOutputToOperandAliasing)) {
    std::vector<std::string> aliases;
    for (const AliasEntry& e : *std::get<std::shared_ptr<const Aliasing>>(a->value)) {
      aliases.push_back(StrCat("#stablehlo.output_operand_alias<output_tuple_indices = ",
                               I64List(e.output_index), ", operand_index = ", e.operand,
                               ", operand_tuple_indices = ", I64List(e.operand_index), ">"));
    }
    op.properties.push_back(StrCat("output_operand_aliases = [", StrJoin(aliases, ", "), "]"));
  }
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  return EmitFor(inst, op, indent);
}

// infeed(token) and recv(token): ((data), token) in HLO, the data's
// arrays and a token in StableHLO; recv's u32 context has no counterpart.
absl::StatusOr<Value> Writer::Receive(const hlo::Instruction& inst, int indent) {
  const Shape& s = inst.shape();
  if (!s.IsTuple() || s.tuple_shapes().size() < 2) return Error(inst, "expected a tuple result");
  const Shape& data = *s.tuple_shapes()[0];
  const Shape& token = *s.tuple_shapes().back();
  Op op;
  const bool infeed = inst.opcode() == Opcode::kInfeed;
  op.name = infeed ? "stablehlo.infeed" : "stablehlo.recv";
  HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
  op.results = ResultsOf(data);
  op.results.push_back(&token);
  if (infeed) {
    op.properties = {StrCat("infeed_config = ", Quoted(inst.GetString(AttrKind::kInfeedConfig)))};
  } else {
    op.properties = {
        StrCat("channel_handle = #stablehlo.channel_handle<handle = ",
               inst.GetInt(AttrKind::kChannelId),
               ", type = ", inst.GetBool(AttrKind::kIsHostTransfer) ? 3 : 1, ">"),
        StrCat("is_host_transfer = ", inst.GetBool(AttrKind::kIsHostTransfer) ? "true" : "false")};
  }
  HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
  Value data_value{std::vector<std::string>(v.parts.begin(), v.parts.end() - 1), true};
  if (op.results.size() == 2 && op.results[0] == &data) data_value.flat = false;
  HLO_ASSIGN_OR_RETURN(std::string data_name, Single(data_value, data, indent));
  if (infeed) return Value{{data_name, v.parts.back()}, true};
  return Value{{data_name, "", v.parts.back()}, true};
}

// outfeed(data, token) and send(data, token): the data's arrays and the
// token; a token results (send's data and context have no counterpart).
absl::StatusOr<Value> Writer::Transmit(const hlo::Instruction& inst, int indent) {
  if (inst.operand_count() != 2) return Error(inst, "expected data and a token");
  const Shape& data = inst.operand(0)->shape();
  Op op;
  const bool outfeed = inst.opcode() == Opcode::kOutfeed;
  op.name = outfeed ? "stablehlo.outfeed" : "stablehlo.send";
  if (data.IsTuple()) {
    HLO_ASSIGN_OR_RETURN(op.operands, Elements(ValueOf(inst.operand(0)), data, indent));
    op.operand_shapes = data.tuple_shapes();
  } else {
    op.operands = ValueOf(inst.operand(0)).parts;
    op.operand_shapes = {&data};
  }
  HLO_ASSIGN_OR_RETURN(std::string token, Operand(inst, 1, indent));
  op.operands.push_back(token);
  op.operand_shapes.push_back(&inst.operand(1)->shape());
  if (outfeed) {
    op.properties = {StrCat("outfeed_config = ", Quoted(inst.GetString(AttrKind::kOutfeedConfig)))};
    op.results = {&inst.shape()};
    return Emit(op, indent);
  }
  op.properties = {
      StrCat(
          "channel_handle = #stablehlo.channel_handle<handle = ", inst.GetInt(AttrKind::kChannelId),
          ", type = ", inst.GetBool(AttrKind::kIsHostTransfer) ? 2 : 1, ">"),
      StrCat("is_host_transfer = ", inst.GetBool(AttrKind::kIsHostTransfer) ? "true" : "false")};
  const Shape& s = inst.shape();
  if (!s.IsTuple() || s.tuple_shapes().empty()) return Error(inst, "expected a tuple result");
  op.results = {s.tuple_shapes().back()};
  HLO_ASSIGN_OR_RETURN(Value t, Emit(op, indent));
  return Value{{"", "", t.parts[0]}, true};
}

absl::StatusOr<Value> Writer::Other(const hlo::Instruction& inst, int indent) {
  switch (inst.opcode()) {
    case Opcode::kAsyncStart: {
      if (inst.has_wrapped_opcode()) {
        return Error(inst, StrCat("the short form ", inst.OpcodeText(),
                                  " has no StableHLO form written yet"));
      }
      // The wrapped computation runs where it starts; async-done is its value.
      Computation* callee = inst.to_apply();
      if (callee == nullptr && !inst.called_computations().empty()) {
        callee = inst.called_computations()[0];
      }
      if (callee == nullptr) return Error(inst, "async-start has no computation");
      Op op;
      op.name = "func.call";
      HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
      op.properties = {StrCat("callee = @", FunctionName(*callee))};
      op.pretty = PrettyForm::kCall;
      op.pretty_text = StrCat("@", FunctionName(*callee));
      op.results = {&callee->root()->shape()};
      HLO_ASSIGN_OR_RETURN(Value result, Emit(op, indent));
      Value v{{}, true};
      v.parts = {"", result.parts[0], ""};  // ((operands), result, context)
      return v;
    }
    case Opcode::kAsyncUpdate:
      return ValueOf(inst.operand(0));
    case Opcode::kInfeed:
      return Receive(inst, indent);
    case Opcode::kRecv: {
      // StableHLO's recv blocks until its data is there, as HLO's recv-done
      // does (a recv only starts it): a recv that only recv-dones use is
      // written where its first recv-done is, so that sends written between
      // the two still come before it.
      const bool only_done =
          !inst.users().empty() &&
          std::all_of(inst.users().begin(), inst.users().end(),
                      [](const hlo::Instruction* u) { return u->opcode() == Opcode::kRecvDone; });
      if (only_done) return Value{{}, true};  // written at the recv-done
      return Receive(inst, indent);
    }
    case Opcode::kOutfeed:
    case Opcode::kSend:
      return Transmit(inst, indent);
    case Opcode::kSendDone:
      return Value{{ValueOf(inst.operand(0)).parts.back()}, false};
    case Opcode::kRecvDone: {
      const hlo::Instruction* start = inst.operand(0);
      if (ValueOf(start).parts.empty()) {
        // Written with the recv's attributes (its source-target pairs).
        const hlo::Instruction* outer = decorating_;
        decorating_ = start;
        absl::StatusOr<Value> written = Receive(*start, indent);
        decorating_ = outer;
        if (!written.ok()) return written.status();
        SetValue(start, *std::move(written));
      }
      const Value& recv = ValueOf(start);
      return Value{{recv.parts[0], recv.parts.back()}, true};
    }
    case Opcode::kCopyStart: {
      // (destination, source, context): the copy is its operand.
      const std::string& x = ValueOf(inst.operand(0)).parts[0];
      return Value{{x, x}, true};
    }
    case Opcode::kCopyDone: {
      const Value& start = ValueOf(inst.operand(0));
      return Value{{start.parts[0]}, false};
    }
    case Opcode::kRng: {
      std::string_view d = inst.GetString(AttrKind::kDistribution);
      if (d != "rng_uniform" && d != "rng_normal") return Error(inst, "unknown rng distribution");
      const Shape& s = inst.shape();
      // The result shape as a tensor<Rxi64> constant operand.
      Shape dims_shape = Shape::Array(PrimitiveType::kS64, {s.rank()});
      Op dims;
      dims.name = "stablehlo.constant";
      std::vector<int64_t> d64(s.dims().begin(), s.dims().end());
      dims.properties = {StrCat("value = dense<", I64List(d64), "> : tensor<", s.rank(), "xi64>")};
      if (s.rank() == 0) dims.properties = {"value = dense<> : tensor<0xi64>"};
      dims.results = {&dims_shape};
      HLO_ASSIGN_OR_RETURN(Value shape_value, Emit(dims, indent));
      Op op;
      op.name = "stablehlo.rng";
      HLO_RETURN_IF_ERROR(Operands(inst, indent, op));
      op.operands.push_back(shape_value.parts[0]);
      op.operand_shapes.push_back(&dims_shape);
      op.properties = {StrCat("rng_distribution = ",
                              Enum("rng_distribution", d == "rng_uniform" ? "UNIFORM" : "NORMAL"))};
      op.results = {&s};
      return EmitFor(inst, op, indent);
    }
    case Opcode::kAsyncDone: {
      const Value& start = ValueOf(inst.operand(0));
      if (!start.flat || start.parts.size() != 3)
        return Error(inst, "async-done of an unwritten start");
      return Value{{start.parts[1]}, false};
    }
    default:
      break;
  }
  return Error(inst, StrCat("'", OpcodeName(inst.opcode()), "' has no StableHLO form written yet"));
}

}  // namespace hlo::stablehlo::writing
