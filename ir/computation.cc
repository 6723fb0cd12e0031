#include "ir/computation.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "ir/instruction_marks.h"
#include "ir/module.h"

namespace hlo {

bool Computation::is_entry() const { return parent_ != nullptr && parent_->entry() == this; }

Instruction* Computation::AddInstruction(std::unique_ptr<Instruction> inst) {
  Instruction* raw = inst.get();
  raw->set_parent(this);
  if (raw->opcode() == Opcode::kParameter && raw->parameter_number() >= 0) {
    size_t n = static_cast<size_t>(raw->parameter_number());
    if (parameters_.size() <= n) parameters_.resize(n + 1, nullptr);
    parameters_[n] = raw;
  }
  Counted(*raw, +1);
  instructions_.push_back(std::move(inst));
  ++churn_;
  return raw;
}

std::vector<std::unique_ptr<Instruction>> Computation::TakeInstructions() {
  std::vector<std::unique_ptr<Instruction>> out;
  out.reserve(instructions_.size());
  for (auto& inst : instructions_) {
    Counted(*inst, -1);
    out.push_back(std::move(inst));
  }
  instructions_.clear();
  parameters_.clear();
  root_ = nullptr;
  churn_ += static_cast<int64_t>(out.size());
  return out;
}

void Computation::RemoveInstruction(Instruction* inst) {
  inst->DetachOperands();
  auto it = std::find_if(instructions_.begin(), instructions_.end(),
                         [&](const auto& p) { return p.get() == inst; });
  if (it != instructions_.end()) {
    Counted(*inst, -1);
    instructions_.erase(it);
    ++churn_;
  }
}

std::vector<int64_t> Computation::RemoveUnusedParameters() {
  std::vector<int64_t> kept;
  std::vector<Instruction*> dead, parameters;
  // (Control edges are kept on their successors only: a parameter may be
  // one's predecessor without a user, so such computations keep all.)
  const bool control_edges =
      std::any_of(instructions_.begin(), instructions_.end(),
                  [](const auto& inst) { return !inst->control_predecessors().empty(); });
  for (int64_t i = 0; i < parameter_count(); ++i) {
    Instruction* p = parameters_[i];
    if (!control_edges && p != nullptr && p != root_ && p->users().empty()) {
      dead.push_back(p);
      continue;
    }
    kept.push_back(i);
    parameters.push_back(p);
  }
  if (dead.empty()) return kept;
  parameters_ = std::move(parameters);
  for (size_t j = 0; j < parameters_.size(); ++j) {
    if (parameters_[j] != nullptr) parameters_[j]->set_parameter_number(static_cast<int64_t>(j));
  }
  RemoveInstructions(dead);
  return kept;
}

int64_t Computation::RemoveInstructions(const absl::flat_hash_set<const Instruction*>& dead) {
  std::vector<Instruction*> list;
  list.reserve(dead.size());
  for (const Instruction* d : dead) list.push_back(const_cast<Instruction*>(d));
  return RemoveInstructions(list);
}

int64_t Computation::RemoveInstructions(absl::Span<Instruction* const> dead) {
  if (dead.empty()) return 0;
  InstructionMarks gone(*this);
  for (Instruction* d : dead) {
    if (d != nullptr && d->parent() == this) gone.insert(d);
  }
  // Each surviving operand's user list is filtered once (detaching one dead
  // user at a time would be quadratic in a constant's many users).
  InstructionMarks touched(*this);
  std::vector<Instruction*> touched_list;
  for (Instruction* d : dead) {
    if (!gone.contains(d)) continue;  // null, or of another computation
    for (Instruction* op : d->operands()) {
      if (op != nullptr && !gone.contains(op) && touched.insert(op)) touched_list.push_back(op);
    }
    d->ClearOperands();
  }
  auto is_gone = [&](const Instruction* u) { return gone.contains(u); };
  for (Instruction* op : touched_list) op->RemoveUsers(is_gone);
  int64_t removed = 0;
  size_t out = 0;
  for (size_t i = 0; i < instructions_.size(); ++i) {
    if (gone.contains(instructions_[i].get())) {
      ++removed;
      Counted(*instructions_[i], -1);
      instructions_[i].reset();
    } else {
      if (out != i) instructions_[out] = std::move(instructions_[i]);
      ++out;
    }
  }
  instructions_.resize(out);
  churn_ += removed;
  return removed;
}

void Computation::CompactInstructions() {
  churn_ = 0;
  if (instructions_.empty()) return;
  InstructionList moved;
  moved.reserve(instructions_.size());
  for (const auto& old : instructions_) moved.push_back(Instruction::RelocateFrom(*old));
  const AddressIndex<Instruction> old_position(instructions_);
  auto relocated = [&](Instruction* p) {
    int64_t i = old_position.Find(p);
    return i < 0 ? p : moved[i].get();
  };
  for (const auto& inst : moved) inst->RemapInstructions(relocated);
  for (Instruction*& p : parameters_) p = relocated(p);
  root_ = relocated(root_);
  instructions_.swap(moved);  // the emptied originals go with `moved`
}

int64_t Computation::RemoveDeadInstructions(bool keep_side_effects) {
  int64_t removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    absl::flat_hash_set<const Instruction*> control_preds;
    for (const auto& inst : instructions_) {
      for (Instruction* p : inst->control_predecessors()) control_preds.insert(p);
    }
    InstructionList kept;
    kept.reserve(instructions_.size());
    for (auto& inst : instructions_) {
      bool dead = inst->users().empty() && inst.get() != root_ &&
                  inst->opcode() != Opcode::kParameter && !control_preds.contains(inst.get()) &&
                  inst->control_predecessors().empty() &&
                  !(keep_side_effects && HasSideEffect(inst->opcode()));
      if (dead) {
        Counted(*inst, -1);
        inst->DetachOperands();
        ++removed;
        changed = true;
      } else {
        kept.push_back(std::move(inst));
      }
    }
    instructions_ = std::move(kept);
  }
  churn_ += removed;
  return removed;
}

std::vector<Instruction*> Computation::PostOrder() const {
  // Iterative DFS; instructions already in a valid order come out unchanged.
  std::vector<Instruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const Instruction*> visited;
  visited.reserve(instructions_.size());
  std::vector<std::pair<Instruction*, size_t>> stack;
  for (const auto& start : instructions_) {
    if (visited.contains(start.get())) continue;
    stack.push_back({start.get(), 0});
    visited.insert(start.get());
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      size_t n_ops = inst->operands().size();
      auto preds = inst->control_predecessors();
      if (next < n_ops + preds.size()) {
        Instruction* dep = next < n_ops ? inst->operand(next) : preds[next - n_ops];
        ++next;
        if (dep->parent() == this && visited.insert(dep).second) {
          stack.push_back({dep, 0});
        }
        continue;
      }
      order.push_back(inst);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace hlo
