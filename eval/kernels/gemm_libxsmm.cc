// libxsmm's JIT kernels for short f32 products (see gemm_libxsmm.h).
//
// Measured on one Zen 4 core (scripts/bench-gemm): ResNet-50's pointwise
// and stem convolutions, GPT-2's attention-times-values and other products
// with k <= 256 ran at 111-117 GFLOP/s against OpenBLAS's 88-100, with the
// same bits on those shapes. Whole, a wide B fell to half of OpenBLAS's
// speed (16384 columns at k = 256: 23-34 against 58-66 GFLOP/s); in panels
// of 256 columns it runs 62-76 there and 100-103 at 8192 columns and k = 64
// (OpenBLAS 73-84), the narrower products unchanged. A longer k summed in
// one chain is less accurate than OpenBLAS's k blocks (mean relative error
// 1.7e-8 against 1.1e-8 at k = 768), and summed as blocks over tiles it ran
// slower than OpenBLAS, so those stay on OpenBLAS.
//
// Without AVX-512 (one Zen 3 core, AVX2 kernels, medians of 30 interleaved
// calls) libxsmm wins only while a panel's B fits about in L1: 3136 x 64 x
// 64 ran 96 against OpenBLAS's 67 GFLOP/s, 64 x 147 (ResNet-50's stem) 60
// against 53, 128 x 64 and 32 x 256 74-79 against 54-56; from 64 x 256 on
// it ties or loses, down to 34 against 81 GFLOP/s for 196 x 1024 x 256 (a
// pointwise convolution). So there a panel takes at most kAvx2MostPanelTerms.
#include "eval/kernels/gemm_libxsmm.h"

#ifdef HLO_HAVE_LIBXSMM
#include <libxsmm.h>

#include <algorithm>
#include <climits>

#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/transpose_4x4.h"
#include "eval/runtime/scratch_buffer.h"
#endif

namespace hlo {
namespace gemm {

#ifdef HLO_HAVE_LIBXSMM
namespace {

// The kernel of a panel of `cols` columns (libxsmm is column-major:
// C^T (cols x m) = B^T (cols x k) A^T (k x m), so its first operand is
// our B; beta = 0: C is written, never read). A lookup in libxsmm's
// registry; the kernel is made once per shape.
libxsmm_smmfunction PanelKernel(int64_t m, int64_t cols, int64_t k, int64_t lda, int64_t ldb,
                                int64_t ldc) {
  const libxsmm_blasint xm = cols, xn = m, xk = k, xlda = ldb, xldb = lda, xldc = ldc;
  const float alpha = 1, beta = 0;
  const int flags = LIBXSMM_GEMM_FLAG_NONE;
  return libxsmm_smmdispatch(xm, xn, xk, &xlda, &xldb, &xldc, &alpha, &beta, &flags, nullptr);
}

// Columns x k of a panel past which AVX2-only machines stay on OpenBLAS.
constexpr int64_t kAvx2MostPanelTerms = 12288;

// Columns [j, j + cols) of op(B) = B^T (B: n x k, row-major, leading
// dimension ldb) as the k x cols row-major panel the kernels take:
// panel[p * cols + q] = b[(j + q) * ldb + p], 4x4 tiles at a time.
void TransposedPanel(const float* b, int64_t ldb, int64_t k, int64_t j, int64_t cols,
                     float* panel) {
  const float* src = b + j * ldb;
  int64_t q = 0;
#if defined(__SSE2__)
  for (; q + 4 <= cols; q += 4) {
    int64_t p = 0;
    for (; p + 4 <= k; p += 4) {
      Transpose4x4<false>(reinterpret_cast<uint32_t*>(panel + p * cols + q), cols,
                          reinterpret_cast<const uint32_t*>(src + q * ldb + p), ldb);
    }
    for (; p < k; ++p) {
      for (int64_t r = q; r < q + 4; ++r) panel[p * cols + r] = src[r * ldb + p];
    }
  }
#endif
  for (; q < cols; ++q) {
    for (int64_t p = 0; p < k; ++p) panel[p * cols + q] = src[q * ldb + p];
  }
}

}  // namespace

bool LibxsmmGemm(bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls) {
  if (k < 1 || k > kLibxsmmMaxK || m > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX ||
      static_cast<double>(m) * n * k * calls < static_cast<double>(kLibxsmmMinProduct)) {
    return false;
  }
  // Both panel widths' kernels before any is run: all of C or none. A
  // transposed B goes through a panel copy, the kernels' B leading
  // dimension then the panel's width.
  const int64_t full = std::min(n, kLibxsmmPanelCols), last = n % kLibxsmmPanelCols;
  if (!avx512::Available() && full * k > kAvx2MostPanelTerms) return false;
  const libxsmm_smmfunction full_kernel = PanelKernel(m, full, k, lda, tb ? full : ldb, ldc);
  const libxsmm_smmfunction last_kernel = n > kLibxsmmPanelCols && last > 0
                                              ? PanelKernel(m, last, k, lda, tb ? last : ldb, ldc)
                                              : full_kernel;
  if (full_kernel == nullptr || last_kernel == nullptr) return false;
  ScratchBuffer<float> panel;
  if (tb && !panel.Reset(full * k).ok()) return false;
  for (int64_t j = 0; j < n; j += kLibxsmmPanelCols) {
    const int64_t cols = std::min(full, n - j);
    const float* panel_b = b + j;
    if (tb) {
      TransposedPanel(b, ldb, k, j, cols, panel.data());
      panel_b = panel.data();
    }
    (cols == full ? full_kernel : last_kernel)(panel_b, a, c + j);
  }
  return true;
}
#else
bool LibxsmmGemm(bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                 float*, int64_t, int64_t) {
  return false;
}
#endif

}  // namespace gemm
}  // namespace hlo
