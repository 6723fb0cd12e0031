#include "ir/buffer_pool.h"

#include <sys/mman.h>
#include <sys/resource.h>

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

// The arena: one reservation of address space (no access, so neither memory
// nor commit charge), whose front [base, base + top) is read-write and cut
// into pieces. Its pieces are one mapping, so any free neighbours merge, and
// a request that no free piece fits extends the front, taking a free last
// piece along. (With a mapping per request, free pieces of neighbouring
// mappings never merged: a GPT-2 training step's pool mapped 1.16x its
// peak of live blocks; as one arena, 1.03x in a replay of its requests.)
// Requests past the reservation get mappings of their own.
struct Arena {
  uintptr_t base = 0;
  size_t reserved = 0;
  size_t top = 0;
};
constexpr uint64_t kArenaMapping = 0;

}  // namespace

struct PiecePool::State {
  std::mutex mu;
  std::map<uintptr_t, Piece> pieces;  // every piece, by address
  std::multimap<size_t, uintptr_t> free_by_size;
  absl::flat_hash_map<uint64_t, Mapping> mappings;  // those past the arena
  uint64_t next_mapping = kArenaMapping + 1;
  Arena arena;
  size_t cached = 0, live_bytes = 0, peak = 0;
  size_t max_cached = kMaxCachedBytes;
};

namespace {

using Pool = PiecePool::State;

// Address space the process's arena reserves: far more than any run holds
// (its untouched part costs nothing), far less than a 47-bit address space.
constexpr size_t kProcessArenaBytes = size_t{1} << 40;

// Reserves the arena, on a huge-page boundary. Not where the address space
// is limited (ulimit -v), where a reservation this size would count
// against the limit: there every request gets a mapping of its own.
Arena ReserveArena(size_t bytes) {
  struct rlimit limit {};
  if (bytes == 0) return {};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY) return {};
  void* raw = mmap(nullptr, bytes + kHugePage, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return {};
  const uintptr_t begin = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (begin + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > begin) munmap(raw, aligned - begin);
  const uintptr_t end = begin + bytes + kHugePage;
  if (end > aligned + bytes)
    munmap(reinterpret_cast<void*>(aligned + bytes), end - aligned - bytes);
  void* base = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(base, bytes, MADV_HUGEPAGE);  // whole 2 MiB stretches as huge pages
#endif
  return Arena{aligned, bytes, 0};
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

// Gives the arena's free last piece, if any, back to the reservation
// (pages and commit charge go; the addresses stay reserved).
void TrimArena(Pool& pool) {
  Arena& arena = pool.arena;
  auto last = pool.pieces.lower_bound(arena.base + arena.top);
  if (last == pool.pieces.begin()) return;
  --last;
  if (last->second.mapping != kArenaMapping || !last->second.free) return;
  const size_t size = last->second.size;
  mmap(reinterpret_cast<void*>(last->first), size, PROT_NONE,
       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  RemoveFree(pool, last->first, size);
  pool.cached -= size;
  arena.top -= size;
  pool.pieces.erase(last);
}

// Past kMaxCachedBytes of free pieces: trims the arena, then unmaps free
// pieces that are whole mappings, largest first, into `evicted` (unmapped
// outside the lock).
void Evict(Pool& pool, std::vector<std::pair<void*, size_t>>& evicted) {
  TrimArena(pool);
  for (auto f = pool.free_by_size.end();
       pool.cached > pool.max_cached && f != pool.free_by_size.begin();) {
    --f;
    const uintptr_t at = f->second;
    auto piece = pool.pieces.find(at);
    if (piece->second.mapping == kArenaMapping) continue;
    const Mapping& m = pool.mappings.at(piece->second.mapping);
    if (m.start != at || m.size != f->first) continue;
    evicted.emplace_back(reinterpret_cast<void*>(at), m.size);
    pool.cached -= m.size;
    pool.mappings.erase(piece->second.mapping);
    pool.pieces.erase(piece);
    f = pool.free_by_size.erase(f);
  }
}

void CountLive(Pool& pool, size_t bytes) {
  pool.live_bytes += bytes;
  pool.peak = std::max(pool.peak, pool.live_bytes);
}

// The smallest free piece that fits `want`, its rest left free; 0 when none
// does.
uintptr_t TakeFree(Pool& pool, size_t want) {
  auto it = pool.free_by_size.lower_bound(want);
  if (it == pool.free_by_size.end()) return 0;
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
  CountLive(pool, want);
  return at;
}

// A piece of `want` at the arena's front: its free last piece, if any,
// grown by fresh pages. 0 when the reservation cannot hold it.
uintptr_t ExtendArena(Pool& pool, size_t want) {
  Arena& arena = pool.arena;
  if (arena.reserved == 0) return 0;
  uintptr_t at = arena.base + arena.top;
  size_t have = 0;
  auto after = pool.pieces.lower_bound(at);
  if (after != pool.pieces.begin()) {
    auto last = std::prev(after);
    if (last->second.mapping == kArenaMapping && last->second.free) {
      at = last->first;
      have = last->second.size;
    }
  }
  const size_t grow = want - have;
  if (grow > arena.reserved - arena.top) return 0;
  if (mprotect(reinterpret_cast<void*>(arena.base + arena.top), grow, PROT_READ | PROT_WRITE) !=
      0) {
    return 0;
  }
  arena.top += grow;
  if (have > 0) {
    RemoveFree(pool, at, have);
    pool.cached -= have;
    Piece& piece = pool.pieces.at(at);
    piece.size = want;
    piece.free = false;
  } else {
    pool.pieces.emplace(at, Piece{want, kArenaMapping, false});
  }
  CountLive(pool, want);
  return at;
}

}  // namespace

PiecePool::PiecePool(size_t arena_bytes) : state_(new State()) {
  state_->arena = ReserveArena(MappedSize(arena_bytes));
}

PiecePool::~PiecePool() {
  for (const auto& [id, m] : state_->mappings) munmap(reinterpret_cast<void*>(m.start), m.size);
  if (state_->arena.reserved > 0) {
    munmap(reinterpret_cast<void*>(state_->arena.base), state_->arena.reserved);
  }
  delete state_;
}

void* PiecePool::Allocate(size_t bytes) {
  Pool& pool = *state_;
  const size_t want = MappedSize(bytes);
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    if (uintptr_t at = TakeFree(pool, want)) return reinterpret_cast<void*>(at);
    if (uintptr_t at = ExtendArena(pool, want)) return reinterpret_cast<void*>(at);
  }
  void* block = MapFresh(want);
  const uintptr_t at = reinterpret_cast<uintptr_t>(block);
  std::lock_guard<std::mutex> lock(pool.mu);
  const uint64_t mapping = pool.next_mapping++;
  pool.mappings.emplace(mapping, Mapping{at, want});
  pool.pieces.emplace(at, Piece{want, mapping, false});
  CountLive(pool, want);
  return block;
}

void PiecePool::Free(void* block) {
  if (block == nullptr) return;
  Pool& pool = *state_;
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
    if (pool.cached > pool.max_cached) Evict(pool, evicted);
  }
  for (auto [p, size] : evicted) munmap(p, size);
}

size_t PiecePool::CachedBytes() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->cached;
}

size_t PiecePool::LiveBytes() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->live_bytes;
}

size_t PiecePool::PeakLiveBytes() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->peak;
}

void PiecePool::ResetPeak() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->peak = state_->live_bytes;
}

size_t PiecePool::ArenaBytes() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->arena.top;
}

void PiecePool::SetMaxCachedBytes(size_t bytes) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->max_cached = bytes;
}

namespace {

PiecePool& ProcessPool() {
  // Never destroyed: blocks may outlive statics. No reservation where the
  // pool is off (AddressSanitizer's own mappings need the address space).
  static PiecePool* pool = new PiecePool(Enabled() ? kProcessArenaBytes : 0);
  return *pool;
}

}  // namespace

void* Allocate(size_t bytes) { return ProcessPool().Allocate(bytes); }
void Free(void* block, size_t) { ProcessPool().Free(block); }
size_t CachedBytes() { return ProcessPool().CachedBytes(); }
size_t LiveBytes() { return ProcessPool().LiveBytes(); }
size_t PeakLiveBytes() { return ProcessPool().PeakLiveBytes(); }
void ResetPeak() { ProcessPool().ResetPeak(); }

}  // namespace buffer_pool
}  // namespace hlo
