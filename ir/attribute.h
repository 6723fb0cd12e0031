// Instruction attributes: the table of every attribute name HLO text uses,
// the typed value of each, and the structured values (window, dim labels,
// padding, slices, replica groups, sharding, metadata, …).
//
// An instruction keeps its attributes in the order they were written, so that
// printing reproduces XLA's text; instructions built by passes add them in
// XLA's canonical order.
#ifndef HLO_IR_ATTRIBUTE_H_
#define HLO_IR_ATTRIBUTE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/interned_string.h"
#include "ir/mesh.h"
#include "ir/primitive_type.h"

namespace hlo {

class Computation;
class Instruction;
class Literal;
class Shape;

// The kinds of attribute values.
enum class AttrType : uint8_t {
  kInt,              // 3
  kFloat,            // 0.001
  kBool,             // true
  kString,           // "text" (C escapes)
  kIdent,            // LT, kLoop, rng_default (validated per attribute)
  kIntList,          // {0,1}
  kBoolList,         // {true,false}
  kIdentList,        // {default,highest}
  kIntListList,      // {{0,1},{1,0}}
  kShape,            // f32[2]{0}
  kShapeList,        // {f32[2]{0}, s32[]}
  kComputation,      // %add
  kComputationList,  // {%a, %b}
  kInstructionList,  // {%a, %b}
  kSlice,            // {[0:2], [1:8:2]}
  kWindow,           // {size=3x3 stride=2x2 pad=1_1x1_1}
  kConvDims,         // b01f_01io->b01f
  kPadding,          // 0_0x1_2_1
  kReplicaGroups,    // {{0,1},{2,3}} or [2,2]<=[4]
  kSharding,         // {devices=[2,1]0,1}
  kKeyValues,        // metadata={op_name="a" source_line=3}
  kStringMap,        // frontend_attributes={a="b",c="d"}
  kBackendConfig,    // "…" or a JSON object {…}
  kAliasing,         // {{0}: (1, {}), {1}: (0, {1})}
  kLiteral,          // literal=f32[2] {1, 2} (custom-call)
  kRaw,              // kept verbatim (balanced brackets)
};

// X(enum, text name, value type)
#define HLO_ATTRIBUTES(X)                                                   \
  X(kAlgorithm, "algorithm", kIdent)                                        \
  X(kApiVersion, "api_version", kIdent)                                     \
  X(kAsyncExecutionThread, "async_execution_thread", kString)               \
  X(kBackendConfig, "backend_config", kBackendConfig)                       \
  X(kBatchGroupCount, "batch_group_count", kInt)                            \
  X(kBody, "body", kComputation)                                            \
  X(kBranchComputations, "branch_computations", kComputationList)           \
  X(kCalledComputations, "called_computations", kComputationList)           \
  X(kCalls, "calls", kComputationList)                                      \
  X(kChannelId, "channel_id", kInt)                                         \
  X(kCollapsedSliceDims, "collapsed_slice_dims", kIntList)                  \
  X(kCondition, "condition", kComputation)                                  \
  X(kConstrainLayout, "constrain_layout", kBool)                            \
  X(kControlPredecessors, "control-predecessors", kInstructionList)         \
  X(kConvolutionKind, "convolution_kind", kIdent)                           \
  X(kCrossProgramPrefetchIndex, "cross_program_prefetch_index", kInt)       \
  X(kCustomCallHasSideEffect, "custom_call_has_side_effect", kBool)         \
  X(kCustomCallTarget, "custom_call_target", kString)                       \
  X(kDimLabels, "dim_labels", kConvDims)                                    \
  X(kDimensions, "dimensions", kIntList)                                    \
  X(kDirection, "direction", kIdent)                                        \
  X(kDistribution, "distribution", kIdent)                                  \
  X(kDelta, "delta", kInt)                                                  \
  X(kDomain, "domain", kRaw)                                                \
  X(kDynamicSliceSizes, "dynamic_slice_sizes", kIntList)                    \
  X(kEpsilon, "epsilon", kFloat)                                            \
  X(kExponentBits, "exponent_bits", kInt)                                   \
  X(kFalseComputation, "false_computation", kComputation)                   \
  X(kFeatureGroupCount, "feature_group_count", kInt)                        \
  X(kFeatureIndex, "feature_index", kInt)                                   \
  X(kFftLength, "fft_length", kIntList)                                     \
  X(kFftType, "fft_type", kIdent)                                           \
  X(kFrontendAttributes, "frontend_attributes", kStringMap)                 \
  X(kHasDynamicRoot, "has_dynamic_root", kBool)                             \
  X(kInferredDimension, "inferred_dimension", kInt)                         \
  X(kIndex, "index", kInt)                                                  \
  X(kIndexVectorDim, "index_vector_dim", kInt)                              \
  X(kIndicesAreSorted, "indices_are_sorted", kBool)                         \
  X(kInfeedConfig, "infeed_config", kString)                                \
  X(kInputBatchingDims, "input_batching_dims", kIntList)                    \
  X(kInsertedWindowDims, "inserted_window_dims", kIntList)                  \
  X(kIotaDimension, "iota_dimension", kInt)                                 \
  X(kIsAssociative, "is_associative", kBool)                                \
  X(kIsComposite, "is_composite", kBool)                                    \
  X(kIsCrossProgramPrefetch, "is_cross_program_prefetch", kBool)            \
  X(kIsHostTransfer, "is_host_transfer", kBool)                             \
  X(kIsReverse, "is_reverse", kBool)                                        \
  X(kIsStable, "is_stable", kBool)                                          \
  X(kK, "k", kInt)                                                          \
  X(kKind, "kind", kIdent)                                                  \
  X(kLargest, "largest", kBool)                                             \
  X(kLeftSide, "left_side", kBool)                                          \
  X(kLhsBatchDims, "lhs_batch_dims", kIntList)                              \
  X(kLhsContractingDims, "lhs_contracting_dims", kIntList)                  \
  X(kLhsRaggedDims, "lhs_ragged_dims", kIntList)                            \
  X(kLiteral, "literal", kLiteral)                                          \
  X(kLower, "lower", kBool)                                                 \
  X(kMantissaBits, "mantissa_bits", kInt)                                   \
  X(kMetadata, "metadata", kKeyValues)                                      \
  X(kNumCarries, "num_carries", kInt)                                       \
  X(kOffsetDims, "offset_dims", kIntList)                                   \
  X(kOperandBatchingDims, "operand_batching_dims", kIntList)                \
  X(kOperandLayoutConstraints, "operand_layout_constraints", kShapeList)    \
  X(kOperandPrecision, "operand_precision", kIdentList)                     \
  X(kOrder, "order", kIdent)                                                \
  X(kOrigin, "origin", kRaw)                                                \
  X(kOutfeedConfig, "outfeed_config", kString)                              \
  X(kOutfeedShape, "outfeed_shape", kShape)                                 \
  X(kOutputToOperandAliasing, "output_to_operand_aliasing", kAliasing)      \
  X(kPaddingType, "padding_type", kIdent)                                   \
  X(kPadding, "padding", kPadding)                                          \
  X(kParameterReplication, "parameter_replication", kBoolList)              \
  X(kReplicaGroups, "replica_groups", kReplicaGroups)                       \
  X(kResultAccuracy, "result_accuracy", kRaw)                               \
  X(kRhsBatchDims, "rhs_batch_dims", kIntList)                              \
  X(kRhsContractingDims, "rhs_contracting_dims", kIntList)                  \
  X(kRhsGroupDims, "rhs_group_dims", kIntList)                              \
  X(kScatterDimsToOperandDims, "scatter_dims_to_operand_dims", kIntList)    \
  X(kScatterIndicesBatchingDims, "scatter_indices_batching_dims", kIntList) \
  X(kSchedule, "schedule", kIdent)                                          \
  X(kScatter, "scatter", kComputation)                                      \
  X(kSelect, "select", kComputation)                                        \
  X(kSharding, "sharding", kSharding)                                       \
  X(kSlice, "slice", kSlice)                                                \
  X(kSliceSizes, "slice_sizes", kIntList)                                   \
  X(kSparsity, "sparsity", kRaw)                                            \
  X(kSparsityConfig, "sparsity_config", kRaw)                               \
  X(kSourceTargetPairs, "source_target_pairs", kIntListList)                \
  X(kSplitCount, "split_count", kInt)                                       \
  X(kSplitDimension, "split_dimension", kInt)                               \
  X(kStartIndexMap, "start_index_map", kIntList)                            \
  X(kStartIndicesBatchingDims, "start_indices_batching_dims", kIntList)     \
  X(kStatistics, "statistics", kRaw)                                        \
  X(kToApply, "to_apply", kComputation)                                     \
  X(kTransposeA, "transpose_a", kIdent)                                     \
  X(kTrueComputation, "true_computation", kComputation)                     \
  X(kType, "type", kIdent)                                                  \
  X(kUniqueIndices, "unique_indices", kBool)                                \
  X(kUnitDiagonal, "unit_diagonal", kBool)                                  \
  X(kUpdateWindowDims, "update_window_dims", kIntList)                      \
  X(kUseGlobalDeviceIds, "use_global_device_ids", kBool)                    \
  X(kWindow, "window", kWindow)

enum class AttrKind : uint8_t {
#define HLO_ATTR_ENUM(e, name, type) e,
  HLO_ATTRIBUTES(HLO_ATTR_ENUM)
#undef HLO_ATTR_ENUM
};

inline constexpr int kNumAttrKinds = 0
#define HLO_ATTR_COUNT(e, name, type) +1
    HLO_ATTRIBUTES(HLO_ATTR_COUNT)
#undef HLO_ATTR_COUNT
    ;

std::string_view AttrName(AttrKind kind);
AttrType AttrValueType(AttrKind kind);
std::optional<AttrKind> ParseAttrName(std::string_view name);
// Every attribute name, for "did you mean" suggestions.
std::vector<std::string_view> AllAttrNames();

// ---- Structured values ------------------------------------------------------

// One dimension of a window (convolution, reduce-window, select-and-scatter).
struct WindowDim {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;     // lhs_dilate
  int64_t window_dilation = 1;   // rhs_dilate
  bool window_reversal = false;  // rhs_reversal
  bool operator==(const WindowDim&) const = default;
};
using Window = std::vector<WindowDim>;

// Convolution dimension labels: `b01f_01io->b01f`. Spatial dims are listed in
// the order of their digits.
struct ConvDims {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
  bool operator==(const ConvDims&) const = default;
};

struct PaddingDim {
  int64_t low = 0, high = 0, interior = 0;
  bool operator==(const PaddingDim&) const = default;
};
using PaddingConfig = std::vector<PaddingDim>;

struct SliceDim {
  int64_t start = 0, limit = 0, stride = 1;
  bool operator==(const SliceDim&) const = default;
};
using SliceSpec = std::vector<SliceDim>;

// An iota device list `[2,2]<=[4]` or `[2,2]<=[2,2]T(1,0)`: the ids
// 0..N-1 reshaped to reshape_dims, transposed by perm, reshaped to dims.
struct IotaTileAssignment {
  std::vector<int64_t> dims;
  std::vector<int64_t> reshape_dims;
  std::vector<int64_t> transpose_perm;  // empty: identity
  bool operator==(const IotaTileAssignment&) const = default;
  // The explicit device list, row-major over dims.
  std::vector<int64_t> Expand() const;
};

// replica_groups: an explicit list of groups, the iota form, or mesh axes.
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;
  std::optional<IotaTileAssignment> iota;  // [groups,group_size]<=[...]
  std::optional<MeshReplicaGroups> mesh;   // mesh['x'=2,'y'=2] {'x'}
  bool operator==(const ReplicaGroups&) const = default;
  // Explicit groups whichever form was written (none for a mesh form that
  // ExpandMeshReplicaGroups refuses).
  std::vector<std::vector<int64_t>> Groups() const;
};

// An ordered list of key=value pairs (metadata) or key="value" pairs
// (frontend attributes). Values keep whether they were strings.
struct KeyValue {
  InternedString key;
  InternedString value;
  bool quoted = true;
  bool operator==(const KeyValue&) const = default;
};
using KeyValues = std::vector<KeyValue>;

// Sharding, in all of XLA's forms.
struct Sharding {
  enum class Type : uint8_t {
    kReplicated,
    kMaximal,
    kManual,
    kUnknown,
    kUnreduced,
    kTiled,
    kTuple,
    kNamed
  };
  Type type = Type::kReplicated;
  std::vector<Sharding> tuple_elements;
  int64_t device = 0;                      // maximal
  std::vector<int64_t> tile_dims;          // devices=[...]
  std::vector<int64_t> devices;            // explicit device list
  std::optional<IotaTileAssignment> iota;  // devices=[..]<=[..]
  bool last_tile_dim_replicate = false;
  std::vector<std::string> last_tile_dims;  // last_tile_dims={manual, ...}
  std::vector<KeyValues> metadata;          // metadata={{...}, {...}}
  std::string shard_group;                  // "shard_as 1" / "shard_like 2"
  std::optional<NamedSharding> named;       // kNamed: {mesh[...], [...]}
  bool operator==(const Sharding&) const = default;
};

// output_to_operand_aliasing: {output index}: (operand, {operand index}).
struct AliasEntry {
  std::vector<int64_t> output_index;
  int64_t operand = 0;
  std::vector<int64_t> operand_index;
  bool operator==(const AliasEntry&) const = default;
};
using Aliasing = std::vector<AliasEntry>;

// backend_config: a quoted string, or a JSON object kept as its text.
struct BackendConfig {
  std::string text;
  bool is_json_object = false;
  bool operator==(const BackendConfig&) const = default;
};

// Alternatives are at most 24 bytes (the vectors), so an Attribute is 40:
// strings are interned (attribute texts repeat: kLoop, LT, targets), and the
// rare bool lists (std::vector<bool> is 40 bytes) are shared.
using AttrValue =
    std::variant<int64_t, double, bool, InternedString, std::vector<int64_t>,
                 std::shared_ptr<const std::vector<bool>>, std::vector<std::string>,
                 std::vector<std::vector<int64_t>>, const Shape*, std::vector<const Shape*>,
                 std::vector<Computation*>, std::vector<Instruction*>,
                 std::shared_ptr<const Window>, std::shared_ptr<const ConvDims>,
                 std::shared_ptr<const PaddingConfig>, std::shared_ptr<const SliceSpec>,
                 std::shared_ptr<const ReplicaGroups>, std::shared_ptr<const Sharding>,
                 std::shared_ptr<const KeyValues>, std::shared_ptr<const BackendConfig>,
                 std::shared_ptr<const Aliasing>, std::shared_ptr<const Literal>>;

struct Attribute {
  AttrKind kind;
  AttrValue value;
};

// Canonical text of an attribute's value (what follows `name=`).
// Computation and instruction names are printed with `%` when `percent`.
void AppendAttrValue(std::string& out, const Attribute& attr, bool percent);
void AppendWindow(std::string& out, const Window& window);
void AppendConvDims(std::string& out, const ConvDims& dims);
void AppendPadding(std::string& out, const PaddingConfig& padding);
void AppendSharding(std::string& out, const Sharding& sharding);
void AppendKeyValues(std::string& out, const KeyValues& kv, char separator);
void AppendQuoted(std::string& out, std::string_view text);

}  // namespace hlo

#endif  // HLO_IR_ATTRIBUTE_H_
