// Data-movement kernels: broadcast, reshape, transpose, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, iota, copy, bitcast,
// tuple, get-tuple-element, constant, get-dimension-size and
// set-dimension-size.
//
// Literals store arrays row-major, one element per ByteWidth bytes, so these
// kernels never look at element types except to check them: elements move as
// 1/2/4/8/16-byte words through the strided copy engine in
// eval/kernels/data_copy.cc. Layouts matter only to bitcast (eval/kernels/data_bitcast.cc),
// which reinterprets memory in physical order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/interp/batch_program.h"
#include "eval/io/random_fill.h"
#include "eval/kernels/dynamic.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/operand_reuse.h"
#include "eval/kernels/strided_axes.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace data_internal {

using CopyAxis = StridedAxis;
using CopyAxes = StridedAxes;

// Defined in eval/kernels/data_bitcast.cc. BitcastKeepsBytes: `inst`
// reads `in` as the same element type, both row-major (a reshape).
absl::StatusOr<Value> EvalBitcast(const Instruction& inst, const Value& operand);
bool BitcastKeepsBytes(const Instruction& inst, const Literal& in);

}  // namespace data_internal

namespace {

using data_internal::CopyAxes;
using data_internal::FillElements;
using data_internal::StridedCopy;
using Strides = absl::InlinedVector<int64_t, 6>;

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

Strides RowMajorStrides(absl::Span<const int64_t> dims) {
  Strides s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    s[i] = s[i + 1] * dims[i + 1];
  }
  return s;
}

absl::Status CheckOperandCount(const Instruction& inst, Operands ops, size_t n) {
  if (ops.size() != n) {
    return Invalid(StrCat(inst.OpcodeText(), " takes ", n, " operand", n == 1 ? "" : "s",
                          " but has ", ops.size()));
  }
  return absl::OkStatus();
}

// Operand i as an array literal.
absl::StatusOr<const Literal*> ArrayOperand(const Instruction& inst, Operands ops, size_t i) {
  if (i >= ops.size() || ops[i] == nullptr) {
    return Invalid(StrCat(inst.OpcodeText(), " is missing operand ", i));
  }
  if (!ops[i]->is_array()) {
    return Invalid(StrCat("operand ", i, " of ", inst.OpcodeText(), " must be an array, not ",
                          ops[i]->is_tuple() ? "a tuple" : "a token"));
  }
  return &ops[i]->array();
}

// The result array, checked to hold the operand's element type. Left
// uninitialised: every caller writes each element (copies, fills).
absl::StatusOr<Value> NewResult(const Instruction& inst, PrimitiveType operand_type) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray()) {
    return Invalid(
        StrCat(inst.OpcodeText(), " must produce an array, not ", shape.ToString(false)));
  }
  if (shape.element_type() != operand_type) {
    return Invalid(StrCat(inst.OpcodeText(), " produces ", shape.ToString(false),
                          " from elements of type ", PrimitiveTypeName(operand_type),
                          "; the element types must match"));
  }
  return NewArrayUninitialized(shape);
}

absl::Status CheckRank(const Instruction& inst, absl::Span<const int64_t> attr, int64_t rank,
                       std::string_view what) {
  if (static_cast<int64_t>(attr.size()) != rank) {
    return Invalid(StrCat(inst.OpcodeText(), " has ", attr.size(), " ", what,
                          " for an operand of rank ", rank));
  }
  return absl::OkStatus();
}

// ---- broadcast ----------------------------------------------------------

absl::StatusOr<Value> Broadcast(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  const Shape& ishape = (*in)->shape();
  const Shape& oshape = inst.shape();
  absl::Span<const int64_t> dims = inst.GetInts(AttrKind::kDimensions);
  if (auto st = CheckRank(inst, dims, ishape.rank(), "dimensions"); !st.ok()) return st;
  const int64_t rank = oshape.rank();
  Strides in_strides = RowMajorStrides(ishape.dims());
  Strides src(rank, 0);
  absl::InlinedVector<bool, 8> used(rank, false);  // no allocation per broadcast
  for (int64_t i = 0; i < ishape.rank(); ++i) {
    int64_t d = dims[i];
    if (d < 0 || d >= rank || used[d]) {
      return Invalid(StrCat("broadcast dimensions ", DimsText(dims),
                            " are not distinct dimensions of the rank-", rank, " result"));
    }
    used[d] = true;
    if (ishape.dim(i) != oshape.dim(d) && ishape.dim(i) != 1) {
      return Invalid(StrCat("broadcast maps operand dimension ", i, " (size ", ishape.dim(i),
                            ") to result dimension ", d, " of size ", oshape.dim(d)));
    }
    if (ishape.dim(i) != 1) src[d] = in_strides[i];
  }
  absl::StatusOr<Value> out = NewResult(inst, ishape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  Strides dst = RowMajorStrides(o.shape().dims());
  CopyAxes axes;
  for (int64_t j = 0; j < rank; ++j) axes.push_back({o.shape().dim(j), dst[j], src[j]});
  if ((*in)->element_count() > 0) {
    StridedCopy(ByteWidth(o.element_type()), o.data(), (*in)->data(), std::move(axes));
  }
  return out;
}

// ---- reshape --------------------------------------------------------------

// A reshape or a bitcast that keeps the row-major bytes copies none of
// them. An operand literal nothing else holds (this instruction its only
// reader, the frame's reference the last) becomes the result with the new
// shape, as elementwise results take over their operands
// (eval/kernels/elementwise.cc's ReusableOperand); so does a view held
// once, since only its shape changes. A buffer others hold too is viewed
// (Literal::ViewOf). Arrays under kMinViewBytes are copied instead: as
// cheap as a view, and then the result's own to write into.
constexpr size_t kMinViewBytes = 4096;

// The operand's bytes from `offset` on as an array of `shape`, not copied;
// nullopt where they do not fit.
std::optional<Value> ViewValue(const Value& operand, const Shape& shape, size_t offset) {
  absl::StatusOr<Literal> view = Literal::ViewOf(operand.array_ptr(), shape, offset);
  if (!view.ok()) return std::nullopt;
  return Value::Array(std::make_shared<Literal>(*std::move(view)));
}

std::optional<Value> ReshapedWithoutCopy(const Instruction& inst, Operands ops) {
  if (ops.size() != 1 || inst.operand_count() != 1 || !inst.shape().IsArray() ||
      !ops[0]->is_array()) {
    return std::nullopt;
  }
  if (ops[0]->array_ptr().use_count() == 1 && SoleReaderOfOperand(inst, 0)) {
    Value result = *ops[0];
    if (result.mutable_array().ReshapeInPlace(inst.shape())) return result;
    return std::nullopt;
  }
  const Literal& in = ops[0]->array();
  if (in.size_bytes() < kMinViewBytes || in.element_type() != inst.shape().element_type()) {
    return std::nullopt;
  }
  return ViewValue(*ops[0], inst.shape(), 0);
}

absl::StatusOr<Value> Reshape(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  if (inst.shape().IsArray() && inst.shape().ElementCount() != (*in)->element_count()) {
    return Invalid(StrCat("reshape from ", (*in)->shape().ToString(false), " to ",
                          inst.shape().ToString(false), " changes the number of elements"));
  }
  if (std::optional<Value> taken = ReshapedWithoutCopy(inst, ops)) return *std::move(taken);
  absl::StatusOr<Value> out = NewResult(inst, (*in)->element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.size_bytes() > 0) std::memcpy(o.data(), (*in)->data(), o.size_bytes());
  return out;
}

// ---- transpose ------------------------------------------------------------

absl::StatusOr<Value> Transpose(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  const Shape& ishape = (*in)->shape();
  absl::Span<const int64_t> perm = inst.GetInts(AttrKind::kDimensions);
  const int64_t rank = ishape.rank();
  if (auto st = CheckRank(inst, perm, rank, "dimensions"); !st.ok()) return st;
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return Invalid(StrCat("transpose dimensions ", DimsText(perm),
                            " are not a permutation of 0..", rank - 1));
    }
    seen[p] = true;
  }
  const Shape& oshape = inst.shape();
  if (oshape.IsArray() && oshape.rank() == rank) {
    for (int64_t i = 0; i < rank; ++i) {
      if (oshape.dim(i) != ishape.dim(perm[i])) {
        return Invalid(StrCat("transpose of ", ishape.ToString(false), " by ", DimsText(perm),
                              " cannot give ", oshape.ToString(false)));
      }
    }
  } else {
    return Invalid(
        StrCat("transpose of ", ishape.ToString(false), " cannot give ", oshape.ToString(false)));
  }
  absl::StatusOr<Value> out = NewResult(inst, ishape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  Strides src = RowMajorStrides(ishape.dims());
  Strides dst = RowMajorStrides(oshape.dims());
  CopyAxes axes;
  for (int64_t i = 0; i < rank; ++i) axes.push_back({oshape.dim(i), dst[i], src[perm[i]]});
  StridedCopy(ByteWidth(o.element_type()), o.data(), (*in)->data(), std::move(axes));
  return out;
}

// ---- slice ----------------------------------------------------------------

absl::Status CheckResultDims(const Instruction& inst, absl::Span<const int64_t> want) {
  const Shape& oshape = inst.shape();
  if (!oshape.IsArray() || oshape.dims() != want) {
    return Invalid(StrCat(inst.OpcodeText(), " gives dimensions ", DimsText(want),
                          " but the result shape is ", oshape.ToString(false)));
  }
  return absl::OkStatus();
}

// A slice whose elements lie in one run of the operand's (past its first
// dim of more than one element, stepping by one, every dim whole) is a
// view of them (Literal::ViewOf) where that run is at least a quarter of
// the operand: a smaller one would keep the whole operand alive for it.
std::optional<Value> SliceView(const Value& operand, const Shape& shape,
                               absl::Span<const int64_t> dims, absl::Span<const int64_t> steps,
                               int64_t offset) {
  const Literal& in = operand.array();
  const Shape& ishape = in.shape();
  bool inside = false;
  for (int64_t i = 0; i < ishape.rank(); ++i) {
    if (inside ? dims[i] != ishape.dim(i) : dims[i] > 1 && steps[i] != 1) return std::nullopt;
    inside = inside || dims[i] > 1;
  }
  const int64_t width = ByteWidth(in.element_type());
  const size_t bytes = static_cast<size_t>(shape.ElementCount() * width);
  if (bytes < kMinViewBytes || 4 * bytes < in.size_bytes() ||
      shape.element_type() != in.element_type()) {
    return std::nullopt;
  }
  return ViewValue(operand, shape, static_cast<size_t>(offset * width));
}

absl::StatusOr<Value> Slice(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  const Shape& ishape = (*in)->shape();
  const SliceSpec* spec = inst.slice();
  const int64_t rank = ishape.rank();
  if (spec == nullptr || static_cast<int64_t>(spec->size()) != rank) {
    return Invalid(
        StrCat("slice needs one [start:limit:stride] per dimension of ", ishape.ToString(false)));
  }
  Strides in_strides = RowMajorStrides(ishape.dims());
  absl::InlinedVector<int64_t, 6> dims(rank);
  int64_t offset = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const SliceDim& s = (*spec)[i];
    if (s.start < 0 || s.start > s.limit || s.limit > ishape.dim(i) || s.stride < 1) {
      return Invalid(StrCat("slice [", s.start, ":", s.limit, ":", s.stride,
                            "] is out of range for dimension ", i, " of size ", ishape.dim(i)));
    }
    dims[i] = s.limit == s.start ? 0 : 1 + (s.limit - s.start - 1) / s.stride;
    offset += s.start * in_strides[i];
  }
  if (auto st = CheckResultDims(inst, dims); !st.ok()) return st;
  absl::InlinedVector<int64_t, 6> steps(rank);
  for (int64_t i = 0; i < rank; ++i) steps[i] = (*spec)[i].stride;
  if (std::optional<Value> view = SliceView(*ops[0], inst.shape(), dims, steps, offset)) {
    return *std::move(view);
  }
  absl::StatusOr<Value> out = NewResult(inst, ishape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.element_count() == 0) return out;
  const int width = ByteWidth(o.element_type());
  Strides dst = RowMajorStrides(dims);
  CopyAxes axes;
  for (int64_t i = 0; i < rank; ++i) {
    // (An axis of one element never steps: no stride product to overflow.)
    axes.push_back({dims[i], dst[i], dims[i] > 1 ? in_strides[i] * (*spec)[i].stride : 0});
  }
  StridedCopy(width, o.data(), (*in)->data() + offset * width, std::move(axes));
  return out;
}

// ---- dynamic-slice / dynamic-update-slice ---------------------------------

// Start indices from the index operands ops[first..]: one integer scalar per
// dimension, or (the old form) one rank-1 array. Each start is clamped to
// [0, dim - size].
absl::StatusOr<absl::InlinedVector<int64_t, 6>> StartIndices(const Instruction& inst, Operands ops,
                                                             size_t first, const Shape& operand,
                                                             absl::Span<const int64_t> sizes) {
  const int64_t rank = operand.rank();
  absl::InlinedVector<int64_t, 6> starts(rank, 0);
  const size_t n = ops.size() - first;
  auto read = [](const Literal& lit, int64_t i) -> int64_t {
    if (lit.element_type() == PrimitiveType::kU64) {
      uint64_t u = lit.typed<uint64_t>()[i];
      return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
    }
    return lit.GetInt(i);
  };
  auto check_type = [&](const Literal& lit) -> absl::Status {
    if (!IsInteger(lit.element_type())) {
      return Invalid(StrCat(inst.OpcodeText(), " start indices must be integers, not ",
                            PrimitiveTypeName(lit.element_type())));
    }
    return absl::OkStatus();
  };
  bool vector_form = n == 1 && ops[first]->is_array() && ops[first]->array().shape().rank() == 1;
  if (vector_form) {
    const Literal& idx = ops[first]->array();
    if (auto st = check_type(idx); !st.ok()) return st;
    if (idx.element_count() != rank) {
      return Invalid(StrCat(inst.OpcodeText(), " has ", idx.element_count(),
                            " start indices for an operand of rank ", rank));
    }
    for (int64_t i = 0; i < rank; ++i) starts[i] = read(idx, i);
  } else {
    if (static_cast<int64_t>(n) != rank) {
      return Invalid(
          StrCat(inst.OpcodeText(), " has ", n, " start indices for an operand of rank ", rank));
    }
    for (int64_t i = 0; i < rank; ++i) {
      absl::StatusOr<const Literal*> idx = ArrayOperand(inst, ops, first + i);
      if (!idx.ok()) return idx.status();
      if (auto st = check_type(**idx); !st.ok()) return st;
      if ((*idx)->shape().rank() != 0) {
        return Invalid(StrCat(inst.OpcodeText(), " start index ", i, " must be a scalar, not ",
                              (*idx)->shape().ToString(false)));
      }
      starts[i] = read(**idx, 0);
    }
  }
  for (int64_t i = 0; i < rank; ++i) {
    starts[i] = std::clamp<int64_t>(starts[i], 0, operand.dim(i) - sizes[i]);
  }
  return starts;
}

absl::StatusOr<Value> DynamicSlice(const Instruction& inst, Operands ops) {
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  const Shape& ishape = (*in)->shape();
  const int64_t rank = ishape.rank();
  absl::Span<const int64_t> sizes = inst.GetInts(AttrKind::kDynamicSliceSizes);
  if (!inst.HasAttr(AttrKind::kDynamicSliceSizes) && inst.shape().IsArray()) {
    sizes = inst.shape().dims();
  }
  if (auto st = CheckRank(inst, sizes, rank, "dynamic_slice_sizes"); !st.ok()) return st;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0 || sizes[i] > ishape.dim(i)) {
      return Invalid(StrCat("dynamic-slice size ", sizes[i], " does not fit dimension ", i, " of ",
                            ishape.ToString(false)));
    }
  }
  if (auto st = CheckResultDims(inst, sizes); !st.ok()) return st;
  absl::StatusOr<absl::InlinedVector<int64_t, 6>> starts =
      StartIndices(inst, ops, 1, ishape, sizes);
  if (!starts.ok()) return starts.status();
  Strides src = RowMajorStrides(ishape.dims());
  int64_t offset = 0;
  for (int64_t i = 0; i < rank; ++i) offset += (*starts)[i] * src[i];
  if (std::optional<Value> view = SliceView(*ops[0], inst.shape(), sizes,
                                            absl::InlinedVector<int64_t, 6>(rank, 1), offset)) {
    return *std::move(view);
  }
  absl::StatusOr<Value> out = NewResult(inst, ishape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.element_count() == 0) return out;
  const int width = ByteWidth(o.element_type());
  Strides dst = RowMajorStrides(sizes);
  CopyAxes axes;
  for (int64_t i = 0; i < rank; ++i) axes.push_back({sizes[i], dst[i], src[i]});
  StridedCopy(width, o.data(), (*in)->data() + offset * width, std::move(axes));
  return out;
}

absl::StatusOr<Value> DynamicUpdateSlice(const Instruction& inst, Operands ops) {
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  absl::StatusOr<const Literal*> upd = ArrayOperand(inst, ops, 1);
  if (!upd.ok()) return upd.status();
  const Shape& ishape = (*in)->shape();
  const Shape& ushape = (*upd)->shape();
  const int64_t rank = ishape.rank();
  if (ushape.rank() != rank || ushape.element_type() != ishape.element_type()) {
    return Invalid(StrCat("dynamic-update-slice cannot write ", ushape.ToString(false), " into ",
                          ishape.ToString(false)));
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (ushape.dim(i) > ishape.dim(i)) {
      return Invalid(StrCat("dynamic-update-slice update ", ushape.ToString(false),
                            " does not fit in ", ishape.ToString(false)));
    }
  }
  if (auto st = CheckResultDims(inst, ishape.dims()); !st.ok()) return st;
  absl::StatusOr<absl::InlinedVector<int64_t, 6>> starts =
      StartIndices(inst, ops, 2, ishape, ushape.dims());
  if (!starts.ok()) return starts.status();
  absl::StatusOr<Value> out;
  if (ops[0]->unique() && SoleReaderOfOperand(inst, 0) &&
      inst.shape().element_type() == ishape.element_type()) {
    // Nobody else can see the operand's buffer: update it in place.
    out = *ops[0];
  } else {
    out = NewResult(inst, ishape.element_type());
    if (!out.ok()) return out;
    Literal& o = out->mutable_array();
    if (o.size_bytes() > 0) std::memcpy(o.data(), (*in)->data(), o.size_bytes());
  }
  if ((*upd)->element_count() == 0) return out;
  Literal& o = out->mutable_array();
  const int width = ByteWidth(o.element_type());
  Strides dst = RowMajorStrides(ishape.dims());
  Strides src = RowMajorStrides(ushape.dims());
  CopyAxes axes;
  int64_t offset = 0;
  for (int64_t i = 0; i < rank; ++i) {
    axes.push_back({ushape.dim(i), dst[i], src[i]});
    offset += (*starts)[i] * dst[i];
  }
  StridedCopy(width, o.data() + offset * width, (*upd)->data(), std::move(axes));
  return out;
}

// ---- concatenate ----------------------------------------------------------

// Two or four 4-byte operands of extent 1 in the concatenated dimension
// with nothing after it (XLA's index vectors: [N,1] pieces side by side):
// out[i * k + j] = operand j's element i, four elements of each operand
// interleaved in registers (a 4x4 transpose, or unpacks for two). One
// strided copy per operand (4 s32[16384] pieces: 19 us) and a scalar loop
// (36 us: the stores wait on loads whose addresses alias them modulo 4 KiB)
// were both slower.
bool Interleave(Operands ops, int64_t d, int width, Literal& out) {
#if defined(__SSE2__)
  const size_t k = ops.size();
  if (width != 4 || (k != 2 && k != 4)) return false;
  const Shape& shape = ops[0]->array().shape();
  for (int64_t i = d + 1; i < shape.rank(); ++i) {
    if (shape.dim(i) != 1) return false;
  }
  const float* in[4] = {};
  for (size_t j = 0; j < k; ++j) {
    if (ops[j]->array().shape().dim(d) != 1) return false;
    in[j] = reinterpret_cast<const float*>(ops[j]->array().data());
  }
  float* o = reinterpret_cast<float*>(out.data());
  const int64_t n = shape.ElementCount();
  int64_t i = 0;
  if (k == 4) {
    for (; i + 4 <= n; i += 4) {
      __m128 r0 = _mm_loadu_ps(in[0] + i), r1 = _mm_loadu_ps(in[1] + i);
      __m128 r2 = _mm_loadu_ps(in[2] + i), r3 = _mm_loadu_ps(in[3] + i);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(o + 4 * i, r0);
      _mm_storeu_ps(o + 4 * i + 4, r1);
      _mm_storeu_ps(o + 4 * i + 8, r2);
      _mm_storeu_ps(o + 4 * i + 12, r3);
    }
  } else {
    for (; i + 4 <= n; i += 4) {
      const __m128 a = _mm_loadu_ps(in[0] + i), b = _mm_loadu_ps(in[1] + i);
      _mm_storeu_ps(o + 2 * i, _mm_unpacklo_ps(a, b));
      _mm_storeu_ps(o + 2 * i + 4, _mm_unpackhi_ps(a, b));
    }
  }
  // (Moved as floats: loads, shuffles and stores keep every bit pattern.)
  for (; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) std::memcpy(o + i * k + j, in[j] + i, 4);
  }
  return true;
#else
  (void)ops, (void)d, (void)width, (void)out;
  return false;
#endif
}

absl::StatusOr<Value> Concatenate(const Instruction& inst, Operands ops) {
  if (ops.empty()) return Invalid("concatenate needs at least one operand");
  absl::Span<const int64_t> dim_attr = inst.GetInts(AttrKind::kDimensions);
  if (dim_attr.size() != 1) return Invalid("concatenate needs dimensions={d}");
  const int64_t d = dim_attr[0];
  absl::StatusOr<const Literal*> first = ArrayOperand(inst, ops, 0);
  if (!first.ok()) return first.status();
  const Shape& fshape = (*first)->shape();
  const int64_t rank = fshape.rank();
  if (d < 0 || d >= rank) {
    return Invalid(StrCat("concatenate dimension ", d, " is out of range for rank ", rank));
  }
  absl::InlinedVector<int64_t, 6> dims(fshape.dims().begin(), fshape.dims().end());
  dims[d] = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, k);
    if (!in.ok()) return in.status();
    const Shape& s = (*in)->shape();
    bool ok = s.rank() == rank && s.element_type() == fshape.element_type();
    for (int64_t i = 0; ok && i < rank; ++i) ok = i == d || s.dim(i) == fshape.dim(i);
    if (!ok) {
      return Invalid(StrCat("concatenate operand ", k, " ", s.ToString(false),
                            " does not match operand 0 ", fshape.ToString(false),
                            " outside dimension ", d));
    }
    dims[d] += s.dim(d);
  }
  if (auto st = CheckResultDims(inst, dims); !st.ok()) return st;
  absl::StatusOr<Value> out = NewResult(inst, fshape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.element_count() == 0) return out;
  const int width = ByteWidth(o.element_type());
  if (Interleave(ops, d, width, o)) return out;
  Strides dst = RowMajorStrides(dims);
  int64_t at = 0;
  for (const Value* v : ops) {
    const Literal& in = v->array();
    Strides src = RowMajorStrides(in.shape().dims());
    CopyAxes axes;
    for (int64_t i = 0; i < rank; ++i) axes.push_back({in.shape().dim(i), dst[i], src[i]});
    StridedCopy(width, o.data() + at * dst[d] * width, in.data(), std::move(axes));
    at += in.shape().dim(d);
  }
  return out;
}

// ---- pad ------------------------------------------------------------------

absl::StatusOr<Value> Pad(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 2); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  absl::StatusOr<const Literal*> pv = ArrayOperand(inst, ops, 1);
  if (!pv.ok()) return pv.status();
  const Shape& ishape = (*in)->shape();
  if ((*pv)->shape().rank() != 0 || (*pv)->element_type() != ishape.element_type()) {
    return Invalid(StrCat("pad value must be a scalar of ",
                          PrimitiveTypeName(ishape.element_type()), ", not ",
                          (*pv)->shape().ToString(false)));
  }
  const PaddingConfig* config = inst.padding();
  const int64_t rank = ishape.rank();
  if (config == nullptr || static_cast<int64_t>(config->size()) != rank) {
    return Invalid(
        StrCat("pad needs one low_high_interior per dimension of ", ishape.ToString(false)));
  }
  absl::InlinedVector<int64_t, 6> dims(rank);
  for (int64_t i = 0; i < rank; ++i) {
    const PaddingDim& p = (*config)[i];
    const int64_t n = ishape.dim(i);
    if (p.interior < 0) {
      return Invalid(
          StrCat("pad interior padding ", p.interior, " of dimension ", i, " is negative"));
    }
    // n + low + high + (n-1)*interior, in 128 bits against overflow.
    __int128 size = static_cast<__int128>(n) + p.low + p.high +
                    static_cast<__int128>(std::max<int64_t>(n - 1, 0)) * p.interior;
    if (size < 0 || size > INT64_MAX) {
      return Invalid(StrCat("pad of dimension ", i, " of size ", n, " by ", p.low, "_", p.high, "_",
                            p.interior, " gives a size out of range"));
    }
    dims[i] = static_cast<int64_t>(size);
  }
  if (auto st = CheckResultDims(inst, dims); !st.ok()) return st;
  absl::StatusOr<Value> out = NewResult(inst, ishape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.element_count() == 0) return out;
  const int width = ByteWidth(o.element_type());
  FillElements(width, o.data(), o.element_count(), (*pv)->data());
  // Operand element k of dimension i lands at low + k*(interior+1); copy
  // those that land inside the result.
  Strides src = RowMajorStrides(ishape.dims());
  Strides dst = RowMajorStrides(dims);
  CopyAxes axes;
  int64_t src_off = 0, dst_off = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const PaddingDim& p = (*config)[i];
    // In 128 bits: low and interior may be extreme when few elements stay.
    const __int128 step = static_cast<__int128>(p.interior) + 1;
    const __int128 low = p.low;
    const int64_t n = ishape.dim(i);
    // First k with low + k*step >= 0, last k with low + k*step <= dims[i]-1.
    const __int128 k0 = low >= 0 ? 0 : (-low + step - 1) / step;
    const __int128 last = static_cast<__int128>(dims[i]) - 1 - low;
    const __int128 k1 = last < 0 ? -1 : std::min<__int128>(n - 1, last / step);
    if (k0 > k1) return out;  // nothing of the operand survives
    const int64_t count = static_cast<int64_t>(k1 - k0 + 1);
    // Positions are inside the result, so these fit in 64 bits.
    const int64_t first = static_cast<int64_t>(low + k0 * step);
    axes.push_back({count, count > 1 ? dst[i] * static_cast<int64_t>(step) : 0, src[i]});
    src_off += static_cast<int64_t>(k0) * src[i];
    dst_off += first * dst[i];
  }
  StridedCopy(width, o.data() + dst_off * width, (*in)->data() + src_off * width, std::move(axes));
  return out;
}

// ---- reverse --------------------------------------------------------------

absl::StatusOr<Value> Reverse(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  const Shape& ishape = (*in)->shape();
  const int64_t rank = ishape.rank();
  std::vector<bool> rev(rank, false);
  for (int64_t d : inst.GetInts(AttrKind::kDimensions)) {
    if (d < 0 || d >= rank || rev[d]) {
      return Invalid(StrCat("reverse dimensions ", DimsText(inst.GetInts(AttrKind::kDimensions)),
                            " are not distinct dimensions of rank ", rank));
    }
    rev[d] = true;
  }
  if (auto st = CheckResultDims(inst, ishape.dims()); !st.ok()) return st;
  absl::StatusOr<Value> out = NewResult(inst, ishape.element_type());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.element_count() == 0) return out;
  const int width = ByteWidth(o.element_type());
  Strides s = RowMajorStrides(ishape.dims());
  CopyAxes axes;
  int64_t src_off = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (rev[i]) {
      axes.push_back({ishape.dim(i), s[i], -s[i]});
      src_off += (ishape.dim(i) - 1) * s[i];
    } else {
      axes.push_back({ishape.dim(i), s[i], s[i]});
    }
  }
  StridedCopy(width, o.data(), (*in)->data() + src_off * width, std::move(axes));
  return out;
}

// ---- iota -----------------------------------------------------------------

absl::StatusOr<Value> Iota(const Instruction& inst) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || !IsArrayType(shape.element_type())) {
    return Invalid(StrCat("iota must produce an array, not ", shape.ToString(false)));
  }
  const int64_t d = inst.GetInt(AttrKind::kIotaDimension);
  if (d < 0 || d >= shape.rank()) {
    return Invalid(StrCat("iota_dimension ", d, " is out of range for ", shape.ToString(false)));
  }
  // Every element is written below (no zero fill first).
  absl::StatusOr<Value> out = NewArrayUninitialized(shape);
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (o.element_count() == 0) return out;
  // The values of the iota dimension, converted once, then broadcast.
  const PrimitiveType type = shape.element_type();
  absl::StatusOr<Literal> line = IotaLine(type, shape.dim(d));
  if (!line.ok()) return line.status();
  // The result repeats with a period of dim(d) runs of `inner` equal
  // elements: one period by fills, then copies of what is written, doubling
  // (a strided broadcast copied runs of one element, or of the minor
  // dimension's 16, one call each: 4x slower on s32[4,32,32,16]).
  const int width = ByteWidth(type);
  int64_t inner = 1;
  for (int64_t j = d + 1; j < shape.rank(); ++j) inner *= shape.dim(j);
  uint8_t* dst = o.data();
  const int64_t period = shape.dim(d) * inner, total = o.element_count();
  if (inner == 1) {  // the period is the line (one call per element was 18 ns each)
    std::memcpy(dst, line->data(), static_cast<size_t>(period) * width);
  } else {
    for (int64_t v = 0; v < shape.dim(d); ++v) {
      FillElements(width, dst + v * inner * width, inner, line->data() + v * width);
    }
  }
  for (int64_t filled = period; filled < total;) {
    const int64_t n = std::min(filled, total - filled);
    std::memcpy(dst + filled * width, dst, static_cast<size_t>(n) * width);
    filled += n;
  }
  return out;
}

// ---- tuples, constants, dimension sizes ------------------------------------

absl::StatusOr<Value> GetTupleElement(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  const int64_t index = inst.GetInt(AttrKind::kIndex, -1);
  if (!ops[0]->is_tuple()) return Invalid("get-tuple-element of a value that is not a tuple");
  const int64_t size = static_cast<int64_t>(ops[0]->elements().size());
  if (index < 0 || index >= size) {
    return Invalid(StrCat("get-tuple-element index ", index, " is out of range for a tuple of ",
                          size, " elements"));
  }
  return ops[0]->element(index);
}

absl::StatusOr<Value> Constant(const Instruction& inst, KernelContext& evaluator) {
  if (inst.literal() != nullptr) return Value::FromLiteral(*inst.literal());
  if (!inst.literal_elided()) return Invalid("constant has no value");
  absl::StatusOr<Literal> lit =
      RandomLiteral(inst.shape(), evaluator.options().seed, StreamId(inst.name()));
  if (!lit.ok()) return lit.status();
  return Value::FromLiteral(*std::move(lit));
}

absl::StatusOr<int64_t> DimensionAttr(const Instruction& inst, int64_t rank) {
  absl::Span<const int64_t> dims = inst.GetInts(AttrKind::kDimensions);
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= rank) {
    return Invalid(StrCat(inst.OpcodeText(), " needs dimensions={d} with d in [0, ", rank, ")"));
  }
  return dims[0];
}

absl::StatusOr<Value> GetDimensionSize(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  absl::StatusOr<int64_t> d = DimensionAttr(inst, (*in)->shape().rank());
  if (!d.ok()) return d.status();
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.rank() != 0 || !IsInteger(shape.element_type())) {
    return Invalid(
        StrCat("get-dimension-size must produce an integer scalar, not ", shape.ToString(false)));
  }
  absl::StatusOr<Value> out = NewArray(shape);
  if (!out.ok()) return out;
  // Dynamic dimensions are held padded to their bound: the size is the bound.
  out->mutable_array().SetInt(0, (*in)->shape().dim(*d));
  return out;
}

absl::StatusOr<Value> SetDimensionSize(const Instruction& inst, Operands ops) {
  if (auto st = CheckOperandCount(inst, ops, 2); !st.ok()) return st;
  absl::StatusOr<const Literal*> in = ArrayOperand(inst, ops, 0);
  if (!in.ok()) return in.status();
  absl::StatusOr<int64_t> d = DimensionAttr(inst, (*in)->shape().rank());
  if (!d.ok()) return d.status();
  absl::StatusOr<const Literal*> size = ArrayOperand(inst, ops, 1);
  if (!size.ok()) return size.status();
  if ((*size)->shape().rank() != 0 || !IsInteger((*size)->element_type())) {
    return Invalid(StrCat("set-dimension-size size must be an integer scalar, not ",
                          (*size)->shape().ToString(false)));
  }
  // The padded-static representation: the array is unchanged.
  return *ops[0];
}

}  // namespace

absl::StatusOr<Value> EvalDataMovement(const Instruction& inst, Operands ops,
                                       KernelContext& evaluator) {
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
      return Broadcast(inst, ops);
    case Opcode::kReshape:
      return Reshape(inst, ops);
    case Opcode::kTranspose:
      return Transpose(inst, ops);
    case Opcode::kSlice:
      return Slice(inst, ops);
    case Opcode::kDynamicSlice:
      return DynamicSlice(inst, ops);
    case Opcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(inst, ops);
    case Opcode::kConcatenate:
      return Concatenate(inst, ops);
    case Opcode::kPad:
      return Pad(inst, ops);
    case Opcode::kReverse:
      return Reverse(inst, ops);
    case Opcode::kIota:
      return Iota(inst);
    case Opcode::kCopy:
      // Values are immutable unless unique, so a copy shares the buffers
      // (tuples deep-share); storage is row-major whatever the layouts.
      if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
      return *ops[0];
    case Opcode::kBitcast:
      if (auto st = CheckOperandCount(inst, ops, 1); !st.ok()) return st;
      if (ops[0]->is_array() && data_internal::BitcastKeepsBytes(inst, ops[0]->array())) {
        if (std::optional<Value> taken = ReshapedWithoutCopy(inst, ops)) return *std::move(taken);
      }
      return data_internal::EvalBitcast(inst, *ops[0]);
    case Opcode::kTuple: {
      std::vector<Value> elements;
      elements.reserve(ops.size());
      for (const Value* v : ops) elements.push_back(*v);
      return Value::Tuple(std::move(elements));
    }
    case Opcode::kGetTupleElement:
      return GetTupleElement(inst, ops);
    case Opcode::kConstant:
      return Constant(inst, evaluator);
    case Opcode::kGetDimensionSize:
      return GetDimensionSize(inst, ops);
    case Opcode::kSetDimensionSize:
      return SetDimensionSize(inst, ops);
    case Opcode::kDynamicReshape:
      return EvalDynamicReshape(inst, ops);
    case Opcode::kCopyStart:
      return EvalCopyStart(inst, ops);
    case Opcode::kCopyDone:
      return EvalCopyDone(inst, ops);
    default:
      return absl::InternalError(
          StrCat("'", inst.OpcodeText(), "' is not a data-movement instruction"));
  }
}

}  // namespace hlo
