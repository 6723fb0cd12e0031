// algsimp: exact algebraic simplifications, after XLA's AlgebraicSimplifier.
//
// One sweep per Run over each computation in post order: every instruction
// is offered to the families of rewrites (algebraic_simplifier_*.cc); a
// replacement built by a family is offered again at once, so chains
// (reshape of reshape of reshape, …) collapse in the same sweep. The work
// is linear in the number of instructions: each visit looks only at the
// instruction and its nearby operands. Instructions a rewrite leaves dead
// (the replaced ones, their operands that lose their last user, and built
// ones that were not used) are removed at the end in one pass; a built
// replacement inherits the name of the instruction it replaced.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/strings.h"
#include "passes/algebraic_simplifier_internal.h"
#include "passes/passes.h"
#include "passes/post_order.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace algsimp {

// ---- value tests ------------------------------------------------------------

namespace {

uint64_t UnsignedMax(PrimitiveType t) {
  int bits = BitWidth(t);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

bool IsRealFloat(PrimitiveType t) { return IsFloat(t) && !IsComplex(t); }

}  // namespace

bool IsIntZero(const Splat& s) {
  return (IsInteger(s.type()) || IsPred(s.type())) && s.int_value() == 0;
}
bool IsIntOne(const Splat& s) { return IsInteger(s.type()) && s.int_value() == 1; }
bool IsAllOnes(const Splat& s) {
  PrimitiveType t = s.type();
  if (IsPred(t)) return s.int_value() == 1;
  if (IsSignedInt(t)) return s.int_value() == -1;
  if (IsUnsignedInt(t)) return static_cast<uint64_t>(s.int_value()) == UnsignedMax(t);
  return false;
}
bool IsFloatNegZero(const Splat& s) {
  if (!IsRealFloat(s.type())) return false;
  double v = s.value();
  return v == 0 && std::signbit(v);
}
bool IsFloatPosZero(const Splat& s) {
  if (!IsRealFloat(s.type())) return false;
  double v = s.value();
  return v == 0 && !std::signbit(v);
}
bool IsFloatOne(const Splat& s) { return IsRealFloat(s.type()) && s.value() == 1.0; }
bool IsFloatInf(const Splat& s, bool negative) {
  if (!IsRealFloat(s.type())) return false;
  double v = s.value();
  return std::isinf(v) && std::signbit(v) == negative;
}
bool IsIntMin(const Splat& s) {
  PrimitiveType t = s.type();
  if (IsPred(t) || IsUnsignedInt(t)) return s.int_value() == 0;
  if (!IsSignedInt(t)) return false;
  int bits = BitWidth(t);
  int64_t min = bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  return s.int_value() == min;
}
bool IsIntMax(const Splat& s) {
  PrimitiveType t = s.type();
  if (IsPred(t)) return s.int_value() == 1;
  if (IsUnsignedInt(t)) return static_cast<uint64_t>(s.int_value()) == UnsignedMax(t);
  if (!IsSignedInt(t)) return false;
  int bits = BitWidth(t);
  int64_t max = bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  return s.int_value() == max;
}

// ---- the context ------------------------------------------------------------

std::optional<Splat> Context::SplatOf(const Instruction* inst) {
  // Only a constant's answer is worth keeping (its elements are scanned);
  // anything else is answered from the opcode without a table probe.
  if (inst->opcode() == Opcode::kBroadcast) {
    if (inst->operand_count() == 1) return SplatOf(inst->operand(0));
    return std::nullopt;
  }
  if (inst->opcode() != Opcode::kConstant) return std::nullopt;
  auto it = splats_.find(inst);
  if (it != splats_.end()) return it->second;
  std::optional<Splat> result;
  if (inst->literal() != nullptr && !inst->literal()->IsTuple() && inst->shape().IsArray() &&
      inst->literal()->element_count() >= 1) {
    // Every element must have the same bits (so -0.0 and 0.0 differ). With
    // whole-byte elements of w bytes that is one memcmp of the data against
    // itself shifted by w (all of a complex element is compared, not only
    // the 64 bits GetBits gives); sub-byte elements are compared by value.
    const Literal* lit = inst->literal();
    const int64_t n = lit->element_count();
    const int bits = BitWidth(lit->element_type());
    bool same = true;
    if (bits >= 8 && lit->size_bytes() == static_cast<size_t>(n) * (bits / 8)) {
      const size_t w = bits / 8;
      same = std::memcmp(lit->data(), lit->data() + w, lit->size_bytes() - w) == 0;
    } else {
      const uint64_t first = lit->GetBits(0);
      for (int64_t i = 1; i < n && same; ++i) same = lit->GetBits(i) == first;
    }
    if (same) result = Splat{lit, 0};
  }
  splats_[inst] = result;
  return result;
}

Instruction* Context::Add(Opcode opcode, const Shape& shape,
                          std::initializer_list<Instruction*> operands) {
  return Add(opcode, shape, absl::Span<Instruction* const>(operands.begin(), operands.size()));
}

Instruction* Context::Add(Opcode opcode, const Shape& shape,
                          absl::Span<Instruction* const> operands) {
  auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(OpcodeName(opcode)),
                                            module_.Intern(shape));
  for (Instruction* op : operands) inst->AppendOperand(op);
  Instruction* raw = computation_.AddInstruction(std::move(inst));
  created_.push_back(raw);
  return raw;
}

Shape Context::ShapeLike(PrimitiveType type, absl::Span<const int64_t> dims,
                         const Shape& like) const {
  Shape s = Shape::Array(type, dims);
  return like.has_layout() ? s.WithDefaultLayout() : s;
}

Instruction* Context::ScalarConstant(PrimitiveType type, uint64_t bits, const Shape& like) {
  Shape shape = ShapeLike(type, {}, like);
  auto lit = Literal::Create(Shape::Array(type, {}));
  if (!lit.ok()) return nullptr;  // cannot happen for a scalar
  lit->SetBits(0, bits);
  Instruction* c = Add(Opcode::kConstant, shape, {});
  c->set_literal(std::make_shared<const Literal>(*std::move(lit)));
  return c;
}

Instruction* Context::BroadcastScalar(Instruction* scalar, const Shape& shape) {
  // A broadcast keeps its operand's type: another type would need a convert
  // (a reduce's init may be of another float type than its result).
  if (scalar->shape().element_type() != shape.element_type()) return nullptr;
  if (shape.rank() == 0 && CanReplaceShape(scalar->shape(), shape)) return scalar;
  Instruction* b = Add(Opcode::kBroadcast, shape, {scalar});
  b->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
  return b;
}

Instruction* Context::SplatLike(const Splat& s, const Shape& shape) {
  Instruction* c = ScalarConstant(s.type(), s.bits(), shape);
  return c ? BroadcastScalar(c, shape) : nullptr;
}

Instruction* Context::ZerosLike(const Shape& shape) {
  Instruction* c = ScalarConstant(shape.element_type(), 0, shape);
  return c ? BroadcastScalar(c, shape) : nullptr;
}

namespace {

Layout EffectiveLayout(const Shape& s) {
  return s.has_layout() ? s.layout() : DefaultLayout(s.rank());
}

}  // namespace

bool CanReplaceShape(const Shape& a, const Shape& b) {
  if (&a == &b) return true;
  if (!a.IsArray() || !b.IsArray() || !a.Compatible(b)) return false;
  return EffectiveLayout(a) == EffectiveLayout(b);
}

bool CanReplace(const Instruction& inst, const Instruction& replacement) {
  return CanReplaceShape(inst.shape(), replacement.shape());
}

// ---- the driver -------------------------------------------------------------

namespace {

bool AllStatic(const Instruction& inst) {
  if (!inst.shape().IsArray() || !inst.shape().IsStatic()) return false;
  for (Instruction* op : inst.operands()) {
    if (!op->shape().IsStatic()) return false;
  }
  return true;
}

Instruction* TryFamilies(Context& ctx, Instruction* inst) {
  if (Instruction* r = SimplifyArith(ctx, inst)) return r;
  if (Instruction* r = SimplifyShape(ctx, inst)) return r;
  if (Instruction* r = SimplifySlice(ctx, inst)) return r;
  return SimplifyReduce(ctx, inst);
}

class ComputationSimplifier {
 public:
  ComputationSimplifier(Module& module, Computation& computation)
      : ctx_(module, computation), computation_(computation) {}

  bool Run() {
    // Instructions a rewrite must leave alone (ordered by control edges) are
    // gathered by the same walk.
    for (Instruction* inst : PostOrderOf(computation_, &bound_)) Visit(inst);
    RemoveDead();
    return changed_;
  }

 private:
  void Visit(Instruction* inst) {
    // A replacement built by a family is tried again (bounded: each step
    // removes an instruction from a chain, the bound only guards mistakes).
    for (int step = 0; step < 16 && inst != nullptr; ++step) {
      if (bound_.contains(inst) || HasSideEffect(inst->opcode()) || !AllStatic(*inst)) return;
      if (inst->users().empty() && !inst->is_root()) return;  // dead: dce's job
      size_t built_before = ctx_.created().size();
      Instruction* repl = TryFamilies(ctx_, inst);
      if (repl == nullptr || repl == inst || !CanReplace(*inst, *repl)) return;
      if (!AllowRewrite(*inst)) return;  // bisection's bound: `repl` is left dead
      inst->ReplaceAllUsesWith(repl);
      replaced_.push_back(inst);
      changed_ = true;
      bool is_new = std::find(ctx_.created().begin() + built_before, ctx_.created().end(), repl) !=
                    ctx_.created().end();
      if (is_new) renames_.push_back({inst, repl});
      inst = is_new ? repl : nullptr;
    }
  }

  bool Removable(const Instruction* inst) {
    return inst->users().empty() && !inst->is_root() && inst->opcode() != Opcode::kParameter &&
           !HasSideEffect(inst->opcode()) && !bound_.contains(inst) &&
           inst->control_predecessors().empty() && !CallsSideEffects(*inst);
  }

  // Does a computation `inst` calls (transitively) hold a side effect? Such
  // a call, fusion, while or sort must stay even when unused.
  bool CallsSideEffects(const Instruction& inst) {
    for (const Computation* c : inst.called_computations()) {
      if (c == nullptr) continue;
      auto [it, inserted] = effects_.try_emplace(c, true);  // cycles count as effects
      if (inserted) {
        bool effect = false;
        for (const auto& i : c->instructions()) {
          effect = HasSideEffect(i->opcode()) || CallsSideEffects(*i);
          if (effect) break;
        }
        effects_[c] = effect;
        if (effect) return true;
      } else if (it->second) {
        return true;
      }
    }
    return false;
  }

  // Removes the replaced and unused built instructions, and operands that
  // lost their last user to them.
  void RemoveDead() {
    std::vector<Instruction*> work = replaced_;
    work.insert(work.end(), ctx_.created().begin(), ctx_.created().end());
    absl::flat_hash_set<const Instruction*> dead;
    while (!work.empty()) {
      Instruction* inst = work.back();
      work.pop_back();
      if (dead.contains(inst) || !Removable(inst)) continue;
      dead.insert(inst);
      std::vector<Instruction*> ops(inst->operands().begin(), inst->operands().end());
      inst->DetachOperands();
      work.insert(work.end(), ops.begin(), ops.end());
    }
    InheritNames(dead);
    if (!dead.empty()) computation_.RemoveInstructions(dead);
  }

  // A built replacement takes the name of the instruction it replaced (once
  // that one is gone), so the output reads like the input: `%r3 = reshape(x)`
  // rather than `%reshape.7`. Along a chain of replacements the name moves to
  // the last one.
  void InheritNames(const absl::flat_hash_set<const Instruction*>& dead) {
    absl::flat_hash_map<const Instruction*, std::string> pending;
    for (auto [old, repl] : renames_) {
      if (!dead.contains(old)) continue;
      auto it = pending.find(old);
      std::string name = it != pending.end() ? std::move(it->second) : std::string(old->name());
      if (it != pending.end()) pending.erase(it);
      pending[repl] = std::move(name);
    }
    for (auto& [inst, name] : pending) {
      if (!dead.contains(inst)) const_cast<Instruction*>(inst)->set_name(std::move(name));
    }
  }

  Context ctx_;
  Computation& computation_;
  absl::flat_hash_set<const Instruction*> bound_;
  std::vector<Instruction*> replaced_;
  absl::flat_hash_map<const Computation*, bool> effects_;
  std::vector<std::pair<Instruction*, Instruction*>> renames_;  // (replaced, built replacement)
  bool changed_ = false;
};

class AlgebraicSimplifier : public Pass {
 public:
  std::string_view name() const override { return "algsimp"; }
  std::string_view description() const override {
    return "exact algebraic simplifications (identities, shape chains, slices, reduces)";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (const auto& c : module.computations()) {
      if (c->is_fusion_computation()) continue;  // as XLA: fused ones are left as built
      changed |= ComputationSimplifier(module, *c).Run();
    }
    return changed;
  }
};

}  // namespace
}  // namespace algsimp

std::unique_ptr<Pass> CreateAlgebraicSimplifier() {
  return std::make_unique<algsimp::AlgebraicSimplifier>();
}

}  // namespace hlo
