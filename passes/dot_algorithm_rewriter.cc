// dot-algorithm-rewriter: f32 dots whose `algorithm` names narrower operand
// types rewritten into what the algorithm computes, by the rules of XLA:GPU's
// DotAlgorithmRewriter (xla/backends/gpu/transforms/dot_algorithm_rewriter.cc).
// hlo-run runs it before evaluating (not under --precision=f64), so that a
// module XLA:GPU compiled computes with the operand rounding the GPU applies:
// - dot_bf16_bf16_f32: the operands converted to bf16 (nearest even), their
//   products summed in f32;
// - dot_bf16_bf16_f32_x3, _x6, _x9: each operand split into two (x3) or
//   three bf16 parts, hi = x with its low 16 bits cleared, the next part the
//   same of what is left (the last part rounded); the dots of the part pairs
//   (3, 6 or all 9) summed smallest first, a NaN in the sum of the small ones
//   replaced by 0 before the hi x hi dot is added (an operand of 1.0 times
//   +inf would otherwise give inf * 0 = NaN in a small product);
// - dot_tf32_tf32_f32_x3: the same with two TF32 parts (the low 13 bits),
//   the three partial dots dot_tf32_tf32_f32;
// - dot_tf32_tf32_f32: the operands rounded to TF32 (8 exponent, 10
//   mantissa bits, nearest even) with reduce-precision, as
//   --dot-default-precision=tf32 rounds DEFAULT dots;
// - dot_f16_f16_f32: the operands converted to f16.
// Other algorithms (f32, f64, the f8 ones, and those that accumulate in
// bf16 or f16) and dots whose operands or result are not f32 are left as
// they are: evaluation computes them in their own types.
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "ir/computation.h"
#include "ir/module.h"
#include "passes/passes.h"

namespace hlo {
namespace {

constexpr uint32_t kMaskBf16 = 0xFFFF0000;  // the bits a bf16 keeps of an f32
constexpr uint32_t kMaskTf32 = 0xFFFFE000;  // the bits a TF32 keeps

class Rewriter {
 public:
  Rewriter(Module& module, Computation& comp, Instruction* dot)
      : module_(module), comp_(comp), dot_(dot) {}

  Instruction* Add(Opcode opcode, const Shape& shape, std::vector<Instruction*> operands) {
    auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(OpcodeName(opcode)),
                                              module_.Intern(shape));
    for (Instruction* o : operands) inst->AppendOperand(o);
    return comp_.AddInstruction(std::move(inst));
  }

  Instruction* Convert(Instruction* x, PrimitiveType type) {
    return Add(Opcode::kConvert, x->shape().WithElementType(type), {x});
  }

  Instruction* Splat(PrimitiveType type, uint64_t bits, const Shape& like) {
    Shape scalar = Shape::Array(type, {});
    Instruction* c = Add(Opcode::kConstant, scalar, {});
    auto lit = Literal::Create(scalar);
    lit->SetBits(0, bits);
    c->set_literal(std::make_shared<const Literal>(*std::move(lit)));
    Instruction* b = Add(Opcode::kBroadcast, like.WithElementType(type), {c});
    b->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
    return b;
  }

  // x with the bits outside `mask` cleared (x an f32 array).
  Instruction* Truncate(Instruction* x, uint32_t mask) {
    const Shape u32 = x->shape().WithElementType(PrimitiveType::kU32);
    Instruction* bits = Add(Opcode::kBitcastConvert, u32, {x});
    Instruction* kept = Add(Opcode::kAnd, u32, {bits, Splat(PrimitiveType::kU32, mask, u32)});
    return Add(Opcode::kBitcastConvert, x->shape(), {kept});
  }

  Instruction* Sub(Instruction* a, Instruction* b) {
    return Add(Opcode::kSubtract, a->shape(), {a, b});
  }

  // The parts of x: `count` of them, each of `mask`'s bits but the last
  // (what is left); converted to bf16 when `bf16`.
  std::vector<Instruction*> Split(Instruction* x, int count, uint32_t mask, bool bf16) {
    std::vector<Instruction*> parts;
    Instruction* rest = x;
    for (int i = 0; i + 1 < count; ++i) {
      Instruction* part = Truncate(rest, mask);
      parts.push_back(part);
      rest = Sub(rest, part);
    }
    parts.push_back(rest);
    if (bf16) {
      for (Instruction*& p : parts) p = Convert(p, PrimitiveType::kBF16);
    }
    return parts;
  }

  // A dot of the original's dimensions and precision, with `algorithm`.
  Instruction* Dot(Instruction* lhs, Instruction* rhs, std::string_view algorithm) {
    Instruction* d = Add(Opcode::kDot, dot_->shape(), {lhs, rhs});
    for (const Attribute& a : dot_->attributes()) d->SetAttr(a.kind, a.value);
    d->SetAttr(AttrKind::kAlgorithm, std::string(algorithm));
    return d;
  }

  Instruction* Sum(Instruction* a, Instruction* b) {
    return Add(Opcode::kAdd, dot_->shape(), {a, b});
  }

  // x where |x| <= inf (finite or infinite), else 0: NaN becomes 0.
  Instruction* NanToZero(Instruction* x) {
    const Shape& s = x->shape();
    Instruction* inf = Splat(PrimitiveType::kF32,
                             std::bit_cast<uint32_t>(std::numeric_limits<float>::infinity()), s);
    Instruction* abs = Add(Opcode::kAbs, s, {x});
    Instruction* keep = Add(Opcode::kCompare, s.WithElementType(PrimitiveType::kPred), {inf, abs});
    keep->SetAttr(AttrKind::kDirection, std::string("GE"));
    return Add(Opcode::kSelect, s, {keep, x, Splat(PrimitiveType::kF32, 0, s)});
  }

  // The dots of part pairs (lhs part, rhs part; 0 is hi) in `order`,
  // summed in that order, NaN-guarded before the last (hi x hi).
  Instruction* Products(const std::vector<Instruction*>& l, const std::vector<Instruction*>& r,
                        const std::vector<std::pair<int, int>>& order, std::string_view algorithm) {
    Instruction* sum = nullptr;
    for (size_t k = 0; k < order.size(); ++k) {
      Instruction* d = Dot(l[order[k].first], r[order[k].second], algorithm);
      if (k + 1 == order.size()) sum = NanToZero(sum);
      sum = sum == nullptr ? d : Sum(sum, d);
    }
    return sum;
  }

  enum class Result { kAsWritten, kOperandsRounded, kReplaced };

  // Rewrites the dot: its operands rounded, or the dot replaced by a sum of
  // partial dots (then unused), or nothing when its algorithm is computed as
  // written.
  Result Run(std::string_view algorithm) {
    Instruction* lhs = dot_->operand(0);
    Instruction* rhs = dot_->operand(1);
    if (algorithm == "dot_bf16_bf16_f32" || algorithm == "dot_f16_f16_f32") {
      const PrimitiveType t =
          algorithm == "dot_f16_f16_f32" ? PrimitiveType::kF16 : PrimitiveType::kBF16;
      dot_->ReplaceOperand(0, Convert(lhs, t));
      dot_->ReplaceOperand(1, Convert(rhs, t));
      return Result::kOperandsRounded;
    }
    if (algorithm == "dot_tf32_tf32_f32") {
      for (int i = 0; i < 2; ++i) {
        Instruction* r =
            Add(Opcode::kReducePrecision, dot_->operand(i)->shape(), {dot_->operand(i)});
        r->SetAttr(AttrKind::kExponentBits, int64_t{8});
        r->SetAttr(AttrKind::kMantissaBits, int64_t{10});
        dot_->ReplaceOperand(i, r);
      }
      return Result::kOperandsRounded;
    }
    Instruction* result = nullptr;
    if (algorithm == "dot_bf16_bf16_f32_x3") {
      result = Products(Split(lhs, 2, kMaskBf16, true), Split(rhs, 2, kMaskBf16, true),
                        {{1, 0}, {0, 1}, {0, 0}}, "dot_bf16_bf16_f32");
    } else if (algorithm == "dot_bf16_bf16_f32_x6") {
      result = Products(Split(lhs, 3, kMaskBf16, true), Split(rhs, 3, kMaskBf16, true),
                        {{1, 1}, {0, 2}, {2, 0}, {0, 1}, {1, 0}, {0, 0}}, "dot_bf16_bf16_f32");
    } else if (algorithm == "dot_bf16_bf16_f32_x9") {
      result = Products(Split(lhs, 3, kMaskBf16, true), Split(rhs, 3, kMaskBf16, true),
                        {{2, 2}, {2, 1}, {1, 2}, {1, 1}, {0, 2}, {2, 0}, {0, 1}, {1, 0}, {0, 0}},
                        "dot_bf16_bf16_f32");
    } else if (algorithm == "dot_tf32_tf32_f32_x3") {
      result = Products(Split(lhs, 2, kMaskTf32, false), Split(rhs, 2, kMaskTf32, false),
                        {{1, 0}, {0, 1}, {0, 0}}, "dot_tf32_tf32_f32");
    } else {
      return Result::kAsWritten;
    }
    dot_->ReplaceAllUsesWith(result);
    return Result::kReplaced;
  }

 private:
  Module& module_;
  Computation& comp_;
  Instruction* dot_;
};

bool AllF32(const Instruction& dot) {
  return dot.shape().IsArray() && dot.shape().element_type() == PrimitiveType::kF32 &&
         dot.operand_count() == 2 && dot.operand(0)->shape().IsArray() &&
         dot.operand(0)->shape().element_type() == PrimitiveType::kF32 &&
         dot.operand(1)->shape().IsArray() &&
         dot.operand(1)->shape().element_type() == PrimitiveType::kF32;
}

class DotAlgorithmRewriter : public Pass {
 public:
  std::string_view name() const override { return "dot-algorithm-rewriter"; }
  std::string_view description() const override {
    return "f32 dots with a bf16/tf32/f16 algorithm rewritten into the operand rounding and "
           "split products it computes (XLA:GPU's rules)";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (const auto& comp : module.computations()) {
      std::vector<Instruction*> dots;
      for (const auto& inst : comp->instructions()) {
        if (inst->opcode() == Opcode::kDot && AllF32(*inst)) dots.push_back(inst.get());
      }
      // The partial dots made here are visited too: x3's TF32 ones round
      // their operands as dot_tf32_tf32_f32 does (a low part is no TF32).
      for (size_t i = 0; i < dots.size(); ++i) {
        Instruction* dot = dots[i];
        const std::string_view algorithm = dot->GetString(AttrKind::kAlgorithm);
        const size_t before = comp->instructions().size();
        const Rewriter::Result result = Rewriter(module, *comp, dot).Run(algorithm);
        if (result == Rewriter::Result::kAsWritten) continue;
        changed = true;
        const auto& all = comp->instructions();
        for (size_t j = before; j < all.size(); ++j) {
          Instruction* made = all[j].get();
          if (made->opcode() == Opcode::kDot && AllF32(*made) &&
              made->GetString(AttrKind::kAlgorithm) == "dot_tf32_tf32_f32") {
            dots.push_back(made);
          }
        }
        if (result == Rewriter::Result::kReplaced) comp->RemoveInstruction(dot);
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateDotAlgorithmRewriter() {
  return std::make_unique<DotAlgorithmRewriter>();
}

}  // namespace hlo
