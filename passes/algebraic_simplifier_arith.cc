// algsimp, arithmetic family: identities of binary ops and power, double
// negation and double not, idempotent abs, compare and select with known
// results (and select of not, nested selects on one predicate), constants
// that are a broadcast scalar or an iota, convert
// round trips that lose nothing, and iota that can only produce zeros.
//
// Float identities are limited to the exact ones: x + (-0.0) and x - (+0.0)
// (x + (+0.0) turns -0.0 into +0.0), x * 1, x / 1, max(x, -inf),
// min(x, +inf); x * 0 and x - x only for integers (NaN, inf, -0.0).
#include <cmath>
#include <string_view>

#include "ir/strings.h"
#include "passes/algebraic_simplifier_internal.h"

namespace hlo::algsimp {
namespace {

using SplatTest = bool (*)(const Splat&);

// Is operand `i` of `inst` a splat that passes `test`?
bool OperandIs(Context& ctx, const Instruction* inst, int64_t i, SplatTest test) {
  std::optional<Splat> s = ctx.SplatOf(inst->operand(i));
  return s.has_value() && test(*s);
}

// `x op c` or `c op x` where c passes `test` (both orders when `commutes`):
// returns x.
Instruction* IdentityOperand(Context& ctx, const Instruction* inst, SplatTest test, bool commutes) {
  if (OperandIs(ctx, inst, 1, test)) return inst->operand(0);
  if (commutes && OperandIs(ctx, inst, 0, test)) return inst->operand(1);
  return nullptr;
}

// `x op c` or `c op x` where c passes `test`: the result is c (an absorbing
// element) — the operand itself, or a fresh splat when its layout differs.
Instruction* AbsorbingOperand(Context& ctx, Instruction* inst, SplatTest test) {
  for (int64_t i = 0; i < 2; ++i) {
    std::optional<Splat> s = ctx.SplatOf(inst->operand(i));
    if (!s || !test(*s)) continue;
    if (CanReplace(*inst, *inst->operand(i))) return inst->operand(i);
    return ctx.SplatLike(*s, inst->shape());
  }
  return nullptr;
}

bool IsIntOrPred(PrimitiveType t) { return IsInteger(t) || IsPred(t); }
bool IsRealFloatType(PrimitiveType t) { return IsFloat(t) && !IsComplex(t); }

bool IsNegInf(const Splat& s) { return IsFloatInf(s, true); }
bool IsPosInf(const Splat& s) { return IsFloatInf(s, false); }

Instruction* SimplifyAdd(Context& ctx, Instruction* inst, PrimitiveType t) {
  // x + 0 (and pred's or with false); floats only with -0.0.
  if (IsIntOrPred(t)) return IdentityOperand(ctx, inst, IsIntZero, true);
  if (IsRealFloatType(t)) return IdentityOperand(ctx, inst, IsFloatNegZero, true);
  return nullptr;
}

Instruction* SimplifySubtract(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (IsIntOrPred(t)) {
    if (Instruction* x = IdentityOperand(ctx, inst, IsIntZero, false)) return x;
    // x - x wraps to 0 for every integer (pred: x xor x).
    if (inst->operand(0) == inst->operand(1)) return ctx.ZerosLike(inst->shape());
    return nullptr;
  }
  if (IsRealFloatType(t)) return IdentityOperand(ctx, inst, IsFloatPosZero, false);
  return nullptr;
}

Instruction* SimplifyMultiply(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (IsInteger(t)) {
    if (Instruction* x = IdentityOperand(ctx, inst, IsIntOne, true)) return x;
    return AbsorbingOperand(ctx, inst, IsIntZero);
  }
  if (IsPred(t)) {  // multiply of pred is and
    if (Instruction* x = IdentityOperand(ctx, inst, IsAllOnes, true)) return x;
    return AbsorbingOperand(ctx, inst, IsIntZero);
  }
  if (IsRealFloatType(t)) return IdentityOperand(ctx, inst, IsFloatOne, true);
  return nullptr;
}

Instruction* SimplifyDivide(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (IsInteger(t)) return IdentityOperand(ctx, inst, IsIntOne, false);
  if (IsRealFloatType(t)) return IdentityOperand(ctx, inst, IsFloatOne, false);
  return nullptr;
}

Instruction* SimplifyLogical(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (!IsIntOrPred(t)) return nullptr;
  Opcode op = inst->opcode();
  bool same = inst->operand(0) == inst->operand(1);
  if (op == Opcode::kAnd) {
    if (same) return inst->operand(0);
    if (Instruction* x = IdentityOperand(ctx, inst, IsAllOnes, true)) return x;
    return AbsorbingOperand(ctx, inst, IsIntZero);
  }
  if (op == Opcode::kOr) {
    if (same) return inst->operand(0);
    if (Instruction* x = IdentityOperand(ctx, inst, IsIntZero, true)) return x;
    return AbsorbingOperand(ctx, inst, IsAllOnes);
  }
  // xor
  if (same) return ctx.ZerosLike(inst->shape());
  return IdentityOperand(ctx, inst, IsIntZero, true);
}

Instruction* SimplifyShift(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (!IsInteger(t)) return nullptr;
  // Shifting by 0 keeps x; shifting 0 gives 0 whatever the amount.
  if (OperandIs(ctx, inst, 1, IsIntZero)) return inst->operand(0);
  if (OperandIs(ctx, inst, 0, IsIntZero)) return inst->operand(0);
  return nullptr;
}

Instruction* SimplifyMinMax(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (inst->operand(0) == inst->operand(1)) return inst->operand(0);
  bool is_max = inst->opcode() == Opcode::kMaximum;
  if (IsIntOrPred(t)) {
    // max(x, MIN) = x, min(x, MAX) = x; max(x, MAX) = MAX, min(x, MIN) = MIN.
    if (Instruction* x = IdentityOperand(ctx, inst, is_max ? IsIntMin : IsIntMax, true)) {
      return x;
    }
    return AbsorbingOperand(ctx, inst, is_max ? IsIntMax : IsIntMin);
  }
  // NaN-propagating max/min: max(x, -inf) is x for every x, NaN included.
  if (IsRealFloatType(t)) return IdentityOperand(ctx, inst, is_max ? IsNegInf : IsPosInf, true);
  return nullptr;
}

// compare(x, x) for integers and pred: decided by the direction alone.
// Never for floats (NaN != NaN).
Instruction* SimplifyCompare(Context& ctx, Instruction* inst) {
  if (inst->operand(0) != inst->operand(1)) return nullptr;
  if (!IsIntOrPred(inst->operand(0)->shape().element_type())) return nullptr;
  std::string_view dir = inst->GetString(AttrKind::kDirection);
  bool value;
  if (dir == "EQ" || dir == "GE" || dir == "LE") {
    value = true;
  } else if (dir == "NE" || dir == "GT" || dir == "LT") {
    value = false;
  } else {
    return nullptr;
  }
  Instruction* c = ctx.ScalarConstant(PrimitiveType::kPred, value ? 1 : 0, inst->shape());
  return c ? ctx.BroadcastScalar(c, inst->shape()) : nullptr;
}

// not(compare(a, b)) on integers or pred is the opposite compare (never for
// floats: NaN makes both a < b and a >= b false).
Instruction* NotOfCompare(Context& ctx, Instruction* inst) {
  Instruction* c = inst->operand(0);
  if (c->opcode() != Opcode::kCompare || !IsPred(inst->shape().element_type())) return nullptr;
  if (!IsIntOrPred(c->operand(0)->shape().element_type())) return nullptr;
  std::string_view dir = c->GetString(AttrKind::kDirection);
  const char* opposite = dir == "EQ"   ? "NE"
                         : dir == "NE" ? "EQ"
                         : dir == "LT" ? "GE"
                         : dir == "GE" ? "LT"
                         : dir == "GT" ? "LE"
                         : dir == "LE" ? "GT"
                                       : nullptr;
  if (opposite == nullptr) return nullptr;
  Instruction* n = ctx.Add(Opcode::kCompare, inst->shape(), {c->operand(0), c->operand(1)});
  n->SetAttr(AttrKind::kDirection, std::string(opposite));
  for (AttrKind kind : {AttrKind::kType, AttrKind::kOrder}) {
    if (const Attribute* a = c->FindAttr(kind)) n->SetAttr(kind, a->value);
  }
  return n;
}

Instruction* NewSelect(Context& ctx, const Instruction* like, Instruction* pred,
                       Instruction* on_true, Instruction* on_false) {
  return ctx.Add(Opcode::kSelect, like->shape(), {pred, on_true, on_false});
}

Instruction* SimplifySelect(Context& ctx, Instruction* inst) {
  Instruction* pred = inst->operand(0);
  Instruction* on_true = inst->operand(1);
  Instruction* on_false = inst->operand(2);
  if (on_true == on_false) return on_true;
  std::optional<Splat> p = ctx.SplatOf(pred);
  if (p && IsPred(p->type())) return p->int_value() != 0 ? on_true : on_false;
  // select(not(p), a, b) = select(p, b, a).
  if (pred->opcode() == Opcode::kNot) {
    return NewSelect(ctx, inst, pred->operand(0), on_false, on_true);
  }
  // An inner select on the same predicate takes the same side.
  if (on_true->opcode() == Opcode::kSelect && on_true->operand(0) == pred) {
    return NewSelect(ctx, inst, pred, on_true->operand(1), on_false);
  }
  if (on_false->opcode() == Opcode::kSelect && on_false->operand(0) == pred) {
    return NewSelect(ctx, inst, pred, on_true, on_false->operand(2));
  }
  return nullptr;
}

// x ^ 1 = x and x ^ 0 = 1 (C's pow gives 1 for a NaN base too; the integer
// kernel starts from 1).
Instruction* SimplifyPower(Context& ctx, Instruction* inst, PrimitiveType t) {
  if (IsInteger(t)) {
    if (OperandIs(ctx, inst, 1, IsIntOne)) return inst->operand(0);
    if (OperandIs(ctx, inst, 1, IsIntZero)) {
      Instruction* c = ctx.ScalarConstant(t, 1, inst->shape());
      return c ? ctx.BroadcastScalar(c, inst->shape()) : nullptr;
    }
    return nullptr;
  }
  if (!IsRealFloatType(t)) return nullptr;
  if (OperandIs(ctx, inst, 1, IsFloatOne)) return inst->operand(0);
  std::optional<Splat> e = ctx.SplatOf(inst->operand(1));
  if (e && (IsFloatPosZero(*e) || IsFloatNegZero(*e))) {
    // Build 1.0 of the type through a literal so the encoding is right.
    auto lit = Literal::Create(Shape::Array(t, {}));
    if (!lit.ok()) return nullptr;
    lit->SetDouble(0, 1.0);
    Instruction* c = ctx.ScalarConstant(t, lit->GetBits(0), inst->shape());
    return c ? ctx.BroadcastScalar(c, inst->shape()) : nullptr;
  }
  return nullptr;
}

// Does converting from `from` to `to` keep every value, so that converting
// back gives the original? Integer widening and integers into a float with
// enough significand bits (no NaN or -0.0 can arise on that path).
bool IsLosslessConvert(PrimitiveType from, PrimitiveType to) {
  auto significand_bits = [](PrimitiveType f) {
    switch (f) {
      case PrimitiveType::kF16:
        return 11;
      case PrimitiveType::kBF16:
        return 8;
      case PrimitiveType::kF32:
        return 24;
      case PrimitiveType::kF64:
        return 53;
      default:
        return 0;
    }
  };
  int from_bits = BitWidth(from);
  if (IsPred(from)) return IsInteger(to);
  if (IsSignedInt(from)) {
    if (IsSignedInt(to)) return BitWidth(to) >= from_bits;
    if (IsFloat(to) && !IsComplex(to)) return significand_bits(to) >= from_bits - 1;
    return false;
  }
  if (IsUnsignedInt(from)) {
    if (IsUnsignedInt(to)) return BitWidth(to) >= from_bits;
    if (IsSignedInt(to)) return BitWidth(to) > from_bits;
    if (IsFloat(to) && !IsComplex(to)) return significand_bits(to) >= from_bits;
  }
  return false;
}

Instruction* SimplifyConvert(Context&, Instruction* inst) {
  Instruction* x = inst->operand(0);
  PrimitiveType to = inst->shape().element_type();
  if (x->shape().element_type() == to) return x;
  // convert(convert(y, T1), T0) where y is T0 and T0 -> T1 is lossless.
  if (x->opcode() == Opcode::kConvert) {
    Instruction* y = x->operand(0);
    PrimitiveType mid = x->shape().element_type();
    if (y->shape().element_type() == to && IsLosslessConvert(to, mid)) return y;
  }
  return nullptr;
}

// A constant array of one repeated value is a broadcast of a scalar; a
// rank-1 constant 0, 1, 2, ... (each exactly representable, +0.0 first) is
// an iota. Both as XLA writes them, and cheaper to keep.
Instruction* SimplifyConstant(Context& ctx, Instruction* inst) {
  const Literal* lit = inst->literal();
  if (lit == nullptr || lit->IsTuple() || lit->element_count() <= 1) return nullptr;
  PrimitiveType t = lit->element_type();
  if (std::optional<Splat> s = ctx.SplatOf(inst)) return ctx.SplatLike(*s, inst->shape());
  if (inst->shape().rank() != 1 || !(IsInteger(t) || IsRealFloatType(t))) return nullptr;
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    if (IsInteger(t) ? lit->GetInt(i) != i : lit->GetDouble(i) != static_cast<double>(i)) {
      return nullptr;
    }
  }
  if (IsRealFloatType(t) && std::signbit(lit->GetDouble(0))) return nullptr;  // -0.0 first
  Instruction* iota = ctx.Add(Opcode::kIota, inst->shape(), {});
  iota->SetAttr(AttrKind::kIotaDimension, int64_t{0});
  return iota;
}

}  // namespace

Instruction* SimplifyArith(Context& ctx, Instruction* inst) {
  PrimitiveType t = inst->shape().element_type();
  switch (inst->opcode()) {
    case Opcode::kAdd:
      return SimplifyAdd(ctx, inst, t);
    case Opcode::kSubtract:
      return SimplifySubtract(ctx, inst, t);
    case Opcode::kMultiply:
      return SimplifyMultiply(ctx, inst, t);
    case Opcode::kDivide:
      return SimplifyDivide(ctx, inst, t);
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      return SimplifyLogical(ctx, inst, t);
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
      return SimplifyShift(ctx, inst, t);
    case Opcode::kMaximum:
    case Opcode::kMinimum:
      return SimplifyMinMax(ctx, inst, t);
    case Opcode::kNegate:
    case Opcode::kNot: {
      // negate(negate(x)) = x (also for INT_MIN); not(not(x)) = x.
      Instruction* x = inst->operand(0);
      if (x->opcode() == inst->opcode()) return x->operand(0);
      if (inst->opcode() == Opcode::kNot) return NotOfCompare(ctx, inst);
      return nullptr;
    }
    case Opcode::kPower:
      return SimplifyPower(ctx, inst, t);
    case Opcode::kAbs: {
      Instruction* x = inst->operand(0);
      if (x->opcode() == Opcode::kAbs && !IsComplex(x->operand(0)->shape().element_type())) {
        return x;  // abs(abs(x)) = abs(x)
      }
      return nullptr;
    }
    case Opcode::kCompare:
      return SimplifyCompare(ctx, inst);
    case Opcode::kSelect:
      return SimplifySelect(ctx, inst);
    case Opcode::kConvert:
      return SimplifyConvert(ctx, inst);
    case Opcode::kBitcastConvert:
      if (inst->operand(0)->shape().element_type() == t) return inst->operand(0);
      return nullptr;
    case Opcode::kConstant:
      return SimplifyConstant(ctx, inst);
    case Opcode::kIota: {
      int64_t d = inst->GetInt(AttrKind::kIotaDimension, -1);
      if (d < 0 || d >= inst->shape().rank() || inst->shape().dim(d) > 1) return nullptr;
      return ctx.ZerosLike(inst->shape());  // iota along a dimension of size 1 is 0
    }
    default:
      return nullptr;
  }
}

}  // namespace hlo::algsimp
