// bitcast: reinterprets the operand's memory as the result, as XLA does.
//
// The operand's elements are taken in its physical order (its layout's
// minor_to_major, {rank-1..0} when the shape has none) and laid into the
// result in the result layout's physical order. When the element types (or
// the layouts' element_size_in_bits, `E(n)`) differ, the physical elements
// are one byte stream: each element takes E(n) bits if the layout says so,
// else its ByteWidth bytes; sub-byte elements are packed from the low bits of
// each byte up. Tiles in layouts are ignored (physical order is
// minor_to_major only).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/strided_axes.h"
#include "ir/strings.h"

namespace hlo {
namespace data_internal {

using CopyAxis = StridedAxis;
using CopyAxes = StridedAxes;

namespace {

using Strides = absl::InlinedVector<int64_t, 6>;

// Where each logical dimension steps in memory.
struct Physical {
  Strides strides;           // physical stride (elements) of each logical dim
  bool row_major = true;     // the same order as row-major storage
  int64_t element_bits = 0;  // bits one element takes in memory
};

// Whether `layout_of`'s layout (none: row-major) stores an array of `dims`
// in row-major order with whole-width elements: its minor_to_major is a
// permutation whose dimensions longer than 1 run from the last to the
// first. Then a bitcast between one element type is the bytes as they are.
bool StoredRowMajor(const Shape& layout_of, absl::Span<const int64_t> dims) {
  if (!layout_of.IsArray() || !layout_of.has_layout()) return true;
  const Layout& layout = layout_of.layout();
  if (layout.element_size_in_bits != 0) return false;
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (layout.minor_to_major.empty()) return true;
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank || rank > 64) return false;
  uint64_t seen = 0;
  int64_t previous = rank;  // the last dimension longer than 1, minor side
  for (int64_t d : layout.minor_to_major) {
    if (d < 0 || d >= rank || (seen >> d & 1) != 0) return false;
    seen |= uint64_t{1} << d;
    if (dims[d] == 1) continue;
    if (d >= previous) return false;
    previous = d;
  }
  return true;
}

// `layout_of` carries the layout (an instruction's shape); `dims` are the
// array's dimensions.
absl::StatusOr<Physical> PhysicalOf(const Shape& layout_of, absl::Span<const int64_t> dims,
                                    PrimitiveType type) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  Physical p;
  p.element_bits = int64_t{8} * ByteWidth(type);
  absl::InlinedVector<int64_t, 6> m2m;
  if (layout_of.IsArray() && layout_of.has_layout()) {
    const Layout& layout = layout_of.layout();
    if (layout.element_size_in_bits > 0) p.element_bits = layout.element_size_in_bits;
    m2m.assign(layout.minor_to_major.begin(), layout.minor_to_major.end());
  }
  if (m2m.empty() && rank > 0) {
    for (int64_t i = rank - 1; i >= 0; --i) m2m.push_back(i);
  }
  std::vector<bool> seen(rank, false);
  bool ok = static_cast<int64_t>(m2m.size()) == rank;
  for (int64_t d : m2m) {
    ok = ok && d >= 0 && d < rank && !seen[d];
    if (ok) seen[d] = true;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        StrCat("layout of ", layout_of.ToString(), " is not a permutation of its dimensions"));
  }
  p.strides.assign(rank, 0);
  int64_t stride = 1;
  for (int64_t d : m2m) {
    p.strides[d] = stride;
    stride *= dims[d];
  }
  // Row-major when the non-trivial dimensions step like row-major ones.
  int64_t rm = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (dims[i] != 1 && p.strides[i] != rm) p.row_major = false;
    rm *= dims[i];
  }
  return p;
}

// The literal representation of one raw element of `type` from memory:
// pred is 0/1, sub-byte integers are sign- or zero-extended from their bits,
// sub-byte floats keep their bits.
void NormalizeElements(PrimitiveType type, uint8_t* data, int64_t count) {
  if (type == PrimitiveType::kPred) {
    for (int64_t i = 0; i < count; ++i) data[i] = data[i] != 0;
    return;
  }
  const int bits = BitWidth(type);
  if (bits >= 8) return;
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  const bool is_signed = IsSignedInt(type);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t v = data[i] & mask;
    if (is_signed && ((v >> (bits - 1)) & 1)) v |= static_cast<uint8_t>(~mask);
    data[i] = v;
  }
}

uint64_t ReadBits(const uint8_t* stream, int64_t bit, int64_t n) {
  uint64_t v = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t b = bit + k;
    v |= static_cast<uint64_t>((stream[b >> 3] >> (b & 7)) & 1) << k;
  }
  return v;
}

void WriteBits(uint8_t* stream, int64_t bit, int64_t n, uint64_t v) {
  for (int64_t k = 0; k < n; ++k) {
    const int64_t b = bit + k;
    if ((v >> k) & 1) stream[b >> 3] |= static_cast<uint8_t>(1u << (b & 7));
  }
}

// An element's first `bits` bits (its `width` bytes, zeros past them) into
// the bit stream at bit `at`, 64 at a time (c128 holds 128).
void ElementToStream(const uint8_t* element, int64_t width, int64_t bits, uint8_t* stream,
                     int64_t at) {
  for (int64_t c = 0; c < bits; c += 64) {
    uint64_t raw = 0;
    const int64_t byte = c / 8;
    if (byte < width) std::memcpy(&raw, element + byte, std::min<int64_t>(width - byte, 8));
    WriteBits(stream, at + c, std::min<int64_t>(64, bits - c), raw);
  }
}

// The stream's `bits` bits at bit `at` as an element of `width` bytes.
void StreamToElement(const uint8_t* stream, int64_t at, int64_t bits, uint8_t* element,
                     int64_t width) {
  for (int64_t c = 0; c < bits && c / 8 < width; c += 64) {
    const uint64_t raw = ReadBits(stream, at + c, std::min<int64_t>(64, bits - c));
    std::memcpy(element + c / 8, &raw, std::min<int64_t>(width - c / 8, 8));
  }
}

// The operand instruction's shape carries the operand's layout.
const Shape& BitcastOperandLayout(const Instruction& inst, const Literal& in) {
  return inst.operand_count() > 0 && inst.operand(0) != nullptr ? inst.operand(0)->shape()
                                                                : in.shape();
}

}  // namespace

}  // namespace data_internal

bool BitcastIsReshape(const Instruction& bitcast) {
  if (bitcast.opcode() != Opcode::kBitcast || bitcast.operand_count() != 1) return false;
  const Shape& in = bitcast.operand(0)->shape();
  const Shape& out = bitcast.shape();
  return in.IsArray() && out.IsArray() && in.element_type() == out.element_type() &&
         in.ElementCount() >= 0 && in.ElementCount() == out.ElementCount() &&
         data_internal::StoredRowMajor(in, in.dims()) &&
         data_internal::StoredRowMajor(out, out.dims());
}

namespace data_internal {

bool BitcastKeepsBytes(const Instruction& inst, const Literal& in) {
  const Shape& oshape = inst.shape();
  return oshape.IsArray() && in.element_type() == oshape.element_type() &&
         in.element_count() == oshape.ElementCount() &&
         StoredRowMajor(BitcastOperandLayout(inst, in), in.shape().dims()) &&
         StoredRowMajor(oshape, oshape.dims());
}

namespace {

// Row-major strides of `dims`.
Strides RowMajorStrides(absl::Span<const int64_t> dims) {
  const int rank = static_cast<int>(dims.size());
  Strides rm(rank, 1);
  for (int i = rank - 2; i >= 0; --i) rm[i] = rm[i + 1] * dims[i + 1];
  return rm;
}

// The operand's elements in physical order: its own bytes where it is
// row-major, else a copy into `buf`.
const uint8_t* PhysicalOrder(const Literal& in, const Physical& pin, std::vector<uint8_t>& buf) {
  if (pin.row_major) return in.data();
  buf.resize(in.size_bytes());
  const Strides rm = RowMajorStrides(in.shape().dims());
  CopyAxes axes;
  for (int64_t i = 0; i < in.shape().rank(); ++i) {
    axes.push_back({in.shape().dim(i), pin.strides[i], rm[i]});
  }
  StridedCopy(ByteWidth(in.element_type()), buf.data(), in.data(), std::move(axes));
  return buf.data();
}

// The physical elements of the operand (in_count of in_type, pin's bits
// each) as out_count of out_type (pout's bits each) in `out`: the same
// bytes, or the bit stream repacked where either packs sub-byte elements.
void Repack(const uint8_t* phys_in, PrimitiveType in_type, const Physical& pin, int64_t in_count,
            PrimitiveType out_type, const Physical& pout, int64_t out_count,
            std::vector<uint8_t>& out) {
  const int in_width = ByteWidth(in_type), out_width = ByteWidth(out_type);
  if (pin.element_bits == 8 * in_width && pout.element_bits == 8 * out_width) {
    std::memcpy(out.data(), phys_in, out.size());
  } else {
    std::vector<uint8_t> stream(static_cast<size_t>((in_count * pin.element_bits + 7) / 8), 0);
    for (int64_t e = 0; e < in_count; ++e) {
      ElementToStream(phys_in + e * in_width, in_width, pin.element_bits, stream.data(),
                      e * pin.element_bits);
    }
    for (int64_t e = 0; e < out_count; ++e) {
      StreamToElement(stream.data(), e * pout.element_bits, pout.element_bits,
                      out.data() + e * out_width, out_width);
    }
  }
  NormalizeElements(out_type, out.data(), out_count);
}

// Physical elements into the result's logical (row-major) order.
void LogicalOrder(const uint8_t* phys_out, const Physical& pout, Literal& o) {
  if (pout.row_major) {
    std::memcpy(o.data(), phys_out, o.size_bytes());
    return;
  }
  const Shape& oshape = o.shape();
  const Strides rm = RowMajorStrides(oshape.dims());
  CopyAxes axes;
  for (int64_t i = 0; i < oshape.rank(); ++i) {
    axes.push_back({oshape.dim(i), rm[i], pout.strides[i]});
  }
  StridedCopy(ByteWidth(oshape.element_type()), o.data(), phys_out, std::move(axes));
}

}  // namespace

absl::StatusOr<Value> EvalBitcast(const Instruction& inst, const Value& operand) {
  if (!operand.is_array()) {
    return absl::InvalidArgumentError("bitcast operand must be an array");
  }
  const Literal& in = operand.array();
  const Shape& oshape = inst.shape();
  if (!oshape.IsArray() || !IsArrayType(oshape.element_type())) {
    return absl::InvalidArgumentError(
        StrCat("bitcast must produce an array, not ", oshape.ToString(false)));
  }
  const PrimitiveType in_type = in.element_type();
  const PrimitiveType out_type = oshape.element_type();
  const int64_t in_count = in.element_count();
  const int64_t out_count = oshape.ElementCount();
  if (out_count < 0) {
    return absl::InvalidArgumentError(
        StrCat("bitcast result ", oshape.ToString(false), " has no static size"));
  }
  const Shape& in_layout_of = BitcastOperandLayout(inst, in);
  if (out_count > 0 && BitcastKeepsBytes(inst, in)) {
    // Both row-major: the same bytes in the same order (XLA's reshape-like
    // bitcasts, most of them).
    absl::StatusOr<Value> out = NewArrayUninitialized(oshape);
    if (!out.ok()) return out;
    std::memcpy(out->mutable_array().data(), in.data(), in.size_bytes());
    return out;
  }
  absl::StatusOr<Physical> pin = PhysicalOf(in_layout_of, in.shape().dims(), in_type);
  if (!pin.ok()) return pin.status();
  absl::StatusOr<Physical> pout = PhysicalOf(oshape, oshape.dims(), out_type);
  if (!pout.ok()) return pout.status();
  const int64_t in_bytes = (in_count * pin->element_bits + 7) / 8;
  const int64_t out_bytes = (out_count * pout->element_bits + 7) / 8;
  if (in_bytes != out_bytes) {
    return absl::InvalidArgumentError(StrCat("bitcast from ", in_layout_of.ToString(), " (",
                                             in_bytes, " bytes) to ", oshape.ToString(), " (",
                                             out_bytes, " bytes) changes the size"));
  }
  absl::StatusOr<Value> out = NewArray(oshape);
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  if (out_count == 0 || in_count == 0) return out;
  std::vector<uint8_t> phys_in_buf, phys_out_buf;
  const uint8_t* phys = PhysicalOrder(in, *pin, phys_in_buf);
  if (in_type != out_type || pin->element_bits != pout->element_bits) {
    phys_out_buf.assign(o.size_bytes(), 0);
    Repack(phys, in_type, *pin, in_count, out_type, *pout, out_count, phys_out_buf);
    phys = phys_out_buf.data();
  }
  LogicalOrder(phys, *pout, o);
  return out;
}

}  // namespace data_internal
}  // namespace hlo
