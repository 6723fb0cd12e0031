#include "ir/slab_pool.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <new>

namespace hlo {
namespace slab_pool_internal {
namespace {

// Bytes mapped for slabs (memory reports add them to malloc's figures).
std::atomic<uint64_t> slab_bytes{0};

}  // namespace

char* NewSlab() {
  // Mapped directly rather than malloc'ed: malloc serves 256 KB from its heap
  // or from separate mappings depending on its history (its mmap threshold
  // moves), and a computation whose instructions sit in both lies across
  // terabytes of addresses, which defeats the address bitmaps of
  // ir/instruction_marks.h. Mappings are placed next to each other. Later
  // slabs' pages are faulted in with the mapping (MAP_POPULATE), not one
  // fault per 4 KB as objects are constructed; the process's first slabs
  // are not: a small module (each slot size and thread has its own slab)
  // would otherwise hold a resident megabyte for a few instructions, a
  // quarter of what hlo-run --bench measured beside gemm's 12 MB of buffers.
  constexpr uint64_t kLazySlabBytes = 8 * kSlabBytes;
  const int flags = slab_bytes.load(std::memory_order_relaxed) < kLazySlabBytes
                        ? MAP_PRIVATE | MAP_ANONYMOUS
                        : MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
  void* slab = mmap(nullptr, kSlabBytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (slab == MAP_FAILED) throw std::bad_alloc();
  slab_bytes.fetch_add(kSlabBytes, std::memory_order_relaxed);
  return static_cast<char*>(slab);
}

uint64_t SlabBytes() { return slab_bytes.load(std::memory_order_relaxed); }

}  // namespace slab_pool_internal
}  // namespace hlo
