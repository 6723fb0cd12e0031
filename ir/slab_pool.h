// Fixed-size slots carved from slabs, for the IR's most numerous objects
// (instructions and their attribute blocks: a large dump holds a million of
// each; computations: a hundred thousand fused ones). A slot costs its size and no malloc header,
// objects made together sit together in memory, and a slab's pages are faulted in with one call.
// Freed slots are reused; slabs live until the process ends. Under
// AddressSanitizer the pools step aside so use-after-free is still caught.
#ifndef HLO_IR_SLAB_POOL_H_
#define HLO_IR_SLAB_POOL_H_

#include <cstddef>
#include <cstdint>
#include <new>

namespace hlo {
namespace slab_pool_internal {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kPooled = false;
#else
inline constexpr bool kPooled = true;
#endif
#else
inline constexpr bool kPooled = true;
#endif

inline constexpr size_t kSlabBytes = size_t{256} << 10;

// A new slab of kSlabBytes, mapped (not malloc'ed) and kept for the life of
// the process.
char* NewSlab();
// Bytes of all slabs so far (malloc's statistics do not see them).
uint64_t SlabBytes();

}  // namespace slab_pool_internal

// Slots of kSlotBytes bytes, aligned to 8 (slabs are 16-aligned and slots
// follow each other).
template <size_t kSlotBytes>
class SlabPool {
 public:
  static_assert(kSlotBytes >= sizeof(void*) && kSlotBytes % alignof(void*) == 0);

  static void* Allocate() {
    if constexpr (!slab_pool_internal::kPooled) return ::operator new(kSlotBytes);
    Local& local = local_;
    if (FreeSlot* slot = local.free) {
      local.free = slot->next;
      return slot;
    }
    return AllocateFresh();
  }

  // A slot from the unused end of the current slab, never a freed one: slots
  // taken one after another lie one after another in memory (compaction
  // relies on this to lay out a computation in order).
  static void* AllocateFresh() {
    if constexpr (!slab_pool_internal::kPooled) return ::operator new(kSlotBytes);
    Local& local = local_;
    if (local.bump == local.end) {
      local.bump = slab_pool_internal::NewSlab();
      local.end = local.bump + slab_pool_internal::kSlabBytes / kSlotBytes * kSlotBytes;
    }
    void* slot = local.bump;
    local.bump += kSlotBytes;
    return slot;
  }

  static void Free(void* p) {
    if (p == nullptr) return;
    if constexpr (!slab_pool_internal::kPooled) {
      ::operator delete(p);
    } else {
      auto* slot = static_cast<FreeSlot*>(p);
      slot->next = local_.free;
      local_.free = slot;
    }
  }

 private:
  struct FreeSlot {
    FreeSlot* next;
  };
  // Per thread, so allocation takes no lock; a slot freed on another thread
  // simply joins that thread's list.
  struct Local {
    FreeSlot* free = nullptr;
    char* bump = nullptr;
    char* end = nullptr;
  };
  static inline thread_local Local local_;
};

// Gives T (a class deriving from SlabAllocated<T>) a class operator new and
// delete on SlabPool<sizeof(T)>; other sizes (a derived class) use the heap.
template <typename T>
class SlabAllocated {
 public:
  static void* operator new(size_t size) {
    if (size != sizeof(T)) return ::operator new(size);
    return SlabPool<sizeof(T)>::Allocate();
  }
  static void operator delete(void* p, size_t size) {
    if (size != sizeof(T)) return ::operator delete(p);
    SlabPool<sizeof(T)>::Free(p);
  }
};

}  // namespace hlo

#endif  // HLO_IR_SLAB_POOL_H_
