// cse: merges instructions that compute the same value: same opcode, shape,
// operands, attributes (metadata aside), literal and called computations.
// Side-effecting instructions, parameters and instructions tied by control
// edges are left alone. Linear: one walk in post order (PostOrderOf) with a
// hash set, so operands are merged before their users are looked up.
#include <algorithm>
#include <functional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "ir/module.h"
#include "passes/dead_code.h"
#include "passes/passes.h"
#include "passes/post_order.h"
#include "passes/rewrite_limit.h"

namespace hlo {
namespace {

bool Merged(AttrKind kind) { return kind != AttrKind::kMetadata; }

std::string AttrText(const Attribute& a) {
  std::string out;
  AppendAttrValue(out, a, /*percent=*/false);
  return out;
}

// Attributes equal as sets (by kind and canonical value text).
bool SameAttributes(const Instruction& a, const Instruction& b) {
  size_t na = 0, nb = 0;
  for (const Attribute& x : a.attributes()) na += Merged(x.kind);
  for (const Attribute& y : b.attributes()) nb += Merged(y.kind);
  if (na != nb) return false;
  for (const Attribute& x : a.attributes()) {
    if (!Merged(x.kind)) continue;
    const Attribute* y = b.FindAttr(x.kind);
    if (y == nullptr || x.value.index() != y->value.index()) return false;
    if (x.value == y->value) continue;  // plain values, or the same pointer
    if (AttrText(x) != AttrText(*y)) return false;
  }
  return true;
}

bool SameLiteral(const Instruction& a, const Instruction& b) {
  if (a.literal_elided() != b.literal_elided()) return false;
  const Literal* x = a.literal();
  const Literal* y = b.literal();
  if (x == y) return true;
  if (x == nullptr || y == nullptr) return false;
  return *x == *y;
}

struct InstHash {
  size_t operator()(const Instruction* i) const {
    // A part of what InstEq compares. Attributes are left to InstEq: reading
    // every instruction's attribute block to hash it costs a cache miss each
    // in a large module, and instructions equal in all else rarely differ
    // in their attributes alone.
    size_t h = absl::HashOf(static_cast<int>(i->opcode()), i->shape_ptr());
    for (const Instruction* op : i->operands()) h = absl::HashOf(h, op);
    if (const Literal* lit = i->literal()) {
      // A bounded prefix: equal literals hash equal, long ones stay cheap.
      size_t n = std::min<size_t>(lit->size_bytes(), 64);
      h = absl::HashOf(h, lit->size_bytes(),
                       std::hash<std::string_view>()(
                           std::string_view(reinterpret_cast<const char*>(lit->data()), n)));
    }
    return h;
  }
};

struct InstEq {
  bool operator()(const Instruction* a, const Instruction* b) const {
    if (a == b) return true;
    if (a->opcode() != b->opcode() || a->shape_ptr() != b->shape_ptr() ||
        a->has_wrapped_opcode() != b->has_wrapped_opcode() ||
        (a->has_wrapped_opcode() && a->wrapped_opcode() != b->wrapped_opcode()) ||
        a->operand_count() != b->operand_count()) {
      return false;
    }
    for (int64_t k = 0; k < a->operand_count(); ++k) {
      if (a->operand(k) != b->operand(k)) return false;
    }
    return SameLiteral(*a, *b) && SameAttributes(*a, *b);
  }
};

bool Candidate(const Instruction& inst, const absl::flat_hash_set<const Instruction*>& control,
               bool has_effects) {
  if (inst.opcode() == Opcode::kParameter || has_effects) return false;
  if (control.contains(&inst)) return false;
  // An elided constant (`constant({...})`) has no known value to compare.
  if (inst.literal_elided() || (inst.opcode() == Opcode::kConstant && !inst.literal())) {
    return false;
  }
  for (const Instruction* op : inst.operands()) {
    if (op == nullptr) return false;
  }
  return true;
}

int64_t RunOnComputation(Computation& comp, SideEffects& effects) {
  // Post order: an instruction's operands are merged before it is hashed,
  // so chains of duplicates merge in one run (the list order is not
  // topological once passes have appended instructions). The control set
  // comes from the same walk.
  absl::flat_hash_set<const Instruction*> control;
  std::vector<bool> calls;
  std::vector<Instruction*> order = PostOrderOf(comp, &control, &calls);
  absl::flat_hash_set<Instruction*, InstHash, InstEq> seen;
  seen.reserve(order.size());
  std::vector<Instruction*> merged;
  bool comp_effects = false;
  for (size_t i = 0; i < order.size(); ++i) {
    Instruction* inst = order[i];
    // SideEffects::Of, without reading the attributes again when they name
    // no computation (only a custom-call's effects are an attribute then).
    bool inst_effects = calls[i] || inst->opcode() == Opcode::kCustomCall
                            ? effects.Of(*inst)
                            : HasSideEffect(inst->opcode());
    comp_effects |= inst_effects;
    if (!Candidate(*inst, control, inst_effects)) continue;
    auto [it, inserted] = seen.insert(inst);
    if (inserted || !AllowRewrite(*inst)) continue;
    inst->ReplaceAllUsesWith(*it);
    merged.push_back(inst);
  }
  // Every instruction was asked, so a fusion of `comp` met later need not
  // read it again (merging and removing unused instructions never changes
  // whether a computation has effects).
  effects.Note(comp, comp_effects);
  // Merging touches no control edge, so the set is still ControlRelated.
  RemoveDeadFrom(comp, merged, &control);
  return static_cast<int64_t>(merged.size());
}

class CommonSubexpressionElimination : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  std::string_view description() const override {
    return "merges identical instructions (side-effecting ones untouched)";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    int64_t merged = 0;
    SideEffects effects(module);  // for the whole run: cse does not change them
    for (const auto& comp : module.computations()) merged += RunOnComputation(*comp, effects);
    return merged > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace hlo
