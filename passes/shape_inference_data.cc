// Shape inference for data movement: broadcast, reshape, transpose, slices,
// concatenate, pad, reverse, iota, tuples, bitcast, gather/scatter and the
// dynamic-shape ops.
//
// Dimension sizes follow XLA's rules; a `?` (unbounded) operand dimension
// cannot be checked against a constant, so bounds checks skip it. A bounded
// dynamic dimension `<=N` is checked against its bound N.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "passes/shape_inference.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

std::string_view TypeName(PT t) { return PrimitiveTypeName(t); }

// An array shape from dims and per-dimension dynamism (a `?` size is dynamic
// whatever `dynamic` says).
Shape MakeArray(PT t, absl::Span<const int64_t> dims, const std::vector<bool>& dynamic) {
  Shape s = Shape::Array(t, dims);
  for (size_t i = 0; i < dynamic.size() && i < dims.size(); ++i) {
    if (dynamic[i]) s = s.WithDynamicDim(static_cast<int64_t>(i), true);
  }
  return s;
}

int64_t Size(absl::Span<const int64_t> v) { return static_cast<int64_t>(v.size()); }

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A size an attribute gives for a result dimension: >= 0, or `?` (-1).
absl::Status ExpectResultDims(absl::Span<const int64_t> dims, std::string_view what) {
  for (int64_t d : dims) {
    if (d < Shape::kUnboundedSize) {
      return ShapeError(what, " ", DimsText(dims), " has a negative size ", d);
    }
  }
  return absl::OkStatus();
}

// The start indices of dynamic-slice and dynamic-update-slice: one integer
// scalar per operand dimension, all of one type (StableHLO C2-C3 / C4-C5),
// or XLA's older form, one integer vector of them (ShapeInference::
// InferDynamicSliceShape still reads it).
absl::Status ExpectStartIndices(Shapes indices, int64_t rank, std::string_view op) {
  if (indices.size() == 1 && indices[0]->IsArray() && indices[0]->rank() == 1) {
    const Shape& v = *indices[0];
    if (!IsInteger(v.element_type())) {
      return ShapeError(op, " start indices must be integers, but have element type ",
                        TypeName(v.element_type()));
    }
    if (v.dim(0) != rank) {
      return ShapeError(op, " has ", v.dim(0),
                        " start indices in its index vector, but the "
                        "operand has rank ",
                        rank);
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(indices.size()) != rank) {
    return ShapeError(op, " has ", indices.size(), " start indices, but the operand has rank ",
                      rank);
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    const Shape& s = *indices[i];
    HLO_RETURN_IF_ERROR(ExpectScalar(s, StrCat(op, " start index ", i)));
    if (!IsInteger(s.element_type())) {
      return ShapeError(op, " start index ", i, " must be an integer, but has element type ",
                        TypeName(s.element_type()));
    }
    if (s.element_type() != indices[0]->element_type()) {
      return ShapeError(op, " start indices must all have the same type, but index 0 is ",
                        TypeName(indices[0]->element_type()), " and index ", i, " is ",
                        TypeName(s.element_type()));
    }
  }
  return absl::OkStatus();
}

// Where the prefix products of two dim lists meet, as (i, j) boundaries
// from (0, 0) to (from.size(), to.size()). Between consecutive boundaries
// lies a group of operand dims that a reshape turns into a group of result
// dims (XLA's CommonFactors). The element counts must be equal and fit.
std::vector<std::pair<size_t, size_t>> CommonFactors(absl::Span<const int64_t> from,
                                                     absl::Span<const int64_t> to) {
  std::vector<std::pair<size_t, size_t>> out = {{0, 0}};
  size_t i = 0, j = 0;
  int64_t from_product = 1, to_product = 1;
  while (i < from.size() || j < to.size()) {
    if (j == to.size() || (i < from.size() && from_product <= to_product)) {
      from_product *= from[i++];
    } else {
      to_product *= to[j++];
    }
    if (from_product == to_product) out.push_back({i, j});
  }
  if (out.back() != std::pair{from.size(), to.size()}) out.push_back({from.size(), to.size()});
  return out;
}

// Which result dims of a reshape are dynamic. HLO text states the answer
// (`inferred_dimension`), which this API does not see, so follow what XLA's
// dynamic-dimension inference does: a group of operand dims holding a
// dynamic dim makes the majormost non-1 result dim of its group dynamic. A
// dim the reshape leaves alone therefore keeps its dynamism.
Shape ReshapeDynamism(const Shape& operand, Shape result) {
  auto bounds = CommonFactors(operand.dims(), result.dims());
  for (size_t k = 1; k < bounds.size(); ++k) {
    auto [i0, j0] = bounds[k - 1];
    auto [i1, j1] = bounds[k];
    bool dynamic = false;
    for (size_t i = i0; i < i1; ++i) dynamic |= operand.is_dynamic_dim(i);
    if (!dynamic || j1 == j0) continue;
    size_t j = j0;
    while (j + 1 < j1 && result.dim(j) == 1) ++j;
    result = result.WithDynamicDim(static_cast<int64_t>(j), true);
  }
  return result;
}

// Bytes of an array in a dense buffer, as XLA's ShapeUtil::ByteSizeOf:
// elements times the byte width, or packed when the layout gives sub-byte
// elements a size in bits (E(4)). -1 when unbounded or too large.
int64_t ByteSize(const Shape& s) {
  int64_t n = s.ElementCount();
  if (n < 0) return -1;
  __int128 bytes = static_cast<__int128>(n) * ByteWidth(s.element_type());
  if (s.has_layout() && s.layout().element_size_in_bits > 0) {
    bytes = (static_cast<__int128>(n) * s.layout().element_size_in_bits + 7) / 8;
  }
  return bytes > INT64_MAX ? -1 : static_cast<int64_t>(bytes);
}

// The shape without layouts at any depth, its tuple elements interned.
const Shape* InternWithoutLayout(const Shape& s, ShapePool& pool) {
  if (!s.IsTuple()) return pool.Intern(s.WithoutLayout());
  std::vector<const Shape*> elements;
  for (const Shape* e : s.tuple_shapes()) elements.push_back(InternWithoutLayout(*e, pool));
  return pool.Intern(Shape::Tuple(std::move(elements)));
}

}  // namespace

// ---- broadcast, reshape, transpose ------------------------------------------

absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand,
                                          absl::Span<const int64_t> result_dims,
                                          absl::Span<const int64_t> dimensions) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'broadcast'"));
  HLO_RETURN_IF_ERROR(ExpectResultDims(result_dims, "broadcast result dimensions"));
  if (Size(dimensions) != operand.rank()) {
    return ShapeError("broadcast dimensions ", DimsText(dimensions),
                      " must have one entry per "
                      "operand dimension, but the operand ",
                      ShapeText(operand), " has rank ", operand.rank());
  }
  HLO_RETURN_IF_ERROR(ExpectDimensions(dimensions, Size(result_dims), "broadcast dimensions"));
  std::vector<bool> dynamic(result_dims.size(), false);
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t r = dimensions[i];
    // XLA's HLO broadcast (unlike broadcast_in_dim) never stretches a size-1
    // dimension: each operand dimension keeps its size.
    if (operand.dim(i) != result_dims[r]) {
      return ShapeError("broadcast operand dimension ", i, " of size ", operand.dim(i),
                        " must equal result dimension ", r, " of size ", result_dims[r]);
    }
    dynamic[r] = operand.is_dynamic_dim(i);
  }
  return MakeArray(operand.element_type(), result_dims, dynamic);
}

absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                        absl::Span<const int64_t> result_dims) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'reshape'"));
  HLO_RETURN_IF_ERROR(ExpectResultDims(result_dims, "reshape result dimensions"));
  Shape result = Shape::Array(operand.element_type(), result_dims);
  int64_t from = operand.ElementCount(), to = result.ElementCount();
  // With a `?` on either side the count is only known at run time.
  bool counts_known = !Contains(operand.dims(), Shape::kUnboundedSize) &&
                      !Contains(result_dims, Shape::kUnboundedSize);
  if (counts_known && (from < 0 || to < 0)) {
    return ShapeError("reshape from ", ShapeText(operand), " to ", ShapeText(result),
                      " has too many elements");
  }
  if (counts_known && from != to) {
    return ShapeError("reshape from ", ShapeText(operand), " (", from, " elements) to ",
                      ShapeText(result), " (", to, " elements) must keep the element count");
  }
  return counts_known ? ReshapeDynamism(operand, result) : result;
}

absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'transpose'"));
  if (Size(permutation) != operand.rank()) {
    return ShapeError("transpose permutation ", DimsText(permutation), " must have ",
                      operand.rank(), " entries, one per dimension of ", ShapeText(operand));
  }
  HLO_RETURN_IF_ERROR(ExpectDimensions(permutation, operand.rank(), "transpose permutation"));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t p : permutation) {
    dims.push_back(operand.dim(p));
    dynamic.push_back(operand.is_dynamic_dim(p));
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

// ---- slices -----------------------------------------------------------------

absl::StatusOr<Shape> InferSliceShape(const Shape& operand, const SliceSpec& slice) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'slice'"));
  if (static_cast<int64_t>(slice.size()) != operand.rank()) {
    return ShapeError("slice has ", slice.size(), " dimensions, but the operand ",
                      ShapeText(operand), " has rank ", operand.rank());
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const SliceDim& s = slice[i];
    if (s.start < 0) {
      return ShapeError("slice start ", s.start, " in dimension ", i, " is negative");
    }
    if (s.stride < 1) {
      return ShapeError("slice stride ", s.stride, " in dimension ", i, " must be at least 1");
    }
    if (!operand.is_unbounded_dim(i) && s.limit > operand.dim(i)) {
      return ShapeError("slice limit ", s.limit, " exceeds dimension ", i, " of size ",
                        operand.dim(i));
    }
    if (s.start > s.limit) {
      return ShapeError("slice start ", s.start, " exceeds limit ", s.limit, " in dimension ", i);
    }
    dims.push_back((s.limit - s.start + s.stride - 1) / s.stride);
    // Taking all of a dynamic dimension keeps it dynamic (as XLA does).
    dynamic.push_back(operand.is_dynamic_dim(i) && !operand.is_unbounded_dim(i) && s.start == 0 &&
                      s.stride == 1 && s.limit == operand.dim(i));
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand, Shapes start_indices,
                                             absl::Span<const int64_t> slice_sizes) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'dynamic-slice'"));
  HLO_RETURN_IF_ERROR(ExpectStartIndices(start_indices, operand.rank(), "dynamic-slice"));
  if (Size(slice_sizes) != operand.rank()) {
    return ShapeError("dynamic-slice sizes ", DimsText(slice_sizes),
                      " must have one entry "
                      "per dimension of ",
                      ShapeText(operand));
  }
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t size = slice_sizes[i];
    if (size < 0) {
      return ShapeError("dynamic-slice size ", size, " in dimension ", i, " is negative");
    }
    if (!operand.is_unbounded_dim(i) && size > operand.dim(i)) {
      return ShapeError("dynamic-slice size ", size, " exceeds dimension ", i, " of size ",
                        operand.dim(i));
    }
    // Slicing all of a dynamic dimension keeps it dynamic (as XLA does).
    dynamic.push_back(operand.is_dynamic_dim(i) && size == operand.dim(i));
  }
  return MakeArray(operand.element_type(), slice_sizes, dynamic);
}

absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                   Shapes start_indices) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'dynamic-update-slice'"));
  HLO_RETURN_IF_ERROR(ExpectArray(update, "update of 'dynamic-update-slice'"));
  HLO_RETURN_IF_ERROR(ExpectSameType(update, "update", operand, "operand"));
  if (update.rank() != operand.rank()) {
    return ShapeError("update ", ShapeText(update), " must have the rank of the operand ",
                      ShapeText(operand));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (operand.is_unbounded_dim(i) || update.is_unbounded_dim(i)) continue;
    if (update.dim(i) > operand.dim(i)) {
      return ShapeError("update dimension ", i, " of size ", update.dim(i),
                        " exceeds operand dimension ", i, " of size ", operand.dim(i));
    }
  }
  HLO_RETURN_IF_ERROR(ExpectStartIndices(start_indices, operand.rank(), "dynamic-update-slice"));
  return operand.WithoutLayout();
}

// ---- concatenate, pad, reverse ----------------------------------------------

absl::StatusOr<Shape> InferConcatenateShape(Shapes operands, int64_t dimension) {
  if (operands.empty()) return ShapeError("concatenate needs at least one operand");
  for (size_t i = 0; i < operands.size(); ++i) {
    HLO_RETURN_IF_ERROR(ExpectArray(*operands[i], StrCat("concatenate operand ", i)));
  }
  const Shape& first = *operands[0];
  if (dimension < 0 || dimension >= first.rank()) {
    return ShapeError("concatenate dimension ", dimension, " is out of range for rank ",
                      first.rank());
  }
  std::vector<int64_t> dims(first.dims().begin(), first.dims().end());
  std::vector<bool> dynamic;
  for (int64_t d = 0; d < first.rank(); ++d) dynamic.push_back(first.is_dynamic_dim(d));
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& s = *operands[i];
    std::string name = StrCat("operand ", i);
    HLO_RETURN_IF_ERROR(ExpectSameType(s, StrCat("concatenate ", name), first, "operand 0"));
    if (s.rank() != first.rank()) {
      return ShapeError("concatenate ", name, " ", ShapeText(s), " has rank ", s.rank(),
                        ", but operand 0 ", ShapeText(first), " has rank ", first.rank());
    }
    for (int64_t d = 0; d < s.rank(); ++d) {
      dynamic[d] = dynamic[d] || s.is_dynamic_dim(d);
      if (d == dimension) {
        // A `?` anywhere along the axis makes the sum unknown.
        bool any = dims[d] == Shape::kUnboundedSize || s.is_unbounded_dim(d);
        dims[d] = any ? Shape::kUnboundedSize : dims[d] + s.dim(d);
      } else if (dims[d] == Shape::kUnboundedSize) {
        dims[d] = s.dim(d);
      } else if (!s.is_unbounded_dim(d) && s.dim(d) != dims[d]) {
        return ShapeError("concatenate ", name, " ", ShapeText(s), " differs from operand 0 ",
                          ShapeText(first), " in dimension ", d,
                          ", which is not the concatenate dimension ", dimension);
      }
    }
  }
  return MakeArray(first.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                    const PaddingConfig& padding) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'pad'"));
  HLO_RETURN_IF_ERROR(ExpectScalar(padding_value, "padding value of 'pad'"));
  HLO_RETURN_IF_ERROR(ExpectSameType(padding_value, "padding value", operand, "operand"));
  if (static_cast<int64_t>(padding.size()) != operand.rank()) {
    return ShapeError("pad has ", padding.size(), " padding dimensions, but the operand ",
                      ShapeText(operand), " has rank ", operand.rank());
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDim& p = padding[i];
    if (p.interior < 0) {
      return ShapeError("pad interior padding ", p.interior, " in dimension ", i, " is negative");
    }
    dynamic.push_back(operand.is_dynamic_dim(i));
    if (operand.is_unbounded_dim(i)) {
      dims.push_back(Shape::kUnboundedSize);
      continue;
    }
    // Edge padding may be negative (it then crops), but not below nothing.
    int64_t d = operand.dim(i);
    __int128 size = static_cast<__int128>(p.low) + p.high + d +
                    static_cast<__int128>(std::max<int64_t>(d - 1, 0)) * p.interior;
    if (size < 0) {
      return ShapeError("pad gives dimension ", i, " a negative size ", static_cast<int64_t>(size),
                        " (low ", p.low, ", high ", p.high, ", interior ", p.interior, " on size ",
                        d, ")");
    }
    if (size > INT64_MAX) return ShapeError("pad makes dimension ", i, " too large");
    dims.push_back(static_cast<int64_t>(size));
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dimensions) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'reverse'"));
  HLO_RETURN_IF_ERROR(ExpectDimensions(dimensions, operand.rank(), "reverse dimensions"));
  return operand.WithoutLayout();
}

// ---- iota, tuples, bitcast --------------------------------------------------

absl::StatusOr<Shape> InferIotaShape(const Shape& result, int64_t iota_dimension) {
  HLO_RETURN_IF_ERROR(ExpectArray(result, "result of 'iota'"));
  // XLA's verifier rejects scalar iotas: there is no dimension to count along.
  if (result.rank() == 0) return ShapeError("iota must have rank at least 1");
  if (iota_dimension < 0 || iota_dimension >= result.rank()) {
    return ShapeError("iota_dimension ", iota_dimension, " is out of range for rank ",
                      result.rank());
  }
  PT t = result.element_type();
  if (!IsInteger(t) && !IsFloat(t) && !IsComplex(t)) {
    return ShapeError(
        "iota must have an integer, floating point or complex element type, "
        "but has ",
        TypeName(t));
  }
  return result.WithoutLayout();
}

absl::StatusOr<Shape> InferTupleShape(Shapes elements, ShapePool& pool) {
  std::vector<const Shape*> interned;
  for (const Shape* e : elements) interned.push_back(InternWithoutLayout(*e, pool));
  return Shape::Tuple(std::move(interned));
}

absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index) {
  if (!tuple.IsTuple()) {
    return ShapeError("operand of 'get-tuple-element' must be a tuple, but has shape ",
                      ShapeText(tuple));
  }
  if (index < 0 || index >= tuple.tuple_size()) {
    return ShapeError("get-tuple-element index ", index, " is out of range for ", ShapeText(tuple),
                      " with ", tuple.tuple_size(), " elements");
  }
  return tuple.tuple_shape(index).WithoutLayout();
}

absl::StatusOr<Shape> InferBitcastShape(const Shape& operand, const Shape& result) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'bitcast'"));
  HLO_RETURN_IF_ERROR(ExpectArray(result, "result of 'bitcast'"));
  // A bitcast reinterprets the buffer, so only the byte size must agree.
  int64_t from = ByteSize(operand), to = ByteSize(result);
  if (from < 0 || to < 0) {
    return ShapeError("bitcast from ", ShapeText(operand), " to ", ShapeText(result),
                      " needs bounded shapes");
  }
  if (from != to) {
    return ShapeError("bitcast from ", ShapeText(operand), " (", from, " bytes) to ",
                      ShapeText(result), " (", to, " bytes) must keep the byte size");
  }
  return result.WithoutLayout();
}

// ---- gather and scatter -----------------------------------------------------

namespace {

// Error unless `dims` is strictly increasing (sorted and unique).
absl::Status ExpectSorted(absl::Span<const int64_t> dims, std::string_view what) {
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i - 1] >= dims[i]) {
      return ShapeError(what, " ", DimsText(dims), " must be sorted and unique");
    }
  }
  return absl::OkStatus();
}

// Error when an operand dimension is named by both lists.
absl::Status ExpectDisjoint(absl::Span<const int64_t> a, std::string_view a_name,
                            absl::Span<const int64_t> b, std::string_view b_name,
                            std::string_view op) {
  for (int64_t x : a) {
    if (Contains(b, x)) {
      return ShapeError(op, ": operand dimension ", x, " is in both ", a_name, " and ", b_name);
    }
  }
  return absl::OkStatus();
}

// How gather/scatter indices are laid out: index vectors along
// index_vector_dim (of one element when it equals the rank), the other
// dimensions enumerating the indices ("batch" dimensions).
struct IndexSpace {
  int64_t index_vector_dim = 0;
  int64_t index_vector_size = 1;
  std::vector<int64_t> batch_dims;  // dimension numbers in the indices
};

absl::StatusOr<IndexSpace> IndexSpaceOf(const Shape& indices, const Instruction& inst,
                                        std::string_view op, std::string_view name) {
  HLO_RETURN_IF_ERROR(ExpectArray(indices, StrCat(op, " ", name)));
  if (!IsInteger(indices.element_type())) {
    return ShapeError(op, ": ", name, " must be integer, but has element type ",
                      TypeName(indices.element_type()));
  }
  if (!inst.HasAttr(AttrKind::kIndexVectorDim)) {
    return ShapeError(op, " needs an 'index_vector_dim' attribute");
  }
  IndexSpace space;
  space.index_vector_dim = inst.GetInt(AttrKind::kIndexVectorDim);
  if (space.index_vector_dim < 0 || space.index_vector_dim > indices.rank()) {
    return ShapeError(op, ": index_vector_dim ", space.index_vector_dim, " is out of range [0, ",
                      indices.rank(), "] for ", name, " ", ShapeText(indices));
  }
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d == space.index_vector_dim) {
      space.index_vector_size = indices.dim(d);
    } else {
      space.batch_dims.push_back(d);
    }
  }
  return space;
}

// The operand's dimensions split three ways: into the slice/window
// (`window`), dropped from it (`collapsed`: gather's collapsed_slice_dims,
// scatter's inserted_window_dims) and batching. StableHLO gather C1, C6-C8,
// C10-C11; scatter C2, C9-C13.
struct WindowNames {
  const char* op;
  const char* window;
  const char* collapsed;
  const char* batching;
};

absl::Status CheckWindowDims(const Shape& operand, absl::Span<const int64_t> window,
                             absl::Span<const int64_t> collapsed,
                             absl::Span<const int64_t> batching, const WindowNames& n) {
  HLO_RETURN_IF_ERROR(ExpectSorted(collapsed, StrCat(n.op, ": ", n.collapsed)));
  HLO_RETURN_IF_ERROR(ExpectDimensions(collapsed, operand.rank(), StrCat(n.op, ": ", n.collapsed)));
  HLO_RETURN_IF_ERROR(ExpectSorted(batching, StrCat(n.op, ": ", n.batching)));
  HLO_RETURN_IF_ERROR(ExpectDimensions(batching, operand.rank(), StrCat(n.op, ": ", n.batching)));
  HLO_RETURN_IF_ERROR(ExpectDisjoint(collapsed, n.collapsed, batching, n.batching, n.op));
  int64_t total = Size(window) + Size(collapsed) + Size(batching);
  if (total != operand.rank()) {
    return ShapeError(n.op, ": operand ", ShapeText(operand), " has rank ", operand.rank(),
                      ", but ", n.window, ", ", n.collapsed, " and ", n.batching, " have ",
                      Size(window), "+", Size(collapsed), "+", Size(batching), " = ", total,
                      " entries");
  }
  return absl::OkStatus();
}

// Batching dims pair operand dims with index dims of the same size
// (gather C13-C17, scatter C14-C18).
absl::Status CheckBatchingDims(const Shape& operand, absl::Span<const int64_t> operand_dims,
                               const Shape& indices, absl::Span<const int64_t> index_dims,
                               const IndexSpace& space, const WindowNames& n,
                               std::string_view index_name) {
  std::string what = StrCat(n.op, ": ", index_name);
  HLO_RETURN_IF_ERROR(ExpectDimensions(index_dims, indices.rank(), what));
  if (Contains(index_dims, space.index_vector_dim)) {
    return ShapeError(what, " ", DimsText(index_dims), " must not contain index_vector_dim ",
                      space.index_vector_dim);
  }
  if (index_dims.size() != operand_dims.size()) {
    return ShapeError(n.op, ": ", n.batching, " ", DimsText(operand_dims), " and ", index_name, " ",
                      DimsText(index_dims), " must have the same size");
  }
  for (size_t i = 0; i < operand_dims.size(); ++i) {
    int64_t od = operand_dims[i], id = index_dims[i];
    if (operand.dim(od) != indices.dim(id)) {
      return ShapeError(n.op, ": operand batching dimension ", od, " of size ", operand.dim(od),
                        " must equal indices batching dimension ", id, " of size ",
                        indices.dim(id));
    }
  }
  return absl::OkStatus();
}

// start_index_map / scatter_dims_to_operand_dims: which operand dimension
// each entry of an index vector addresses (gather C3, C18-C19; scatter
// C19-C21).
absl::Status CheckIndexMap(absl::Span<const int64_t> map, const IndexSpace& space,
                           const Shape& operand, absl::Span<const int64_t> batching,
                           const WindowNames& n, std::string_view map_name) {
  std::string what = StrCat(n.op, ": ", map_name);
  if (Size(map) != space.index_vector_size) {
    return ShapeError(what, " ", DimsText(map), " has ", map.size(),
                      " entries, but an index vector has ", space.index_vector_size,
                      " (index_vector_dim is ", space.index_vector_dim, ")");
  }
  HLO_RETURN_IF_ERROR(ExpectDimensions(map, operand.rank(), what));
  return ExpectDisjoint(map, map_name, batching, n.batching, n.op);
}

absl::Status CheckSliceSizes(const Shape& operand, absl::Span<const int64_t> sizes,
                             absl::Span<const int64_t> collapsed,
                             absl::Span<const int64_t> batching) {
  if (Size(sizes) != operand.rank()) {
    return ShapeError("gather: slice_sizes ", DimsText(sizes), " has ", sizes.size(),
                      " entries, but the operand ", ShapeText(operand), " has rank ",
                      operand.rank());
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (sizes[i] < 0) return ShapeError("gather: slice_sizes[", i, "]=", sizes[i], " is negative");
    if (!operand.is_unbounded_dim(i) && sizes[i] > operand.dim(i)) {
      return ShapeError("gather: slice_sizes[", i, "]=", sizes[i], " exceeds operand dimension ", i,
                        " of size ", operand.dim(i));
    }
    // Collapsed and batching dims are dropped from the result: at most one
    // element of them can be taken (C9, C12).
    const char* dropped = Contains(collapsed, i)  ? "collapsed_slice_dims"
                          : Contains(batching, i) ? "operand_batching_dims"
                                                  : nullptr;
    if (dropped && sizes[i] > 1) {
      return ShapeError("gather: slice_sizes[", i, "]=", sizes[i],
                        " must be at most 1 because dimension ", i, " is in ", dropped);
    }
  }
  return absl::OkStatus();
}

// Gather's result: offset dims (slice sizes of the kept operand dims) at
// offset_dims, the indices' batch dims elsewhere (C22).
Shape GatherResult(const Shape& operand, const Shape& indices, const IndexSpace& space,
                   absl::Span<const int64_t> offset_dims, absl::Span<const int64_t> sizes,
                   absl::Span<const int64_t> collapsed, absl::Span<const int64_t> batching) {
  std::vector<int64_t> offset_sizes;
  std::vector<bool> offset_dynamic;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (Contains(collapsed, d) || Contains(batching, d)) continue;
    offset_sizes.push_back(sizes[d]);
    // Gathering all of a dynamic dimension keeps it dynamic (as XLA does).
    offset_dynamic.push_back(operand.is_dynamic_dim(d) && sizes[d] == operand.dim(d));
  }
  int64_t rank = Size(offset_dims) + Size(space.batch_dims);
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (Contains(offset_dims, i)) {
      dims.push_back(offset_sizes[next_offset]);
      dynamic.push_back(offset_dynamic[next_offset++]);
    } else {
      int64_t d = space.batch_dims[next_batch++];
      dims.push_back(indices.dim(d));
      dynamic.push_back(indices.is_dynamic_dim(d));
    }
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

}  // namespace

absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                       const Instruction& gather) {
  static constexpr WindowNames kNames{"gather", "offset_dims", "collapsed_slice_dims",
                                      "operand_batching_dims"};
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "gather operand"));
  absl::StatusOr<IndexSpace> space = IndexSpaceOf(start_indices, gather, "gather", "start_indices");
  if (!space.ok()) return space.status();
  auto offset_dims = gather.GetInts(AttrKind::kOffsetDims);
  auto collapsed = gather.GetInts(AttrKind::kCollapsedSliceDims);
  auto batching = gather.GetInts(AttrKind::kOperandBatchingDims);
  auto slice_sizes = gather.GetInts(AttrKind::kSliceSizes);
  int64_t result_rank = Size(offset_dims) + Size(space->batch_dims);
  HLO_RETURN_IF_ERROR(ExpectSorted(offset_dims, "gather: offset_dims"));
  HLO_RETURN_IF_ERROR(ExpectDimensions(offset_dims, result_rank, "gather: offset_dims"));
  HLO_RETURN_IF_ERROR(CheckWindowDims(operand, offset_dims, collapsed, batching, kNames));
  HLO_RETURN_IF_ERROR(CheckBatchingDims(operand, batching, start_indices,
                                        gather.GetInts(AttrKind::kStartIndicesBatchingDims), *space,
                                        kNames, "start_indices_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckIndexMap(gather.GetInts(AttrKind::kStartIndexMap), *space, operand,
                                    batching, kNames, "start_index_map"));
  HLO_RETURN_IF_ERROR(CheckSliceSizes(operand, slice_sizes, collapsed, batching));
  return GatherResult(operand, start_indices, *space, offset_dims, slice_sizes, collapsed,
                      batching);
}

namespace {

// N operands of one shape, N updates of one shape, update i of operand i's
// element type (StableHLO scatter C1, C3, C5, C6).
absl::Status CheckScatterOperands(Shapes operands, Shapes updates) {
  if (operands.empty()) return ShapeError("scatter needs at least one operand");
  if (updates.size() != operands.size()) {
    return ShapeError("scatter has ", operands.size(), " operands but ", updates.size(),
                      " updates");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    std::string op = StrCat("operand ", i), up = StrCat("update ", i);
    HLO_RETURN_IF_ERROR(ExpectArray(*operands[i], StrCat("scatter ", op)));
    HLO_RETURN_IF_ERROR(ExpectArray(*updates[i], StrCat("scatter ", up)));
    HLO_RETURN_IF_ERROR(ExpectSameType(*updates[i], up, *operands[i], op));
    if (i == 0) continue;
    HLO_RETURN_IF_ERROR(ExpectSameDims(*operands[i], op, *operands[0], "operand 0"));
    HLO_RETURN_IF_ERROR(ExpectSameDims(*updates[i], up, *updates[0], "update 0"));
  }
  return absl::OkStatus();
}

// One update dimension per window dimension and per batch dimension of the
// indices (C4).
absl::Status CheckUpdateRank(const Shape& update, const IndexSpace& space,
                             absl::Span<const int64_t> window) {
  int64_t rank = Size(window) + Size(space.batch_dims);
  if (update.rank() == rank) return absl::OkStatus();
  return ShapeError("scatter: updates ", ShapeText(update), " must have rank ", rank, " (",
                    window.size(), " update_window_dims + ", space.batch_dims.size(),
                    " scatter_indices dimensions), but has rank ", update.rank());
}

// The update's dims: the indices' batch dims where update_window_dims are
// not, window dims no larger than the operand's kept dims (C4). The rank is
// already checked.
absl::Status CheckUpdateDims(const Shape& update, const Shape& operand, const Shape& indices,
                             const IndexSpace& space, absl::Span<const int64_t> window,
                             absl::Span<const int64_t> inserted,
                             absl::Span<const int64_t> batching) {
  int64_t rank = update.rank();
  std::vector<int64_t> kept;  // operand dims the window covers
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!Contains(inserted, d) && !Contains(batching, d)) kept.push_back(d);
  }
  size_t next_window = 0, next_batch = 0;
  for (int64_t i = 0; i < rank; ++i) {
    bool unbounded = update.is_unbounded_dim(i);
    if (Contains(window, i)) {
      int64_t d = kept[next_window++];
      if (!unbounded && !operand.is_unbounded_dim(d) && update.dim(i) > operand.dim(d)) {
        return ShapeError("scatter: update window dimension ", i, " of size ", update.dim(i),
                          " exceeds operand dimension ", d, " of size ", operand.dim(d));
      }
      continue;
    }
    int64_t d = space.batch_dims[next_batch++];
    if (!unbounded && !indices.is_unbounded_dim(d) && update.dim(i) != indices.dim(d)) {
      return ShapeError("scatter: update dimension ", i, " of size ", update.dim(i),
                        " must equal scatter_indices dimension ", d, " of size ", indices.dim(d));
    }
  }
  return absl::OkStatus();
}

// XLA compares reducer types ignoring floating-point precision (a bf16
// scatter may combine in f32).
bool SameTypeIgnoringFp(PT a, PT b) { return a == b || (IsFloat(a) && IsFloat(b)); }

std::string ScalarsText(absl::Span<const Shape* const> shapes) {
  std::vector<std::string> parts;
  for (const Shape* s : shapes) parts.push_back(ShapeText(*s));
  return parts.size() == 1 ? parts[0] : StrCat("(", StrJoin(parts, ", "), ")");
}

// to_apply takes (accumulators..., updates...) as 2N scalars and returns the
// N new accumulators, a tuple when N > 1 (C23).
absl::Status CheckScatterComputation(Shapes operands, const ProgramShape& f) {
  size_t n = operands.size();
  if (f.params.size() != 2 * n) {
    return ShapeError("scatter computation takes ", f.params.size(), " parameters, but needs ",
                      2 * n, " (two per operand)");
  }
  for (size_t i = 0; i < 2 * n; ++i) {
    const Shape* p = f.params[i];
    PT want = operands[i % n]->element_type();
    if (!p || !p->IsArray() || p->rank() != 0 || !SameTypeIgnoringFp(p->element_type(), want)) {
      return ShapeError("scatter computation parameter ", i, " must be a scalar of type ",
                        TypeName(want), ", but is ", p ? ShapeText(*p) : "missing");
    }
  }
  absl::Span<const Shape* const> accumulators(f.params.data(), n);
  const Shape* r = f.result;
  bool ok = r && (n == 1 ? r->Compatible(*accumulators[0])
                         : r->IsTuple() && static_cast<size_t>(r->tuple_size()) == n);
  for (size_t i = 0; ok && n > 1 && i < n; ++i) {
    ok = r->tuple_shape(i).Compatible(*accumulators[i]);
  }
  if (!ok) {
    return ShapeError("scatter computation must return ", ScalarsText(accumulators),
                      n == 1 ? " (the type of its first parameter)"
                             : StrCat(" (the types of its first ", n, " parameters)"),
                      ", but returns ", r ? ShapeText(*r) : "nothing");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferScatterShape(Shapes operands, const Shape& indices, Shapes updates,
                                        const ProgramShape& to_apply, const Instruction& scatter,
                                        ShapePool& pool) {
  static constexpr WindowNames kNames{"scatter", "update_window_dims", "inserted_window_dims",
                                      "input_batching_dims"};
  HLO_RETURN_IF_ERROR(CheckScatterOperands(operands, updates));
  const Shape& operand = *operands[0];
  const Shape& update = *updates[0];
  absl::StatusOr<IndexSpace> space = IndexSpaceOf(indices, scatter, "scatter", "scatter_indices");
  if (!space.ok()) return space.status();
  auto window = scatter.GetInts(AttrKind::kUpdateWindowDims);
  auto inserted = scatter.GetInts(AttrKind::kInsertedWindowDims);
  auto batching = scatter.GetInts(AttrKind::kInputBatchingDims);
  HLO_RETURN_IF_ERROR(ExpectSorted(window, "scatter: update_window_dims"));
  HLO_RETURN_IF_ERROR(CheckUpdateRank(update, *space, window));
  HLO_RETURN_IF_ERROR(ExpectDimensions(window, update.rank(), "scatter: update_window_dims"));
  HLO_RETURN_IF_ERROR(CheckWindowDims(operand, window, inserted, batching, kNames));
  HLO_RETURN_IF_ERROR(CheckBatchingDims(operand, batching, indices,
                                        scatter.GetInts(AttrKind::kScatterIndicesBatchingDims),
                                        *space, kNames, "scatter_indices_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckIndexMap(scatter.GetInts(AttrKind::kScatterDimsToOperandDims), *space,
                                    operand, batching, kNames, "scatter_dims_to_operand_dims"));
  HLO_RETURN_IF_ERROR(
      CheckUpdateDims(update, operand, indices, *space, window, inserted, batching));
  HLO_RETURN_IF_ERROR(CheckScatterComputation(operands, to_apply));
  // The results have the operands' shapes (XLA keeps the operand types).
  if (operands.size() == 1) return operand.WithoutLayout();
  std::vector<const Shape*> results;
  for (const Shape* s : operands) results.push_back(pool.Intern(s->WithoutLayout()));
  return Shape::Tuple(std::move(results));
}

// ---- dynamic shapes ---------------------------------------------------------

absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'get-dimension-size'"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return ShapeError("get-dimension-size dimension ", dimension, " is out of range for ",
                      ShapeText(operand));
  }
  // The size is returned as s32.
  if (operand.dim(dimension) > INT32_MAX) {
    return ShapeError("get-dimension-size: dimension ", dimension, " of size ",
                      operand.dim(dimension), " does not fit in s32");
  }
  return Shape::Array(PT::kS32, {});
}

absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& size,
                                                 int64_t dimension) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'set-dimension-size'"));
  if (!size.IsArray() || size.rank() != 0 || size.element_type() != PT::kS32) {
    return ShapeError("size of 'set-dimension-size' must be s32[], but has shape ",
                      ShapeText(size));
  }
  if (dimension < 0 || dimension >= operand.rank()) {
    return ShapeError("set-dimension-size dimension ", dimension, " is out of range for ",
                      ShapeText(operand));
  }
  return operand.WithoutLayout().WithDynamicDim(dimension, true);
}

absl::StatusOr<Shape> InferDynamicReshapeShape(const Shape& operand, Shapes dim_sizes,
                                               const Shape& result) {
  HLO_RETURN_IF_ERROR(ExpectArray(operand, "operand of 'dynamic-reshape'"));
  HLO_RETURN_IF_ERROR(ExpectArray(result, "result of 'dynamic-reshape'"));
  HLO_RETURN_IF_ERROR(ExpectSameType(result, "result", operand, "operand"));
  if (static_cast<int64_t>(dim_sizes.size()) != result.rank()) {
    return ShapeError("dynamic-reshape has ", dim_sizes.size(), " dimension sizes, but the result ",
                      ShapeText(result), " has rank ", result.rank());
  }
  for (size_t i = 0; i < dim_sizes.size(); ++i) {
    const Shape& s = *dim_sizes[i];
    HLO_RETURN_IF_ERROR(ExpectScalar(s, StrCat("dynamic-reshape size ", i)));
    if (!IsInteger(s.element_type())) {
      return ShapeError("dynamic-reshape size ", i,
                        " must be an integer, but has element "
                        "type ",
                        TypeName(s.element_type()));
    }
  }
  // The bounds must hold the same number of elements; `?` is unchecked.
  int64_t from = operand.ElementCount(), to = result.ElementCount();
  if (from >= 0 && to >= 0 && from != to) {
    return ShapeError("dynamic-reshape from ", ShapeText(operand), " (", from, " elements) to ",
                      ShapeText(result), " (", to, " elements) must keep the element count");
  }
  return result.WithoutLayout();
}

}  // namespace hlo
