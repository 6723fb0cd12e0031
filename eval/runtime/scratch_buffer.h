// Uninitialised scratch memory for the dot and convolution kernels (packed
// operands, im2col blocks, Winograd transforms, canonical copies).
//
// std::vector zero-fills its elements, and on the virtual machines this runs
// on a fresh page costs a kernel zero-fill besides (about 1.5 GB/s, see
// ir/buffer_pool.h): an 8 MB im2col block cost more to allocate than its
// gemm. Blocks of ir/buffer_pool's size and more come from that pool (pages
// kept mapped between calls); smaller ones from operator new. Nothing is
// initialised: every user writes what it reads.
#ifndef HLO_EVAL_RUNTIME_SCRATCH_BUFFER_H_
#define HLO_EVAL_RUNTIME_SCRATCH_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "absl/status/status.h"
#include "ir/buffer_pool.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {

// Scratch blocks of this size and more come from the pool too. (Winograd's
// blocks, 256-263 KiB each, came from malloc, and conv's heap grew by 2.6 MB
// over its first four runs, holding freed blocks it did not reuse; the pool
// hands the same blocks back every run.)
inline constexpr size_t kMinPooledScratchBytes = size_t{64} << 10;

template <typename T>
class ScratchBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "scratch holds plain numbers");

 public:
  ScratchBuffer() = default;
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ScratchBuffer(ScratchBuffer&& o) noexcept : data_(o.data_), bytes_(o.bytes_) {
    o.data_ = nullptr;
    o.bytes_ = 0;
  }
  ScratchBuffer& operator=(ScratchBuffer&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = o.data_;
      bytes_ = o.bytes_;
      o.data_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  ~ScratchBuffer() { Release(); }

  // Room for n elements (uninitialised; earlier contents are dropped), or
  // an error when n is negative or too large to allocate.
  absl::Status Reset(int64_t n) {
    Release();
    if (n < 0 || n > kMaxLiteralBytes / static_cast<int64_t>(sizeof(T))) {
      return absl::ResourceExhaustedError(
          StrCat("a scratch buffer of ", n, " elements is too large"));
    }
    const size_t bytes = static_cast<size_t>(n > 0 ? n : 1) * sizeof(T);
    try {
      data_ = static_cast<T*>(Pooled(bytes) ? buffer_pool::Allocate(bytes)
                                            : ::operator new (bytes, std::align_val_t{64}));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(StrCat("cannot allocate ", bytes, " bytes"));
    }
    bytes_ = bytes;
    return absl::OkStatus();
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }

 private:
  static bool Pooled(size_t bytes) {
    return buffer_pool::Enabled() && bytes >= kMinPooledScratchBytes;
  }
  void Release() {
    if (data_ == nullptr) return;
    if (Pooled(bytes_)) {
      buffer_pool::Free(data_, bytes_);
    } else {
      ::operator delete (data_, std::align_val_t{64});
    }
    data_ = nullptr;
    bytes_ = 0;
  }

  T* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_SCRATCH_BUFFER_H_
