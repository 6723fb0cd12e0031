// Memory handed to OpenBLAS ends in kLapackSlackBytes of the allocation's
// own (eval/linalg/lapack_memory.h): its Haswell ?gemv_n kernels read up to
// 16 bytes past a matrix. malloc_usable_size counts what the allocator
// gave (glibc rounds a request up by less than 24 bytes, so without the
// slack the sizes below fail); under AddressSanitizer a read of the slack
// is checked as well.
#include "eval/linalg/lapack_memory.h"

#include <malloc.h>

#include <catch2/catch.hpp>
#include <complex>
#include <cstddef>
#include <cstdint>

namespace hlo::lapack {
namespace {

template <typename T>
void CheckSlack(size_t n) {
  Memory<T> v(n);
  REQUIRE(v.size() == n);
  const size_t used = n * sizeof(T);
  CHECK(malloc_usable_size(v.data()) >= used + kLapackSlackBytes);
  // Read every byte of the slack (AddressSanitizer reports one outside).
  const volatile unsigned char* bytes = reinterpret_cast<const unsigned char*>(v.data());
  unsigned sum = 0;
  for (size_t i = used; i < used + kLapackSlackBytes; ++i) sum += bytes[i];
  (void)sum;
}

TEST_CASE("LAPACK memory ends in slack for a kernel's load past its end", "[lapack_memory]") {
  // The matrices of valgrind's reports (4x3 and 3x5 c64, 4x3 c128) and
  // sizes around them; 1 element of each width.
  for (size_t n : {1, 3, 12, 15, 24, 30, 97}) {
    CheckSlack<std::complex<float>>(n);
    CheckSlack<std::complex<double>>(n);
    CheckSlack<float>(n);
    CheckSlack<double>(n);
    CheckSlack<int32_t>(n);
  }
}

TEST_CASE("LAPACK memory behaves as a vector of its elements", "[lapack_memory]") {
  Memory<std::complex<double>> v(5);
  for (const auto& x : v) CHECK(x == std::complex<double>(0, 0));  // value-initialised
  v.assign({1.0, 2.0, 3.0});
  v.push_back(4.0);
  const Memory<std::complex<double>> copy = v;
  CHECK(copy.size() == 4);
  CHECK(copy[3] == std::complex<double>(4, 0));
  CHECK(copy == v);
}

}  // namespace
}  // namespace hlo::lapack
