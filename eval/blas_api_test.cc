#include "eval/blas_api.h"

#include <strings.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

#include "eval/blas_kernel_choice.h"

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

// OpenBLAS picks its kernels by CPU model; on a model newer than the build
// it falls back to Prescott's SSE3 kernels, which the open replaces with
// the widest set the CPU runs (unless OPENBLAS_CORETYPE says otherwise).
TEST_CASE("OpenBLAS keeps no Prescott fallback on a CPU with wider kernels", "[blas]") {
  const char* wider = blas::WidestKernelSet();
  const char* core = blas::CoreName();  // opens it
  INFO("OpenBLAS runs " << core << ", the CPU runs " << (wider ? wider : "no wider set"));
  if (wider != nullptr && std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    CHECK(strcasecmp(core, "Prescott") != 0);
  }
  if (blas::KernelsWidened()) CHECK(strcasecmp(core, wider) == 0);
}

}  // namespace
}  // namespace hlo
