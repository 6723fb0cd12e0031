#include "eval/interp/scalar_int.h"

#include <cstring>
#include <string_view>
#include <type_traits>

#include "eval/runtime/new_array.h"
#include "ir/compare_order.h"

namespace hlo {
namespace {

using PT = PrimitiveType;
using Kind = ScalarIntOp::Kind;

// pred and the full-width integer types (sub-byte ones keep their kernel).
bool ScalarIntType(PT t) {
  switch (t) {
    case PT::kPred:
    case PT::kS8:
    case PT::kS16:
    case PT::kS32:
    case PT::kS64:
    case PT::kU8:
    case PT::kU16:
    case PT::kU32:
    case PT::kU64:
      return true;
    default:
      return false;
  }
}

// A rank-0 array of an integer or pred type. (Arrays of one element, s32[1],
// measured no faster this way: the bitcasts around them share buffers.)
bool IsScalarInt(const Shape& s) {
  return s.IsArray() && s.rank() == 0 && ScalarIntType(s.element_type());
}

bool IsScalarOf(const Shape& s, PT t) { return IsScalarInt(s) && s.element_type() == t; }

std::optional<Kind> BinaryKind(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
      return Kind::kAdd;
    case Opcode::kSubtract:
      return Kind::kSubtract;
    case Opcode::kMultiply:
      return Kind::kMultiply;
    case Opcode::kDivide:
      return Kind::kDivide;
    case Opcode::kRemainder:
      return Kind::kRemainder;
    case Opcode::kAnd:
      return Kind::kAnd;
    case Opcode::kOr:
      return Kind::kOr;
    case Opcode::kXor:
      return Kind::kXor;
    case Opcode::kMaximum:
      return Kind::kMaximum;
    case Opcode::kMinimum:
      return Kind::kMinimum;
    case Opcode::kShiftLeft:
      return Kind::kShiftLeft;
    case Opcode::kShiftRightLogical:
      return Kind::kShiftRightLogical;
    case Opcode::kShiftRightArithmetic:
      return Kind::kShiftRightArithmetic;
    default:
      return std::nullopt;
  }
}

std::optional<Kind> CompareKind(std::string_view direction) {
  if (direction == "EQ") return Kind::kEq;
  if (direction == "NE") return Kind::kNe;
  if (direction == "LT") return Kind::kLt;
  if (direction == "LE") return Kind::kLe;
  if (direction == "GT") return Kind::kGt;
  if (direction == "GE") return Kind::kGe;
  return std::nullopt;
}

// A compare's order, as its kernel reads the type attribute; nullopt where
// the kernel would refuse it.
std::optional<bool> SignedOrder(const Instruction& inst, PT t) {
  std::string_view type = inst.GetString(AttrKind::kType);
  std::string_view order = inst.GetString(AttrKind::kOrder);
  if (!order.empty() && order != DefaultCompareOrder(t)) return std::nullopt;
  if (t == PT::kPred) {
    if (!type.empty() && type != "UNSIGNED" && type != "SIGNED") return std::nullopt;
    return false;  // false < true, whatever the attribute says
  }
  if (type.empty()) return IsSignedInt(t);
  if (type == "SIGNED") return true;
  if (type == "UNSIGNED") return false;
  return std::nullopt;
}

int Bits(PT t) { return t == PT::kPred ? 1 : 8 * ByteWidth(t); }

uint64_t Mask(int bits) { return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

int64_t SignExtend(uint64_t x, int bits) {
  const int unused = 64 - bits;
  return static_cast<int64_t>(x << unused) >> unused;
}

// The element at p, sign-extended when S is signed, zero-extended when not.
template <typename S>
uint64_t Widen(const uint8_t* p) {
  S s;
  std::memcpy(&s, p, sizeof(S));
  return static_cast<uint64_t>(
      static_cast<std::conditional_t<std::is_signed_v<S>, int64_t, uint64_t>>(s));
}

// A scalar of type t as 64 bits: sign-extended for signed types, zero-
// extended for the others (pred: 0 or 1). False when the value is not a
// rank-0 array of t. (Inline per type: Literal::GetBits and SetBits, out of
// line, made a loop of scalar steps 15% slower.)
bool Load(const Value* v, PT t, uint64_t& x) {
  if (v == nullptr || !v->is_array()) return false;
  const Literal& l = v->array();
  if (l.element_type() != t || l.element_count() != 1 || l.shape().rank() != 0) return false;
  const uint8_t* p = l.data();
  switch (t) {
    case PT::kPred:
      x = *p != 0;
      return true;
    case PT::kS8:
      x = Widen<int8_t>(p);
      return true;
    case PT::kS16:
      x = Widen<int16_t>(p);
      return true;
    case PT::kS32:
      x = Widen<int32_t>(p);
      return true;
    case PT::kS64:
      x = Widen<int64_t>(p);
      return true;
    case PT::kU8:
      x = Widen<uint8_t>(p);
      return true;
    case PT::kU16:
      x = Widen<uint16_t>(p);
      return true;
    case PT::kU32:
      x = Widen<uint32_t>(p);
      return true;
    case PT::kU64:
      x = Widen<uint64_t>(p);
      return true;
    default:
      return false;
  }
}

// Stores the low bytes of x (pred: whether x is not zero).
void Store(uint64_t x, PT t, uint8_t* p) {
  if (t == PT::kPred) {
    *p = x != 0;
    return;
  }
  std::memcpy(p, &x, ByteWidth(t));  // little-endian: the low bytes
}

template <typename X>
bool Ordered(Kind kind, X x, X y) {
  switch (kind) {
    case Kind::kEq:
      return x == y;
    case Kind::kNe:
      return x != y;
    case Kind::kLt:
      return x < y;
    case Kind::kLe:
      return x <= y;
    case Kind::kGt:
      return x > y;
    default:
      return x >= y;
  }
}

bool Compare(Kind kind, bool signed_order, uint64_t a, uint64_t b, int bits) {
  if (signed_order) return Ordered(kind, SignExtend(a, bits), SignExtend(b, bits));
  return Ordered(kind, a & Mask(bits), b & Mask(bits));
}

// op(a, b) for the binary and unary kinds, in the low `bits` of the result.
uint64_t Arithmetic(Kind kind, PT t, uint64_t a, uint64_t b) {
  const int bits = Bits(t);
  const bool is_signed = IsSignedInt(t);
  switch (kind) {
    case Kind::kAdd:
      return a + b;
    case Kind::kSubtract:
      return a - b;
    case Kind::kMultiply:
      return a * b;
    case Kind::kDivide:
    case Kind::kRemainder: {
      // XLA's rules: x / 0 is all ones, x % 0 is x; INT_MIN / -1 is
      // INT_MIN and INT_MIN % -1 is 0 (a and b are sign-extended).
      const bool divide = kind == Kind::kDivide;
      if ((b & Mask(bits)) == 0) return divide ? ~uint64_t{0} : a;
      if (is_signed) {
        const int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
        if (y == -1 && x == SignExtend(uint64_t{1} << (bits - 1), bits)) return divide ? a : 0;
        return static_cast<uint64_t>(divide ? x / y : x % y);
      }
      return divide ? a / b : a % b;
    }
    case Kind::kAnd:
      return a & b;
    case Kind::kOr:
      return a | b;
    case Kind::kXor:
      return a ^ b;
    case Kind::kMaximum:
      return is_signed ? (static_cast<int64_t>(a) > static_cast<int64_t>(b) ? a : b)
                       : (a > b ? a : b);
    case Kind::kMinimum:
      return is_signed ? (static_cast<int64_t>(a) < static_cast<int64_t>(b) ? a : b)
                       : (a < b ? a : b);
    case Kind::kShiftLeft: {
      const uint64_t amount = b & Mask(bits);
      return amount >= static_cast<uint64_t>(bits) ? 0 : a << amount;
    }
    case Kind::kShiftRightLogical: {
      const uint64_t amount = b & Mask(bits);
      return amount >= static_cast<uint64_t>(bits) ? 0 : (a & Mask(bits)) >> amount;
    }
    case Kind::kShiftRightArithmetic: {
      // The top bit of the type's width is the sign, unsigned types too.
      const uint64_t amount = b & Mask(bits);
      const int64_t v = SignExtend(a, bits);
      if (amount >= static_cast<uint64_t>(bits)) return v < 0 ? ~uint64_t{0} : 0;
      return static_cast<uint64_t>(v >> amount);
    }
    case Kind::kNot:
      return t == PT::kPred ? a ^ 1 : ~a;
    case Kind::kNegate:
      return uint64_t{0} - a;
    default:
      return 0;
  }
}

}  // namespace

bool LoadScalarBits(const Value* v, PT t, uint64_t& x) { return Load(v, t, x); }

std::optional<ScalarIntOp> ScalarIntOpOf(const Instruction& inst) {
  const Shape& shape = inst.shape();
  const int64_t n = inst.operand_count();
  if (!IsScalarInt(shape) || n < 1 || n > 3) return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    if (!IsScalarInt(inst.operand(i)->shape())) return std::nullopt;
  }
  const PT out = shape.element_type();
  auto operand_is = [&](int64_t i, PT t) { return IsScalarOf(inst.operand(i)->shape(), t); };
  ScalarIntOp op;
  op.out = out;
  op.in = out;
  const Opcode opcode = inst.opcode();
  if (std::optional<Kind> k = BinaryKind(opcode)) {
    // pred takes only the logical ones.
    const bool logical = *k == Kind::kAnd || *k == Kind::kOr || *k == Kind::kXor;
    if (n != 2 || (out == PT::kPred && !logical) || !operand_is(0, out) || !operand_is(1, out)) {
      return std::nullopt;
    }
    op.kind = *k;
    return op;
  }
  switch (opcode) {
    case Opcode::kNot:
    case Opcode::kNegate:
      if (n != 1 || !operand_is(0, out)) return std::nullopt;
      if (opcode == Opcode::kNegate && out == PT::kPred) return std::nullopt;
      op.kind = opcode == Opcode::kNot ? Kind::kNot : Kind::kNegate;
      return op;
    case Opcode::kCompare: {
      const PT in = inst.operand(0)->shape().element_type();
      if (n != 2 || out != PT::kPred || !operand_is(1, in)) return std::nullopt;
      std::optional<Kind> k = CompareKind(inst.GetString(AttrKind::kDirection));
      std::optional<bool> order = SignedOrder(inst, in);
      if (!k || !order) return std::nullopt;
      op.kind = *k;
      op.in = in;
      op.signed_order = *order;
      return op;
    }
    case Opcode::kSelect:
      if (n != 3 || !operand_is(0, PT::kPred) || !operand_is(1, out) || !operand_is(2, out)) {
        return std::nullopt;
      }
      op.kind = Kind::kSelect;
      return op;
    case Opcode::kConvert:
      if (n != 1) return std::nullopt;
      op.kind = Kind::kConvert;
      op.in = inst.operand(0)->shape().element_type();
      return op;
    default:
      return std::nullopt;
  }
}

std::optional<Value> RunScalarInt(const ScalarIntOp& op, const Shape& shape,
                                  absl::Span<const Value* const> ops) {
  uint64_t a = 0, b = 0, result = 0;
  switch (op.kind) {
    case Kind::kSelect: {
      uint64_t pred = 0;
      if (ops.size() != 3 || !Load(ops[0], PT::kPred, pred) || !Load(ops[1], op.in, a) ||
          !Load(ops[2], op.in, b)) {
        return std::nullopt;
      }
      result = pred != 0 ? a : b;
      break;
    }
    case Kind::kNot:
    case Kind::kNegate:
    case Kind::kConvert:
      if (ops.size() != 1 || !Load(ops[0], op.in, a)) return std::nullopt;
      result = op.kind == Kind::kConvert ? a : Arithmetic(op.kind, op.in, a, 0);
      break;
    case Kind::kEq:
    case Kind::kNe:
    case Kind::kLt:
    case Kind::kLe:
    case Kind::kGt:
    case Kind::kGe:
      if (ops.size() != 2 || !Load(ops[0], op.in, a) || !Load(ops[1], op.in, b)) {
        return std::nullopt;
      }
      result = Compare(op.kind, op.signed_order, a, b, Bits(op.in));
      break;
    default:
      if (ops.size() != 2 || !Load(ops[0], op.in, a) || !Load(ops[1], op.in, b)) {
        return std::nullopt;
      }
      result = Arithmetic(op.kind, op.in, a, b);
      break;
  }
  absl::StatusOr<Value> out = NewArrayUninitialized(shape);
  if (!out.ok()) return std::nullopt;
  Store(result, op.out, out->mutable_array().data());
  return *std::move(out);
}

}  // namespace hlo
