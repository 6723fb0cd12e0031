// The copy engine of the data-movement kernels (eval/kernels/data.cc): an
// N-dimensional strided copy specialised per element byte width, not per
// type. Every layout-free data movement (broadcast, transpose, slice, pad,
// reverse, concatenate, dynamic slices, layout changes of bitcast) is one or
// more strided copies:
//
//   for every index i in [0, size_0) x ... x [0, size_{n-1}):
//     dst[sum_k i_k * dst_stride_k] = src[sum_k i_k * src_stride_k]
//
// Axes of size 1 are dropped and adjacent axes that are contiguous in both
// buffers are merged, so most ops reduce to a few long runs: memcpy when both
// inner strides are 1, a fill when the source stride is 0 (broadcast), a
// blocked (tiled) transpose when the destination's inner axis is strided in
// the source and another axis is contiguous there, and a plain strided loop
// otherwise. The outer axes are walked with incremental index counters.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/container/inlined_vector.h"
#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/strided_axes.h"
#include "eval/kernels/transpose_4x4.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/stream_store.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace data_internal {

// One axis of a strided copy (eval/kernels/strided_axes.h).
using CopyAxis = StridedAxis;
using CopyAxes = StridedAxes;

namespace {

// Copies of at least kStreamStoreBytes (eval/runtime/stream_store.h) may
// use non-temporal stores. Measured on f32 transposes: from 32 MiB (glibc's
// largest mmap threshold, so the result is fresh memory that is not in
// cache) streaming is 1.4x faster; at 16 MiB the result buffer is usually
// recycled and warm, and plain stores are 1.5-2x faster.

// 16-byte elements (c128) move as a pair of words.
struct Word128 {
  uint64_t lo, hi;
};

// Calls body(dst_offset, src_offset) for every index of axes[0..n), the last
// axis fastest, with incremental counters (no div/mod).
template <typename F>
void ForEachOuter(const CopyAxis* axes, int n, int64_t dst, int64_t src, F&& body) {
  if (n == 0) {
    body(dst, src);
    return;
  }
  absl::InlinedVector<int64_t, 8> idx(n, 0);
  while (true) {
    body(dst, src);
    int k = n - 1;
    while (true) {
      dst += axes[k].dst_stride;
      src += axes[k].src_stride;
      if (++idx[k] < axes[k].size) break;
      dst -= axes[k].dst_stride * axes[k].size;
      src -= axes[k].src_stride * axes[k].size;
      idx[k] = 0;
      if (--k < 0) return;
    }
  }
}

template <typename E>
inline void CopyLine(E* __restrict dst, const E* __restrict src, int64_t n, int64_t ds,
                     int64_t ss) {
  if (ds == 1 && ss == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(E));
  } else if (ss == 0) {
    const E v = *src;
    if (ds == 1) {
      std::fill_n(dst, n, v);
    } else {
      for (int64_t j = 0; j < n; ++j) dst[j * ds] = v;
    }
  } else if (ds == 1) {
    for (int64_t j = 0; j < n; ++j) dst[j] = src[j * ss];
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j * ds] = src[j * ss];
  }
}

// Source rows at most this far apart are transposed where they lie: a
// block's kTJ rows then span at most 16 KiB, a few lines per L1 set, so
// they stay cached between the 4x4 tiles. Staging them cost more than the
// transpose itself there: a short row's copy is a `rep movs` whose startup
// dominates (f32[32,32] transposed: 0.8 us, 55% of it in the staging).
constexpr int64_t kDirectRowBytes = 512;

// A blocked transpose over two axes: `a` is contiguous in the source
// (src stride 1), `b` in the destination (dst stride 1):
//   dst[i*da + j] = src[i + j*sb].
// Where source rows are far apart, each block stages up to kTJ source rows
// of 1 KiB into a local buffer (one sequential read per row, no cache-set
// conflicts from power-of-two strides, few TLB misses), then writes the
// block's destination rows from it; where they are close (kDirectRowBytes)
// the block reads the source directly. Blocks start at 64-byte boundaries
// of destination row 0 (a short first block takes the head), so rows are
// written in whole cache lines. `large` (a result much bigger than the
// caches) allows non-temporal stores.
template <typename E>
void Tile2D(E* __restrict dst, const E* __restrict src, const CopyAxis& a, const CopyAxis& b,
            bool large) {
  constexpr int64_t kTI = 1024 / sizeof(E);
  constexpr int64_t kTJ = 32;
  alignas(64) E buf[kTI * kTJ];
  const int64_t na = a.size, nb = b.size, da = a.dst_stride, sb = b.src_stride;
  const bool direct = sb * static_cast<int64_t>(sizeof(E)) <= kDirectRowBytes;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(dst);
  // (At most one block: for 1-byte elements a block is half a line anyway.)
  const int64_t head =
      addr % sizeof(E) != 0
          ? 0
          : std::min<int64_t>({nb, kTJ, static_cast<int64_t>((64 - addr % 64) % 64 / sizeof(E))});
#if defined(__SSE2__)
  // Non-temporal stores skip the read-for-ownership of destination lines;
  // they need 16-byte aligned block rows (true past the head when da is a
  // multiple of 4 elements).
  const bool stream = sizeof(E) == 4 && large && addr % 4 == 0 && da % 4 == 0;
#endif
  for (int64_t i0 = 0; i0 < na; i0 += kTI) {
    const int64_t ni = std::min(kTI, na - i0);
    for (int64_t j0 = 0; j0 < nb;) {
      const bool is_head = j0 == 0 && head > 0;
      const int64_t nj = is_head ? head : std::min(kTJ, nb - j0);
      const E* blk = src + i0 + j0 * sb;  // element (i, j) of the block at blk[i + j * bs]
      int64_t bs = sb;
      if (!direct) {
        for (int64_t j = 0; j < nj; ++j) {
          std::memcpy(buf + j * kTI, blk + j * sb, static_cast<size_t>(ni) * sizeof(E));
        }
        blk = buf;
        bs = kTI;
      }
      E* d0 = dst + i0 * da + j0;
      int64_t i = 0;
#if defined(__SSE2__)
      if constexpr (sizeof(E) == 4) {
        if (!(stream && is_head)) {
          const int64_t j4 = nj & ~int64_t{3};
          for (; i + 4 <= ni; i += 4) {
            uint32_t* d = reinterpret_cast<uint32_t*>(d0 + i * da);
            const uint32_t* s = reinterpret_cast<const uint32_t*>(blk + i);
            if (stream) {
              for (int64_t j = 0; j < j4; j += 4) Transpose4x4<true>(d + j, da, s + j * bs, bs);
            } else {
              for (int64_t j = 0; j < j4; j += 4) Transpose4x4<false>(d + j, da, s + j * bs, bs);
            }
            for (int64_t r = i; r < i + 4; ++r) {
              for (int64_t j = j4; j < nj; ++j) d0[r * da + j] = blk[j * bs + r];
            }
          }
        }
      }
#endif
      for (; i < ni; ++i) {
        E* d = d0 + i * da;
        for (int64_t j = 0; j < nj; ++j) d[j] = blk[j * bs + i];
      }
      j0 += nj;
    }
  }
#if defined(__SSE2__)
  if (stream) _mm_sfence();
#else
  (void)large;
#endif
}

#if defined(__x86_64__)
// A transpose to a short minor axis (NCHW images to NHWC: 3 channels):
// dst[i * nb + j] = src[i + j * sb] for j < nb (2..8), i < na. Tile2D's
// 4x4 tiles do not fit there, and its scalar loop moved 10 GB/s. Here 16
// columns of the nb rows are loaded and interleaved by permutes into nb
// whole vectors of output: vector o's lane k is row (16 o + k) % nb,
// column (16 o + k) / nb, taken from rows 2m and 2m + 1 by one two-source
// permute per pair (AVX-512, 4-byte elements).
constexpr int64_t kMaxInterleaved = 8;

struct InterleavePlan {
  int64_t nb = 0;
  // per output vector o and row pair m: permute indices and the lanes taken
  __m512i index[kMaxInterleaved][kMaxInterleaved / 2];
  __mmask16 lanes[kMaxInterleaved][kMaxInterleaved / 2];
};

// `deinterleave`: the plan of DeinterleaveRows instead, its output vector
// o's lane k at position 16 k... of the loaded block: lane (k nb + o) % 16
// of loaded vector (k nb + o) / 16.
__attribute__((target("avx512f"))) InterleavePlan PlanInterleave(int64_t nb, bool deinterleave) {
  InterleavePlan plan;
  plan.nb = nb;
  for (int64_t o = 0; o < nb; ++o) {
    for (int64_t m = 0; 2 * m < nb; ++m) {
      alignas(64) int32_t index[16] = {};
      uint32_t lanes = 0;
      for (int64_t k = 0; k < 16; ++k) {
        const int64_t p = deinterleave ? k * nb + o : 16 * o + k;
        // the loaded vector the lane comes from, and its lane there
        const int64_t vector = deinterleave ? p / 16 : p % nb;
        const int64_t lane = deinterleave ? p % 16 : p / nb;
        if (vector / 2 != m) continue;
        index[k] = static_cast<int32_t>(lane + 16 * (vector % 2));
        lanes |= 1u << k;
      }
      plan.index[o][m] = _mm512_load_si512(index);
      plan.lanes[o][m] = static_cast<__mmask16>(lanes);
    }
  }
  return plan;
}

// Output vector o of the plan from the loaded vectors v[0..kNb] (v[kNb]
// a copy of the last).
template <int64_t kNb>
HLO_AVX512_INLINE __m512i PlannedVector(const InterleavePlan& plan, int64_t o, const __m512i* v) {
  __m512i out = _mm512_setzero_si512();
  for (int64_t m = 0; 2 * m < kNb; ++m) {
    out = _mm512_mask_mov_epi32(
        out, plan.lanes[o][m], _mm512_permutex2var_epi32(v[2 * m], plan.index[o][m], v[2 * m + 1]));
  }
  return out;
}

template <int64_t kNb>
__attribute__((target("avx512f"))) void InterleaveRowsOf(uint32_t* __restrict dst,
                                                         const uint32_t* __restrict src, int64_t na,
                                                         int64_t sb, const InterleavePlan& plan) {
  int64_t i = 0;
  for (; i + 16 <= na; i += 16) {
    __m512i rows[kNb + 1];
    for (int64_t j = 0; j < kNb; ++j) rows[j] = _mm512_loadu_si512(src + i + j * sb);
    rows[kNb] = rows[kNb - 1];  // (the odd row's partner)
    for (int64_t o = 0; o < kNb; ++o) {
      _mm512_storeu_si512(dst + (i * kNb + 16 * o), PlannedVector<kNb>(plan, o, rows));
    }
  }
  for (; i < na; ++i) {
    for (int64_t j = 0; j < kNb; ++j) dst[i * kNb + j] = src[i + j * sb];
  }
}

// The way back (NHWC to NCHW): dst[i + j * db] = src[i * nb + j] for j < nb
// (2..8), i < na: 16 positions of nb values loaded as nb whole vectors,
// each output row's 16 taken out by the same permutes.
template <int64_t kNb>
__attribute__((target("avx512f"))) void DeinterleaveRowsOf(uint32_t* __restrict dst,
                                                           const uint32_t* __restrict src,
                                                           int64_t na, int64_t db,
                                                           const InterleavePlan& plan) {
  int64_t i = 0;
  for (; i + 16 <= na; i += 16) {
    __m512i loaded[kNb + 1];
    for (int64_t v = 0; v < kNb; ++v) loaded[v] = _mm512_loadu_si512(src + (i * kNb + 16 * v));
    loaded[kNb] = loaded[kNb - 1];
    for (int64_t o = 0; o < kNb; ++o) {
      _mm512_storeu_si512(dst + (i + o * db), PlannedVector<kNb>(plan, o, loaded));
    }
  }
  for (; i < na; ++i) {
    for (int64_t j = 0; j < kNb; ++j) dst[i + j * db] = src[i * kNb + j];
  }
}

// The loops for plan.nb rows, each unrolled for its count (registers, not
// a stack array that GCC copied in with memcpy).
using InterleaveFn = void (*)(uint32_t*, const uint32_t*, int64_t, int64_t, const InterleavePlan&);
InterleaveFn InterleaveFor(int64_t nb, bool deinterleave) {
  static constexpr InterleaveFn kInterleave[] = {nullptr,
                                                 nullptr,
                                                 InterleaveRowsOf<2>,
                                                 InterleaveRowsOf<3>,
                                                 InterleaveRowsOf<4>,
                                                 InterleaveRowsOf<5>,
                                                 InterleaveRowsOf<6>,
                                                 InterleaveRowsOf<7>,
                                                 InterleaveRowsOf<8>};
  static constexpr InterleaveFn kDeinterleave[] = {nullptr,
                                                   nullptr,
                                                   DeinterleaveRowsOf<2>,
                                                   DeinterleaveRowsOf<3>,
                                                   DeinterleaveRowsOf<4>,
                                                   DeinterleaveRowsOf<5>,
                                                   DeinterleaveRowsOf<6>,
                                                   DeinterleaveRowsOf<7>,
                                                   DeinterleaveRowsOf<8>};
  return deinterleave ? kDeinterleave[nb] : kInterleave[nb];
}
#endif

// Minor runs of at most this many copies of one element are made by
// ExpandLine, a line at a time (a call per run cost 3-8x a negate of the
// same result: [192] broadcast to [192,16], 2.7 against 0.33 us).
constexpr int64_t kShortRun = 64;

// dst[i * rep + j] = src[i * ss] for i < n, j < rep.
template <typename E>
HLO_VECTOR_CLONES void ExpandLine(E* __restrict dst, const E* __restrict src, int64_t n, int64_t ss,
                                  int64_t rep) {
  for (int64_t i = 0; i < n; ++i) {
    const E v = src[i * ss];
    E* out = dst + i * rep;
    for (int64_t j = 0; j < rep; ++j) out[j] = v;
  }
}

// Copies of at least this many bytes are split across the cores: one core
// moves well under the machine's bandwidth through a transpose's strided
// side (f32[50257,768] transposed: 3.5 GB/s).
constexpr int64_t kParallelBytes = int64_t{2} << 20;

// Runs body(dst_offset, src_offset, part) over parts of axis 0 of `axes`
// (part: the axes with axis 0 cut to the part's rows) on the cores, or
// over all of it on this thread when `parallel` is false or it has one row.
template <typename F>
void SplitOuter(const CopyAxes& axes, bool parallel, int64_t min_rows, F&& body) {
  if (!parallel || axes.empty() || axes[0].size < 2) {
    body(int64_t{0}, int64_t{0}, axes);
    return;
  }
  ParallelRows(axes[0].size, min_rows, [&](int64_t b, int64_t e) {
    CopyAxes part = axes;
    part[0].size = e - b;
    body(b * axes[0].dst_stride, b * axes[0].src_stride, part);
  });
}

// A transpose's tiles of fewer elements than this take the strided path,
// in copies of at most kTinyTileBytes (half of one core's L2).
constexpr int64_t kTinyTile = 256;
constexpr int64_t kTinyTileBytes = int64_t{512} << 10;

template <typename E>
void CopyAxesTyped(uint8_t* dst_bytes, const uint8_t* src_bytes, CopyAxes& axes) {
  E* dst = reinterpret_cast<E*>(dst_bytes);
  const E* src = reinterpret_cast<const E*>(src_bytes);
  const int r = static_cast<int>(axes.size());
  if (r == 0) {
    *dst = *src;
    return;
  }
  int64_t total = 1;
  for (const CopyAxis& x : axes) total *= x.size;
  const bool parallel = total * static_cast<int64_t>(sizeof(E)) >= kParallelBytes;
  CopyAxis inner = axes[r - 1];
  if (inner.dst_stride == 1 && inner.src_stride != 1 && inner.src_stride != 0 && r >= 2) {
    // A transpose: look for an outer axis contiguous in the source.
    int k = r - 2;
    while (k >= 0 && !(axes[k].src_stride == 1 && axes[k].dst_stride != 0)) --k;
    if (k >= 0 && axes[k].size * inner.size < kTinyTile &&
        total * static_cast<int64_t>(sizeof(E)) <= kTinyTileBytes) {
      // Tiles this small cost more to stage than to copy (an NHWC batch of
      // 4 and 3 channels swapped: 1024 tiles of 3x4, 3x faster). Strided
      // lines along the longest axis instead, where both arrays stay in
      // cache between the lines.
      const int longest = static_cast<int>(
          std::max_element(axes.begin(), axes.end(),
                           [](const CopyAxis& x, const CopyAxis& y) { return x.size < y.size; }) -
          axes.begin());
      std::rotate(axes.begin() + longest, axes.begin() + longest + 1, axes.end());
      inner = axes[r - 1];
      k = -1;
    }
    if (k >= 0) {
      std::rotate(axes.begin() + k, axes.begin() + k + 1, axes.begin() + (r - 1));
      const bool large = total * static_cast<int64_t>(sizeof(E)) >= kStreamStoreBytes;
      // The tiles' row axis `a` is split when no outer axis has two rows.
      const bool outer = r > 2 && axes[0].size >= 2;
      const CopyAxes split(axes.begin(), axes.begin() + (outer ? r - 2 : r - 1));
      // Each tile (the rows `a` beside `inner`) at every outer position.
      auto each_tile = [&](auto&& tile) {
        SplitOuter(split, parallel, outer ? 1 : 64, [&](int64_t d0, int64_t s0, const CopyAxes& p) {
          const int n = static_cast<int>(p.size());
          const CopyAxis a = outer ? axes[r - 2] : p[n - 1];
          ForEachOuter(p.data(), outer ? n : n - 1, d0, s0,
                       [&](int64_t d, int64_t s) { tile(dst + d, src + s, a); });
        });
      };
#if defined(__x86_64__)
      const CopyAxis& a_axis = axes[r - 2];
      if (sizeof(E) == 4 && inner.size >= 2 && inner.size <= kMaxInterleaved &&
          a_axis.dst_stride == inner.size && a_axis.size >= 16 && avx512::Available()) {
        const InterleavePlan plan = PlanInterleave(inner.size, false);
        const InterleaveFn interleave = InterleaveFor(inner.size, false);
        each_tile([&](E* d, const E* s, const CopyAxis& a) {
          interleave(reinterpret_cast<uint32_t*>(d), reinterpret_cast<const uint32_t*>(s), a.size,
                     inner.src_stride, plan);
        });
        return;
      }
      if (sizeof(E) == 4 && a_axis.size >= 2 && a_axis.size <= kMaxInterleaved &&
          inner.src_stride == a_axis.size && inner.size >= 16 && avx512::Available()) {
        const InterleavePlan plan = PlanInterleave(a_axis.size, true);
        const InterleaveFn deinterleave = InterleaveFor(a_axis.size, true);
        auto run = [&](int64_t d, int64_t s, int64_t n) {
          deinterleave(reinterpret_cast<uint32_t*>(dst + d),
                       reinterpret_cast<const uint32_t*>(src + s), n, a_axis.dst_stride, plan);
        };
        if (outer) {
          const CopyAxes outer_axes(axes.begin(), axes.begin() + (r - 2));
          SplitOuter(outer_axes, parallel, 1, [&](int64_t d0, int64_t s0, const CopyAxes& p) {
            ForEachOuter(p.data(), static_cast<int>(p.size()), d0, s0,
                         [&](int64_t d, int64_t s) { run(d, s, inner.size); });
          });
        } else {  // the short axis is the only other one: split the long one
          SplitOuter(CopyAxes{inner}, parallel, 1024,
                     [&](int64_t d0, int64_t s0, const CopyAxes& p) { run(d0, s0, p[0].size); });
        }
        return;
      }
#endif
      each_tile([&](E* d, const E* s, const CopyAxis& a) { Tile2D<E>(d, s, a, inner, large); });
      return;
    }
  }
  if (r == 1) {
    // One run (a large memcpy or fill): split it into parts.
    SplitOuter(axes, parallel, 1 << 14, [&](int64_t d0, int64_t s0, const CopyAxes& p) {
      CopyLine<E>(dst + d0, src + s0, p[0].size, inner.dst_stride, inner.src_stride);
    });
    return;
  }
  const CopyAxis& line = axes[r - 2];
  if (!parallel && inner.src_stride == 0 && inner.dst_stride == 1 && inner.size <= kShortRun &&
      line.dst_stride == inner.size) {
    // Each element of a line repeated along a short minor axis (a value
    // per row broadcast over a few columns).
    ForEachOuter(axes.data(), r - 2, 0, 0, [&](int64_t d, int64_t s) {
      ExpandLine<E>(dst + d, src + s, line.size, line.src_stride, inner.size);
    });
    return;
  }
  const CopyAxes split(axes.begin(), axes.begin() + (r - 1));
  SplitOuter(split, parallel, 1, [&](int64_t d0, int64_t s0, const CopyAxes& p) {
    ForEachOuter(p.data(), static_cast<int>(p.size()), d0, s0, [&](int64_t d, int64_t s) {
      CopyLine<E>(dst + d, src + s, inner.size, inner.dst_stride, inner.src_stride);
    });
  });
}

template <typename E>
void FillTyped(uint8_t* dst, int64_t count, const uint8_t* value) {
  E v;
  std::memcpy(&v, value, sizeof(E));
  std::fill_n(reinterpret_cast<E*>(dst), count, v);
}

}  // namespace

void StridedCopy(int width, uint8_t* dst, const uint8_t* src, CopyAxes axes) {
  if (!MergeContiguousAxes(axes)) return;
  switch (width) {
    case 1:
      CopyAxesTyped<uint8_t>(dst, src, axes);
      break;
    case 2:
      CopyAxesTyped<uint16_t>(dst, src, axes);
      break;
    case 4:
      CopyAxesTyped<uint32_t>(dst, src, axes);
      break;
    case 8:
      CopyAxesTyped<uint64_t>(dst, src, axes);
      break;
    case 16:
      CopyAxesTyped<Word128>(dst, src, axes);
      break;
    default:
      break;
  }
}

void FillElements(int width, uint8_t* dst, int64_t count, const uint8_t* value) {
  if (count <= 0) return;
  bool zero = true;
  for (int i = 0; i < width; ++i) zero = zero && value[i] == 0;
  if (zero) {
    std::memset(dst, 0, static_cast<size_t>(count) * width);
    return;
  }
  switch (width) {
    case 1:
      FillTyped<uint8_t>(dst, count, value);
      break;
    case 2:
      FillTyped<uint16_t>(dst, count, value);
      break;
    case 4:
      FillTyped<uint32_t>(dst, count, value);
      break;
    case 8:
      FillTyped<uint64_t>(dst, count, value);
      break;
    case 16:
      FillTyped<Word128>(dst, count, value);
      break;
    default:
      // Other widths: doubling copies, log2(count) memcpy calls.
      std::memcpy(dst, value, width);
      for (int64_t done = 1; done < count;) {
        const int64_t k = std::min(done, count - done);
        std::memcpy(dst + done * width, dst, static_cast<size_t>(k) * width);
        done += k;
      }
      break;
  }
}

}  // namespace data_internal
}  // namespace hlo
