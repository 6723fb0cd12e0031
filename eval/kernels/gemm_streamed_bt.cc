// A B^T with B^T streamed from memory (see gemm_streamed_bt.h).
#include "eval/kernels/gemm_streamed_bt.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/gemm_onednn.h"
#include "eval/runtime/scratch_buffer.h"

namespace hlo {
namespace gemm {
namespace {

// A tile: 32 rows of C (two vectors along m) by 12 columns (12 rows of B^T
// broadcast), 24 accumulators.
constexpr int64_t kTileRows = 32;
constexpr int64_t kTileCols = 12;
// k steps between two prefetches of the next columns' rows.
constexpr int64_t kPrefetchEvery = 8;

// Row tile t of A transposed, zero past row m:
// at[t * k * kTileRows + p * kTileRows + i] = a[(t * kTileRows + i) * lda + p].
// (By k, each step reading the tile's rows side by side: by rows, writing
// 128 bytes apart, it took 4.5x as long.)
void PackTransposed(int64_t m, int64_t k, const float* a, int64_t lda, float* at) {
  for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
    const float* rows = a + i0 * lda;
    const int64_t valid = std::min(kTileRows, m - i0);
    float* tile = at + i0 * k;
    for (int64_t p = 0; p < k; ++p) {
      float* out = tile + p * kTileRows;
      for (int64_t i = 0; i < valid; ++i) out[i] = rows[i * lda + p];
      for (int64_t i = valid; i < kTileRows; ++i) out[i] = 0.0f;
    }
  }
}

// Lines of the next columns' rows to fetch into L2 during one tile.
struct Prefetch {
  const char* base = nullptr;
  int64_t first = 0;  // line index from base
  int64_t lines = 0;
};

// Rows of C the next tile writes (its kTileCols elements at base + r * ldc),
// to own in L1 before it does: C is written once, from memory, and stores
// that wait there for their lines stalled the tiles.
struct CRows {
  float* base = nullptr;
  int64_t ldc = 0;
  int64_t cols = 0;   // elements a row
  int64_t first = 0;  // row index from base
  int64_t rows = 0;
};

// One tile over one k block of `steps` terms: each of its 32 x 12 elements
// one fused multiply-add chain in k order from +0; the chains stored to
// sums (the first block) or added to what the earlier blocks left there.
// sums[j * kTileRows + i] holds row i, column j.
__attribute__((target("avx512f,prfchw"), noinline)) void Tile(const float* at, const float* bt,
                                                              int64_t ldb, int64_t steps,
                                                              float* sums, bool first,
                                                              Prefetch prefetch, CRows next_c) {
  __m512 acc[kTileCols][2];
  for (auto& column : acc) column[0] = column[1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < steps; ++p) {
    const __m512 a0 = _mm512_loadu_ps(at + p * kTileRows);
    const __m512 a1 = _mm512_loadu_ps(at + p * kTileRows + 16);
    if (p % kPrefetchEvery == 0 && p / kPrefetchEvery < prefetch.lines) {
      _mm_prefetch(prefetch.base + (prefetch.first + p / kPrefetchEvery) * 64, _MM_HINT_T1);
    }
    if (p % kPrefetchEvery == kPrefetchEvery / 2 && p / kPrefetchEvery < 2 * next_c.rows) {
      // A row's first and last element: its one or two lines.
      const int64_t slot = p / kPrefetchEvery;
      __builtin_prefetch(
          next_c.base + (next_c.first + slot / 2) * next_c.ldc + (slot % 2) * (next_c.cols - 1), 1,
          3);
    }
#pragma GCC unroll 12
    for (int64_t j = 0; j < kTileCols; ++j) {
      const __m512 b = _mm512_set1_ps(bt[j * ldb + p]);
      acc[j][0] = _mm512_fmadd_ps(a0, b, acc[j][0]);
      acc[j][1] = _mm512_fmadd_ps(a1, b, acc[j][1]);
    }
  }
  for (int64_t j = 0; j < kTileCols; ++j) {
    for (int64_t v = 0; v < 2; ++v) {
      float* s = sums + j * kTileRows + v * 16;
      _mm512_storeu_ps(s, first ? acc[j][v] : _mm512_add_ps(_mm512_loadu_ps(s), acc[j][v]));
    }
  }
}

}  // namespace

bool StreamedBtKernel(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                      int64_t ldb, float* c, int64_t ldc) {
  if (!avx512::Available() || k < 1) return false;
  if (m <= 0 || n <= 0) return true;
  const int64_t tiles = (m + kTileRows - 1) / kTileRows;
  ScratchBuffer<float> at, tail;
  if (!at.Reset(tiles * kTileRows * k).ok()) return false;
  if (n % kTileCols != 0 && !tail.Reset(kTileCols * k).ok()) return false;
  PackTransposed(m, k, a, lda, at.data());
  const int64_t blocks = (k + kOnednnBlockK - 1) / kOnednnBlockK;
  const int64_t calls = tiles * blocks;  // tiles run per block of columns
  alignas(64) float sums[kTileCols * kTileRows];
  for (int64_t j0 = 0; j0 < n; j0 += kTileCols) {
    const int64_t cols = std::min(kTileCols, n - j0);
    const float* rows = bt + j0 * ldb;
    int64_t ld = ldb;
    if (cols < kTileCols) {  // the last columns, their missing rows zero
      for (int64_t j = 0; j < kTileCols; ++j) {
        float* dst = tail.data() + j * k;
        if (j < cols) {
          std::memcpy(dst, rows + j * ldb, static_cast<size_t>(k) * sizeof(float));
        } else {
          std::fill(dst, dst + k, 0.0f);
        }
      }
      rows = tail.data();
      ld = k;
    }
    // The next columns' rows, a share of their lines fetched during each
    // tile, so that they come from L2 when their turn comes.
    const int64_t next_cols = std::min(kTileCols, n - j0 - kTileCols);
    Prefetch next;
    int64_t next_lines = 0, per_call = 0;
    if (next_cols > 0) {
      next.base = reinterpret_cast<const char*>(bt + (j0 + kTileCols) * ldb);
      next_lines = (((next_cols - 1) * ldb + k) * static_cast<int64_t>(sizeof(float)) + 63) / 64;
      per_call = (next_lines + calls - 1) / calls;
    }
    int64_t call = 0;
    for (int64_t t = 0; t < tiles; ++t) {
      const float* tile_at = at.data() + t * kTileRows * k;
      // The next tile's rows of C: this block of columns' next rows, or
      // the next block's first rows (none after the last tile).
      CRows next_c;
      next_c.ldc = ldc;
      if (t + 1 < tiles) {
        next_c.base = c + (t + 1) * kTileRows * ldc + j0;
        next_c.cols = cols;
        next_c.rows = std::min(kTileRows, m - (t + 1) * kTileRows);
      } else if (next_cols > 0) {
        next_c.base = c + j0 + kTileCols;
        next_c.cols = next_cols;
        next_c.rows = std::min(kTileRows, m);
      }
      const int64_t c_per_call = (next_c.rows + blocks - 1) / blocks;
      for (int64_t b = 0; b < blocks; ++b, ++call) {
        // Blocks of nearly equal length, as OnednnGemm cuts them.
        const int64_t lo = k * b / blocks, hi = k * (b + 1) / blocks;
        next.first = std::min(next_lines, call * per_call);
        next.lines = std::min(per_call, next_lines - next.first);
        CRows c_share = next_c;
        c_share.first = std::min(next_c.rows, b * c_per_call);
        c_share.rows = std::min(c_per_call, next_c.rows - c_share.first);
        Tile(tile_at + lo * kTileRows, rows + lo, ld, hi - lo, sums, b == 0, next, c_share);
      }
      const int64_t i0 = t * kTileRows, valid = std::min(kTileRows, m - i0);
      for (int64_t i = 0; i < valid; ++i) {
        float* out = c + (i0 + i) * ldc + j0;
        for (int64_t j = 0; j < cols; ++j) out[j] = sums[j * kTileRows + i];
      }
    }
  }
  return true;
}

bool StreamedBtGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* bt,
                    int64_t ldb, float* c, int64_t ldc) {
  if (m < kStreamedBtLeastRows || m > kStreamedBtMostRows || k > kStreamedBtMostK ||
      static_cast<double>(n) * static_cast<double>(k) * sizeof(float) <
          static_cast<double>(kStreamedBtLeastBytes)) {
    return false;
  }
  return StreamedBtKernel(m, n, k, a, lda, bt, ldb, c, ldc);
}

}  // namespace gemm
}  // namespace hlo
