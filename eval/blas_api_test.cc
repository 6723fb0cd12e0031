#include "eval/blas_api.h"

#include <catch2/catch.hpp>
#include <vector>

namespace hlo {
namespace {

// The count asked for holds whether OpenBLAS opened before the request or
// after it (the request is then applied as it opens), and 0 gives back its
// own default.
TEST_CASE("OpenBLAS's thread count holds across its lazy open", "[blas]") {
  blas::SetThreads(1);
  CHECK(blas::Threads() == 1);
  CHECK(blas::CoreName()[0] != '\0');  // opens it
  CHECK(blas::Threads() == 1);
  blas::SetThreads(0);
  const int default_count = blas::Threads();
  CHECK(default_count >= 1);
  blas::StopThreads();
  CHECK(blas::Threads() == default_count);
}

TEST_CASE("CBLAS calls reach OpenBLAS through the looked-up pointers", "[blas]") {
  // [[1, 2], [3, 4]] x [[5, 6], [7, 8]] = [[19, 22], [43, 50]].
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<float> c(4, -1);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2,
              0.0f, c.data(), 2);
  CHECK(c == std::vector<float>{19, 22, 43, 50});
}

}  // namespace
}  // namespace hlo
