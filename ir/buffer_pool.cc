#include "ir/buffer_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hlo {
namespace buffer_pool {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

struct Pool {
  std::mutex mu;
  // Free blocks by mapped size, and their ages (oldest first) for eviction.
  std::multimap<size_t, void*> free_by_size;
  std::list<std::pair<void*, size_t>> free_by_age;
  // Mapped size of every block handed out.
  absl::flat_hash_map<void*, size_t> live;
  size_t cached = 0, live_bytes = 0, peak = 0;
};

Pool& ThePool() {
  static Pool* pool = new Pool();  // never destroyed: blocks may outlive statics
  return *pool;
}

size_t MappedSize(size_t bytes) {
  // Whole 64 KiB units. (Rounding a block past 4 MiB up to whole huge pages
  // made its last one mostly empty yet resident: conv's two f32[8,56,56,64]
  // arrays, 6.1 MiB each, took 8 MiB each.)
  constexpr size_t kUnit = size_t{64} << 10;
  return (bytes + kUnit - 1) / kUnit * kUnit;
}

void* MapFresh(size_t size) {
  if (size < 2 * kHugePage) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
  }
  // Past 4 MiB: a start on a huge-page boundary (mapped one huge page
  // longer, then trimmed), so that every whole 2 MiB stretch of the block
  // can be a huge page (first touch about 5x faster where the kernel grants
  // them) and only the tail is small pages.
  void* raw =
      mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (begin + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > begin) munmap(raw, aligned - begin);
  const uintptr_t end = begin + size + kHugePage;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - aligned - size);
  void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

void RemoveFromAge(Pool& pool, void* block) {
  for (auto it = pool.free_by_age.begin(); it != pool.free_by_age.end(); ++it) {
    if (it->first == block) {
      pool.free_by_age.erase(it);
      return;
    }
  }
}

}  // namespace

void* Allocate(size_t bytes) {
  Pool& pool = ThePool();
  const size_t want = MappedSize(bytes);
  void* block = nullptr;
  size_t size = want;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    // The smallest free block that fits, if it wastes at most a quarter.
    auto it = pool.free_by_size.lower_bound(want);
    if (it != pool.free_by_size.end() && it->first <= want + want / 4) {
      block = it->second;
      size = it->first;
      pool.free_by_size.erase(it);
      RemoveFromAge(pool, block);
      pool.cached -= size;
    }
  }
  if (block == nullptr) block = MapFresh(size);
  std::lock_guard<std::mutex> lock(pool.mu);
  pool.live.emplace(block, size);
  pool.live_bytes += size;
  pool.peak = std::max(pool.peak, pool.live_bytes);
  return block;
}

void Free(void* block, size_t) {
  if (block == nullptr) return;
  Pool& pool = ThePool();
  std::vector<std::pair<void*, size_t>> evicted;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    auto it = pool.live.find(block);
    if (it == pool.live.end()) return;
    const size_t size = it->second;
    pool.live.erase(it);
    pool.live_bytes -= size;
    pool.free_by_size.emplace(size, block);
    pool.free_by_age.emplace_back(block, size);
    pool.cached += size;
    while (pool.cached > kMaxCachedBytes && !pool.free_by_age.empty()) {
      auto [old, old_size] = pool.free_by_age.front();
      pool.free_by_age.pop_front();
      auto range = pool.free_by_size.equal_range(old_size);
      for (auto f = range.first; f != range.second; ++f) {
        if (f->second == old) {
          pool.free_by_size.erase(f);
          break;
        }
      }
      pool.cached -= old_size;
      evicted.emplace_back(old, old_size);
    }
  }
  for (auto [p, size] : evicted) munmap(p, size);
}

size_t CachedBytes() {
  std::lock_guard<std::mutex> lock(ThePool().mu);
  return ThePool().cached;
}

size_t LiveBytes() {
  std::lock_guard<std::mutex> lock(ThePool().mu);
  return ThePool().live_bytes;
}

size_t PeakLiveBytes() {
  std::lock_guard<std::mutex> lock(ThePool().mu);
  return ThePool().peak;
}

void ResetPeak() {
  std::lock_guard<std::mutex> lock(ThePool().mu);
  ThePool().peak = ThePool().live_bytes;
}

}  // namespace buffer_pool
}  // namespace hlo
