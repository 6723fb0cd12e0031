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
// 1.7e-8 against 1.1e-8 at k = 768); LibxsmmBlockedGemm sums it in blocks.
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
#include <string>

#include "eval/blas_api.h"
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

// Whether products of more than kLibxsmmMaxK terms run on libxsmm's
// kernels as k-blocks: where they are AVX-512 and OpenBLAS's are narrower.
bool BlocksPay() {
  static const bool pay = [] {
    if (!avx512::Available()) return false;
    const std::string core = blas::CoreName();
    return core != "SkylakeX" && core != "Cooperlake" && core != "SapphireRapids";
  }();
  return pay;
}

// The narrowest panel of a product in k-blocks, and the fewest rows of one
// with a transposed B.
constexpr int64_t kBlockedLeastCols = 64;
constexpr int64_t kBlockedLeastRowsTransposed = 128;

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

// The kernels of panels `cols` wide: [first block][longer block], the
// first block's writing C, later ones' a partial panel (`cols` wide); only
// those that run are made (each is JIT-compiled at its shape's first use).
struct PanelKernels {
  libxsmm_smmfunction kernel[2][2] = {};
};

bool MakePanelKernels(int64_t m, int64_t cols, int64_t k, int64_t blocks, int64_t lda, int64_t ldb,
                      int64_t ldc, PanelKernels& kernels) {
  const int64_t short_k = k / blocks;
  for (int first = 0; first < 2; ++first) {
    for (int longer = 0; longer < 2; ++longer) {
      if ((!first && blocks == 1) || (longer && k % blocks == 0)) continue;
      libxsmm_smmfunction& kernel = kernels.kernel[first][longer];
      kernel = PanelKernel(m, cols, short_k + longer, lda, ldb, first ? ldc : cols);
      if (kernel == nullptr) return false;
    }
  }
  return true;
}

// C = A op(B) in panels of `width` columns (the last one what is left), k
// in `blocks` blocks of nearly equal length: the first block's product into
// C, each later one's into a partial panel added to C.
bool PanelGemm(bool tb, int64_t m, int64_t n, int64_t k, int64_t width, int64_t blocks,
               const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  const int64_t short_k = k / blocks, longest_k = (k + blocks - 1) / blocks;
  // Both panel widths' kernels before any is run: all of C or none. A
  // transposed B goes through a panel copy, the kernels' B leading
  // dimension then the panel's width.
  const int64_t full = std::min(n, width), last = n % width;
  if (!avx512::Available() && full * k > kAvx2MostPanelTerms) return false;
  PanelKernels full_kernels, last_kernels;
  if (!MakePanelKernels(m, full, k, blocks, lda, tb ? full : ldb, ldc, full_kernels)) {
    return false;
  }
  last_kernels = full_kernels;
  if (n > width && last > 0 &&
      !MakePanelKernels(m, last, k, blocks, lda, tb ? last : ldb, ldc, last_kernels)) {
    return false;
  }
  // A transposed B is copied a block of a panel at a time.
  ScratchBuffer<float> panel, partial;
  if (tb && !panel.Reset(full * longest_k).ok()) return false;
  if (blocks > 1 && !partial.Reset(full * m).ok()) return false;
  for (int64_t j = 0; j < n; j += width) {
    const int64_t cols = std::min(full, n - j);
    const PanelKernels& kernels = cols == full ? full_kernels : last_kernels;
    for (int64_t i = 0; i < blocks; ++i) {
      const int64_t lo = k * i / blocks, hi = k * (i + 1) / blocks;
      const bool first = i == 0;
      const float* block_b = b + lo * ldb + j;
      if (tb) {
        TransposedPanel(b + lo, ldb, hi - lo, j, cols, panel.data());
        block_b = panel.data();
      }
      kernels.kernel[first][hi - lo > short_k](block_b, a + lo, first ? c + j : partial.data());
      if (first) continue;
      for (int64_t r = 0; r < m; ++r) {
        float* row = c + r * ldc + j;
        const float* add = partial.data() + r * cols;
        for (int64_t q = 0; q < cols; ++q) row[q] += add[q];
      }
    }
  }
  return true;
}

bool Fits(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc, int64_t calls) {
  return k >= 1 && m <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX && ldc <= INT_MAX &&
         static_cast<double>(m) * n * k * calls >= static_cast<double>(kLibxsmmMinProduct);
}

}  // namespace

bool LibxsmmGemm(bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls) {
  if (k > kLibxsmmMaxK || !Fits(m, n, k, lda, ldb, ldc, calls)) return false;
  return PanelGemm(tb, m, n, k, kLibxsmmPanelCols, 1, a, lda, b, ldb, c, ldc);
}

bool LibxsmmBlockedGemm(bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                        const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls) {
  // Panels narrower than kBlockedLeastCols ran slower than OpenBLAS
  // (256 x 16 x 2048: 0.30 against 0.16 ms), and so did a product whose
  // last panel was 1 wide (33 x 513 x 1100: 0.49 against 0.36), so the
  // columns go in panels of nearly equal width; and a transposed B's
  // copy, one element for every m multiply-adds, cost more than OpenBLAS's
  // whole product below kBlockedLeastRowsTransposed rows (one core:
  // 33 x 513 x 1100, 0.62 against 0.55 ms; 100 x 513 x 600 lost too).
  if (k <= kLibxsmmMaxK || n < kBlockedLeastCols || (tb && m < kBlockedLeastRowsTransposed) ||
      !Fits(m, n, k, lda, ldb, ldc, calls) || !BlocksPay()) {
    return false;
  }
  const int64_t panels = (n + kLibxsmmPanelCols - 1) / kLibxsmmPanelCols;
  return PanelGemm(tb, m, n, k, (n + panels - 1) / panels,
                   (k + kLibxsmmBlockK - 1) / kLibxsmmBlockK, a, lda, b, ldb, c, ldc);
}
#else
bool LibxsmmGemm(bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                 float*, int64_t, int64_t) {
  return false;
}
bool LibxsmmBlockedGemm(bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                        int64_t, float*, int64_t, int64_t) {
  return false;
}
#endif

}  // namespace gemm
}  // namespace hlo
