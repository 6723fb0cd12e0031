#include "ir/instruction.h"

#include <algorithm>

#include "ir/computation.h"
#include "ir/slab_pool.h"

namespace hlo {

// RelocateFrom below moves every field: a new field must be moved there too.
static_assert(sizeof(Instruction) == 120, "update Instruction::RelocateFrom");

std::unique_ptr<Instruction> Instruction::RelocateFrom(Instruction& from) {
  // The class's operator new takes a reused slot; compaction wants the next
  // fresh one, so that relocated instructions lie in order.
  void* slot = SlabPool<sizeof(Instruction)>::AllocateFresh();
  auto* to = ::new (slot) Instruction(from.opcode_, std::string_view(), from.shape_);
  std::unique_ptr<Instruction> owned(to);
  to->wrapped_ = from.wrapped_;
  to->has_wrapped_ = from.has_wrapped_;
  to->literal_elided_ = from.literal_elided_;
  to->has_control_predecessors_ = from.has_control_predecessors_;
  to->has_called_computations_ = from.has_called_computations_;
  to->parameter_number_ = from.parameter_number_;
  to->operands_ = std::move(from.operands_);
  to->users_ = std::move(from.users_);
  from.operands_.clear();
  from.users_.clear();
  to->parent_ = from.parent_;
  to->attrs_ = std::move(from.attrs_);
  to->literal_ = std::move(from.literal_);
  to->loc_ = from.loc_;
  to->name_ = std::move(from.name_);
  return owned;
}

void Instruction::RemapInstructions(absl::FunctionRef<Instruction*(Instruction*)> map) {
  for (Instruction*& op : operands_) op = map(op);
  for (Instruction*& user : users_) user = map(user);
  if (!has_control_predecessors_) return;
  for (Attribute& a : attrs_) {
    if (auto* preds = std::get_if<std::vector<Instruction*>>(&a.value)) {
      for (Instruction*& p : *preds) p = map(p);
    }
  }
}

std::string Instruction::OpcodeText() const {
  if (!has_wrapped_) return std::string(OpcodeName(opcode_));
  std::string text(OpcodeName(wrapped_));
  text += opcode_ == Opcode::kAsyncStart    ? "-start"
          : opcode_ == Opcode::kAsyncUpdate ? "-update"
                                            : "-done";
  return text;
}

bool Instruction::is_root() const { return parent_ != nullptr && parent_->root() == this; }

// Whether `user` is among `operand`'s users. Users and operands mirror each
// other (user U is in O's users exactly when O is among U's operands), so the
// shorter list is searched: a constant with 100k users costs nothing to
// append to, nor does a tuple of 10k operands.
static bool HasUser(absl::Span<Instruction* const> users,
                    absl::Span<Instruction* const> user_operands, const Instruction* user,
                    const Instruction* operand) {
  if (users.size() <= user_operands.size()) {
    return std::find(users.begin(), users.end(), user) != users.end();
  }
  return std::find(user_operands.begin(), user_operands.end(), operand) != user_operands.end();
}

void Instruction::AppendOperand(Instruction* operand) {
  if (operand == nullptr) {  // a forward reference, resolved later
    operands_.push_back(operand);
    return;
  }
  bool known = HasUser(operand->users_, operands_, this, operand);
  operands_.push_back(operand);
  if (!known) operand->users_.push_back(this);
}

void Instruction::ReplaceOperand(int64_t i, Instruction* new_operand) {
  Instruction* old = operands_[i];
  if (old == new_operand) return;
  operands_[i] = nullptr;  // so that the searches below see the other slots
  bool known = HasUser(new_operand->users_, operands_, this, new_operand);
  operands_[i] = new_operand;
  if (old != nullptr && std::find(operands_.begin(), operands_.end(), old) == operands_.end()) {
    auto& users = old->users_;
    users.erase(std::remove(users.begin(), users.end(), this), users.end());
  }
  if (!known) new_operand->users_.push_back(this);
}

void Instruction::DetachOperands() {
  for (Instruction* op : operands_) {
    if (op == nullptr) continue;
    auto& users = op->users_;
    users.erase(std::remove(users.begin(), users.end(), this), users.end());
  }
  operands_.clear();
}

void Instruction::ReplaceAllUsesWith(Instruction* other) {
  if (other != this) {
    // Each user's operands are rewritten in place and this user list is
    // dropped at once (erasing users one by one would be quadratic).
    std::vector<Instruction*> users(users_.begin(), users_.end());
    users_.clear();
    for (Instruction* user : users) {
      bool had_other = false;
      for (Instruction*& op : user->operands_) {
        if (op == other) had_other = true;
        if (op == this) op = other;
      }
      if (!had_other) other->users_.push_back(user);
    }
  }
  if (parent_ && parent_->root() == this) parent_->set_root(other);
}

void Instruction::RemoveUsers(absl::FunctionRef<bool(const Instruction*)> gone) {
  users_.erase(
      std::remove_if(users_.begin(), users_.end(), [&](const Instruction* u) { return gone(u); }),
      users_.end());
}

const Attribute* Instruction::FindAttr(AttrKind kind) const {
  for (const Attribute& a : attrs_.span()) {
    if (a.kind == kind) return &a;
  }
  return nullptr;
}

void Instruction::SetAttr(AttrKind kind, AttrValue value) {
  if (kind == AttrKind::kControlPredecessors) has_control_predecessors_ = true;
  if (auto* callees = std::get_if<std::vector<Computation*>>(&value)) {
    has_called_computations_ = true;
    // A fusion's computation, also where `fusion-start` wraps the fusion.
    if (opcode_ == Opcode::kFusion ||
        (opcode_ == Opcode::kAsyncStart && has_wrapped_ && wrapped_ == Opcode::kFusion)) {
      for (Computation* c : *callees) {
        if (c != nullptr) c->set_fusion_computation();
      }
    }
  }
  for (Attribute& a : attrs_) {
    if (a.kind == kind) {
      a.value = std::move(value);
      return;
    }
  }
  attrs_.push_back(Attribute{kind, std::move(value)});
}

void Instruction::RemoveAttr(AttrKind kind) {
  attrs_.Erase(kind);
  if (kind == AttrKind::kControlPredecessors) has_control_predecessors_ = false;
  has_called_computations_ = false;
  for (const Attribute& a : attrs_.span()) {
    if (std::holds_alternative<std::vector<Computation*>>(a.value)) {
      has_called_computations_ = true;
    }
  }
}

int64_t Instruction::GetInt(AttrKind kind, int64_t default_value) const {
  const Attribute* a = FindAttr(kind);
  if (!a) return default_value;
  if (auto* v = std::get_if<int64_t>(&a->value)) return *v;
  return default_value;
}

bool Instruction::GetBool(AttrKind kind, bool default_value) const {
  const Attribute* a = FindAttr(kind);
  if (!a) return default_value;
  if (auto* v = std::get_if<bool>(&a->value)) return *v;
  return default_value;
}

double Instruction::GetFloat(AttrKind kind, double default_value) const {
  const Attribute* a = FindAttr(kind);
  if (!a) return default_value;
  if (auto* v = std::get_if<double>(&a->value)) return *v;
  return default_value;
}

std::string_view Instruction::GetString(AttrKind kind) const {
  const Attribute* a = FindAttr(kind);
  if (!a) return {};
  if (auto* v = std::get_if<InternedString>(&a->value)) return *v;
  if (auto* c = std::get_if<std::shared_ptr<const BackendConfig>>(&a->value)) {
    if (*c) return (*c)->text;
  }
  return {};
}

absl::Span<const int64_t> Instruction::GetInts(AttrKind kind) const {
  const Attribute* a = FindAttr(kind);
  if (!a) return {};
  if (auto* v = std::get_if<std::vector<int64_t>>(&a->value)) return *v;
  return {};
}

namespace {
template <typename T>
const T* GetShared(const Instruction& inst, AttrKind kind) {
  const Attribute* a = inst.FindAttr(kind);
  if (!a) return nullptr;
  if (auto* v = std::get_if<std::shared_ptr<const T>>(&a->value)) return v->get();
  return nullptr;
}
}  // namespace

const Window* Instruction::window() const { return GetShared<Window>(*this, AttrKind::kWindow); }
const ConvDims* Instruction::conv_dims() const {
  return GetShared<ConvDims>(*this, AttrKind::kDimLabels);
}
const PaddingConfig* Instruction::padding() const {
  return GetShared<PaddingConfig>(*this, AttrKind::kPadding);
}
const SliceSpec* Instruction::slice() const {
  return GetShared<SliceSpec>(*this, AttrKind::kSlice);
}
const ReplicaGroups* Instruction::replica_groups() const {
  return GetShared<ReplicaGroups>(*this, AttrKind::kReplicaGroups);
}

std::vector<Computation*> Instruction::called_computations() const {
  std::vector<Computation*> out;
  if (!has_called_computations_) return out;
  for (const Attribute& a : attrs_.span()) {
    if (auto* v = std::get_if<std::vector<Computation*>>(&a.value)) {
      out.insert(out.end(), v->begin(), v->end());
    }
  }
  return out;
}

Computation* Instruction::to_apply() const {
  if (!has_called_computations_) return nullptr;
  for (AttrKind k : {AttrKind::kToApply, AttrKind::kCalls}) {
    const Attribute* a = FindAttr(k);
    if (!a) continue;
    auto* v = std::get_if<std::vector<Computation*>>(&a->value);
    if (v && v->size() == 1) return (*v)[0];
  }
  return nullptr;
}

absl::Span<Instruction* const> Instruction::ControlPredecessorsFromAttributes() const {
  const Attribute* a = FindAttr(AttrKind::kControlPredecessors);
  if (!a) return {};
  if (auto* v = std::get_if<std::vector<Instruction*>>(&a->value)) return *v;
  return {};
}

}  // namespace hlo
