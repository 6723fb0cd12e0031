// Large array buffers kept mapped between uses.
//
// On the virtual machines people run this on, the kernel zero-fills a fresh
// 4 KiB page at about 1.5 GB/s: a program that allocates a 64 MiB result,
// frees it and allocates another pays 40 ms of page faults each time, more
// than the arithmetic. glibc's malloc maps blocks past 32 MiB afresh every
// time (its mmap threshold cannot go higher), so Literal's storage comes
// from here for blocks of kMinPooledBytes and more: a freed block goes back
// to the pool, and a later request takes the smallest free piece that fits,
// pages already mapped, split when it is larger; free neighbours within a
// mapping merge again. So freed space serves requests of any size, as a
// heap's does. (When a free block served only requests within a quarter of
// its size, ResNet-50's early activations stayed cached while its later,
// smaller ones grew the heap: peak data 1.43x the live arrays on XLA's
// optimised text, 1.35x with pieces.) Pieces are whole 64 KiB units; fresh
// blocks past 4 MiB start on a huge-page boundary with transparent huge
// pages asked for (first touch about 5x faster where the kernel grants
// them), their tail small pages. The pool keeps at most kMaxCachedBytes of
// free pieces; past that, free whole mappings are unmapped, largest first.
// It starts at 4 MiB, where huge pages pay: smaller arrays come from
// malloc's heap. (From 1 MiB, with pieces, a training step's arrays per MPI
// rank took 1.24x their live set against 1.11x; without pieces, 1.28x.)
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

inline constexpr size_t kMinPooledBytes = size_t{4} << 20;
inline constexpr size_t kMaxCachedBytes = size_t{4} << 30;

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
