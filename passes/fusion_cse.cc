// fusion-cse: a fusion's instruction that computes a value an earlier
// instruction of the calling computation already holds reads that value
// instead (a new parameter of the fused computation). XLA duplicates cheap
// elementwise chains into every fusion that needs them, so its optimised
// GPT-2 recomputes the whole residual stream, embedding onward, in each of
// its layer norms' fusions, which the broadcast_add fusion before already
// wrote. Values are numbered across the fusion boundary: a parameter is
// its operand's number, a fusion's own number is its root's, and an inner
// instruction is numbered by opcode, shape, attributes, literal and its
// operands' numbers. The same operations on the same values give the same
// bits, so results do not change. Data movement (broadcast, bitcast,
// reshape, ...) stays: reading a made array is no cheaper than it; so does
// one op over one array the fusion reads and broadcasts (RecomputedCheaply).
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"
#include "ir/strings.h"
#include "passes/dead_code.h"
#include "passes/fusion_sharing.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// Scalar constants and small literals take part in a number by their
// bytes; a larger one is a value of its own.
constexpr size_t kMaxKeyedLiteralBytes = 64;

bool WorthReading(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kBroadcast:
    case Opcode::kBitcast:
    case Opcode::kReshape:
    case Opcode::kIota:
    case Opcode::kCopy:
    case Opcode::kTranspose:
    case Opcode::kSlice:
      return false;
    default:
      return inst.shape().IsArray();
  }
}

// A value or a change of its shape alone, read where it lies.
bool IsRead(const Instruction& inst) {
  const Opcode op = inst.opcode();
  if (op == Opcode::kParameter) return true;
  return (op == Opcode::kBitcast || op == Opcode::kReshape) &&
         inst.operand(0)->opcode() == Opcode::kParameter;
}

// One elementwise op over at most one array the fusion reads, the other
// operands broadcasts or constants (a batch norm's x - mean): recomputed,
// it costs an op and no more memory than reading its made copy, and leaves
// that copy free to be fused away (passes/defuser.cc folds x - mean into
// the variance's reduce when reduce fusions alone read it).
bool RecomputedCheaply(const Instruction& inst) {
  if (!IsElementwise(inst.opcode())) return false;
  int64_t arrays = 0;
  for (const Instruction* op : inst.operands()) {
    if (op->opcode() == Opcode::kBroadcast || op->opcode() == Opcode::kConstant) continue;
    if (!IsRead(*op)) return false;
    ++arrays;
  }
  return arrays <= 1;
}

// The operands the fused computation no longer reads go, with their
// parameters: held only by the fusion, they would stay alive (and count as
// read) until it runs.
void DropUnreadOperands(Instruction& fusion, Computation& fused) {
  const std::vector<int64_t> kept = fused.RemoveUnusedParameters();
  if (static_cast<int64_t>(kept.size()) == fusion.operand_count()) return;
  std::vector<Instruction*> operands;
  for (int64_t k : kept) operands.push_back(fusion.operand(k));
  fusion.DetachOperands();
  for (Instruction* op : operands) fusion.AppendOperand(op);
}

class ValueNumbers {
 public:
  int64_t Fresh() { return next_++; }

  // The number of an inner instruction given its operands' numbers; a fresh
  // one when it cannot be keyed (effects, control edges, a large literal).
  int64_t Of(const Instruction& inst, const absl::flat_hash_map<const Instruction*, int64_t>& num,
             SideEffects& effects) {
    if (!inst.control_predecessors().empty() || effects.Of(inst)) return Fresh();
    std::string key = StrCat(static_cast<int>(inst.opcode()), "|",
                             reinterpret_cast<uintptr_t>(inst.shape_ptr()), "|");
    if (inst.has_wrapped_opcode()) StrAppend(&key, static_cast<int>(inst.wrapped_opcode()), "|");
    for (const Instruction* op : inst.operands()) StrAppend(&key, num.at(op), ",");
    for (const Attribute& a : inst.attributes()) {
      if (a.kind == AttrKind::kMetadata) continue;
      StrAppend(&key, "|", static_cast<int>(a.kind), "=");
      AppendAttrValue(key, a, /*percent=*/false);
    }
    if (inst.literal_elided()) return Fresh();
    if (const Literal* lit = inst.literal()) {
      if (lit->size_bytes() > kMaxKeyedLiteralBytes) return Fresh();
      key.append("|lit=");
      key.append(reinterpret_cast<const char*>(lit->data()), lit->size_bytes());
    }
    auto [it, inserted] = keys_.try_emplace(std::move(key), next_);
    if (inserted) ++next_;
    return it->second;
  }

 private:
  int64_t next_ = 0;
  absl::flat_hash_map<std::string, int64_t> keys_;
};

// Numbers the instructions of `fused`, called by `fusion`, its parameters
// by their operands' numbers in `num`.
absl::flat_hash_map<const Instruction*, int64_t> NumberInside(
    const Instruction& fusion, const std::vector<Instruction*>& order, ValueNumbers& numbers,
    const absl::flat_hash_map<const Instruction*, int64_t>& num, SideEffects& effects) {
  absl::flat_hash_map<const Instruction*, int64_t> inner;
  for (const Instruction* i : order) {
    if (i->opcode() == Opcode::kParameter) {
      const int64_t p = i->parameter_number();
      inner[i] = p >= 0 && p < fusion.operand_count() ? num.at(fusion.operand(p)) : numbers.Fresh();
    } else {
      inner[i] = numbers.Of(*i, inner, effects);
    }
  }
  return inner;
}

class FusionCse : public Pass {
 public:
  std::string_view name() const override { return "fusion-cse"; }
  std::string_view description() const override {
    return "a fusion reads, instead of recomputing, values the computation already holds";
  }

  absl::StatusOr<bool> Run(Module& module) override {
    absl::flat_hash_map<const Computation*, int> callers;
    for (const auto& c : module.computations()) {
      for (const auto& inst : c->instructions()) {
        for (const Computation* called : inst->called_computations()) ++callers[called];
      }
    }
    SideEffects effects(module);
    bool changed = false;
    for (const auto& c : module.computations()) {
      if (c->is_fusion_computation()) continue;
      changed |= RunOn(module, *c, callers, effects);
    }
    return changed;
  }

 private:
  bool RunOn(Module& module, Computation& comp,
             const absl::flat_hash_map<const Computation*, int>& callers, SideEffects& effects) {
    ValueNumbers numbers;
    absl::flat_hash_map<const Instruction*, int64_t> num;
    absl::flat_hash_map<int64_t, Instruction*> held;  // number -> the outer instruction holding it
    bool changed = false;
    for (Instruction* inst : comp.PostOrder()) {
      Computation* fused = inst->opcode() == Opcode::kFusion ? inst->to_apply() : nullptr;
      auto caller_count = fused != nullptr ? callers.find(fused) : callers.end();
      if (fused == nullptr || caller_count == callers.end() || caller_count->second != 1 ||
          !fused->root()->shape().IsArray() || !inst->control_predecessors().empty()) {
        num[inst] = numbers.Fresh();
        held.try_emplace(num[inst], inst);
        continue;
      }
      // Number the fused computation, then read what is held.
      std::vector<Instruction*> order = fused->PostOrder();
      absl::flat_hash_map<const Instruction*, int64_t> inner =
          NumberInside(*inst, order, numbers, num, effects);
      absl::flat_hash_map<Instruction*, Instruction*> parameter_for;  // outer -> new parameter
      bool rewrote = false;
      for (Instruction* i : order) {
        if (i == fused->root() || !WorthReading(*i) || i->users().empty() ||
            RecomputedCheaply(*i)) {
          continue;
        }
        auto h = held.find(inner.at(i));
        if (h == held.end() || h->second->shape_ptr() != i->shape_ptr()) continue;
        Instruction*& param = parameter_for[h->second];
        // A parameter that already reads the held value, else a new one.
        for (int64_t p = 0; param == nullptr && p < inst->operand_count(); ++p) {
          if (inst->operand(p) == h->second && p < fused->parameter_count()) {
            param = fused->parameter(p);
          }
        }
        if (param == nullptr) {
          auto p = std::make_unique<Instruction>(
              Opcode::kParameter, module.UniqueName("fusion_cse_param"), h->second->shape_ptr());
          p->set_parameter_number(fused->parameter_count());
          param = fused->AddInstruction(std::move(p));
          inst->AppendOperand(h->second);
        }
        i->ReplaceAllUsesWith(param);
        rewrote = true;
      }
      if (rewrote) {
        fused->RemoveDeadInstructions();
        DropUnreadOperands(*inst, *fused);
        changed = true;
      }
      num[inst] = inner.at(fused->root());
      held.try_emplace(num[inst], inst);
    }
    return changed;
  }
};

}  // namespace

absl::flat_hash_set<const Instruction*> FusionsSharingWork(const Computation& comp,
                                                           SideEffects& effects) {
  ValueNumbers numbers;
  absl::flat_hash_map<const Instruction*, int64_t> num;
  // number -> the first fusion that computes it inside (not as its root)
  absl::flat_hash_map<int64_t, const Instruction*> made_inside;
  absl::flat_hash_set<const Instruction*> sharing;
  for (const Instruction* inst : comp.PostOrder()) {
    const Computation* fused = inst->opcode() == Opcode::kFusion ? inst->to_apply() : nullptr;
    if (fused == nullptr || fused->root() == nullptr || !fused->root()->shape().IsArray() ||
        !inst->control_predecessors().empty()) {
      num[inst] = numbers.Fresh();
      continue;
    }
    std::vector<Instruction*> order = fused->PostOrder();
    absl::flat_hash_map<const Instruction*, int64_t> inner =
        NumberInside(*inst, order, numbers, num, effects);
    absl::flat_hash_set<const Instruction*> others;
    int64_t shared = 0;  // elements
    for (const Instruction* i : order) {
      if (i == fused->root() || !WorthReading(*i) || RecomputedCheaply(*i) ||
          i->shape().ElementCount() <= 1) {
        continue;
      }
      auto it = made_inside.find(inner.at(i));
      if (it == made_inside.end()) continue;
      shared += i->shape().ElementCount();
      others.insert(it->second);
    }
    if (shared >= kMinSharedElements) {
      sharing.insert(inst);
      sharing.insert(others.begin(), others.end());
    }
    for (const Instruction* i : order) {
      if (i != fused->root() && WorthReading(*i)) made_inside.try_emplace(inner.at(i), inst);
    }
    num[inst] = inner.at(fused->root());
  }
  return sharing;
}

std::unique_ptr<Pass> CreateFusionCse() { return std::make_unique<FusionCse>(); }

}  // namespace hlo
