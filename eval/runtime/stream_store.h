// Non-temporal (streaming) stores for results much larger than the caches.
//
// An ordinary store first reads the destination's cache line from memory
// (read for ownership), so writing a result that will not stay in cache
// moves its bytes twice. A streaming store writes whole lines without that
// read. Measured on this project's 2-core EPYC VM, negating an f32[4096,4096]
// (64 MiB in, 64 MiB out) on two threads: 4.9-5.5 ms with plain stores,
// 3.4-3.7 ms streaming. Below kStreamStoreBytes a result is usually a
// recycled buffer still in cache and about to be read, and plain stores are
// faster (eval/kernels/data_copy.cc measured 1.5-2x at 16 MiB).
#ifndef HLO_EVAL_RUNTIME_STREAM_STORE_H_
#define HLO_EVAL_RUNTIME_STREAM_STORE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo {

// Results of at least this many bytes in all may be written with streaming
// stores (32 MiB: the last-level cache of the machines measured, and
// glibc's largest mmap threshold, so such a result is rarely warm).
inline constexpr int64_t kStreamStoreBytes = int64_t{32} << 20;

// memcpy(dst, src, bytes), the 16-byte aligned part of dst written with
// streaming stores. Call StreamStoreFence() before another thread reads dst.
inline void StreamCopy(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  for (; bytes >= 16; bytes -= 16, d += 16, s += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(d),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  }
  std::memcpy(d, s, bytes);
#else
  std::memcpy(dst, src, bytes);
#endif
}

// Stores a value of a vector type (sizeof a multiple of 16, GCC/Clang
// vector extensions) at `dst`, 16-byte aligned, with streaming stores. SSE2's,
// 16 bytes each, so that it compiles in a function of any target: where the
// vector is an AVX-512 register the quarters are extracted first, still
// cheaper than a plain store's read for ownership.
template <typename V>
inline void StreamVector(void* dst, const V& value) {
  static_assert(sizeof(V) % 16 == 0, "whole 16-byte pieces");
#if defined(__SSE2__)
  for (size_t q = 0; q < sizeof(V) / 16; ++q) {
    __m128i part;
    std::memcpy(&part, reinterpret_cast<const char*>(&value) + 16 * q, 16);
    _mm_stream_si128(reinterpret_cast<__m128i*>(static_cast<char*>(dst) + 16 * q), part);
  }
#else
  std::memcpy(dst, &value, sizeof(V));
#endif
}

// Orders this thread's streaming stores before its later stores (the
// signal that hands the result to another thread).
inline void StreamStoreFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_STREAM_STORE_H_
