// Depthwise convolution (one input feature per feature group) as a direct
// loop: per output position, out[f] = sum over the window's taps of
// x[tap][f / per] * k[tap][f], features in the inner loop (vectorised,
// AVX-512, AVX2 and SSE2 entries). It reads the input in place with virtual
// padding: interior positions use one precomputed tap list, border
// positions a list of their in-bounds taps. Output lines are split across
// the cores. Per output the sum runs over the taps in window order.
#include <algorithm>
#include <cstring>
#include <thread>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "eval/kernels/convolution_internal.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/stream_store.h"

namespace hlo {
namespace conv {
namespace {

// kBytes-byte vectors of E (GCC/Clang vector extensions), moved to and from
// memory with memcpy: the features need not be aligned, and clang does not
// honour a lowered alignment on an alias template (UBSan: a misaligned
// load), so no pointer to a vector is ever dereferenced.
template <typename E, int kBytes>
using Vec __attribute__((vector_size(kBytes))) = E;

template <typename E, int kBytes, int kVecs>
__attribute__((always_inline)) inline void PointChunk(E* __restrict out, const E* __restrict x,
                                                      const int64_t* xoff, const int64_t* koff,
                                                      int64_t ntaps, const E* __restrict k) {
  using V = Vec<E, kBytes>;
  constexpr int64_t kLanes = kBytes / sizeof(E);
  // (Zeroed and stored one register at a time: `= {}` and a memcpy from
  // the array put it on the stack, zeroed there with rep stos.)
  V acc[kVecs];
  for (int v = 0; v < kVecs; ++v) acc[v] = V{};
  for (int64_t t = 0; t < ntaps; ++t) {
    const E* xt = x + xoff[t];
    const E* kt = k + koff[t];
    for (int v = 0; v < kVecs; ++v) {
      V xv, kv;
      std::memcpy(&xv, xt + v * kLanes, sizeof(V));
      std::memcpy(&kv, kt + v * kLanes, sizeof(V));
      acc[v] += xv * kv;
    }
  }
  for (int v = 0; v < kVecs; ++v) {
    const V a = acc[v];
    std::memcpy(out + v * kLanes, &a, sizeof(V));
  }
}

// PointChunk<E, kBytes, 4> for two points at once (out0/x0 and out1/x1):
// each kernel vector is loaded once for both, and the tap loop runs once.
// Each point's sum runs over the taps in the same order, so the same bits.
template <typename E, int kBytes>
__attribute__((always_inline)) inline void PairChunk(E* __restrict out0, E* __restrict out1,
                                                     const E* __restrict x0, const E* __restrict x1,
                                                     const int64_t* xoff, const int64_t* koff,
                                                     int64_t ntaps, const E* __restrict k) {
  using V = Vec<E, kBytes>;
  constexpr int64_t kLanes = kBytes / sizeof(E);
  V acc0[4], acc1[4];
  for (int v = 0; v < 4; ++v) acc0[v] = acc1[v] = V{};
  for (int64_t t = 0; t < ntaps; ++t) {
    const E* kt = k + koff[t];
    for (int v = 0; v < 4; ++v) {
      V kv, a, b;
      std::memcpy(&kv, kt + v * kLanes, sizeof(V));
      std::memcpy(&a, x0 + xoff[t] + v * kLanes, sizeof(V));
      std::memcpy(&b, x1 + xoff[t] + v * kLanes, sizeof(V));
      acc0[v] += a * kv;
      acc1[v] += b * kv;
    }
  }
  for (int v = 0; v < 4; ++v) {
    const V a = acc0[v], b = acc1[v];
    std::memcpy(out0 + v * kLanes, &a, sizeof(V));
    std::memcpy(out1 + v * kLanes, &b, sizeof(V));
  }
}

// Features [f0, n) of one point: fewer than four vectors, then a scalar
// tail.
template <typename E, int kBytes>
__attribute__((always_inline)) inline void PointRest(E* __restrict out, const E* __restrict x,
                                                     int64_t f0, const int64_t* xoff,
                                                     const int64_t* koff, int64_t ntaps,
                                                     const E* __restrict k, int64_t n) {
  constexpr int64_t kLanes = kBytes / sizeof(E);
  const int64_t left = (n - f0) / kLanes;
  if (left == 3) PointChunk<E, kBytes, 3>(out + f0, x + f0, xoff, koff, ntaps, k + f0);
  if (left == 2) PointChunk<E, kBytes, 2>(out + f0, x + f0, xoff, koff, ntaps, k + f0);
  if (left == 1) PointChunk<E, kBytes, 1>(out + f0, x + f0, xoff, koff, ntaps, k + f0);
  for (f0 += left * kLanes; f0 < n; ++f0) {
    E acc = 0;
    for (int64_t t = 0; t < ntaps; ++t) acc += x[xoff[t] + f0] * k[koff[t] + f0];
    out[f0] = acc;
  }
}

// `count` output points along a line, point p at out + p * n reading the
// window at x + p * x_step: out[f] = sum over t of x[xoff[t] + f] *
// k[koff[t] + f], f < n, taps in order. Up to four kBytes vectors of
// features accumulate in registers across all taps; a tail of fewer than
// one vector runs scalar. (The same multiplies and adds in the same order
// for every vector width, never fused into FMAs (-ffp-contract=off), so
// every ISA gives the same bits.)
template <typename E, int kBytes>
__attribute__((always_inline)) inline void DepthwiseLine(E* __restrict out, const E* __restrict x,
                                                         int64_t x_step, int64_t count,
                                                         const int64_t* xoff, const int64_t* koff,
                                                         int64_t ntaps, const E* __restrict k,
                                                         int64_t n) {
  constexpr int64_t kLanes = kBytes / sizeof(E);
  // The window's last tap reads the input row no earlier point read; its
  // features for the point kPrefetchBytes ahead are asked for now, so that
  // the loads do not wait on memory (depthwise_conv, f32[8,112,112,64],
  // interleaved: 3.3 -> 2.1 ms mean of medians; 2, 8 and 16 points ahead
  // gave less than the 32 that these 8 KiB are there; streaming stores for
  // the result gave nothing more). The address is computed as an integer:
  // it may lie past the input, where a prefetch does nothing.
  constexpr int64_t kPrefetchBytes = 8 << 10;
  const int64_t step_bytes = x_step * static_cast<int64_t>(sizeof(E));
  const uintptr_t ahead_bytes =
      ntaps == 0 || step_bytes == 0
          ? 0
          : static_cast<uintptr_t>(std::max<int64_t>(1, kPrefetchBytes / step_bytes) * step_bytes +
                                   xoff[ntaps - 1] * static_cast<int64_t>(sizeof(E)));
  auto prefetch = [&](const E* point) {
    if (ahead_bytes == 0) return;
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(point) + ahead_bytes;
    for (int64_t b = 0; b < n * static_cast<int64_t>(sizeof(E)); b += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(ahead + b));
    }
  };
  int64_t p = 0;
  // Two points at a time where there are two (PairChunk).
  for (; p + 2 <= count; p += 2, out += 2 * n, x += 2 * x_step) {
    prefetch(x);
    prefetch(x + x_step);
    int64_t f0 = 0;
    for (; f0 + 4 * kLanes <= n; f0 += 4 * kLanes) {
      PairChunk<E, kBytes>(out + f0, out + n + f0, x + f0, x + x_step + f0, xoff, koff, ntaps,
                           k + f0);
    }
    PointRest<E, kBytes>(out, x, f0, xoff, koff, ntaps, k, n);
    PointRest<E, kBytes>(out + n, x + x_step, f0, xoff, koff, ntaps, k, n);
  }
  for (; p < count; ++p, out += n, x += x_step) {
    prefetch(x);
    int64_t f0 = 0;
    for (; f0 + 4 * kLanes <= n; f0 += 4 * kLanes) {
      PointChunk<E, kBytes, 4>(out + f0, x + f0, xoff, koff, ntaps, k + f0);
    }
    PointRest<E, kBytes>(out, x, f0, xoff, koff, ntaps, k, n);
  }
}

// One entry per ISA, each with registers of its own width: AVX-512's 64
// bytes, AVX2's 32, SSE2's 16. (As GCC target_clones of one 64-byte
// version, the AVX2 clone split every vector in two and kept the
// accumulators on the stack: depthwise_conv 9.4 ms on a Zen 3.)
#if defined(__x86_64__)
#define HLO_DEPTHWISE_RUN(E)                                                                       \
  __attribute__((target("avx512f"))) void DepthwiseRunAvx512(                                      \
      E* out, const E* x, int64_t x_step, int64_t count, const int64_t* xoff, const int64_t* koff, \
      int64_t ntaps, const E* k, int64_t n) {                                                      \
    DepthwiseLine<E, 64>(out, x, x_step, count, xoff, koff, ntaps, k, n);                          \
  }                                                                                                \
  __attribute__((target("avx2"))) void DepthwiseRunAvx2(                                           \
      E* out, const E* x, int64_t x_step, int64_t count, const int64_t* xoff, const int64_t* koff, \
      int64_t ntaps, const E* k, int64_t n) {                                                      \
    DepthwiseLine<E, 32>(out, x, x_step, count, xoff, koff, ntaps, k, n);                          \
  }                                                                                                \
  void DepthwiseRun(E* out, const E* x, int64_t x_step, int64_t count, const int64_t* xoff,        \
                    const int64_t* koff, int64_t ntaps, const E* k, int64_t n) {                   \
    static const int isa = __builtin_cpu_supports("avx512f") ? 2                                   \
                           : __builtin_cpu_supports("avx2")  ? 1                                   \
                                                             : 0;                                   \
    if (isa == 2) return DepthwiseRunAvx512(out, x, x_step, count, xoff, koff, ntaps, k, n);       \
    if (isa == 1) return DepthwiseRunAvx2(out, x, x_step, count, xoff, koff, ntaps, k, n);         \
    DepthwiseLine<E, 16>(out, x, x_step, count, xoff, koff, ntaps, k, n);                          \
  }
#else
#define HLO_DEPTHWISE_RUN(E)                                                                \
  void DepthwiseRun(E* out, const E* x, int64_t x_step, int64_t count, const int64_t* xoff, \
                    const int64_t* koff, int64_t ntaps, const E* k, int64_t n) {            \
    DepthwiseLine<E, 16>(out, x, x_step, count, xoff, koff, ntaps, k, n);                   \
  }
#endif
HLO_DEPTHWISE_RUN(float)
HLO_DEPTHWISE_RUN(double)
#undef HLO_DEPTHWISE_RUN

// f32 windows three wide along the line (stride 1, no dilation there),
// with the features in whole 16-lane vectors: for each vector of
// features, kPoints neighbouring points at a time, each window row's three
// kernel vectors loaded once for them all and each input vector once for
// the (up to three) points whose windows hold it. Each point's sum still
// runs from +0 over the taps in window order (rows, then columns), a
// product then an add each, so the bits are DepthwiseRun's. (DepthwiseRun
// reloaded every kernel and input vector per point and tap, with the taps'
// offsets from memory: 140 cycles a point of 64 features on a Zen 4.)
#if defined(__x86_64__)
template <int kPoints, bool kStream>
__attribute__((target("avx512f"), always_inline)) inline void Row3Block(float* out, const float* x,
                                                                        int64_t rows,
                                                                        int64_t row_off,
                                                                        const float* k, int64_t C) {
  __m512 acc[kPoints];
  for (int j = 0; j < kPoints; ++j) acc[j] = _mm512_setzero_ps();
  for (int64_t dy = 0; dy < rows; ++dy) {
    const float* line = x + dy * row_off;
    const float* kr = k + dy * 3 * C;
    const __m512 k0 = _mm512_loadu_ps(kr), k1 = _mm512_loadu_ps(kr + C),
                 k2 = _mm512_loadu_ps(kr + 2 * C);
    __m512 v[kPoints + 2];
    for (int i = 0; i < kPoints + 2; ++i) v[i] = _mm512_loadu_ps(line + i * C);
    for (int j = 0; j < kPoints; ++j) {
      acc[j] = _mm512_add_ps(acc[j], _mm512_mul_ps(v[j], k0));
      acc[j] = _mm512_add_ps(acc[j], _mm512_mul_ps(v[j + 1], k1));
      acc[j] = _mm512_add_ps(acc[j], _mm512_mul_ps(v[j + 2], k2));
    }
  }
  for (int j = 0; j < kPoints; ++j) {
    if constexpr (kStream) {
      _mm512_stream_ps(out + j * C, acc[j]);
    } else {
      _mm512_storeu_ps(out + j * C, acc[j]);
    }
  }
}

// `count` points of C features (a multiple of 16) one point apart, the
// first's window from x: `rows` window rows row_off apart, kernel k[row]
// [column][C]. A block of points takes every feature vector before the
// next block, so that the input streams in order (a pass over the line per
// feature vector, 256 bytes apart, ran 1.6x slower than before from
// memory), and asks for the newest window row's bytes kPrefetchBytes
// ahead, as DepthwiseLine does. With kStream (out 64-byte aligned) the
// results go to memory by streaming stores: the caller's StreamStoreFence
// orders them.
template <bool kStream>
__attribute__((target("avx512f"))) void Row3Points(float* out, const float* x, int64_t count,
                                                   int64_t rows, int64_t row_off, const float* k,
                                                   int64_t C) {
  constexpr int kPoints = 8;
  constexpr int64_t kPrefetchBytes = 8 << 10;
  const uintptr_t newest = static_cast<uintptr_t>((rows - 1) * row_off) * sizeof(float);
  const int64_t block_bytes = kPoints * C * static_cast<int64_t>(sizeof(float));
  int64_t p = 0;
  for (; p + kPoints <= count; p += kPoints) {
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(x + p * C) + newest + kPrefetchBytes;
    for (int64_t b = 0; b < block_bytes; b += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(ahead + b));
    }
    for (int64_t c = 0; c < C; c += 16) {
      Row3Block<kPoints, kStream>(out + p * C + c, x + p * C + c, rows, row_off, k + c, C);
    }
  }
  for (; p < count; ++p) {
    for (int64_t c = 0; c < C; c += 16) {
      Row3Block<1, kStream>(out + p * C + c, x + p * C + c, rows, row_off, k + c, C);
    }
  }
}

void Row3Points(bool stream, float* out, const float* x, int64_t count, int64_t rows,
                int64_t row_off, const float* k, int64_t C) {
  if (stream) {
    Row3Points<true>(out, x, count, rows, row_off, k, C);
  } else {
    Row3Points<false>(out, x, count, rows, row_off, k, C);
  }
}

bool Row3Available() { return __builtin_cpu_supports("avx512f"); }
#else
void Row3Points(bool, float*, const float*, int64_t, int64_t, int64_t, const float*, int64_t) {}
bool Row3Available() { return false; }
#endif

template <typename T>
void DepthwiseRun(T* out, const T* x, int64_t x_step, int64_t count, const int64_t* xoff,
                  const int64_t* koff, int64_t ntaps, const T* k, int64_t n) {
  for (int64_t p = 0; p < count; ++p, out += n, x += x_step) {
    std::fill(out, out + n, T(0));
    for (int64_t t = 0; t < ntaps; ++t) {
      for (int64_t f = 0; f < n; ++f) out[f] += x[xoff[t] + f] * k[koff[t] + f];
    }
  }
}

// A depth multiplier above 1: output feature f reads input feature f / per.
template <typename T>
void SpreadPoint(T* out, const T* x, const int64_t* xoff, const int64_t* koff, int64_t ntaps,
                 const T* k, int64_t n, int64_t per) {
  std::fill(out, out + n, T(0));
  for (int64_t t = 0; t < ntaps; ++t) {
    const T* xt = x + xoff[t];
    const T* kt = k + koff[t];
    for (int64_t f = 0; f < n; ++f) out[f] += xt[f / per] * kt[f];
  }
}

// Every tap's source offset from the window origin (x), its kernel row (k)
// and its reach per spatial dim (reach[t * nsp + i]).
struct Taps {
  std::vector<int64_t> x, k, reach;
};

template <typename T>
Taps MakeTaps(const Geometry& g, const Source<T>& src) {
  const int64_t ntaps = g.taps(), nsp = g.nsp;
  Taps taps{std::vector<int64_t>(ntaps), std::vector<int64_t>(ntaps),
            std::vector<int64_t>(ntaps * nsp)};
  Dims w(nsp, 0);
  for (int64_t t = 0; t < ntaps; ++t) {
    int64_t off = 0;
    for (int64_t i = 0; i < nsp; ++i) {
      taps.reach[t * nsp + i] = w[i] * g.win_dil[i];
      off += taps.reach[t * nsp + i] * src.sp_stride[i];
    }
    taps.x[t] = off;
    taps.k[t] = t * g.kernel_out;
    for (int64_t i = nsp - 1; i >= 0; --i) {
      if (++w[i] < g.win[i]) break;
      w[i] = 0;
    }
  }
  return taps;
}

// Whether the input and the output together hold kStreamStoreBytes or more.
bool PassesCaches(const Geometry& g, size_t element_bytes) {
  int64_t in = g.batch * g.in_features;
  for (int64_t d : g.in_sp) in *= d;
  const int64_t out = g.out_batch * g.positions() * g.kernel_out;
  return static_cast<int64_t>(element_bytes) * (in + out) >= kStreamStoreBytes;
}

// One line of output points (the last spatial dim) at a time: the points
// whose window lies inside the input run all taps in DepthwiseRun (or
// SpreadPoint), the others only the taps that land inside.
template <typename T>
class DepthwiseLines {
 public:
  DepthwiseLines(const Geometry& g, const Source<T>& src, const T* kd, T* out)
      : g_(g),
        src_(src),
        kd_(kd),
        out_(out),
        width_(g.nsp == 0 ? 1 : g.out_sp[g.nsp - 1]),
        ntaps_(g.taps()),
        taps_(MakeTaps(g, src)),
        row3_(std::is_same_v<T, float> && g.nsp == 2 && g.per_group() == 1 && g.win[1] == 3 &&
              g.win_dil[1] == 1 && g.stride[1] == 1 && src.sp_stride[1] == g.kernel_out &&
              g.kernel_out % 16 == 0 && Row3Available()),
        stream_(row3_ && reinterpret_cast<uintptr_t>(out) % 64 == 0 && PassesCaches(g, sizeof(T))) {
  }

  int64_t width() const { return width_; }

  // Output lines [begin, end), with the scratch of one worker.
  void Run(int64_t begin, int64_t end) const {
    std::vector<int64_t> xoff(ntaps_), koff(ntaps_);
    Dims start(g_.nsp, 0);
    for (int64_t line = begin; line < end; ++line) RunLine(line, start, xoff, koff);
    if (stream_) StreamStoreFence();
  }

 private:
  // The line's source offset (its batch element and outer output indices,
  // their window starts in `start`), and whether its windows lie inside
  // along every dim but the last.
  int64_t LineBase(int64_t line, Dims& start, bool* outer_inside) const {
    const int64_t last = g_.nsp - 1;
    int64_t rem = line, base = 0;
    for (int64_t i = last - 1; i >= 0; --i) {
      const int64_t o = rem % g_.out_sp[i];
      rem /= g_.out_sp[i];
      start[i] = o * g_.stride[i] - src_.pad[i];
      base += start[i] * src_.sp_stride[i];
    }
    *outer_inside = true;
    for (int64_t i = 0; i < last; ++i) {
      *outer_inside =
          *outer_inside && start[i] >= 0 && start[i] + (g_.win[i] - 1) * g_.win_dil[i] < src_.sp[i];
    }
    return base + rem * src_.batch_stride;
  }

  // Points [lo, hi) of a line whose windows lie inside along the outer dims
  // have them inside along the last dim too.
  void InsideRange(bool outer_inside, int64_t* lo, int64_t* hi) const {
    *lo = *hi = 0;
    if (!outer_inside) return;
    if (g_.nsp == 0) {
      *hi = width();
      return;
    }
    const int64_t last = g_.nsp - 1, s = g_.stride[last], p = src_.pad[last];
    const int64_t reach = (g_.win[last] - 1) * g_.win_dil[last];
    *lo = p <= 0 ? 0 : std::min(width(), (p + s - 1) / s);
    const int64_t room = src_.sp[last] - 1 - reach + p;  // ox * s <= room
    *hi = std::max(*lo, room < 0 ? 0 : std::min(width(), room / s + 1));
  }

  void RunLine(int64_t line, Dims& start, std::vector<int64_t>& xoff,
               std::vector<int64_t>& koff) const {
    const int64_t nsp = g_.nsp, last = nsp - 1, C = g_.kernel_out, per = g_.per_group();
    bool outer_inside;
    const int64_t base = LineBase(line, start, &outer_inside);
    int64_t lo, hi;
    InsideRange(outer_inside, &lo, &hi);
    T* o = out_ + line * width() * C;
    for (int64_t ox = 0; ox < width();) {
      int64_t b = base;
      if (nsp > 0) {
        start[last] = ox * g_.stride[last] - src_.pad[last];
        b += start[last] * src_.sp_stride[last];
      }
      if (ox >= lo && ox < hi) {
        const int64_t step = nsp > 0 ? g_.stride[last] * src_.sp_stride[last] : 0;
        InsidePoints(o, b, step, hi - ox);
        o += (hi - ox) * C;
        ox = hi;
        continue;
      }
      int64_t n = 0;
      for (int64_t t = 0; t < ntaps_; ++t) {
        if (!TapInside(t, start)) continue;
        xoff[n] = b + taps_.x[t];
        koff[n++] = taps_.k[t];
      }
      if (per == 1) {
        DepthwiseRun(o, src_.x, 0, 1, xoff.data(), koff.data(), n, kd_, C);
      } else {
        SpreadPoint(o, src_.x, xoff.data(), koff.data(), n, kd_, C, per);
      }
      o += C;
      ++ox;
    }
  }

  // `count` points from source offset b on, `step` apart, all taps inside.
  void InsidePoints(T* o, int64_t b, int64_t step, int64_t count) const {
    const int64_t C = g_.kernel_out, per = g_.per_group();
    if constexpr (std::is_same_v<T, float>) {
      if (row3_) {
        Row3Points(stream_, o, src_.x + b, count, g_.win[0], g_.win_dil[0] * src_.sp_stride[0], kd_,
                   C);
        return;
      }
    }
    if (per == 1) {
      DepthwiseRun(o, src_.x + b, step, count, taps_.x.data(), taps_.k.data(), ntaps_, kd_, C);
      return;
    }
    for (int64_t q = 0; q < count; ++q) {
      SpreadPoint(o + q * C, src_.x + b + q * step, taps_.x.data(), taps_.k.data(), ntaps_, kd_, C,
                  per);
    }
  }

  bool TapInside(int64_t t, const Dims& start) const {
    for (int64_t i = 0; i < g_.nsp; ++i) {
      const int64_t p = start[i] + taps_.reach[t * g_.nsp + i];
      if (p < 0 || p >= src_.sp[i]) return false;
    }
    return true;
  }

  const Geometry& g_;
  const Source<T>& src_;
  const T* kd_;
  T* out_;
  const int64_t width_;  // output points a line (the last spatial dim's size)
  const int64_t ntaps_;
  const Taps taps_;
  // Inside points run in Row3Points: f32, 2-D, windows three wide along
  // the line, stride 1, features in whole vectors; their results by
  // streaming stores where the input and output pass kStreamStoreBytes
  // together (they cannot stay in the caches: depthwise_conv's f32
  // [8,112,112,64], 25.7 MB each, 2.2-2.7 -> 1.8-2.2 ms).
  const bool row3_;
  const bool stream_;
};

}  // namespace

template <typename T>
void DepthwiseConvolution(const Geometry& g, const Source<T>& src, const T* kd, T* out) {
  const DepthwiseLines<T> lines(g, src, kd, out);
  const int64_t width = lines.width();
  const int64_t count = width == 0 ? 0 : g.out_batch * g.positions() / width;
  const int64_t work_per_line = std::max<int64_t>(1, width * g.kernel_out * g.taps());
  ParallelRows(count, std::max<int64_t>(1, (int64_t{1} << 16) / work_per_line),
               [&](int64_t begin, int64_t end) { lines.Run(begin, end); });
}

#define HLO_DEPTHWISE_INSTANTIATE(T) \
  template void DepthwiseConvolution<T>(const Geometry&, const Source<T>&, const T*, T*);
HLO_DEPTHWISE_INSTANTIATE(float)
HLO_DEPTHWISE_INSTANTIATE(double)
HLO_DEPTHWISE_INSTANTIATE(gemm::cfloat)
HLO_DEPTHWISE_INSTANTIATE(gemm::cdouble)
HLO_DEPTHWISE_INSTANTIATE(uint64_t)
#undef HLO_DEPTHWISE_INSTANTIATE

}  // namespace conv
}  // namespace hlo
