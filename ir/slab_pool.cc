#include "ir/slab_pool.h"

#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace hlo {
namespace slab_pool_internal {
namespace {

// Every slab, so leak checkers see them reachable.
std::mutex slabs_mutex;
std::vector<void*>* slabs = nullptr;

}  // namespace

char* NewSlab() {
  void* slab = ::operator new(kSlabBytes);
#ifdef MADV_POPULATE_WRITE
  // Fault the slab's pages in with one call rather than one fault per 4 KB
  // as objects are constructed (a hint: older kernels refuse it).
  const uintptr_t page = 4096;
  const uintptr_t first = (reinterpret_cast<uintptr_t>(slab) + page - 1) & ~(page - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(slab) + kSlabBytes) & ~(page - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#endif
  std::lock_guard<std::mutex> lock(slabs_mutex);
  if (slabs == nullptr) slabs = new std::vector<void*>;
  slabs->push_back(slab);
  return static_cast<char*>(slab);
}

}  // namespace slab_pool_internal
}  // namespace hlo
