// InstructionMarks: a set of the instructions of one computation, kept as a
// bitmap over the address range the computation's instructions occupy (one
// bit per sizeof(Instruction)-sized slot), for the visited and dead sets the
// passes build per computation. A hash set of pointers scatters its probes
// over a table as large as the computation (megabytes for the 400k
// instructions of a large entry), while the instructions of a computation lie
// mostly in allocation order, so a walk in stored order touches the bitmap in
// order and it stays small (a bit or two per instruction). Pointers outside
// the range (other computations, or when the range is too sparse for a
// bitmap) go to a small hash set instead. ComputationMarks does the same for
// the computations of a module.
#ifndef HLO_IR_INSTRUCTION_MARKS_H_
#define HLO_IR_INSTRUCTION_MARKS_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "ir/computation.h"

namespace hlo {

// Distinct objects start at least sizeof(T) bytes apart, so slots of the
// largest power of two not above that size never collide.
template <typename T>
constexpr int AddressSlotShift() {
  int shift = 0;
  while ((size_t{2} << shift) <= sizeof(T)) ++shift;
  return shift;
}

// The lowest address of the objects `owned` holds (not empty) and the number
// of slots of 2^AddressSlotShift bytes from there to the highest. The range
// comes from the pointers alone: no object is read.
template <typename T>
std::pair<uintptr_t, uint64_t> AddressSlots(absl::Span<const std::unique_ptr<T>> owned) {
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (const auto& p : owned) {
    uintptr_t a = reinterpret_cast<uintptr_t>(p.get());
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  return {lo, ((hi - lo) >> AddressSlotShift<T>()) + 1};
}

template <typename T>
class AddressMarks {
 public:
  // For the objects `owned` holds (others may be inserted too).
  explicit AddressMarks(absl::Span<const std::unique_ptr<T>> owned) {
    if (owned.empty()) return;
    auto [lo, slots] = AddressSlots<T>(owned);
    // At most 64 bits per object (a hash set's slot); sparser ranges (objects
    // spread over a large heap) use the hash set only.
    if (slots > 64 * (static_cast<uint64_t>(owned.size()) + 64)) return;
    base_ = lo;
    slots_ = slots;
    bits_.assign((slots + 63) / 64, 0);
  }

  bool contains(const T* p) const {
    uint64_t slot = Slot(p);
    if (slot < slots_) return (bits_[slot >> 6] >> (slot & 63)) & 1;
    return !others_.empty() && others_.contains(p);
  }
  // True when `p` was not in the set before.
  bool insert(const T* p) {
    uint64_t slot = Slot(p);
    if (slot < slots_) {
      uint64_t& word = bits_[slot >> 6];
      uint64_t bit = uint64_t{1} << (slot & 63);
      if (word & bit) return false;
      word |= bit;
      return true;
    }
    return others_.insert(p).second;
  }

 private:
  static constexpr int kShift = AddressSlotShift<T>();

  // Out of range (a huge value) for addresses below the base.
  uint64_t Slot(const T* p) const { return (reinterpret_cast<uintptr_t>(p) - base_) >> kShift; }

  uintptr_t base_ = 0;
  uint64_t slots_ = 0;
  // Inline for the small computations (fusions) that are most of a module.
  absl::InlinedVector<uint64_t, 8> bits_;
  absl::flat_hash_set<const T*> others_;
};

// The positions of the objects a vector owns, looked up by address: a dense
// table over their address range (4 bytes a 64-byte slot), or a hash map
// when the range is too sparse for one.
template <typename T>
class AddressIndex {
 public:
  explicit AddressIndex(absl::Span<const std::unique_ptr<T>> owned) : owned_(owned) {
    if (owned.empty()) return;
    auto [lo, slots] = AddressSlots<T>(owned);
    if (slots <= 16 * (static_cast<uint64_t>(owned.size()) + 64)) {
      base_ = lo;
      positions_.assign(slots, kNone);
      for (size_t i = 0; i < owned.size(); ++i) positions_[Slot(owned[i].get())] = i;
    } else {
      sparse_.reserve(owned.size());
      for (size_t i = 0; i < owned.size(); ++i) sparse_[owned[i].get()] = i;
    }
  }

  // The position of `p` in the vector, or -1 when it holds no such object.
  int64_t Find(const T* p) const {
    if (!positions_.empty()) {
      uint64_t slot = Slot(p);
      if (slot >= positions_.size() || positions_[slot] == kNone) return -1;
      return owned_[positions_[slot]].get() == p ? positions_[slot] : -1;
    }
    auto it = sparse_.find(p);
    return it == sparse_.end() ? -1 : it->second;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr int kShift = AddressSlotShift<T>();
  uint64_t Slot(const T* p) const { return (reinterpret_cast<uintptr_t>(p) - base_) >> kShift; }

  absl::Span<const std::unique_ptr<T>> owned_;
  uintptr_t base_ = 0;
  std::vector<uint32_t> positions_;
  absl::flat_hash_map<const T*, uint32_t> sparse_;
};

class InstructionMarks : public AddressMarks<Instruction> {
 public:
  explicit InstructionMarks(const Computation& comp)
      : AddressMarks<Instruction>(comp.instructions()) {}
};

class ComputationMarks : public AddressMarks<Computation> {
 public:
  explicit ComputationMarks(const Module& module);
};

}  // namespace hlo

#endif  // HLO_IR_INSTRUCTION_MARKS_H_
