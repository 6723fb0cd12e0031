// Tests for shape_inference_data.cc: the StableHLO spec's examples as the
// valid cases, and one invalid case per constraint, checking that the
// message names what is wrong.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "passes/shape_inference.h"

namespace hlo {
namespace {

using PT = PrimitiveType;
constexpr int64_t kAny = Shape::kUnboundedSize;

Shape A(PT t, std::vector<int64_t> dims) { return Shape::Array(t, dims); }
Shape S(PT t) { return Shape::Array(t, {}); }
// `<=N` in dimension i.
Shape Dyn(Shape s, int64_t i) { return s.WithDynamicDim(i, true); }

std::string Message(const absl::StatusOr<Shape>& r) {
  return r.ok() ? std::string("ok: ") + r->ToString(false) : std::string(r.status().message());
}

// The inferred shape is `want` (dims, dynamism, type) and carries no layout.
void CheckShape(const absl::StatusOr<Shape>& got, const Shape& want) {
  INFO(Message(got) << " vs wanted " << want.ToString(false));
  REQUIRE(got.ok());
  CHECK(got->Compatible(want));
  CHECK_FALSE(got->has_layout());
}

// The inference fails with a message containing every piece of `needles`.
void CheckError(const absl::StatusOr<Shape>& got, std::vector<std::string> needles) {
  REQUIRE_FALSE(got.ok());
  for (const std::string& n : needles) CHECK_THAT(Message(got), Catch::Contains(n));
}

// ---- broadcast, reshape, transpose ------------------------------------------

TEST_CASE("broadcast", "[shape_inference]") {
  // The spec's broadcast_in_dim example stretches a size-1 dimension, which
  // XLA's HLO broadcast does not: sizes must be equal.
  CheckError(InferBroadcastShape(A(PT::kS32, {1, 3}), {2, 3, 2}, {2, 1}),
             {"broadcast operand dimension 0 of size 1 must equal result dimension 2 of size 2"});
  CheckShape(InferBroadcastShape(A(PT::kS32, {3}), {2, 3, 2}, {1}), A(PT::kS32, {2, 3, 2}));
  CheckShape(InferBroadcastShape(A(PT::kS32, {3, 2}), {2, 3, 2}, {1, 2}), A(PT::kS32, {2, 3, 2}));
  // Dimensions need not be sorted; scalars broadcast with none.
  CheckShape(InferBroadcastShape(A(PT::kF32, {2, 3}), {3, 2}, {1, 0}), A(PT::kF32, {3, 2}));
  CheckShape(InferBroadcastShape(S(PT::kF32), {4}, {}), A(PT::kF32, {4}));
  // Dynamic operand dimensions stay dynamic.
  CheckShape(InferBroadcastShape(Dyn(A(PT::kF32, {3}), 0), {2, 3}, {1}),
             Dyn(A(PT::kF32, {2, 3}), 1));

  CheckError(InferBroadcastShape(A(PT::kF32, {2, 3}), {2, 3}, {0}),
             {"broadcast dimensions {0}", "rank 2"});
  CheckError(InferBroadcastShape(A(PT::kF32, {3}), {2, 3}, {2}),
             {"broadcast dimensions {2} has dimension 2 out of range for rank 2"});
  CheckError(InferBroadcastShape(A(PT::kF32, {3, 3}), {3, 3}, {1, 1}),
             {"broadcast dimensions {1,1} repeats dimension 1"});
  CheckError(InferBroadcastShape(A(PT::kF32, {3}), {2, -5}, {0}), {"negative size -5"});
  CheckError(InferBroadcastShape(Shape::Token(), {2}, {}), {"operand of 'broadcast'"});
}

TEST_CASE("reshape", "[shape_inference]") {
  CheckShape(InferReshapeShape(A(PT::kS32, {2, 3}), {3, 2}), A(PT::kS32, {3, 2}));
  CheckShape(InferReshapeShape(A(PT::kF32, {1, 1}), {}), S(PT::kF32));
  CheckShape(InferReshapeShape(A(PT::kF32, {0, 4}), {2, 0}), A(PT::kF32, {2, 0}));
  // A dynamic dimension that the reshape leaves alone stays dynamic.
  CheckShape(InferReshapeShape(Dyn(A(PT::kF32, {4, 6}), 0), {4, 2, 3}),
             Dyn(A(PT::kF32, {4, 2, 3}), 0));
  // A dynamic dim merged with others makes the group's majormost result dim
  // dynamic, as XLA's inferred_dimension usually says.
  CheckShape(InferReshapeShape(Dyn(A(PT::kF32, {8, 4}), 0), {32}), Dyn(A(PT::kF32, {32}), 0));
  CheckShape(InferReshapeShape(Dyn(A(PT::kF32, {8}), 0), {1, 2, 4}),
             Dyn(A(PT::kF32, {1, 2, 4}), 1));
  CheckShape(InferReshapeShape(Dyn(A(PT::kF32, {3, 8}), 1), {3, 2, 4}),
             Dyn(A(PT::kF32, {3, 2, 4}), 1));
  // `?` sizes are only known at run time.
  CheckShape(InferReshapeShape(A(PT::kF32, {kAny, 4}), {kAny}), A(PT::kF32, {kAny}));

  CheckError(InferReshapeShape(A(PT::kF32, {2, 3}), {4, 2}),
             {"reshape from f32[2,3] (6 elements) to f32[4,2] (8 elements)",
              "must keep the element count"});
  CheckError(InferReshapeShape(A(PT::kF32, {2}), {2, -3}), {"negative size -3"});
}

TEST_CASE("transpose", "[shape_inference]") {
  CheckShape(InferTransposeShape(A(PT::kS32, {2, 3, 2}), {2, 1, 0}), A(PT::kS32, {2, 3, 2}));
  CheckShape(InferTransposeShape(Dyn(A(PT::kF32, {2, 5}), 1), {1, 0}), Dyn(A(PT::kF32, {5, 2}), 0));
  CheckError(InferTransposeShape(A(PT::kF32, {2, 3}), {0}),
             {"transpose permutation {0} must have 2 entries"});
  CheckError(InferTransposeShape(A(PT::kF32, {2, 3}), {0, 0}),
             {"transpose permutation {0,0} repeats dimension 0"});
  CheckError(InferTransposeShape(A(PT::kF32, {2, 3}), {0, 2}),
             {"transpose permutation {0,2} has dimension 2 out of range for rank 2"});
}

// ---- slices -----------------------------------------------------------------

TEST_CASE("slice", "[shape_inference]") {
  CheckShape(InferSliceShape(A(PT::kS64, {3, 4}), {{1, 3, 1}, {2, 4, 1}}), A(PT::kS64, {2, 2}));
  // ceil((limit - start) / stride).
  CheckShape(InferSliceShape(A(PT::kF32, {10}), {{1, 8, 3}}), A(PT::kF32, {3}));
  CheckShape(InferSliceShape(A(PT::kF32, {10}), {{4, 4, 2}}), A(PT::kF32, {0}));
  // All of a dynamic dimension stays dynamic; part of it does not.
  CheckShape(InferSliceShape(Dyn(A(PT::kF32, {8}), 0), {{0, 8, 1}}), Dyn(A(PT::kF32, {8}), 0));
  CheckShape(InferSliceShape(Dyn(A(PT::kF32, {8}), 0), {{0, 4, 1}}), A(PT::kF32, {4}));

  CheckError(InferSliceShape(A(PT::kF32, {4, 8}), {{0, 4, 1}, {0, 9, 1}}),
             {"slice limit 9 exceeds dimension 1 of size 8"});
  CheckError(InferSliceShape(A(PT::kF32, {4}), {{3, 2, 1}}),
             {"slice start 3 exceeds limit 2 in dimension 0"});
  CheckError(InferSliceShape(A(PT::kF32, {4}), {{-1, 2, 1}}),
             {"slice start -1 in dimension 0 is negative"});
  CheckError(InferSliceShape(A(PT::kF32, {4}), {{0, 2, 0}}),
             {"slice stride 0 in dimension 0 must be at least 1"});
  CheckError(InferSliceShape(A(PT::kF32, {4, 4}), {{0, 2, 1}}),
             {"slice has 1 dimensions, but the operand f32[4,4] has rank 2"});
}

std::vector<const Shape*> Ptrs(const std::vector<Shape>& v) {
  std::vector<const Shape*> out;
  for (const Shape& s : v) out.push_back(&s);
  return out;
}

TEST_CASE("dynamic-slice", "[shape_inference]") {
  std::vector<Shape> idx = {S(PT::kS64), S(PT::kS64)};
  CheckShape(InferDynamicSliceShape(A(PT::kS32, {4, 4}), Ptrs(idx), {2, 2}), A(PT::kS32, {2, 2}));
  CheckShape(InferDynamicSliceShape(A(PT::kS32, {4, 4}), Ptrs(idx), {0, 4}), A(PT::kS32, {0, 4}));

  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(idx), {2, 4}),
             {"dynamic-slice size 4 exceeds dimension 1 of size 3"});
  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(idx), {-1, 1}),
             {"dynamic-slice size -1 in dimension 0 is negative"});
  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(idx), {2}),
             {"dynamic-slice sizes {2} must have one entry per dimension of s32[4,3]"});
  std::vector<Shape> one = {S(PT::kS32)};
  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(one), {2, 2}),
             {"dynamic-slice has 1 start indices, but the operand has rank 2"});
  std::vector<Shape> mixed = {S(PT::kS32), S(PT::kS64)};
  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(mixed), {2, 2}),
             {"start indices must all have the same type, but index 0 is s32 and index 1 is s64"});
  std::vector<Shape> floats = {S(PT::kS32), S(PT::kF32)};
  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(floats), {2, 2}),
             {"dynamic-slice start index 1 must be an integer, but has element type f32"});
  std::vector<Shape> vec = {S(PT::kS32), A(PT::kS32, {1})};
  CheckError(InferDynamicSliceShape(A(PT::kS32, {4, 3}), Ptrs(vec), {2, 2}),
             {"dynamic-slice start index 1 must be a scalar"});
}

TEST_CASE("dynamic-update-slice", "[shape_inference]") {
  std::vector<Shape> idx = {S(PT::kS64), S(PT::kS64)};
  CheckShape(InferDynamicUpdateSliceShape(A(PT::kS32, {4, 4}), A(PT::kS32, {2, 2}), Ptrs(idx)),
             A(PT::kS32, {4, 4}));

  CheckError(InferDynamicUpdateSliceShape(A(PT::kS32, {4, 4}), A(PT::kS32, {2, 5}), Ptrs(idx)),
             {"update dimension 1 of size 5 exceeds operand dimension 1 of size 4"});
  CheckError(InferDynamicUpdateSliceShape(A(PT::kS32, {4, 4}), A(PT::kS32, {2}), Ptrs(idx)),
             {"update s32[2] must have the rank of the operand s32[4,4]"});
  CheckError(InferDynamicUpdateSliceShape(A(PT::kS32, {4, 4}), A(PT::kF32, {2, 2}), Ptrs(idx)),
             {"update has element type f32 but operand has s32"});
  std::vector<Shape> mixed = {S(PT::kU32), S(PT::kS32)};
  CheckError(InferDynamicUpdateSliceShape(A(PT::kS32, {4, 4}), A(PT::kS32, {2, 2}), Ptrs(mixed)),
             {"dynamic-update-slice start indices must all have the same type"});
  std::vector<Shape> three = {S(PT::kS32), S(PT::kS32), S(PT::kS32)};
  CheckError(InferDynamicUpdateSliceShape(A(PT::kS32, {4, 4}), A(PT::kS32, {2, 2}), Ptrs(three)),
             {"dynamic-update-slice has 3 start indices, but the operand has rank 2"});
}

// ---- concatenate, pad, reverse ----------------------------------------------

TEST_CASE("concatenate", "[shape_inference]") {
  std::vector<Shape> spec = {A(PT::kS64, {3, 2}), A(PT::kS64, {1, 2})};
  CheckShape(InferConcatenateShape(Ptrs(spec), 0), A(PT::kS64, {4, 2}));
  std::vector<Shape> three = {A(PT::kF32, {2, 1}), A(PT::kF32, {2, 0}), A(PT::kF32, {2, 5})};
  CheckShape(InferConcatenateShape(Ptrs(three), 1), A(PT::kF32, {2, 6}));
  std::vector<Shape> unbounded = {A(PT::kF32, {kAny, 2}), A(PT::kF32, {3, 2})};
  CheckShape(InferConcatenateShape(Ptrs(unbounded), 0), A(PT::kF32, {kAny, 2}));

  CheckError(InferConcatenateShape({}, 0), {"concatenate needs at least one operand"});
  CheckError(InferConcatenateShape(Ptrs(spec), 2),
             {"concatenate dimension 2 is out of range for rank 2"});
  std::vector<Shape> types = {A(PT::kF32, {2}), A(PT::kS32, {2})};
  CheckError(InferConcatenateShape(Ptrs(types), 0),
             {"concatenate operand 1 has element type s32 but operand 0 has f32"});
  std::vector<Shape> ranks = {A(PT::kF32, {2, 2}), A(PT::kF32, {2})};
  CheckError(InferConcatenateShape(Ptrs(ranks), 0),
             {"concatenate operand 1 f32[2] has rank 1, but operand 0 f32[2,2] has rank 2"});
  std::vector<Shape> dims = {A(PT::kF32, {3, 3}), A(PT::kF32, {2, 4})};
  CheckError(InferConcatenateShape(Ptrs(dims), 0),
             {"concatenate operand 1 f32[2,4] differs from operand 0 f32[3,3] in dimension 1"});
}

TEST_CASE("pad", "[shape_inference]") {
  CheckShape(InferPadShape(A(PT::kS32, {2, 3}), S(PT::kS32), {{0, 2, 1}, {1, 1, 2}}),
             A(PT::kS32, {5, 9}));
  // Negative edge padding crops; interior padding of an empty dim adds nothing.
  CheckShape(InferPadShape(A(PT::kF32, {5, 0}), S(PT::kF32), {{-2, -1, 0}, {1, 0, 3}}),
             A(PT::kF32, {2, 1}));

  CheckError(InferPadShape(A(PT::kF32, {2}), S(PT::kF32), {{0, 0, -1}}),
             {"pad interior padding -1 in dimension 0 is negative"});
  CheckError(InferPadShape(A(PT::kF32, {2}), S(PT::kF32), {{-2, -1, 0}}),
             {"pad gives dimension 0 a negative size -1"});
  CheckError(InferPadShape(A(PT::kF32, {2}), S(PT::kS32), {{0, 0, 0}}),
             {"padding value has element type s32 but operand has f32"});
  CheckError(InferPadShape(A(PT::kF32, {2}), A(PT::kF32, {1}), {{0, 0, 0}}),
             {"padding value of 'pad' must be a scalar"});
  CheckError(InferPadShape(A(PT::kF32, {2, 2}), S(PT::kF32), {{0, 0, 0}}),
             {"pad has 1 padding dimensions, but the operand f32[2,2] has rank 2"});
}

TEST_CASE("reverse", "[shape_inference]") {
  CheckShape(InferReverseShape(A(PT::kS32, {3, 2}), {1}), A(PT::kS32, {3, 2}));
  CheckShape(InferReverseShape(A(PT::kS32, {3, 2}), {}), A(PT::kS32, {3, 2}));
  CheckError(InferReverseShape(A(PT::kS32, {3, 2}), {1, 1}),
             {"reverse dimensions {1,1} repeats dimension 1"});
  CheckError(InferReverseShape(A(PT::kS32, {3, 2}), {2}),
             {"reverse dimensions {2} has dimension 2 out of range for rank 2"});
}

// ---- iota, tuples, bitcast --------------------------------------------------

TEST_CASE("iota", "[shape_inference]") {
  CheckShape(InferIotaShape(A(PT::kS32, {4, 5}), 0), A(PT::kS32, {4, 5}));
  CheckShape(InferIotaShape(A(PT::kS32, {4, 5}).WithDefaultLayout(), 1), A(PT::kS32, {4, 5}));
  CheckShape(InferIotaShape(A(PT::kBF16, {8}), 0), A(PT::kBF16, {8}));
  CheckError(InferIotaShape(A(PT::kS32, {4, 5}), 2),
             {"iota_dimension 2 is out of range for rank 2"});
  CheckError(InferIotaShape(A(PT::kS32, {4}), -1), {"iota_dimension -1 is out of range"});
  CheckError(InferIotaShape(A(PT::kPred, {4}), 0),
             {"integer, floating point or complex element type, but has pred"});
  CheckError(InferIotaShape(S(PT::kS32), 0), {"iota must have rank at least 1"});
}

TEST_CASE("tuple and get-tuple-element", "[shape_inference]") {
  ShapePool pool;
  // The spec's example: (tensor<2xf64>, tuple<tensor<i64>>).
  Shape inner = Shape::Tuple({pool.Intern(S(PT::kS64))});
  Shape laid = A(PT::kF64, {2}).WithDefaultLayout();
  std::vector<const Shape*> elements = {&laid, &inner};
  absl::StatusOr<Shape> tuple = InferTupleShape(elements, pool);
  REQUIRE(tuple.ok());
  CHECK(tuple->ToString() == "(f64[2], (s64[]))");  // no layout at any depth
  CheckShape(InferTupleShape({}, pool), Shape::Tuple({}));

  CheckShape(InferGetTupleElementShape(*tuple, 0), A(PT::kF64, {2}));
  CheckShape(InferGetTupleElementShape(*tuple, 1), inner);
  CheckError(InferGetTupleElementShape(*tuple, 2),
             {"get-tuple-element index 2 is out of range", "2 elements"});
  CheckError(InferGetTupleElementShape(*tuple, -1), {"index -1 is out of range"});
  CheckError(InferGetTupleElementShape(A(PT::kF32, {2}), 0),
             {"operand of 'get-tuple-element' must be a tuple, but has shape f32[2]"});
}

TEST_CASE("bitcast", "[shape_inference]") {
  CheckShape(InferBitcastShape(A(PT::kF32, {2, 3}), A(PT::kF32, {3, 2})), A(PT::kF32, {3, 2}));
  // Only the byte size counts: 6 f32 are 12 f16 or 24 u8.
  CheckShape(InferBitcastShape(A(PT::kF32, {6}), A(PT::kF16, {12})), A(PT::kF16, {12}));
  CheckShape(InferBitcastShape(A(PT::kF32, {6}), A(PT::kU8, {2, 12}).WithDefaultLayout()),
             A(PT::kU8, {2, 12}));
  // Unpacked sub-byte elements take a byte each; E(4) packs two per byte.
  CheckShape(InferBitcastShape(A(PT::kS4, {4}), A(PT::kU8, {4})), A(PT::kU8, {4}));
  Layout packed = DefaultLayout(1);
  packed.element_size_in_bits = 4;
  CheckShape(InferBitcastShape(A(PT::kS4, {4}).WithLayout(packed), A(PT::kU8, {2})),
             A(PT::kU8, {2}));

  CheckError(InferBitcastShape(A(PT::kF32, {2, 3}), A(PT::kF32, {4, 2})),
             {"bitcast from f32[2,3] (24 bytes) to f32[4,2] (32 bytes) must keep the byte size"});
  CheckError(InferBitcastShape(A(PT::kF32, {2}), A(PT::kF64, {2})), {"(8 bytes)", "(16 bytes)"});
  CheckError(InferBitcastShape(Shape::Tuple({}), A(PT::kF32, {})),
             {"operand of 'bitcast' must be an array"});
}

// ---- gather -----------------------------------------------------------------

struct GatherDims {
  std::vector<int64_t> offset_dims, collapsed, operand_batching, indices_batching, start_index_map,
      slice_sizes;
  int64_t index_vector_dim = 0;
};

// A gather instruction carrying the dimension numbers (its own shape is not
// used by inference).
std::unique_ptr<Instruction> Gather(const GatherDims& d) {
  static const Shape kNone = S(PT::kF32);
  auto inst = std::make_unique<Instruction>(Opcode::kGather, "gather", &kNone);
  inst->SetAttr(AttrKind::kOffsetDims, d.offset_dims);
  inst->SetAttr(AttrKind::kCollapsedSliceDims, d.collapsed);
  inst->SetAttr(AttrKind::kOperandBatchingDims, d.operand_batching);
  inst->SetAttr(AttrKind::kStartIndicesBatchingDims, d.indices_batching);
  inst->SetAttr(AttrKind::kStartIndexMap, d.start_index_map);
  inst->SetAttr(AttrKind::kIndexVectorDim, d.index_vector_dim);
  inst->SetAttr(AttrKind::kSliceSizes, d.slice_sizes);
  return inst;
}

// The spec's example: operand 2x3x4x2, indices 2x2x3x2, batching over
// operand dim 0 / indices dim 1.
GatherDims SpecGather() {
  GatherDims d;
  d.offset_dims = {3, 4};
  d.collapsed = {1};
  d.operand_batching = {0};
  d.indices_batching = {1};
  d.start_index_map = {2, 1};
  d.index_vector_dim = 3;
  d.slice_sizes = {1, 1, 2, 2};
  return d;
}

absl::StatusOr<Shape> InferGather(const Shape& operand, const Shape& indices, const GatherDims& d) {
  return InferGatherShape(operand, indices, *Gather(d));
}

TEST_CASE("gather: spec example and classic forms", "[shape_inference]") {
  Shape operand = A(PT::kS32, {2, 3, 4, 2});
  Shape indices = A(PT::kS64, {2, 2, 3, 2});
  CheckShape(InferGather(operand, indices, SpecGather()), A(PT::kS32, {2, 2, 3, 2, 2}));

  // XLA's operation-semantics example: rows of a matrix by index.
  GatherDims rows;
  rows.offset_dims = {1};
  rows.collapsed = {0};
  rows.start_index_map = {0};
  rows.index_vector_dim = 1;
  rows.slice_sizes = {1, 8};
  CheckShape(InferGather(A(PT::kF32, {16, 8}), A(PT::kS32, {5}), rows), A(PT::kF32, {5, 8}));
  // index_vector_dim may be the rank of the indices (one number per index).
  CheckShape(InferGather(A(PT::kF32, {16, 8}), A(PT::kS32, {5, 1}), rows), A(PT::kF32, {5, 8}));
  // A dynamic batch dimension of the indices stays dynamic.
  CheckShape(InferGather(A(PT::kF32, {16, 8}), Dyn(A(PT::kS32, {5}), 0), rows),
             Dyn(A(PT::kF32, {5, 8}), 0));
}

TEST_CASE("gather: invalid", "[shape_inference]") {
  Shape operand = A(PT::kS32, {2, 3, 4, 2});
  Shape indices = A(PT::kS64, {2, 2, 3, 2});
  auto check = [&](GatherDims d, std::vector<std::string> needles) {
    CheckError(InferGather(operand, indices, d), needles);
  };
  GatherDims d = SpecGather();
  d.slice_sizes = {1, 1, 5, 2};
  check(d, {"gather: slice_sizes[2]=5 exceeds operand dimension 2 of size 4"});
  d = SpecGather();
  d.slice_sizes = {1, 1, -1, 2};
  check(d, {"gather: slice_sizes[2]=-1 is negative"});
  d = SpecGather();
  d.slice_sizes = {1, 1, 2};
  check(d, {"gather: slice_sizes {1,1,2} has 3 entries", "rank 4"});
  d = SpecGather();
  d.slice_sizes = {1, 2, 2, 2};
  check(d, {"slice_sizes[1]=2 must be at most 1", "collapsed_slice_dims"});
  d = SpecGather();
  d.slice_sizes = {2, 1, 2, 2};
  check(d, {"slice_sizes[0]=2 must be at most 1", "operand_batching_dims"});
  d = SpecGather();
  d.index_vector_dim = 5;
  check(d, {"gather: index_vector_dim 5 is out of range [0, 4]"});
  d = SpecGather();
  d.offset_dims = {4, 3};
  check(d, {"gather: offset_dims {4,3} must be sorted and unique"});
  d = SpecGather();
  d.offset_dims = {3, 5};
  check(d, {"gather: offset_dims {3,5} has dimension 5 out of range"});
  d = SpecGather();
  d.collapsed = {1, 3};
  check(d, {"operand s32[2,3,4,2] has rank 4", "2+2+1 = 5"});
  d = SpecGather();
  d.collapsed = {0};
  check(d, {"gather: operand dimension 0 is in both collapsed_slice_dims and "
            "operand_batching_dims"});
  d = SpecGather();
  d.collapsed = {4};
  check(d, {"collapsed_slice_dims {4} has dimension 4 out of range for rank 4"});
  d = SpecGather();
  d.start_index_map = {2};
  check(d, {"gather: start_index_map {2} has 1 entries, but an index vector has 2"});
  d = SpecGather();
  d.start_index_map = {2, 2};
  check(d, {"start_index_map {2,2} repeats dimension 2"});
  d = SpecGather();
  d.start_index_map = {2, 0};
  check(d, {"operand dimension 0 is in both start_index_map and operand_batching_dims"});
  d = SpecGather();
  d.indices_batching = {3};
  check(d, {"start_indices_batching_dims {3} must not contain index_vector_dim 3"});
  d = SpecGather();
  d.indices_batching = {0, 1};
  check(d, {"operand_batching_dims {0} and start_indices_batching_dims {0,1} must have the "
            "same size"});
  d = SpecGather();
  d.indices_batching = {2};
  check(d, {"operand batching dimension 0 of size 2 must equal indices batching dimension 2 "
            "of size 3"});
  CheckError(InferGather(operand, A(PT::kF32, {2, 2, 3, 2}), SpecGather()),
             {"gather: start_indices must be integer, but has element type f32"});
  auto no_ivd = Gather(SpecGather());
  no_ivd->RemoveAttr(AttrKind::kIndexVectorDim);
  CheckError(InferGatherShape(operand, indices, *no_ivd), {"index_vector_dim"});
}

// ---- scatter ----------------------------------------------------------------

struct ScatterDims {
  std::vector<int64_t> update_window_dims = {3, 4}, inserted = {1}, input_batching = {0},
                       indices_batching = {1}, to_operand = {2, 1};
  int64_t index_vector_dim = 3;
};

std::unique_ptr<Instruction> Scatter(const ScatterDims& d) {
  static const Shape kNone = S(PT::kF32);
  auto inst = std::make_unique<Instruction>(Opcode::kScatter, "scatter", &kNone);
  inst->SetAttr(AttrKind::kUpdateWindowDims, d.update_window_dims);
  inst->SetAttr(AttrKind::kInsertedWindowDims, d.inserted);
  inst->SetAttr(AttrKind::kInputBatchingDims, d.input_batching);
  inst->SetAttr(AttrKind::kScatterIndicesBatchingDims, d.indices_batching);
  inst->SetAttr(AttrKind::kScatterDimsToOperandDims, d.to_operand);
  inst->SetAttr(AttrKind::kIndexVectorDim, d.index_vector_dim);
  return inst;
}

ProgramShape Program(ShapePool& pool, std::vector<Shape> params, const Shape& result) {
  ProgramShape p;
  for (const Shape& s : params) p.params.push_back(pool.Intern(s));
  p.result = pool.Intern(result);
  return p;
}

// The spec's example (defaults of ScatterDims), with an add computation.
struct SpecScatter {
  ShapePool pool;
  Shape input = A(PT::kS64, {2, 3, 4, 2});
  Shape indices = A(PT::kS64, {2, 2, 3, 2});
  Shape update = A(PT::kS64, {2, 2, 3, 2, 2});
  ProgramShape add = Program(pool, {S(PT::kS64), S(PT::kS64)}, S(PT::kS64));

  absl::StatusOr<Shape> Infer(const ScatterDims& d) {
    return InferScatterShape({&input}, indices, {&update}, add, *Scatter(d), pool);
  }
};

TEST_CASE("scatter: spec example", "[shape_inference]") {
  SpecScatter s;
  CheckShape(s.Infer(ScatterDims{}), s.input);
}

TEST_CASE("scatter: variadic", "[shape_inference]") {
  SpecScatter s;
  Shape input2 = A(PT::kF32, {2, 3, 4, 2}), update2 = A(PT::kF32, {2, 2, 3, 2, 2});
  ProgramShape both =
      Program(s.pool, {S(PT::kS64), S(PT::kF32), S(PT::kS64), S(PT::kF32)},
              Shape::Tuple({s.pool.Intern(S(PT::kS64)), s.pool.Intern(S(PT::kF32))}));
  auto inst = Scatter(ScatterDims{});
  absl::StatusOr<Shape> r =
      InferScatterShape({&s.input, &input2}, s.indices, {&s.update, &update2}, both, *inst, s.pool);
  CheckShape(r, Shape::Tuple({s.pool.Intern(s.input), s.pool.Intern(input2)}));

  ProgramShape scalar_result =
      Program(s.pool, {S(PT::kS64), S(PT::kF32), S(PT::kS64), S(PT::kF32)}, S(PT::kS64));
  CheckError(InferScatterShape({&s.input, &input2}, s.indices, {&s.update, &update2}, scalar_result,
                               *inst, s.pool),
             {"scatter computation must return (s64[], f32[])", "but returns s64[]"});
  CheckError(InferScatterShape({&s.input, &input2}, s.indices, {&s.update}, both, *inst, s.pool),
             {"scatter has 2 operands but 1 updates"});
  Shape small = A(PT::kF32, {2, 3, 4, 1});
  CheckError(
      InferScatterShape({&s.input, &small}, s.indices, {&s.update, &update2}, both, *inst, s.pool),
      {"operand 1 f32[2,3,4,1] and operand 0 s64[2,3,4,2] must have the same dimensions"});
}

TEST_CASE("scatter: a bf16 scatter may combine in f32", "[shape_inference]") {
  ShapePool pool;
  Shape input = A(PT::kBF16, {8}), indices = A(PT::kS32, {3, 1}), update = A(PT::kBF16, {3});
  ProgramShape add = Program(pool, {S(PT::kF32), S(PT::kF32)}, S(PT::kF32));
  ScatterDims d;
  d.update_window_dims = {};
  d.inserted = {0};
  d.input_batching = {};
  d.indices_batching = {};
  d.to_operand = {0};
  d.index_vector_dim = 1;
  CheckShape(InferScatterShape({&input}, indices, {&update}, add, *Scatter(d), pool), input);
}

TEST_CASE("scatter: invalid", "[shape_inference]") {
  SpecScatter s;
  ScatterDims d;
  d.update_window_dims = {4, 3};
  CheckError(s.Infer(d), {"scatter: update_window_dims {4,3} must be sorted and unique"});
  d = ScatterDims{};
  d.update_window_dims = {3, 5};
  CheckError(s.Infer(d), {"update_window_dims {3,5} has dimension 5 out of range for rank 5"});
  d = ScatterDims{};
  d.inserted = {0};
  CheckError(s.Infer(d), {"operand dimension 0 is in both inserted_window_dims and "
                          "input_batching_dims"});
  d = ScatterDims{};
  d.inserted = {};
  CheckError(s.Infer(d), {"has rank 4, but update_window_dims, inserted_window_dims and "
                          "input_batching_dims have 2+0+1 = 3 entries"});
  d = ScatterDims{};
  d.to_operand = {2, 5};
  CheckError(s.Infer(d),
             {"scatter_dims_to_operand_dims {2,5} has dimension 5 out of range for rank 4"});
  d = ScatterDims{};
  d.to_operand = {2};
  CheckError(s.Infer(d), {"scatter_dims_to_operand_dims {2} has 1 entries, but an index "
                          "vector has 2"});
  d = ScatterDims{};
  d.indices_batching = {2};
  CheckError(s.Infer(d), {"operand batching dimension 0 of size 2 must equal indices "
                          "batching dimension 2 of size 3"});
  d = ScatterDims{};
  d.index_vector_dim = 1;
  CheckError(s.Infer(d), {"scatter_indices_batching_dims {1} must not contain "
                          "index_vector_dim 1"});

  // Update dims.
  s.update = A(PT::kS64, {2, 2, 3, 5, 2});
  CheckError(s.Infer(ScatterDims{}), {"scatter: update window dimension 3 of size 5 exceeds "
                                      "operand dimension 2 of size 4"});
  s.update = A(PT::kS64, {2, 2, 4, 2, 2});
  CheckError(s.Infer(ScatterDims{}), {"scatter: update dimension 2 of size 4 must equal "
                                      "scatter_indices dimension 2 of size 3"});
  s.update = A(PT::kS64, {2, 2, 3, 2});
  CheckError(s.Infer(ScatterDims{}), {"updates s64[2,2,3,2] must have rank 5"});
  s.update = A(PT::kS32, {2, 2, 3, 2, 2});
  CheckError(s.Infer(ScatterDims{}), {"update 0 has element type s32 but operand 0 has s64"});
  s.update = A(PT::kS64, {2, 2, 3, 2, 2});
  s.indices = A(PT::kF32, {2, 2, 3, 2});
  CheckError(s.Infer(ScatterDims{}), {"scatter: scatter_indices must be integer"});
}

TEST_CASE("scatter: computation", "[shape_inference]") {
  SpecScatter s;
  s.add = Program(s.pool, {S(PT::kS64)}, S(PT::kS64));
  CheckError(s.Infer(ScatterDims{}),
             {"scatter computation takes 1 parameters, but needs 2 (two per operand)"});
  s.add = Program(s.pool, {S(PT::kS64), S(PT::kS32)}, S(PT::kS64));
  CheckError(s.Infer(ScatterDims{}),
             {"scatter computation parameter 1 must be a scalar of type s64, but is s32[]"});
  s.add = Program(s.pool, {S(PT::kS64), A(PT::kS64, {2})}, S(PT::kS64));
  CheckError(s.Infer(ScatterDims{}), {"parameter 1 must be a scalar", "s64[2]"});
  s.add = Program(s.pool, {S(PT::kS64), S(PT::kS64)}, A(PT::kS64, {1}));
  CheckError(s.Infer(ScatterDims{}),
             {"scatter computation must return s64[] (the type of its first parameter), but "
              "returns s64[1]"});
}

// ---- dynamic shapes ---------------------------------------------------------

TEST_CASE("get-dimension-size", "[shape_inference]") {
  CheckShape(InferGetDimensionSizeShape(A(PT::kS64, {2, 3}), 1), S(PT::kS32));
  CheckShape(InferGetDimensionSizeShape(Dyn(A(PT::kF32, {8}), 0), 0), S(PT::kS32));
  CheckError(InferGetDimensionSizeShape(A(PT::kS64, {2, 3}), 2),
             {"get-dimension-size dimension 2 is out of range for s64[2,3]"});
  CheckError(InferGetDimensionSizeShape(A(PT::kS64, {int64_t{1} << 33}), 0),
             {"does not fit in s32"});
}

TEST_CASE("set-dimension-size", "[shape_inference]") {
  CheckShape(InferSetDimensionSizeShape(A(PT::kF32, {4, 8}), S(PT::kS32), 1),
             Dyn(A(PT::kF32, {4, 8}), 1));
  CheckError(InferSetDimensionSizeShape(A(PT::kF32, {4, 8}), S(PT::kS64), 1),
             {"size of 'set-dimension-size' must be s32[], but has shape s64[]"});
  CheckError(InferSetDimensionSizeShape(A(PT::kF32, {4, 8}), S(PT::kS32), 2),
             {"set-dimension-size dimension 2 is out of range for f32[4,8]"});
}

TEST_CASE("dynamic-reshape", "[shape_inference]") {
  std::vector<Shape> sizes = {S(PT::kS64), S(PT::kS64)};
  CheckShape(InferDynamicReshapeShape(A(PT::kS64, {2, 3}), Ptrs(sizes), A(PT::kS64, {3, 2})),
             A(PT::kS64, {3, 2}));
  Shape bounded = Dyn(A(PT::kF32, {3, 4}), 0);
  CheckShape(InferDynamicReshapeShape(A(PT::kF32, {12}), Ptrs(sizes), bounded), bounded);

  CheckError(InferDynamicReshapeShape(A(PT::kS64, {2, 3}), Ptrs(sizes), A(PT::kS64, {4, 2})),
             {"dynamic-reshape from s64[2,3] (6 elements) to s64[4,2] (8 elements)"});
  CheckError(InferDynamicReshapeShape(A(PT::kS64, {6}), Ptrs(sizes), A(PT::kS64, {6})),
             {"dynamic-reshape has 2 dimension sizes, but the result s64[6] has rank 1"});
  CheckError(InferDynamicReshapeShape(A(PT::kS64, {6}), Ptrs(sizes), A(PT::kF32, {2, 3})),
             {"result has element type f32 but operand has s64"});
  std::vector<Shape> floats = {S(PT::kS32), S(PT::kF32)};
  CheckError(InferDynamicReshapeShape(A(PT::kS64, {6}), Ptrs(floats), A(PT::kS64, {2, 3})),
             {"dynamic-reshape size 1 must be an integer"});
}

}  // namespace
}  // namespace hlo
