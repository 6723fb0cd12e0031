// Dead-code helpers shared by the passes: which instructions may be removed
// when unused, and linear removal of dead instructions (use counts and a
// worklist, never a rescan of the whole computation per removal).
#ifndef HLO_PASSES_DEAD_CODE_H_
#define HLO_PASSES_DEAD_CODE_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/computation.h"
#include "ir/instruction_marks.h"

namespace hlo {

// Effects beyond the result (rng, infeed/outfeed, send/recv, collectives,
// custom-calls marked custom_call_has_side_effect=true, ...): such
// instructions are never removed or merged.
bool IsSideEffecting(const Instruction& inst);

// IsSideEffecting, also looking into the computations an instruction calls
// (a call of a computation holding an outfeed has effects). Each computation
// is examined once per cache.
class SideEffects {
 public:
  SideEffects() = default;
  // For answers over a whole module (a pass run): the known computations
  // are kept in bitmaps over the module's computations rather than a hash
  // map probed at random.
  explicit SideEffects(const Module& module)
      : known_(std::in_place, module), effects_(std::in_place, module) {}

  bool Of(const Instruction& inst);
  // Records what a pass found while reading every instruction of `comp`
  // (whether Of was true for one), unless already known: a later call of
  // `comp` then need not read it again.
  void Note(const Computation& comp, bool effects);

 private:
  bool OfComputation(const Computation& comp);
  // The cached answer, if any (a computation being examined counts as
  // without effects, which stops a cycle).
  std::optional<bool> Known(const Computation& comp) const;
  void Set(const Computation& comp, bool effects);
  absl::flat_hash_map<const Computation*, bool> cache_;
  std::optional<ComputationMarks> known_, effects_;
};

// Instructions named by a control-predecessors attribute, or holding one:
// passes leave them alone (removing them would leave a dangling edge).
absl::flat_hash_set<const Instruction*> ControlRelated(const Computation& comp);

// Dead instructions found by FindDeadFrom: a list, and a bitmap to ask.
struct DeadInstructions {
  explicit DeadInstructions(const Computation& comp) : marks(comp) {}
  bool contains(const Instruction* inst) const { return marks.contains(inst); }
  bool empty() const { return list.empty(); }
  InstructionMarks marks;
  std::vector<Instruction*> list;
};

// The instructions of `candidates` that are dead (as RemoveDeadFrom finds
// them), without removing them.
DeadInstructions FindDeadFrom(const Computation& comp, const std::vector<Instruction*>& candidates,
                              const absl::flat_hash_set<const Instruction*>* control = nullptr);

// Removes the instructions of `candidates` that are dead (no users, not the
// root, not a parameter, not side-effecting, not control-related), then the
// operands that become dead in turn. Returns how many were removed.
// `control`, when given, is ControlRelated(comp) already known; otherwise it
// is built only when a candidate gets as far as needing it (a walk over the
// computation that a pass finding nothing to remove should not pay).
int64_t RemoveDeadFrom(Computation& comp, const std::vector<Instruction*>& candidates,
                       const absl::flat_hash_set<const Instruction*>* control = nullptr);

// Removes `replaced` (instructions whose uses were all replaced: inlined
// calls, defused fusions), then those of `operands` (theirs) that became
// dead, the replaced aside.
void RemoveReplaced(Computation& comp, const absl::flat_hash_set<const Instruction*>& replaced,
                    std::vector<Instruction*> operands);

// Removes every dead instruction of the computation.
int64_t RemoveAllDead(Computation& comp);

}  // namespace hlo

#endif  // HLO_PASSES_DEAD_CODE_H_
