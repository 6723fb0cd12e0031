#include "ir/instruction_pool.h"

#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include "ir/instruction.h"

namespace hlo {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

// Slots follow each other in the slab, and sizeof is a multiple of alignof.
constexpr size_t kSlotBytes = sizeof(Instruction);
static_assert(alignof(Instruction) <= alignof(std::max_align_t));
constexpr size_t kSlabBytes = size_t{256} << 10;
constexpr size_t kSlotsPerSlab = kSlabBytes / kSlotBytes;

struct FreeSlot {
  FreeSlot* next;
};

// Per thread, so allocation takes no lock; a slot freed on another thread
// simply joins that thread's list.
thread_local FreeSlot* free_slots = nullptr;
thread_local char* bump = nullptr;
thread_local char* bump_end = nullptr;

// Every slab, so leak checkers see them reachable.
std::mutex slabs_mutex;
std::vector<void*>* slabs = nullptr;

char* NewSlab() {
  const size_t bytes = kSlotsPerSlab * kSlotBytes;
  void* slab = ::operator new(bytes);
#ifdef MADV_POPULATE_WRITE
  // Fault the slab's pages in with one call rather than one fault per page
  // as instructions are constructed (a hint: older kernels refuse it).
  const uintptr_t page = 4096;
  const uintptr_t first = (reinterpret_cast<uintptr_t>(slab) + page - 1) & ~(page - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(slab) + bytes) & ~(page - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#endif
  std::lock_guard<std::mutex> lock(slabs_mutex);
  if (slabs == nullptr) slabs = new std::vector<void*>;
  slabs->push_back(slab);
  return static_cast<char*>(slab);
}

}  // namespace

void* AllocateInstructionSlot(size_t size) {
  if (!kPooled || size > kSlotBytes) return ::operator new(size);
  if (FreeSlot* slot = free_slots) {
    free_slots = slot->next;
    return slot;
  }
  if (bump == bump_end) {
    bump = NewSlab();
    bump_end = bump + kSlotsPerSlab * kSlotBytes;
  }
  void* slot = bump;
  bump += kSlotBytes;
  return slot;
}

void FreeInstructionSlot(void* slot, size_t size) {
  if (slot == nullptr) return;
  if (!kPooled || size > kSlotBytes) {
    ::operator delete(slot);
    return;
  }
  auto* free_slot = static_cast<FreeSlot*>(slot);
  free_slot->next = free_slots;
  free_slots = free_slot;
}

}  // namespace hlo
