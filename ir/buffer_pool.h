// Large array buffers kept mapped between uses.
//
// On the virtual machines people run this on, the kernel zero-fills a fresh
// 4 KiB page at about 1.5 GB/s: a program that allocates a 64 MiB result,
// frees it and allocates another pays 40 ms of page faults each time, more
// than the arithmetic. glibc's malloc maps blocks past 32 MiB afresh every
// time (its mmap threshold cannot go higher), so Literal's storage comes
// from here for blocks of kMinPooledBytes and more: a freed block goes back
// to the pool, and a later request takes the smallest free piece that fits,
// pages already mapped, split when it is larger; free neighbours merge
// again. So freed space serves requests of any size, as a heap's does.
// (When a free block served only requests within a quarter of its size,
// ResNet-50's early activations stayed cached while its later, smaller ones
// grew the heap: peak data 1.43x the live arrays on XLA's optimised text.)
//
// The pieces are cut from one arena: a large reservation of address space
// whose front is made read-write as it is needed, so every pair of free
// neighbours merges, and a request no free piece fits extends the front,
// taking a free last piece along. (With a mapping per request, neighbours
// in different mappings never merged: 1.16x a GPT-2 training step's live
// pool blocks; and arrays below 4 MiB had to stay in malloc's heap, whose
// peak came at another time than the pool's, so the two peaks added up:
// ResNet-50 on XLA's optimised text held 1.36x its live arrays, 1.10x now
// that the arena takes blocks from 256 KiB.) Pieces are whole 64 KiB units
// (at most a quarter more than asked, from 256 KiB); the arena starts on a
// huge-page boundary with transparent huge pages asked for (first touch
// about 5x faster where the kernel grants them). Where the address space is
// limited (ulimit -v) or the reservation is spent, a request gets a
// mapping of its own, as before. The pool keeps at most kMaxCachedBytes of
// free pieces; past that, the arena's free last piece goes back to the
// reservation and free whole mappings are unmapped, largest first.
#ifndef HLO_IR_BUFFER_POOL_H_
#define HLO_IR_BUFFER_POOL_H_

#include <cstddef>
#include <cstdint>

namespace hlo {
namespace buffer_pool {

// Off under AddressSanitizer, whose checks need malloc's blocks.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool Enabled() { return false; }
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool Enabled() { return false; }
#else
constexpr bool Enabled() { return true; }
#endif
#else
constexpr bool Enabled() { return true; }
#endif

inline constexpr size_t kMinPooledBytes = size_t{256} << 10;
inline constexpr size_t kMaxCachedBytes = size_t{4} << 30;

// One pool. The process has one, behind the functions below; tests make
// their own with a small reservation.
class PiecePool {
 public:
  // `arena_bytes`: address space to reserve (rounded to 64 KiB units);
  // 0 for none, every block its own mapping.
  explicit PiecePool(size_t arena_bytes);
  ~PiecePool();  // unmaps every block, handed out or not
  PiecePool(const PiecePool&) = delete;
  PiecePool& operator=(const PiecePool&) = delete;

  // A block of at least `bytes` (> 0), 64-byte aligned; throws
  // std::bad_alloc when the system has no memory, as operator new does.
  void* Allocate(size_t bytes);
  // Returns a block from Allocate to the pool (nullptr: nothing).
  void Free(void* block);
  // Bytes of free pieces, of pieces handed out, and the highest of the
  // latter since the last ResetPeak().
  size_t CachedBytes();
  size_t LiveBytes();
  size_t PeakLiveBytes();
  void ResetPeak();
  // Bytes of the arena's read-write front (0 without an arena).
  size_t ArenaBytes();
  // Past this many cached bytes, free pieces are given back (tests lower it).
  void SetMaxCachedBytes(size_t bytes);

  struct State;

 private:
  State* state_;
};

// A block of at least `bytes` (>= kMinPooledBytes), 64-byte aligned; throws
// std::bad_alloc when the system has no memory, as operator new does.
void* Allocate(size_t bytes);
// Returns a block from Allocate(bytes) (the same `bytes`) to the pool.
void Free(void* block, size_t bytes);

// Bytes of free blocks the pool holds, and of blocks handed out (tests,
// hlo-run --bench's memory report).
size_t CachedBytes();
size_t LiveBytes();
// Highest LiveBytes() since the last ResetPeak().
size_t PeakLiveBytes();
void ResetPeak();

}  // namespace buffer_pool
}  // namespace hlo

#endif  // HLO_IR_BUFFER_POOL_H_
