// Computation: a graph of instructions with parameters and a root.
#ifndef HLO_IR_COMPUTATION_H_
#define HLO_IR_COMPUTATION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "ir/instruction.h"
#include "ir/interned_string.h"
#include "ir/opcode_attributes.h"
#include "ir/slab_pool.h"

namespace hlo {

class Module;

// A computation's instructions, owned. Most computations of a large dump are
// small fused ones, whose list then lives inside the Computation object (a
// walk over them reads one object, not one more heap block each).
using InstructionList = absl::InlinedVector<std::unique_ptr<Instruction>, 8>;

// From slabs (see SlabPool): the computations made one after another, as a
// parse does, lie one after another, and a pass going through a module's
// computations reads memory in order.
class Computation : public SlabAllocated<Computation> {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Module* parent() const { return parent_; }
  void set_parent(Module* m) { parent_ = m; }
  SourceLoc loc() const { return loc_; }
  void set_loc(SourceLoc loc) { loc_ = loc; }
  bool is_entry() const;

  // Instructions in their order (the text order when parsed).
  const InstructionList& instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Takes ownership; the instruction goes at the end of the order.
  Instruction* AddInstruction(std::unique_ptr<Instruction> inst);
  // Room for n instructions (the parser knows roughly how many follow).
  void ReserveInstructions(size_t n) { instructions_.reserve(n); }
  // Removes instructions with no users that are not the root, parameters or
  // (when `keep_side_effects`) side-effecting; returns how many were removed.
  int64_t RemoveDeadInstructions(bool keep_side_effects = true);
  // Hands over every instruction, in order, leaving the computation empty
  // (no parameters, no root): for moving them into another computation.
  std::vector<std::unique_ptr<Instruction>> TakeInstructions();
  // Removes one instruction that has no users (it must not be the root).
  void RemoveInstruction(Instruction* inst);
  // Removes every instruction `dead` holds in one sweep (each must have no
  // users outside the set and not be the root); linear in the computation.
  // Duplicates and instructions of other computations in `dead` are ignored.
  // Membership is a bitmap over the instructions' addresses (InstructionMarks),
  // so the sweep reads the list of pointers, not the instructions.
  int64_t RemoveInstructions(absl::Span<Instruction* const> dead);
  int64_t RemoveInstructions(const absl::flat_hash_set<const Instruction*>& dead);
  // Removes the parameters nothing reads (no users, not the root; none in
  // a computation with control edges) and numbers the rest in their order; returns the old
  // numbers of those kept, in order: the operands a caller keeps.
  std::vector<int64_t> RemoveUnusedParameters();

  // How many instructions of `opcode` the computation holds, kept for the
  // few opcodes whose absence lets a pass skip a computation without reading
  // it (kWhile, kConditional, kCall, kTuple); -1 for the others.
  int64_t CountOf(Opcode opcode) const {
    int slot = CountedSlot(opcode);
    return slot < 0 ? -1 : counted_[slot];
  }
  // How many instructions can have side effects (MayHaveSideEffects of the
  // opcode): none means the computation has none, whatever it holds.
  int64_t MaybeEffectfulCount() const { return maybe_effectful_; }

  // Instructions added and removed since the last compaction (or since the
  // computation was built): a measure of how scattered its instructions have
  // become in memory, as removed ones leave holes and new ones fill freed
  // slots anywhere.
  int64_t churn() const { return churn_; }
  void reset_churn() { churn_ = 0; }
  // Moves every instruction to fresh memory, laid out in the stored order,
  // and rewrites the pointers to them (operands, users, control
  // predecessors, parameters, root). A walk in stored order then reads
  // memory in order. Nothing outside the computation may hold pointers to
  // its instructions across this call.
  void CompactInstructions();

  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }
  // Parameters indexed by parameter number (null for missing numbers while
  // parsing).
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  Instruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t parameter_count() const { return static_cast<int64_t>(parameters_.size()); }

  // Operands (and control predecessors) before users; instructions keep their
  // stored order where it already is one.
  std::vector<Instruction*> PostOrder() const;

  // Was this written with a `(p: shape) -> shape` signature?
  bool printed_signature() const { return printed_signature_; }
  void set_printed_signature(bool v) { printed_signature_ = v; }
  // Fusion, async and other wrapped computations are printed like the rest;
  // this marks the kind XLA would give them (`execution_thread` is kept).
  const std::string& execution_thread() const { return execution_thread_.str(); }
  void set_execution_thread(std::string_view t) { execution_thread_ = InternedString(t); }
  // Called by a fusion instruction (XLA's IsFusionComputation): set when a
  // fusion's `calls` names it, and kept. XLA runs its simplifiers (algsimp,
  // constant folding, reshape mover, transpose folding) on the other
  // computations only, leaving fused ones as the fusion pass built them.
  bool is_fusion_computation() const { return is_fusion_computation_; }
  void set_fusion_computation() { is_fusion_computation_ = true; }

 private:
  std::string name_;
  Module* parent_ = nullptr;
  InstructionList instructions_;
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  SourceLoc loc_;
  bool printed_signature_ = true;
  bool is_fusion_computation_ = false;
  InternedString execution_thread_;  // few distinct; 8 bytes, not 32
  int64_t churn_ = 0;
  static constexpr int CountedSlot(Opcode opcode) {
    return opcode == Opcode::kWhile         ? 0
           : opcode == Opcode::kConditional ? 1
           : opcode == Opcode::kCall        ? 2
           : opcode == Opcode::kTuple       ? 3
                                            : -1;
  }
  void Counted(const Instruction& inst, int delta) {
    int slot = CountedSlot(inst.opcode());
    if (slot >= 0) counted_[slot] += delta;
    if (MayHaveSideEffects(inst.opcode())) maybe_effectful_ += delta;
  }
  int32_t counted_[4] = {0, 0, 0, 0};
  int32_t maybe_effectful_ = 0;
};

}  // namespace hlo

#endif  // HLO_IR_COMPUTATION_H_
