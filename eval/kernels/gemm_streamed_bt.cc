// A B^T with B^T streamed from memory (see gemm_streamed_bt.h).
#include "eval/kernels/gemm_streamed_bt.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/gemm_onednn.h"
#include "eval/kernels/strided_axes.h"
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
// at[t * k * kTileRows + p * kTileRows + i] = a[(t * kTileRows + i) * lda + p]
// (the strided copy's tiled transpose).
void PackTransposed(int64_t m, int64_t k, const float* a, int64_t lda, float* at) {
  for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
    const int64_t valid = std::min(kTileRows, m - i0);
    float* tile = at + i0 * k;
    data_internal::StridedCopy(sizeof(float), reinterpret_cast<uint8_t*>(tile),
                               reinterpret_cast<const uint8_t*>(a + i0 * lda),
                               {{k, kTileRows, 1}, {valid, 1, lda}});
    if (valid == kTileRows) continue;
    for (int64_t p = 0; p < k; ++p) {
      std::fill(tile + p * kTileRows + valid, tile + (p + 1) * kTileRows, 0.0f);
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

// One k step of a tile: its 24 multiply-adds.
__attribute__((target("avx512f"), always_inline)) inline void TileStep(
    const float* at, const float* bt, int64_t ldb, int64_t p, __m512 (&acc)[kTileCols][2]) {
  const __m512 a0 = _mm512_loadu_ps(at + p * kTileRows);
  const __m512 a1 = _mm512_loadu_ps(at + p * kTileRows + 16);
#pragma GCC unroll 12
  for (int64_t j = 0; j < kTileCols; ++j) {
    const __m512 b = _mm512_set1_ps(bt[j * ldb + p]);
    acc[j][0] = _mm512_fmadd_ps(a0, b, acc[j][0]);
    acc[j][1] = _mm512_fmadd_ps(a1, b, acc[j][1]);
  }
}

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
  // Groups of kPrefetchEvery steps, each after its fetches: the loop then
  // decides them once a group, not once a step (and runs a whole group
  // unrolled: 218.6 GFLOP/s against 203 a step at a time, one core, B^T
  // warm).
  for (int64_t group = 0, p = 0; p < steps; ++group, p += kPrefetchEvery) {
    if (group < prefetch.lines) {
      _mm_prefetch(prefetch.base + (prefetch.first + group) * 64, _MM_HINT_T1);
    }
    if (group < 2 * next_c.rows) {
      // A row's first and last element: its one or two lines.
      __builtin_prefetch(
          next_c.base + (next_c.first + group / 2) * next_c.ldc + (group % 2) * (next_c.cols - 1),
          1, 3);
    }
    if (p + kPrefetchEvery <= steps) {
#pragma GCC unroll 8
      for (int64_t u = 0; u < kPrefetchEvery; ++u) TileStep(at, bt, ldb, p + u, acc);
    } else {
      for (int64_t q = p; q < steps; ++q) TileStep(at, bt, ldb, q, acc);
    }
  }
  for (int64_t j = 0; j < kTileCols; ++j) {
    for (int64_t v = 0; v < 2; ++v) {
      float* s = sums + j * kTileRows + v * 16;
      _mm512_storeu_ps(s, first ? acc[j][v] : _mm512_add_ps(_mm512_loadu_ps(s), acc[j][v]));
    }
  }
}

// One product as the kernel walks it: A packed (at), B^T where it lies,
// and room for the last columns' rows when n is no multiple of 12.
struct Walk {
  int64_t m, n, k, ldb, ldc, tiles, blocks;
  const float* at;
  const float* bt;
  float* c;
  float* tail;
};

// B^T's rows for columns [j0, j0 + cols), and their leading dimension:
// where they lie, or (the last, fewer than 12) copied to tail with zero
// rows after them.
const float* ColumnRows(const Walk& w, int64_t j0, int64_t cols, int64_t* ld) {
  const float* rows = w.bt + j0 * w.ldb;
  *ld = w.ldb;
  if (cols == kTileCols) return rows;
  for (int64_t j = 0; j < kTileCols; ++j) {
    float* dst = w.tail + j * w.k;
    if (j < cols) {
      std::memcpy(dst, rows + j * w.ldb, static_cast<size_t>(w.k) * sizeof(float));
    } else {
      std::fill(dst, dst + w.k, 0.0f);
    }
  }
  *ld = w.k;
  return w.tail;
}

// The next block of columns' rows of B^T: their lines, to be fetched a
// share (per_call) during each tile call of this block, so that they come
// from L2 when their turn comes.
struct NextRows {
  Prefetch lines;  // first and lines set per call
  int64_t total = 0, per_call = 0;
};
NextRows NextColumnRows(const Walk& w, int64_t j0) {
  NextRows next;
  const int64_t cols = std::min(kTileCols, w.n - j0 - kTileCols);
  if (cols <= 0) return next;
  next.lines.base = reinterpret_cast<const char*>(w.bt + (j0 + kTileCols) * w.ldb);
  next.total = (((cols - 1) * w.ldb + w.k) * static_cast<int64_t>(sizeof(float)) + 63) / 64;
  const int64_t calls = w.tiles * w.blocks;
  next.per_call = (next.total + calls - 1) / calls;
  return next;
}

// The rows of C the next tile writes: tile t + 1's in this block of
// columns, or the next block's first tile's (none after the last).
CRows NextTileRows(const Walk& w, int64_t j0, int64_t cols, int64_t t) {
  CRows rows;
  rows.ldc = w.ldc;
  if (t + 1 < w.tiles) {
    rows.base = w.c + (t + 1) * kTileRows * w.ldc + j0;
    rows.cols = cols;
    rows.rows = std::min(kTileRows, w.m - (t + 1) * kTileRows);
  } else if (j0 + kTileCols < w.n) {
    rows.base = w.c + j0 + kTileCols;
    rows.cols = std::min(kTileCols, w.n - j0 - kTileCols);
    rows.rows = std::min(kTileRows, w.m);
  }
  return rows;
}

// Tile t's sums to C (its rows below m, columns [j0, j0 + cols)).
void StoreTile(const Walk& w, const float* sums, int64_t t, int64_t j0, int64_t cols) {
  const int64_t i0 = t * kTileRows, valid = std::min(kTileRows, w.m - i0);
  for (int64_t i = 0; i < valid; ++i) {
    float* out = w.c + (i0 + i) * w.ldc + j0;
    for (int64_t j = 0; j < cols; ++j) out[j] = sums[j * kTileRows + i];
  }
}

// Columns [j0, j0 + 12) of C (fewer at the end): each tile through all
// the k blocks, then stored.
void RunColumns(const Walk& w, int64_t j0) {
  const int64_t cols = std::min(kTileCols, w.n - j0);
  int64_t ld = 0;
  const float* rows = ColumnRows(w, j0, cols, &ld);
  NextRows next = NextColumnRows(w, j0);
  alignas(64) float sums[kTileCols * kTileRows];
  int64_t call = 0;
  for (int64_t t = 0; t < w.tiles; ++t) {
    const float* tile_at = w.at + t * kTileRows * w.k;
    const CRows next_c = NextTileRows(w, j0, cols, t);
    const int64_t c_per_call = (next_c.rows + w.blocks - 1) / w.blocks;
    for (int64_t b = 0; b < w.blocks; ++b, ++call) {
      // Blocks of nearly equal length, as OnednnGemm cuts them.
      const int64_t lo = w.k * b / w.blocks, hi = w.k * (b + 1) / w.blocks;
      next.lines.first = std::min(next.total, call * next.per_call);
      next.lines.lines = std::min(next.per_call, next.total - next.lines.first);
      CRows c_share = next_c;
      c_share.first = std::min(next_c.rows, b * c_per_call);
      c_share.rows = std::min(c_per_call, next_c.rows - c_share.first);
      Tile(tile_at + lo * kTileRows, rows + lo, ld, hi - lo, sums, b == 0, next.lines, c_share);
    }
    StoreTile(w, sums, t, j0, cols);
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
  const Walk walk{m, n, k, ldb, ldc, tiles, blocks, at.data(), bt, c, tail.data()};
  for (int64_t j0 = 0; j0 < n; j0 += kTileCols) RunColumns(walk, j0);
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
