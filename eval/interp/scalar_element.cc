#include "eval/interp/scalar_element.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "eval/interp/scalar_int.h"
#include "eval/runtime/new_array.h"
#include "ir/attribute.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

bool StaticArray(const Shape& s) { return s.IsArray() && s.IsStatic(); }

// The integer types of 8-64 bits (the start indices read here).
bool IndexType(PT t) { return (IsSignedInt(t) || IsUnsignedInt(t)) && BitWidth(t) >= 8; }

// A start index as the kernel reads it (u64 past INT64_MAX as INT64_MAX);
// false when the value is not a scalar of type t.
bool LoadIndex(const Value* v, PT t, int64_t& x) {
  uint64_t bits = 0;
  if (!LoadScalarBits(v, t, bits)) return false;
  x = t == PT::kU64 && bits > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                               : static_cast<int64_t>(bits);
  return true;
}

// The slice's one element, where its spec is valid for `dims`.
std::optional<int64_t> SliceOffset(const Instruction& inst, absl::Span<const int64_t> dims) {
  const SliceSpec* spec = inst.slice();
  if (spec == nullptr || spec->size() != dims.size()) return std::nullopt;
  int64_t offset = 0, stride = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    const SliceDim& s = (*spec)[k];
    // One element along every dimension: start < limit <= start + stride.
    if (s.start < 0 || s.start >= s.limit || s.limit > dims[k] || s.stride < 1 ||
        s.limit - s.start > s.stride) {
      return std::nullopt;
    }
    offset += s.start * stride;
    stride *= dims[k];
  }
  return offset;
}

}  // namespace

std::optional<ScalarElementOp> ScalarElementOf(const Instruction& inst) {
  const Opcode opcode = inst.opcode();
  if (opcode != Opcode::kSlice && opcode != Opcode::kDynamicSlice && opcode != Opcode::kReshape &&
      opcode != Opcode::kBitcast && opcode != Opcode::kCopy) {
    return std::nullopt;
  }
  if (inst.operand_count() < 1) return std::nullopt;
  const Shape& result = inst.shape();
  const Shape& operand = inst.operand(0)->shape();
  if (!StaticArray(result) || !StaticArray(operand) || result.ElementCount() != 1 ||
      result.element_type() != operand.element_type()) {
    return std::nullopt;
  }
  ScalarElementOp op;
  op.type = operand.element_type();
  op.width = ByteWidth(op.type);
  if (op.width != 1 && op.width != 2 && op.width != 4 && op.width != 8 && op.width != 16) {
    return std::nullopt;
  }
  op.dims.assign(operand.dims().begin(), operand.dims().end());
  const int64_t rank = operand.rank();
  // A slice keeps the rank, a copy the dimensions (the kernels check the
  // result against them).
  if ((opcode == Opcode::kSlice || opcode == Opcode::kDynamicSlice) && result.rank() != rank) {
    return std::nullopt;
  }
  if (opcode == Opcode::kCopy && !(result.dims() == operand.dims())) return std::nullopt;
  switch (opcode) {
    case Opcode::kSlice: {
      if (inst.operand_count() != 1) return std::nullopt;
      std::optional<int64_t> offset = SliceOffset(inst, op.dims);
      if (!offset) return std::nullopt;
      op.offset = *offset;
      return op;
    }
    case Opcode::kDynamicSlice: {
      if (inst.operand_count() != 1 + rank || operand.ElementCount() < 1) return std::nullopt;
      absl::Span<const int64_t> sizes = inst.GetInts(AttrKind::kDynamicSliceSizes);
      if (static_cast<int64_t>(sizes.size()) != rank ||
          std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s != 1; })) {
        return std::nullopt;
      }
      op.dynamic = true;
      op.strides.assign(rank, 1);
      for (int64_t k = rank - 1; k > 0; --k) op.strides[k - 1] = op.strides[k] * op.dims[k];
      for (int64_t k = 0; k < rank; ++k) {
        const Shape& index = inst.operand(1 + k)->shape();
        if (!index.IsArray() || index.rank() != 0 || !IndexType(index.element_type())) {
          return std::nullopt;
        }
        op.index.push_back(index.element_type());
      }
      return op;
    }
    default:  // reshape, bitcast, copy
      if (inst.operand_count() != 1 || operand.ElementCount() != 1) return std::nullopt;
      return op;
  }
}

std::optional<Value> RunScalarElement(const ScalarElementOp& op, const Shape& shape,
                                      absl::Span<const Value* const> ops) {
  if (ops.empty() || ops[0] == nullptr || !ops[0]->is_array()) return std::nullopt;
  const Literal& in = ops[0]->array();
  absl::Span<const int64_t> dims = in.shape().dims();
  if (in.element_type() != op.type ||
      !std::equal(dims.begin(), dims.end(), op.dims.begin(), op.dims.end())) {
    return std::nullopt;
  }
  int64_t offset = op.offset;
  if (op.dynamic) {
    if (ops.size() != 1 + op.index.size()) return std::nullopt;
    for (size_t k = 0; k < op.index.size(); ++k) {
      int64_t start = 0;
      if (!LoadIndex(ops[1 + k], op.index[k], start)) return std::nullopt;
      offset += std::clamp<int64_t>(start, 0, op.dims[k] - 1) * op.strides[k];
    }
  }
  if (static_cast<size_t>((offset + 1) * op.width) > in.size_bytes()) return std::nullopt;
  absl::StatusOr<Value> out = NewArrayUninitialized(shape);
  if (!out.ok()) return std::nullopt;
  std::memcpy(out->mutable_array().data(), in.data() + offset * op.width, op.width);
  return *std::move(out);
}

}  // namespace hlo
