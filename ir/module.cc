#include "ir/module.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "ir/strings.h"

namespace hlo {

Computation* Module::AddComputation(std::unique_ptr<Computation> computation) {
  Computation* raw = computation.get();
  raw->set_parent(this);
  computations_.push_back(std::move(computation));
  return raw;
}

std::vector<std::unique_ptr<Computation>> Module::TakeComputations() {
  entry_ = nullptr;
  std::vector<std::unique_ptr<Computation>> out;
  out.swap(computations_);
  return out;
}

Computation* Module::FindComputation(std::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

const ModuleAttr* Module::FindHeaderAttr(std::string_view name) const {
  for (const ModuleAttr& a : header_attrs_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::vector<Computation*> Module::PostOrder() const {
  std::vector<Computation*> order;
  absl::flat_hash_set<const Computation*> visited;
  // Callee depth is bounded by the module's computation count; recursion is
  // fine because a cycle is stopped by `visited`.
  std::function<void(Computation*)> visit = [&](Computation* c) {
    if (!visited.insert(c).second) return;
    for (const auto& inst : c->instructions()) {
      for (Computation* callee : inst->called_computations()) visit(callee);
    }
    order.push_back(c);
  };
  for (const auto& c : computations_) {
    if (c.get() != entry_) visit(c.get());
  }
  if (entry_) visit(entry_);
  return order;
}

int64_t Module::RemoveUnreachableComputations() {
  absl::flat_hash_set<const Computation*> reachable;
  std::vector<Computation*> work;
  if (entry_) work.push_back(entry_);
  while (!work.empty()) {
    Computation* c = work.back();
    work.pop_back();
    if (!reachable.insert(c).second) continue;
    for (const auto& inst : c->instructions()) {
      for (Computation* callee : inst->called_computations()) work.push_back(callee);
    }
  }
  return RemoveComputationsExcept([&](const Computation* c) { return reachable.contains(c); });
}

int64_t Module::RemoveComputationsExcept(absl::FunctionRef<bool(const Computation*)> keep) {
  int64_t removed = 0;
  std::vector<std::unique_ptr<Computation>> kept;
  kept.reserve(computations_.size());
  for (auto& c : computations_) {
    if (c.get() == entry_ || keep(c.get())) {
      kept.push_back(std::move(c));
    } else {
      ++removed;
    }
  }
  computations_ = std::move(kept);
  return removed;
}

int64_t Module::CompactScatteredComputations() {
  // About 1 MB of instructions, a core's L2 cache here: below that the
  // instructions stay cached however scattered, above it a walk reads memory
  // and its order matters. Moving costs about 400 machine instructions an
  // HLO instruction (callgrind), a few percent of one -O pipeline.
  constexpr int64_t kMinInstructions = int64_t{1} << 13;
  int64_t compacted = 0;
  for (const auto& c : computations_) {
    int64_t n = c->instruction_count();
    if (n >= kMinInstructions && 2 * c->churn() >= n) {
      c->CompactInstructions();
      ++compacted;
    }
  }
  return compacted;
}

void Module::ResetChurn() {
  for (const auto& c : computations_) c->reset_churn();
}

void Module::NoteName(std::string_view name) {
  // Only a canonical decimal suffix (what UniqueName writes) can collide;
  // one of more than 18 digits is beyond any N this counter reaches.
  size_t digits = 0;
  while (digits < name.size() && name[name.size() - 1 - digits] >= '0' &&
         name[name.size() - 1 - digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || digits > 18 || digits == name.size() ||
      name[name.size() - 1 - digits] != '.') {
    return;
  }
  int64_t n = 0;
  for (char c : name.substr(name.size() - digits)) n = n * 10 + (c - '0');
  next_unique_ = std::max(next_unique_, n + 1);
}

std::string Module::UniqueName(std::string_view prefix) {
  if (!names_noted_) {
    for (const auto& c : computations_) {
      for (const auto& inst : c->instructions()) NoteName(inst->name());
    }
    names_noted_ = true;
  }
  return StrCat(prefix, ".", next_unique_++);
}

}  // namespace hlo
