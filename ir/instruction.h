// Instruction: one HLO operation, its operands, attributes and users.
#ifndef HLO_IR_INSTRUCTION_H_
#define HLO_IR_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "ir/attribute.h"
#include "ir/attribute_list.h"
#include "ir/compact_string.h"
#include "ir/literal.h"
#include "ir/opcode.h"
#include "ir/shape.h"
#include "ir/slab_pool.h"

namespace hlo {

class Computation;

// A place in the source text (1-based; 0 when built by a pass).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

// From a slab pool: instructions are the most numerous objects of the IR.
class Instruction : public SlabAllocated<Instruction> {
 public:
  Instruction(Opcode opcode, std::string_view name, const Shape* shape)
      : opcode_(opcode), shape_(shape), name_(name) {}
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  Opcode opcode() const { return opcode_; }
  std::string_view name() const { return name_.view(); }
  void set_name(std::string_view name) { name_ = name; }
  const Shape& shape() const { return *shape_; }
  const Shape* shape_ptr() const { return shape_; }
  void set_shape(const Shape* shape) { shape_ = shape; }
  Computation* parent() const { return parent_; }
  void set_parent(Computation* c) { parent_ = c; }
  SourceLoc loc() const { return loc_; }
  void set_loc(SourceLoc loc) { loc_ = loc; }
  bool is_root() const;

  // Operands and users. Users are unique and kept in insertion order.
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  absl::Span<Instruction* const> operands() const { return operands_; }
  absl::Span<Instruction* const> users() const { return users_; }
  void AppendOperand(Instruction* operand);
  void ReplaceOperand(int64_t i, Instruction* new_operand);
  // Removes this instruction from its operands' user lists and drops the
  // operands (before deleting it).
  void DetachOperands();
  // Makes every user of this instruction use `other` instead (and moves the
  // root of the parent if this was it). Linear in the users' operands.
  void ReplaceAllUsesWith(Instruction* other);
  // Batch removal (Computation::RemoveInstructions): drops the users in
  // `gone` in one pass, and drops operands without touching their users.
  void RemoveUsers(absl::FunctionRef<bool(const Instruction*)> gone);
  void ClearOperands() { operands_.clear(); }

  // For compaction (Computation::CompactInstructions): a new instruction in
  // a fresh slab slot that takes every field of `from`, which is left with
  // no operands, users, attributes or literal, ready to be deleted.
  static std::unique_ptr<Instruction> RelocateFrom(Instruction& from);
  // Rewrites every instruction pointer this instruction holds: operands,
  // users and control predecessors.
  void RemapInstructions(absl::FunctionRef<Instruction*(Instruction*)> map);

  // Async ops written in XLA's sugared form (`custom-call-start`): the
  // opcode is kAsyncStart/Update/Done and this is the wrapped opcode.
  bool has_wrapped_opcode() const { return has_wrapped_; }
  Opcode wrapped_opcode() const { return wrapped_; }
  void set_wrapped_opcode(Opcode op) {
    wrapped_ = op;
    has_wrapped_ = true;
  }
  // The text name: `add`, or `custom-call-start` for a sugared async op.
  std::string OpcodeText() const;

  // Parameter number for kParameter, the tuple index for get-tuple-element
  // is an attribute (`index`).
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = static_cast<int32_t>(n); }

  // The literal of a constant (null when elided and not yet filled).
  const Literal* literal() const { return literal_ ? literal_->get() : nullptr; }
  void set_literal(std::shared_ptr<const Literal> lit) {
    literal_ =
        lit ? std::make_unique<const std::shared_ptr<const Literal>>(std::move(lit)) : nullptr;
  }
  bool literal_elided() const { return literal_elided_; }
  // A constant whose value is known (not elided and still unfilled).
  bool IsKnownConstant() const { return opcode_ == Opcode::kConstant && literal() != nullptr; }
  void set_literal_elided(bool elided) { literal_elided_ = elided; }

  // Attributes in their written order.
  absl::Span<const Attribute> attributes() const { return attrs_.span(); }
  const Attribute* FindAttr(AttrKind kind) const;
  bool HasAttr(AttrKind kind) const { return FindAttr(kind) != nullptr; }
  // Sets (replacing in place, or appending) an attribute.
  void SetAttr(AttrKind kind, AttrValue value);
  void RemoveAttr(AttrKind kind);

  // Typed attribute accessors; defaults when absent.
  int64_t GetInt(AttrKind kind, int64_t default_value = 0) const;
  bool GetBool(AttrKind kind, bool default_value = false) const;
  double GetFloat(AttrKind kind, double default_value = 0) const;
  // kString and kIdent values, and backend_config's text; empty when absent.
  std::string_view GetString(AttrKind kind) const;
  // kIntList; empty when absent.
  absl::Span<const int64_t> GetInts(AttrKind kind) const;
  const Window* window() const;
  const ConvDims* conv_dims() const;
  const PaddingConfig* padding() const;
  const SliceSpec* slice() const;
  const ReplicaGroups* replica_groups() const;

  // Computations this instruction calls, in attribute order (to_apply,
  // condition, body, branches, calls, …).
  std::vector<Computation*> called_computations() const;
  // The single computation of to_apply / calls, or null.
  Computation* to_apply() const;
  // Control predecessors (from the control-predecessors attribute). Inline:
  // most instructions have none, which the flag says without a call.
  absl::Span<Instruction* const> control_predecessors() const {
    if (!has_control_predecessors_) return {};
    return ControlPredecessorsFromAttributes();
  }
  // A cheap answer from a flag bit, without reading the attribute block:
  // false means the instruction surely calls no computation (true may be
  // stale after an attribute was replaced: then look).
  bool may_call_computations() const { return has_called_computations_; }

 private:
  absl::Span<Instruction* const> ControlPredecessorsFromAttributes() const;

  // What a pass's walk reads comes first (64 bytes: opcode, flags, shape,
  // operands, users), the rest after; a million-instruction module does not
  // fit the caches, so every line a walk touches is a miss. Most
  // instructions have one user and at most two operands, which then need no
  // heap storage.
  Opcode opcode_;
  Opcode wrapped_ = Opcode::kAbs;
  bool has_wrapped_ : 1 = false;
  bool literal_elided_ : 1 = false;
  // Answers control_predecessors() and called_computations() without
  // reading the attribute block (kept by SetAttr/RemoveAttr).
  bool has_control_predecessors_ : 1 = false;
  bool has_called_computations_ : 1 = false;
  int32_t parameter_number_ = -1;
  const Shape* shape_;
  absl::InlinedVector<Instruction*, 2> operands_;
  absl::InlinedVector<Instruction*, 2> users_;
  Computation* parent_ = nullptr;
  AttributeList attrs_;
  // Shared (constants repeat); held through one pointer so that the other
  // 90-odd percent of instructions pay 8 bytes for it, not 16.
  std::unique_ptr<const std::shared_ptr<const Literal>> literal_;
  SourceLoc loc_;
  CompactString name_;
};

}  // namespace hlo

#endif  // HLO_IR_INSTRUCTION_H_
