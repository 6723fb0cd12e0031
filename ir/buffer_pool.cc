#include "ir/buffer_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hlo {
namespace buffer_pool {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// A stretch of one mapping: handed out, or free. Free neighbours within a
// mapping merge, and a request takes the best-fitting free piece, split
// when it is larger, so freed space serves requests of any size as a heap's
// does (exact-size blocks served only their own size: a model's early,
// large activations stayed cached beside its later, smaller ones).
struct Piece {
  size_t size;
  uint64_t mapping;  // pieces merge only within one mmap
  bool free;
};

struct Mapping {
  uintptr_t start;
  size_t size;
};

struct Pool {
  std::mutex mu;
  std::map<uintptr_t, Piece> pieces;  // every piece, by address
  std::multimap<size_t, uintptr_t> free_by_size;
  absl::flat_hash_map<uint64_t, Mapping> mappings;
  uint64_t next_mapping = 0;
  size_t cached = 0, live_bytes = 0, peak = 0;
};

Pool& ThePool() {
  static Pool* pool = new Pool();  // never destroyed: blocks may outlive statics
  return *pool;
}

// Whole 64 KiB units: the least a piece is cut to. (Rounding a block past
// 4 MiB up to whole huge pages made its last one mostly empty yet resident:
// conv's two f32[8,56,56,64] arrays, 6.1 MiB each, took 8 MiB each.)
constexpr size_t kUnit = size_t{64} << 10;
size_t MappedSize(size_t bytes) { return (bytes + kUnit - 1) / kUnit * kUnit; }

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

void AddFree(Pool& pool, uintptr_t at, size_t size) { pool.free_by_size.emplace(size, at); }

void RemoveFree(Pool& pool, uintptr_t at, size_t size) {
  auto range = pool.free_by_size.equal_range(size);
  for (auto f = range.first; f != range.second; ++f) {
    if (f->second == at) {
      pool.free_by_size.erase(f);
      return;
    }
  }
}

using PieceIt = std::map<uintptr_t, Piece>::iterator;

// Whether `b` is a free piece that starts where `a` ends, in a's mapping.
bool FreeAfter(PieceIt a, PieceIt b) {
  return b->second.free && b->second.mapping == a->second.mapping &&
         a->first + a->second.size == b->first;
}

// Merges the free piece at `it` (not in free_by_size) with a free
// neighbour after it in the same mapping.
void MergeNext(Pool& pool, PieceIt it) {
  auto next = std::next(it);
  if (next == pool.pieces.end() || !FreeAfter(it, next)) return;
  RemoveFree(pool, next->first, next->second.size);
  it->second.size += next->second.size;
  pool.pieces.erase(next);
}

// Past kMaxCachedBytes of free pieces: unmaps free pieces that are whole
// mappings, largest first, into `evicted` (unmapped outside the lock).
void Evict(Pool& pool, std::vector<std::pair<void*, size_t>>& evicted) {
  for (auto f = pool.free_by_size.end();
       pool.cached > kMaxCachedBytes && f != pool.free_by_size.begin();) {
    --f;
    const uintptr_t at = f->second;
    auto piece = pool.pieces.find(at);
    const Mapping& m = pool.mappings.at(piece->second.mapping);
    if (m.start != at || m.size != f->first) continue;
    evicted.emplace_back(reinterpret_cast<void*>(at), m.size);
    pool.cached -= m.size;
    pool.mappings.erase(piece->second.mapping);
    pool.pieces.erase(piece);
    f = pool.free_by_size.erase(f);
  }
}

}  // namespace

void* Allocate(size_t bytes) {
  Pool& pool = ThePool();
  const size_t want = MappedSize(bytes);
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    // The smallest free piece that fits; its rest stays free.
    auto it = pool.free_by_size.lower_bound(want);
    if (it != pool.free_by_size.end()) {
      const uintptr_t at = it->second;
      const size_t size = it->first;
      pool.free_by_size.erase(it);
      Piece& piece = pool.pieces.at(at);
      piece.free = false;
      if (size > want) {
        piece.size = want;
        pool.pieces.emplace(at + want, Piece{size - want, piece.mapping, true});
        AddFree(pool, at + want, size - want);
      }
      pool.cached -= want;
      pool.live_bytes += want;
      pool.peak = std::max(pool.peak, pool.live_bytes);
      return reinterpret_cast<void*>(at);
    }
  }
  void* block = MapFresh(want);
  const uintptr_t at = reinterpret_cast<uintptr_t>(block);
  std::lock_guard<std::mutex> lock(pool.mu);
  const uint64_t mapping = pool.next_mapping++;
  pool.mappings.emplace(mapping, Mapping{at, want});
  pool.pieces.emplace(at, Piece{want, mapping, false});
  pool.live_bytes += want;
  pool.peak = std::max(pool.peak, pool.live_bytes);
  return block;
}

void Free(void* block, size_t) {
  if (block == nullptr) return;
  Pool& pool = ThePool();
  std::vector<std::pair<void*, size_t>> evicted;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    auto it = pool.pieces.find(reinterpret_cast<uintptr_t>(block));
    if (it == pool.pieces.end() || it->second.free) return;
    const size_t size = it->second.size;
    pool.live_bytes -= size;
    pool.cached += size;
    it->second.free = true;
    MergeNext(pool, it);
    if (it != pool.pieces.begin()) {
      auto prev = std::prev(it);
      if (prev->second.free && FreeAfter(prev, it)) {
        RemoveFree(pool, prev->first, prev->second.size);
        prev->second.size += it->second.size;
        pool.pieces.erase(it);
        it = prev;
      }
    }
    AddFree(pool, it->first, it->second.size);
    if (pool.cached > kMaxCachedBytes) Evict(pool, evicted);
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
