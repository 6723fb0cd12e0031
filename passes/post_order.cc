#include "passes/post_order.h"

#include <utility>

#include "ir/instruction_marks.h"

namespace hlo {
namespace {

// A depth-first search frame: the instruction, its control predecessors
// (read once) and the next dependency to look at.
struct Frame {
  Instruction* inst;
  absl::Span<Instruction* const> preds;
  size_t next;
};

class ModuleOrder {
 public:
  ModuleOrder(const Module& module, absl::FunctionRef<void(const Instruction&)> visit)
      : visited_(module), visit_(visit) {
    order_.reserve(module.computations().size());
  }

  // Callees first (in attribute order, as Instruction::called_computations
  // lists them), then `c`. The depth is that of the call graph.
  void Visit(Computation* c) {
    if (!visited_.insert(c)) return;
    for (const auto& inst : c->instructions()) {
      visit_(*inst);
      if (!inst->may_call_computations()) continue;  // no read of the attribute block
      for (const Attribute& a : inst->attributes()) {
        auto* callees = std::get_if<std::vector<Computation*>>(&a.value);
        if (callees == nullptr) continue;
        for (Computation* callee : *callees) {
          if (callee != nullptr) Visit(callee);
        }
      }
    }
    order_.push_back(c);
  }

  std::vector<Computation*> Take() { return std::move(order_); }

 private:
  ComputationMarks visited_;
  absl::FunctionRef<void(const Instruction&)> visit_;
  std::vector<Computation*> order_;
};

}  // namespace

bool HasCallees(const Instruction& inst) {
  if (!inst.may_call_computations()) return false;
  for (const Attribute& a : inst.attributes()) {
    if (std::holds_alternative<std::vector<Computation*>>(a.value)) return true;
  }
  return false;
}

std::vector<Computation*> ModulePostOrderOf(const Module& module,
                                            absl::FunctionRef<void(const Instruction&)> visit) {
  ModuleOrder order(module, visit);
  for (const auto& c : module.computations()) {
    if (c.get() != module.entry()) order.Visit(c.get());
  }
  if (module.entry()) order.Visit(module.entry());
  return order.Take();
}

std::vector<Instruction*> PostOrderOf(const Computation& comp,
                                      absl::flat_hash_set<const Instruction*>* control,
                                      std::vector<bool>* calls) {
  std::vector<Instruction*> order;
  order.reserve(comp.instructions().size());
  if (calls != nullptr) {
    calls->clear();
    calls->reserve(comp.instructions().size());
  }
  auto emit = [&](Instruction* inst) {
    order.push_back(inst);
    if (calls != nullptr) calls->push_back(HasCallees(*inst));
  };
  InstructionMarks visited(comp);
  // Whether every dependency of `inst` in this computation is already placed.
  // The bitmap first: a placed dependency needs no read of its parent (a
  // line of another instruction).
  auto ready = [&](const Instruction* inst, absl::Span<Instruction* const> preds) {
    for (const Instruction* dep : inst->operands()) {
      if (!visited.contains(dep) && dep->parent() == &comp) return false;
    }
    for (const Instruction* dep : preds) {
      if (!visited.contains(dep) && dep->parent() == &comp) return false;
    }
    return true;
  };
  std::vector<Frame> stack;
  for (const auto& owned : comp.instructions()) {
    Instruction* start = owned.get();
    absl::Span<Instruction* const> start_preds = start->control_predecessors();
    if (control != nullptr && !start_preds.empty()) {
      control->insert(start);
      control->insert(start_preds.begin(), start_preds.end());
    }
    if (visited.contains(start)) continue;
    // The common case: the stored order is already a post order here.
    if (ready(start, start_preds)) {
      visited.insert(start);
      emit(start);
      continue;
    }
    visited.insert(start);
    stack.push_back({start, start_preds, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      size_t n_ops = f.inst->operands().size();
      if (f.next < n_ops + f.preds.size()) {
        Instruction* dep = f.next < n_ops ? f.inst->operand(f.next) : f.preds[f.next - n_ops];
        ++f.next;
        if (dep->parent() == &comp && visited.insert(dep)) {
          stack.push_back({dep, dep->control_predecessors(), 0});
        }
        continue;
      }
      emit(f.inst);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace hlo
