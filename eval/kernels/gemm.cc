// gemm through OpenBLAS, and the strided dot core (see eval/kernels/gemm.h).
#include "eval/kernels/gemm.h"

#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "eval/blas_api.h"
#include "eval/kernels/column_dots.h"
#include "eval/kernels/gemm_convert.h"
#include "eval/kernels/gemm_exact_int.h"
#include "eval/kernels/gemm_libxsmm.h"
#include "eval/kernels/gemm_onednn.h"
#include "eval/kernels/gemm_streamed_bt.h"
#include "eval/kernels/isa_clones.h"
#include "eval/kernels/row_dots.h"
#include "eval/kernels/strided_axes.h"
#include "eval/kernels/tiny_gemm.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/scratch_buffer.h"
#include "eval/runtime/split_chooser.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace gemm {
namespace {

// The exact (and fallback) product: wrapping for uint64, IEEE for floats.
template <typename T>
void NaiveGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* crow = c + i * ldc;
    std::fill(crow, crow + n, T(0));
    for (int64_t p = 0; p < k; ++p) {
      const T av = ta ? a[p * lda + i] : a[i * lda + p];
      if (!tb) {
        const T* brow = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) crow[j] += av * b[j * ldb + p];
      }
    }
  }
}

// NaiveGemm's plain k order for real floats with B read by rows, compiled
// for AVX-512 and AVX2 too: the row update of a small product (an RNN
// step's [4,32] x [32,32]) is a few vector ops there, against 8 SSE ones.
// The same multiplies and adds in the same order, never contracted into
// FMAs (-ffp-contract=off), so every clone gives NaiveGemm's bits. (Sums kept in registers
// across k, in fixed-width column blocks, came out scalar from GCC 12 and
// slower.)
#define HLO_ROW_MAJOR_GEMM(T, Name)                                                          \
  HLO_ISA_CLONES void Name(bool ta, int64_t m, int64_t n, int64_t k, const T* __restrict a,  \
                           int64_t lda, const T* __restrict b, int64_t ldb, T* __restrict c, \
                           int64_t ldc) {                                                    \
    for (int64_t i = 0; i < m; ++i) {                                                        \
      T* crow = c + i * ldc;                                                                 \
      for (int64_t j = 0; j < n; ++j) crow[j] = T(0);                                        \
      for (int64_t p = 0; p < k; ++p) {                                                      \
        const T av = ta ? a[p * lda + i] : a[i * lda + p];                                   \
        const T* brow = b + p * ldb;                                                         \
        for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];                             \
      }                                                                                      \
    }                                                                                        \
  }
HLO_ROW_MAJOR_GEMM(float, RowMajorGemmF32)
HLO_ROW_MAJOR_GEMM(double, RowMajorGemmF64)
#undef HLO_ROW_MAJOR_GEMM

// Real multiply-adds past which a product is split across the cores: from
// 2^21, about 20 us of one AVX-512 core, the hand-off's few microseconds
// are well paid (a small MLP's training step, whose f32[64,512] x
// [512,256] products of 2^22 a threshold of 2^22 kept on one core:
// 0.43-0.47 -> 0.34-0.38 ms).
constexpr double kThreadedProduct = double{1 << 21};

// A gemv over a matrix of at least this many bytes, on the calling thread
// only, may be split by rows across the cores: each row's dot product is
// computed the same way in either case (RowDots sums each row alone;
// OpenBLAS's row-dot gemv, used without AVX-512 or for a strided x, takes rows
// in groups of 4, then the rest one by one, and parts start at multiples
// of kGemvSplitRows, so every row keeps its group), so the results are the
// same bits. A loop's matrix then stays in the L2 caches of both cores, a
// half in each: a while loop's f32[256,256] . v took 3.4 us on one core,
// 2.0 us split where the cores were close (OpenBLAS's kernel). Where they
// were far (the VM's cores move), a split took as long as one core, so a
// SplitChooser times both ways now and then.
constexpr int64_t kGemvSplitBytes = int64_t{64} << 10;
constexpr int64_t kGemvSplitRows = 16;

// y[r * incy] = sum_c mat[r * ld + c] x[c * incx] (trans: sum_c mat[c * ld + r] x[c * incx]).
template <typename T>
void BlasGemv(bool trans, int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x,
              int64_t incx, T* y, int64_t incy) {
  const CBLAS_TRANSPOSE t = trans ? CblasTrans : CblasNoTrans;
  const auto R = static_cast<blasint>(rows), C = static_cast<blasint>(cols),
             L = static_cast<blasint>(ld), IX = static_cast<blasint>(incx),
             IY = static_cast<blasint>(incy);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemv(CblasRowMajor, t, R, C, 1.0f, mat, L, x, IX, 0.0f, y, IY);
  } else {
    cblas_dgemv(CblasRowMajor, t, R, C, 1.0, mat, L, x, IX, 0.0, y, IY);
  }
}

// BlasGemv without transpose: RowDots where x is contiguous.
template <typename T>
void RowDotsOrBlas(int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x, int64_t incx,
                   T* y, int64_t incy) {
  if (incx == 1) {
    RowDots(rows, cols, mat, ld, x, y, incy);
  } else {
    BlasGemv(false, rows, cols, mat, ld, x, incx, y, incy);
  }
}

// One part of a split RowGemv: rows [part * step, (part + 1) * step).
// (All sizes fit blasint, checked by Gemm.)
template <typename T>
struct GemvRows {
  const T* mat;
  const T* x;
  T* y;
  int32_t rows, cols, ld, incx, incy, step;
};

template <typename T>
void GemvRowsPart(const GemvRows<T>& g, int64_t part) {
  const int64_t r0 = part * g.step, r1 = std::min<int64_t>(g.rows, r0 + g.step);
  if (r0 < r1) {
    RowDotsOrBlas(r1 - r0, g.cols, g.mat + r0 * g.ld, g.ld, g.x, g.incx, g.y + r0 * g.incy, g.incy);
  }
}

// RowDotsOrBlas, its rows split across the cores where the matrix is large
// enough (split: OpenBLAS runs on the calling thread only).
template <typename T>
void RowGemv(bool split, int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x,
             int64_t incx, T* y, int64_t incy) {
  const int64_t row_bytes = cols * static_cast<int64_t>(sizeof(T));
  const int64_t cores = CoreCount();
  if (!split || cores < 2 || rows < 2 * kGemvSplitRows ||
      static_cast<double>(rows) * row_bytes < kGemvSplitBytes) {
    RowDotsOrBlas(rows, cols, mat, ld, x, incx, y, incy);
    return;
  }
  // Parts of whole kGemvSplitRows blocks, each at least half the threshold.
  const int64_t blocks = (rows + kGemvSplitRows - 1) / kGemvSplitRows;
  const int64_t min_blocks =
      std::max<int64_t>(1, kGemvSplitBytes / 2 / (kGemvSplitRows * row_bytes));
  const int64_t parts = std::max<int64_t>(1, std::min(cores, blocks / min_blocks));
  const int64_t step = (blocks + parts - 1) / parts * kGemvSplitRows;
  static SplitChooser chooser;  // one per element type
  if (chooser.SplitNow(rows * row_bytes)) {
    const auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
    ParallelParts<GemvRowsPart<T>>(parts, GemvRows<T>{mat, x, y, i32(rows), i32(cols), i32(ld),
                                                      i32(incx), i32(incy), i32(step)});
  } else {
    RowDotsOrBlas(rows, cols, mat, ld, x, incx, y, incy);
  }
}

// A product with one row or one column as one gemv (true), which reads
// the matrix once where gemm would first pack it (a 256x256 matrix times a
// vector: 10 us in sgemm, mostly packing, ~2 us in sgemv).
template <typename T>
bool Gemv(bool split, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (n == 1) {  // c[i * ldc] = sum_p A(i, p) B(p, 0)
      if (ta) {
        BlasGemv(true, k, m, a, lda, b, tb ? 1 : ldb, c, ldc);
      } else {
        RowGemv(split, m, k, a, lda, b, tb ? 1 : ldb, c, ldc);
      }
      return true;
    }
    if (m == 1) {  // c[j] = sum_p A(0, p) B(p, j)
      if (tb) {
        RowGemv(split, n, k, b, ldb, a, ta ? lda : 1, c, 1);
      } else {
        BlasGemv(true, k, n, b, ldb, a, ta ? lda : 1, c, 1);
      }
      return true;
    }
  }
  return false;
}

// A product of few results over a long contraction (a classifier's
// [8,512] x [512,10]): every result is one row dot of RowDots (lanes of
// fused multiply-adds folded as a tree), so its rounding grows with k / 16
// rather than with k, as in a BLAS kernel's single chain per result. XLA:CPU
// sums such products in vector lanes too; one chain of 512 FMAs carried
// 3.4x its error on cnn_fwd's classifier, lanes 0.6x. Rows of op(A) and
// columns of op(B) that are not contiguous in k are copied first (at most
// kLaneDotMostCopied elements; past that, false: the caller's path).
constexpr int64_t kLaneDotMostResults = 1024;
constexpr int64_t kLaneDotLeastK = 32;
constexpr int64_t kLaneDotMostCopied = int64_t{1} << 16;

// The `count` vectors of k elements that lie across `src` (element p of
// vector v at src[p * ld + v]) as rows of `rows` (k apart), or false.
// In tiles of kTile source rows: writing all `count` rows at once, element
// by element, put `count` store streams k elements apart, which share one
// L1 set when k is a multiple of 1024 (f32[4096,16]: 64K elements in 64 us,
// tiled 8 us).
template <typename T>
bool RowsOfColumns(const T* src, int64_t ld, int64_t count, int64_t k, ScratchBuffer<T>& rows) {
  if (!rows.Reset(count * k).ok()) return false;
  constexpr int64_t kTile = 64;
  for (int64_t p0 = 0; p0 < k; p0 += kTile) {
    const int64_t p1 = std::min(k, p0 + kTile);
    for (int64_t v = 0; v < count; ++v) {
      T* out = rows.data() + v * k;
      for (int64_t p = p0; p < p1; ++p) out[p] = src[p * ld + v];
    }
  }
  return true;
}

template <typename T>
bool LaneGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, T* c, int64_t ldc) {
  if (m * n > kLaneDotMostResults || k < kLaneDotLeastK) return false;
  // Row i of op(A) at arows + i * alda, column j of op(B) at bcols + j * bld,
  // each k contiguous elements (one row or column needs no copy).
  const bool copy_a = ta && !(m == 1 && lda == 1);
  const bool copy_b = !tb && !(n == 1 && ldb == 1);
  if ((copy_a ? m * k : 0) + (copy_b ? n * k : 0) > kLaneDotMostCopied) return false;
  ScratchBuffer<T> a_rows, b_cols;
  if (copy_a && !RowsOfColumns(a, lda, m, k, a_rows)) return false;
  const T* arows = copy_a ? a_rows.data() : a;
  const int64_t alda = copy_a ? k : ta ? 1 : lda;
  // Several rows against b's columns where they lie (the same sums).
  if (copy_b && m > 1 && n > 1 && ColumnDots(m, n, k, arows, alda, b, ldb, c, ldc)) return true;
  if (copy_b && !RowsOfColumns(b, ldb, n, k, b_cols)) return false;
  const T* bcols = copy_b ? b_cols.data() : b;
  const int64_t bld = copy_b ? k : tb ? ldb : 1;
  // A matrix-vector product keeps RowGemv's split across the cores (the
  // same bits: each row is summed alone).
  if (n == 1) {
    RowGemv(true, m, k, arows, alda, bcols, 1, c, ldc);
  } else if (m == 1) {
    RowGemv(true, n, k, bcols, bld, arows, 1, c, 1);
  } else {
    for (int64_t i = 0; i < m; ++i) RowDots(n, k, bcols, bld, arows + i * alda, c + i * ldc, 1);
  }
  return true;
}

bool FitsBlas(std::initializer_list<int64_t> v) {
  for (int64_t x : v) {
    if (x > INT_MAX) return false;
  }
  return true;
}

// One OpenBLAS call, C = op(A) op(B), row-major; short untransposed f32
// products on libxsmm instead, where it is faster with the same bits, and
// long f32 products on oneDNN where OpenBLAS runs narrower kernels than the
// CPU has (gemm_onednn.h), or on libxsmm in k-blocks there where they are
// too small for oneDNN (gemm_libxsmm.h).
template <typename T>
void BlasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, T* c, int64_t ldc, int64_t calls) {
  if constexpr (std::is_same_v<T, float>) {
    if (!ta && LibxsmmGemm(tb, m, n, k, a, lda, b, ldb, c, ldc, calls)) return;
    // oneDNN's sums, by a kernel of ours where B^T streams from memory.
    if (!ta && tb && OnednnSgemmRuns(m, n, k, calls) &&
        StreamedBtGemm(m, n, k, a, lda, b, ldb, c, ldc)) {
      return;
    }
    if (OnednnGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, calls)) return;
    if (!ta && LibxsmmBlockedGemm(tb, m, n, k, a, lda, b, ldb, c, ldc, calls)) return;
  }
  const CBLAS_TRANSPOSE tra = ta ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE trb = tb ? CblasTrans : CblasNoTrans;
  const blasint M = static_cast<blasint>(m), N = static_cast<blasint>(n),
                K = static_cast<blasint>(k), LA = static_cast<blasint>(lda),
                LB = static_cast<blasint>(ldb), LC = static_cast<blasint>(ldc);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, tra, trb, M, N, K, 1.0f, a, LA, b, LB, 0.0f, c, LC);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, tra, trb, M, N, K, 1.0, a, LA, b, LB, 0.0, c, LC);
  } else if constexpr (std::is_same_v<T, cfloat>) {
    const cfloat one(1, 0), zero(0, 0);
    cblas_cgemm(CblasRowMajor, tra, trb, M, N, K, &one, a, LA, b, LB, &zero, c, LC);
  } else {
    const cdouble one(1, 0), zero(0, 0);
    cblas_zgemm(CblasRowMajor, tra, trb, M, N, K, &one, a, LA, b, LB, &zero, c, LC);
  }
}

// Parts of a split product start at multiples of this many rows (columns).
constexpr int64_t kSplitUnit = 64;

// Products of few rows whose B fits the shared cache split by rows of C
// whatever the packing costs below say: at most kRowSplitMostPartRows rows
// of C a core, B at most kRowSplitMostBBytes. Each core then packs all of
// B (a B this small can come from the shared cache), and in return reads
// only its own rows of A and writes only its own rows of C, which the
// elementwise instructions around a product (bias, residual add, layer
// norm, GELU; their loops cut by rows) made and take on that same core;
// split by columns, each core read half of A from the other core's cache
// and left half of every C row there (~20 ns a line on a 2-core VM). Alone on both
// cores: GPT-2's [256,768] x [768,2304] 2.93 -> 2.81 ms, x [768,768] 0.93
// -> 0.89, though one thread on one part (scripts/bench-gemm's r/2 and /2
// rows) is faster by rows for only two of its four shapes: the gain is
// in the cores' reads, not the kernel. GPT-2 small's forward pass
// (B of 2.4-9.4 MB, m = 256): 249-252 -> 241-244 ms, its output the same
// bits (a kernel sums each element in its own k order, whichever part
// holds the element; the split follows from the shape either way). Not past
// these bounds: the LM head's B of 154 MB, streamed from memory by both
// cores, ran 67 -> 73 ms split by rows, and the shared transformer's
// [1024,512] x [512,2048] (512 rows a core) 2% slower.
constexpr int64_t kRowSplitMostPartRows = 256;
constexpr double kRowSplitMostBBytes = double{16 << 20};

// A large product split across the pool's cores, one single-threaded
// OpenBLAS call per part, instead of OpenBLAS's own threads: those spin on
// (yielding) for ~0.1 s after each call, holding a core that the pool's
// workers need for the next instructions (transformer: 51 -> 48 ms with
// OpenBLAS's spin cut short). Parts split the rows of C (few rows, B in
// the shared cache: kRowSplitMostPartRows), else whichever of rows and
// columns makes the cores pack less of A and B over again.
template <typename T>
void SplitGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T* c, int64_t ldc, int64_t calls) {
  const int64_t cores = CoreCount();
  // Each part packs its share of the split operand and all of the other.
  const double split_rows_cost = static_cast<double>(k) * n;  // all of B per core
  const double split_cols_cost = static_cast<double>(m) * k;  // all of A per core
  const bool rows_stay_local =
      m <= kRowSplitMostPartRows * cores && split_rows_cost * sizeof(T) <= kRowSplitMostBBytes;
  const bool rows = m >= 2 * kSplitUnit &&
                    (rows_stay_local || split_rows_cost <= split_cols_cost || n < 2 * kSplitUnit);
  const int64_t extent = rows ? m : n;
  const int64_t units = (extent + kSplitUnit - 1) / kSplitUnit;
  const int64_t parts = std::min(cores, units);
  SingleThreadedBlas one_thread;
  ParallelRows(parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t lo = std::min(extent, units * p / parts * kSplitUnit);
      const int64_t hi = std::min(extent, units * (p + 1) / parts * kSplitUnit);
      if (hi <= lo) continue;
      if (rows) {
        BlasGemm(ta, tb, hi - lo, n, k, ta ? a + lo : a + lo * lda, lda, b, ldb, c + lo * ldc, ldc,
                 calls * parts);
      } else {
        BlasGemm(ta, tb, m, hi - lo, k, a, lda, tb ? b + lo * ldb : b + lo, ldb, c + lo, ldc,
                 calls * parts);
      }
    }
  });
}

}  // namespace

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc, int64_t calls) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (ExactIntegerGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, calls)) return;
    NaiveGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  } else {
    // Small products run in plain k order, as XLA's reference evaluator sums
    // them (complex cancellation makes BLAS's blocked FMA order visible).
    const int64_t small = kIsComplex<T> ? (int64_t{1} << 15) : (int64_t{1} << 12);
    const bool tiny = m <= small && n <= small && k <= small && m * n * k <= small;
    if (k == 0 || tiny || !FitsBlas({m, n, k, lda, ldb, ldc})) {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        if (tb && tiny) {
          // B by rows first: the row loops then read it contiguously, in
          // the same k order (NaiveGemm gathered it with a stride: an RNN
          // gradient's [4,32] x [32,32]^T was 19% of its samples).
          thread_local std::vector<T> rows;
          rows.resize(static_cast<size_t>(k * n));
          // (rows[p * n + j] = b[j * ldb + p]: the tiled transpose.)
          data_internal::StridedCopy(sizeof(T), reinterpret_cast<uint8_t*>(rows.data()),
                                     reinterpret_cast<const uint8_t*>(b), {{k, n, 1}, {n, 1, ldb}});
          if (TinyGemmRows(ta, m, n, k, a, lda, rows.data(), n, c, ldc)) return;
          if constexpr (std::is_same_v<T, float>) {
            return RowMajorGemmF32(ta, m, n, k, a, lda, rows.data(), n, c, ldc);
          } else {
            return RowMajorGemmF64(ta, m, n, k, a, lda, rows.data(), n, c, ldc);
          }
        }
        if (!tb && TinyGemmRows(ta, m, n, k, a, lda, b, ldb, c, ldc)) return;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (!tb) return RowMajorGemmF32(ta, m, n, k, a, lda, b, ldb, c, ldc);
      } else if constexpr (std::is_same_v<T, double>) {
        if (!tb) return RowMajorGemmF64(ta, m, n, k, a, lda, b, ldb, c, ldc);
      }
      NaiveGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
      return;
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (LaneGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return;
    }
    // Every OpenBLAS call runs on its caller's thread alone, and a large
    // product is cut into parts across the cores by SplitGemm instead: the
    // bits OpenBLAS gives depend on its thread count and on how a product
    // is cut, so both follow from the product's shape alone, never from
    // what other threads do (a multi-device run's devices call this side
    // by side, and its MPI ranks must give the threaded run's bits). Only
    // the speed depends on whether the parts find the pool free.
    SingleThreadedBlas one_thread;
    const bool large = static_cast<double>(m) * n * k * (kIsComplex<T> ? 4 : 1) > kThreadedProduct;
    if (large && m > 1 && n > 1 && CoreCount() > 1 && std::max(m, n) >= 2 * kSplitUnit) {
      SplitGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, calls);
      return;
    }
    if (Gemv(true, ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return;
    BlasGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, calls);
  }
}

template void Gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t,
                          const float*, int64_t, float*, int64_t, int64_t);
template void Gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t,
                           const double*, int64_t, double*, int64_t, int64_t);
template void Gemm<cfloat>(bool, bool, int64_t, int64_t, int64_t, const cfloat*, int64_t,
                           const cfloat*, int64_t, cfloat*, int64_t, int64_t);
template void Gemm<cdouble>(bool, bool, int64_t, int64_t, int64_t, const cdouble*, int64_t,
                            const cdouble*, int64_t, cdouble*, int64_t, int64_t);
template void Gemm<uint64_t>(bool, bool, int64_t, int64_t, int64_t, const uint64_t*, int64_t,
                             const uint64_t*, int64_t, uint64_t*, int64_t, int64_t);

namespace {
std::mutex blas_threads_mutex;
int blas_threads_users = 0;
int blas_threads_saved = 1;
}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  std::lock_guard<std::mutex> lock(blas_threads_mutex);
  if (blas_threads_users++ == 0) {
    blas_threads_saved = blas::Threads();
    blas::SetThreads(1);
  }
}

SingleThreadedBlas::~SingleThreadedBlas() {
  std::lock_guard<std::mutex> lock(blas_threads_mutex);
  if (--blas_threads_users == 0) blas::SetThreads(blas_threads_saved);
}

void StopBlasThreads() {
  blas::SetThreads(1);
  blas::StopThreads();
}

void ParkBlasThreads() { blas::StopThreads(); }

// ---- the strided dot core -------------------------------------------------------

namespace {

// Batches whose product has at most this many multiply-adds go to one
// worker per core even when there are few of them (f32[16,256,64] x
// [16,64,256]: 4M each).
constexpr int64_t kSmallBatchProduct = int64_t{1} << 24;

struct Axis {
  int64_t size;
  int64_t stride;
};
using Axes = absl::InlinedVector<Axis, 6>;

// Drops size-1 axes and merges neighbours that are contiguous, so that a
// group of dims that is one strided run becomes a single axis.
Axes Merge(const Axes& in) {
  Axes out;
  for (const Axis& a : in) {
    if (a.size == 1) continue;
    if (!out.empty() && out.back().stride == a.stride * a.size) {
      out.back().size *= a.size;
      out.back().stride = a.stride;
    } else {
      out.push_back(a);
    }
  }
  return out;
}

int64_t Product(const Axes& axes) {
  int64_t p = 1;
  for (const Axis& a : axes) p *= a.size;
  return p;
}

// How a rows x cols matrix over (row axes, col axes) is handed to gemm.
struct Plan {
  bool direct = false;
  bool trans = false;
  int64_t ld = 0;
};

Plan PlanMatrix(const Axes& r, const Axes& c, int64_t rows, int64_t cols, bool allow_trans) {
  const Axes rm = Merge(r), cm = Merge(c);
  if (rm.size() > 1 || cm.size() > 1) return {};
  if (cm.empty() || cm[0].stride == 1) {
    const int64_t ld = rm.empty() ? std::max<int64_t>(1, cols) : rm[0].stride;
    if (ld >= std::max<int64_t>(1, cols)) return {true, false, ld};
  }
  if (allow_trans && (rm.empty() || rm[0].stride == 1)) {
    const int64_t ld = cm.empty() ? std::max<int64_t>(1, rows) : cm[0].stride;
    if (ld >= std::max<int64_t>(1, rows)) return {true, true, ld};
  }
  return {};
}

// Copies between a strided array and a dense row-major one over the same
// axes: to_dense packs src (strided) into dst, else scatters src (dense) into
// dst (strided). The innermost axis runs in the inner loop.
template <typename T>
void CopyStrided(T* dst, const T* src, const Axes& strided, bool to_dense) {
  const Axes a = Merge(strided);
  if (Product(a) == 0) return;
  if (a.empty()) {
    *dst = *src;
    return;
  }
  const int64_t r = static_cast<int64_t>(a.size());
  const Axis inner = a[r - 1];
  absl::InlinedVector<int64_t, 6> idx(r, 0);
  int64_t off = 0, dense = 0;
  const int64_t outer = Product(a) / inner.size;
  for (int64_t o = 0; o < outer; ++o) {
    if (to_dense) {
      if (inner.stride == 1) {
        std::memcpy(dst + dense, src + off, inner.size * sizeof(T));
      } else {
        for (int64_t i = 0; i < inner.size; ++i) dst[dense + i] = src[off + i * inner.stride];
      }
    } else {
      if (inner.stride == 1) {
        std::memcpy(dst + off, src + dense, inner.size * sizeof(T));
      } else {
        for (int64_t i = 0; i < inner.size; ++i) dst[off + i * inner.stride] = src[dense + i];
      }
    }
    dense += inner.size;
    for (int64_t d = r - 2; d >= 0; --d) {
      off += a[d].stride;
      if (++idx[d] < a[d].size) break;
      off -= a[d].stride * a[d].size;
      idx[d] = 0;
    }
  }
}

template <typename T>
void FillStrided(T* dst, const Axes& axes) {
  const int64_t n = Product(axes);
  std::vector<T> zeros(static_cast<size_t>(std::min<int64_t>(n, 1 << 16)), T(0));
  if (n <= static_cast<int64_t>(zeros.size())) {
    CopyStrided(dst, zeros.data(), axes, false);
    return;
  }
  // Large: one axis at a time through the odometer (rare: K == 0 only).
  Axes rest(axes.begin() + 1, axes.end());
  for (int64_t i = 0; i < axes[0].size; ++i) FillStrided(dst + i * axes[0].stride, rest);
}

bool Contains(const Dims& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

template <typename T>
Axes AxesOf(const View<T>& v, const Dims& which) {
  Axes a;
  for (int64_t d : which) a.push_back({v.dims[d], v.strides[d]});
  return a;
}

template <typename T>
Axes FreeAxes(const View<T>& v, const Dims& batch, const Dims& contracting) {
  Axes a;
  for (int64_t d = 0; d < static_cast<int64_t>(v.dims.size()); ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) a.push_back({v.dims[d], v.strides[d]});
  }
  return a;
}

Axes Concat(const Axes& x, const Axes& y) {
  Axes out = x;
  out.insert(out.end(), y.begin(), y.end());
  return out;
}

// A dot_general over strided views as `batches` gemm calls of m x n x k:
// each batch's offsets come from the batch axes, and each matrix is handed
// to gemm where it lies (its Plan direct) or packed (scattered) per batch
// over its axes.
template <typename T>
struct BatchedProduct {
  Axes lb, rb, ob;              // batch axes of lhs, rhs and out, in order
  Axes a_axes, b_axes, c_axes;  // packed per batch; empty where direct
  Plan pa, pb, pc;
  int64_t batches = 0, m = 0, n = 0, k = 0;

  // Element offsets of batch bi in each operand.
  void Offsets(int64_t bi, int64_t& lo, int64_t& ro, int64_t& oo) const {
    lo = ro = oo = 0;
    for (int64_t x = static_cast<int64_t>(lb.size()) - 1; x >= 0; --x) {
      const int64_t i = bi % lb[x].size;
      bi /= lb[x].size;
      lo += i * lb[x].stride;
      ro += i * rb[x].stride;
      oo += i * ob[x].stride;
    }
  }
};

// A worker's dense copies of the operands that are not direct.
template <typename T>
struct ProductScratch {
  ScratchBuffer<T> a, b, c;
};

// Zeros into all of `out` (an empty contraction's result).
template <typename T>
void FillZeros(const View<T>& out) {
  Axes all;
  for (size_t i = 0; i < out.dims.size(); ++i) all.push_back({out.dims[i], out.strides[i]});
  FillStrided(out.base, all);
}

// An empty operand: the result is empty or (empty contraction) zeros.
// Checked first, as the products of the other dims need not fit in 64
// bits. True where it handled the dot.
template <typename T>
bool EmptyOperandDot(const View<const T>& lhs, const View<const T>& rhs, const View<T>& out) {
  for (const Dims* dims : {&lhs.dims, &rhs.dims}) {
    if (std::find(dims->begin(), dims->end(), 0) != dims->end()) {
      FillZeros(out);
      return true;
    }
  }
  return false;
}

template <typename T>
BatchedProduct<T> PlanProduct(const View<const T>& lhs, const View<const T>& rhs,
                              const View<T>& out, const DotDimNumbers& d) {
  BatchedProduct<T> p;
  p.lb = AxesOf(lhs, d.lhs_batch);
  p.rb = AxesOf(rhs, d.rhs_batch);
  const Axes lc = AxesOf(lhs, d.lhs_contracting), rc = AxesOf(rhs, d.rhs_contracting);
  const Axes lf = FreeAxes(lhs, d.lhs_batch, d.lhs_contracting);
  const Axes rf = FreeAxes(rhs, d.rhs_batch, d.rhs_contracting);
  Axes om, on;
  for (size_t i = 0; i < out.dims.size(); ++i) {
    Axes& to = i < p.lb.size() ? p.ob : i < p.lb.size() + lf.size() ? om : on;
    to.push_back({out.dims[i], out.strides[i]});
  }
  p.batches = Product(p.lb);
  p.m = Product(lf);
  p.n = Product(rf);
  p.k = Product(lc);
  constexpr bool kTrans = !std::is_same_v<T, uint64_t>;
  p.pa = PlanMatrix(lf, lc, p.m, p.k, kTrans);
  p.pb = PlanMatrix(rc, rf, p.k, p.n, kTrans);
  p.pc = PlanMatrix(om, on, p.m, p.n, false);
  if (!p.pa.direct) p.a_axes = Concat(lf, lc);
  if (!p.pb.direct) p.b_axes = Concat(rc, rf);
  if (!p.pc.direct) p.c_axes = Concat(om, on);
  return p;
}

template <typename T>
absl::Status ResetScratch(const BatchedProduct<T>& p, ProductScratch<T>& w) {
  if (!p.pa.direct) {
    if (auto st = w.a.Reset(p.m * p.k); !st.ok()) return st;
  }
  if (!p.pb.direct) {
    if (auto st = w.b.Reset(p.k * p.n); !st.ok()) return st;
  }
  if (!p.pc.direct) {
    if (auto st = w.c.Reset(p.m * p.n); !st.ok()) return st;
  }
  return absl::OkStatus();
}

template <typename T>
void RunBatch(const BatchedProduct<T>& p, const View<const T>& lhs, const View<const T>& rhs,
              const View<T>& out, int64_t bi, ProductScratch<T>& w) {
  int64_t lo, ro, oo;
  p.Offsets(bi, lo, ro, oo);
  const T* a = lhs.base + lo;
  const T* b = rhs.base + ro;
  if (!p.pa.direct) {
    CopyStrided(w.a.data(), a, p.a_axes, true);
    a = w.a.data();
  }
  if (!p.pb.direct) {
    CopyStrided(w.b.data(), b, p.b_axes, true);
    b = w.b.data();
  }
  T* c = p.pc.direct ? out.base + oo : w.c.data();
  Gemm<T>(p.pa.direct && p.pa.trans, p.pb.direct && p.pb.trans, p.m, p.n, p.k, a,
          p.pa.direct ? p.pa.ld : p.k, b, p.pb.direct ? p.pb.ld : p.n, c,
          p.pc.direct ? p.pc.ld : p.n, p.batches);
  if (!p.pc.direct) CopyStrided(out.base + oo, w.c.data(), p.c_axes, false);
}

}  // namespace

template <typename T>
absl::Status DotCore(const View<const T>& lhs, const View<const T>& rhs, const View<T>& out,
                     const DotDimNumbers& d) {
  if (EmptyOperandDot(lhs, rhs, out)) return absl::OkStatus();
  const BatchedProduct<T> p = PlanProduct(lhs, rhs, out, d);
  if (p.batches == 0 || p.m == 0 || p.n == 0) return absl::OkStatus();
  if (p.k == 0) {
    FillZeros(out);
    return absl::OkStatus();
  }
  // Many batches, or small ones: whole batches go to one worker per core,
  // each running single-threaded gemms (a threaded call per small product
  // wakes OpenBLAS's workers each time). A few large ones: one threaded
  // gemm each.
  const int64_t cores = CoreCount();  // cached: hardware_concurrency reads sysfs
  const bool per_core =
      p.batches > 1 && cores > 1 &&
      (p.batches >= 4 * cores || static_cast<double>(p.m) * p.n * p.k <= kSmallBatchProduct);
  const int64_t workers = per_core ? std::min(cores, p.batches) : 1;
  absl::InlinedVector<ProductScratch<T>, 2> scratch(workers);  // (no heap block per call)
  for (ProductScratch<T>& w : scratch) {
    if (auto st = ResetScratch(p, w); !st.ok()) return st;
  }
  if (workers == 1) {
    for (int64_t bi = 0; bi < p.batches; ++bi) RunBatch(p, lhs, rhs, out, bi, scratch[0]);
    return absl::OkStatus();
  }
  // Each core its own run of batches first (ParallelItems): a sequence's
  // attention heads stay on the core whose rows made them.
  SingleThreadedBlas one_thread_per_gemm;
  ParallelItems(workers, p.batches,
                [&](int64_t w, int64_t bi) { RunBatch(p, lhs, rhs, out, bi, scratch[w]); });
  return absl::OkStatus();
}

template absl::Status DotCore<float>(const View<const float>&, const View<const float>&,
                                     const View<float>&, const DotDimNumbers&);
template absl::Status DotCore<double>(const View<const double>&, const View<const double>&,
                                      const View<double>&, const DotDimNumbers&);
template absl::Status DotCore<cfloat>(const View<const cfloat>&, const View<const cfloat>&,
                                      const View<cfloat>&, const DotDimNumbers&);
template absl::Status DotCore<cdouble>(const View<const cdouble>&, const View<const cdouble>&,
                                       const View<cdouble>&, const DotDimNumbers&);
template absl::Status DotCore<uint64_t>(const View<const uint64_t>&, const View<const uint64_t>&,
                                        const View<uint64_t>&, const DotDimNumbers&);

// ---- compute types and small-float tables ---------------------------------------

Compute ComputeTypeOf(PrimitiveType a, PrimitiveType b, PrimitiveType result) {
  auto wide = [](PrimitiveType t) { return t == PrimitiveType::kF64 || t == PrimitiveType::kC128; };
  const bool cplx = IsComplex(a) || IsComplex(b) || IsComplex(result);
  const bool dbl = wide(a) || wide(b) || wide(result);
  const bool real_operands = IsFloat(a) || IsFloat(b) || IsComplex(a) || IsComplex(b);
  if ((IsInteger(result) || IsPred(result)) && !real_operands) return Compute::kU64;
  if (IsInteger(result) || IsPred(result)) return cplx ? Compute::kCDouble : Compute::kDouble;
  if (cplx) return dbl ? Compute::kCDouble : Compute::kCFloat;
  return dbl ? Compute::kDouble : Compute::kFloat;
}

const float* SmallFloatDecodeTable(PrimitiveType type) {
  struct Tables {
    float t[kNumPrimitiveTypes][256];
    Tables() {
      for (int p = 0; p < kNumPrimitiveTypes; ++p) {
        const PrimitiveType pt = static_cast<PrimitiveType>(p);
        const bool small8 = IsSmallFloat(pt) && BitWidth(pt) <= 8;
        for (int i = 0; i < 256; ++i) {
          t[p][i] = small8 ? static_cast<float>(DecodeSmallFloat(pt, static_cast<uint32_t>(i))) : 0;
        }
      }
    }
  };
  static const Tables* tables = new Tables();
  return tables->t[static_cast<int>(type)];
}

}  // namespace gemm
}  // namespace hlo
