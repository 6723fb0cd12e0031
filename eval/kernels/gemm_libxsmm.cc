// libxsmm's JIT kernels for short f32 products (see gemm_libxsmm.h).
//
// Measured on one Zen 4 core (scripts/bench-gemm): ResNet-50's pointwise
// and stem convolutions, GPT-2's attention-times-values and other products
// with k <= 256 ran at 111-117 GFLOP/s against OpenBLAS's 88-100, with the
// same bits on those shapes. A wider B (16384 columns at k = 256) fell to
// half of OpenBLAS's speed, and a longer k summed in one chain is less
// accurate than OpenBLAS's k blocks (mean relative error 1.7e-8 against
// 1.1e-8 at k = 768), so both stay on OpenBLAS.
#include "eval/kernels/gemm_libxsmm.h"

#ifdef HLO_HAVE_LIBXSMM
#include <libxsmm.h>

#include <climits>
#endif

namespace hlo {
namespace gemm {

#ifdef HLO_HAVE_LIBXSMM
bool LibxsmmGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t ldb, float* c, int64_t ldc) {
  if (k < 1 || k > kLibxsmmMaxK || n * k > kLibxsmmMaxB || m > INT_MAX || lda > INT_MAX ||
      ldb > INT_MAX || ldc > INT_MAX) {
    return false;
  }
  // libxsmm is column-major: C^T (n x m) = B^T (n x k) A^T (k x m), so its
  // first operand is our B. beta = 0: C is written, never read.
  const libxsmm_blasint xm = n, xn = m, xk = k, xlda = ldb, xldb = lda, xldc = ldc;
  const float alpha = 1, beta = 0;
  const int flags = LIBXSMM_GEMM_FLAG_NONE;
  // A lookup in libxsmm's registry (the kernel is made once per shape).
  const libxsmm_smmfunction kernel =
      libxsmm_smmdispatch(xm, xn, xk, &xlda, &xldb, &xldc, &alpha, &beta, &flags, nullptr);
  if (kernel == nullptr) return false;
  kernel(b, a, c);
  return true;
}
#else
bool LibxsmmGemm(int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*,
                 int64_t) {
  return false;
}
#endif

}  // namespace gemm
}  // namespace hlo
