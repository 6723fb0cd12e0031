// Memory handed to OpenBLAS's LAPACK and BLAS: a std::vector whose
// allocation runs kLapackSlackBytes past its last element.
//
// OpenBLAS's vector kernels may load past the end of an operand: Debian's
// 0.3.21 Haswell cgemv_n and zgemv_n (a microkernel the Zen, SkylakeX and
// Cooperlake sets build too) read 8-16 bytes beyond the matrix that ?larf
// hands them from ?gebd2, ?gelq2 and ?ungl2, and zhemv_U beyond ?sytrd's
// (valgrind, gesdd of 4x3 and 3x5 matrices). Mostly the bytes past a
// heap block are mapped and the loaded lanes unused, but under
// AddressSanitizer a block can end a mapping: CI's eval fuzzer died with
// SEGV in cgemv_n_HASWELL on a gesdd seed. With the slack the loads stay
// inside the allocation, whatever the allocator.
#ifndef HLO_EVAL_LINALG_LAPACK_MEMORY_H_
#define HLO_EVAL_LINALG_LAPACK_MEMORY_H_

#include <cstddef>
#include <new>
#include <vector>

namespace hlo::lapack {

// One AVX-512 vector: a kernel's load that starts at a valid element ends
// at most this far past the last.
inline constexpr size_t kLapackSlackBytes = 64;

template <typename T>
struct SlackAllocator {
  using value_type = T;

  SlackAllocator() = default;
  template <typename U>
  SlackAllocator(const SlackAllocator<U>&) {}  // NOLINT: rebinding converts implicitly

  T* allocate(size_t n) {
    if (n > (static_cast<size_t>(-1) - kLapackSlackBytes) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(::operator new(n * sizeof(T) + kLapackSlackBytes));
  }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p); }

  template <typename U>
  bool operator==(const SlackAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const SlackAllocator<U>&) const {
    return false;
  }
};

template <typename T>
using Memory = std::vector<T, SlackAllocator<T>>;

}  // namespace hlo::lapack

#endif  // HLO_EVAL_LINALG_LAPACK_MEMORY_H_
