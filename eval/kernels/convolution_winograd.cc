// Winograd F(2x2, 3x3) convolution (see eval/kernels/convolution_winograd.h).
//
// The output tiles are cut into blocks, and one worker per core takes the
// next free block at a time: its input transform writes V[xi][tile][c],
// 16 single-threaded gemms give M[xi][tile][o] = V[xi] @ U[xi], and its
// output transform writes the 2x2 outputs of each tile. A block's V and M
// stay within kBlockBytes, so they are still in the core's cache from one
// step to the next; that also bounds the scratch memory. Splitting blocks
// across the cores ourselves beats multi-threaded gemm calls: each of
// those wakes OpenBLAS's workers, which then spin for work while the
// transforms run. Tiles that reach past the input (odd output sizes) read
// zeros and write only their valid outputs.
//
// The transforms (1-D, applied along both axes):
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
//   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
//   A^T = [1 1 1 0; 0 1 -1 -1]
// Every inner loop runs over the features, which are contiguous.
#include "eval/kernels/convolution_winograd.h"

#include <algorithm>
#include <cstring>

#include "eval/kernels/gemm.h"
#include "eval/kernels/gemm_convert.h"
#include "eval/kernels/isa_clones.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/scratch_buffer.h"
#include "ir/strings.h"

namespace hlo {
namespace conv {
namespace {

// Bytes of V plus M per block: each worker's block stays in its core's L2
// (2 MB on the benchmark machine) from the input transform through the
// gemms to the output transform. Measured on the conv benchmark (64
// features, so 64 tiles a block): 256 KB to 1 MB about equally good, 512 KB
// best, 2 MB and more up to a third slower.
constexpr int64_t kBlockBytes = int64_t{512} << 10;

// Fewest tiles a block (unless there are fewer): each gemm reads all of
// its C x O kernel plane per block, which must pay for itself with at
// least this many rows when the features are many.
constexpr int64_t kMinBlockTiles = 64;

// See Winograd3x3 (one 64-byte cache line of f32).
constexpr int64_t kSkew = 16;

// u[xi * plane + o] = (G g G^T)[xi] for the 3x3 kernel g of each o < n,
// tap t of which is g[t * plane + o].
// Macro bodies laid out by hand: clang-format reflows the statement macros.
// clang-format off
#define HLO_WINOGRAD_KERNEL_ROW(T)                                                          \
  HLO_ISA_CLONES void KernelRow(                                                            \
      const T* __restrict g, int64_t plane, int64_t n, T* __restrict u) {                   \
    const T h = T(0.5);                                                                     \
    _Pragma("GCC ivdep") for (int64_t o = 0; o < n; ++o) {                                 \
      /* G g: t_i_j, row i and column j */                                                  \
      HLO_WINOGRAD_G_COLUMN(T, 0) HLO_WINOGRAD_G_COLUMN(T, 1) HLO_WINOGRAD_G_COLUMN(T, 2)    \
      HLO_WINOGRAD_G_ROW(0) HLO_WINOGRAD_G_ROW(1) HLO_WINOGRAD_G_ROW(2) HLO_WINOGRAD_G_ROW(3) \
    }                                                                                       \
  }
#define HLO_WINOGRAD_G_COLUMN(T, j)                                                         \
  const T k0_##j = g[j * plane + o], k1_##j = g[(3 + j) * plane + o];                       \
  const T k2_##j = g[(6 + j) * plane + o];                                                  \
  const T t0_##j = k0_##j, t1_##j = h * (k0_##j + k1_##j + k2_##j);                         \
  const T t2_##j = h * (k0_##j - k1_##j + k2_##j), t3_##j = k2_##j;
#define HLO_WINOGRAD_G_ROW(i)                                                               \
  u[(4 * i + 0) * plane + o] = t##i##_0;                                                    \
  u[(4 * i + 1) * plane + o] = h * (t##i##_0 + t##i##_1 + t##i##_2);                        \
  u[(4 * i + 2) * plane + o] = h * (t##i##_0 - t##i##_1 + t##i##_2);                        \
  u[(4 * i + 3) * plane + o] = t##i##_2;
HLO_WINOGRAD_KERNEL_ROW(float)
HLO_WINOGRAD_KERNEL_ROW(double)
#undef HLO_WINOGRAD_KERNEL_ROW
#undef HLO_WINOGRAD_G_COLUMN
#undef HLO_WINOGRAD_G_ROW

// U[xi][c][o] for every input feature c (split across the cores: with many
// features this is a sizeable pass over the kernel).
template <typename T>
void TransformKernel(const WinogradShape& s, const T* kc, T* u) {
  const int64_t C = s.in_features, O = s.out_features, plane = C * O;
  ParallelRows(C, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, O)), [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) KernelRow(kc + c * O, plane, O, u + c * O);
  });
}

// v[xi * vs + c] = (B^T d B)[xi] for the 4x4 tile d whose row r starts at
// r_r (tile columns ps elements apart), for each feature c < n.
#define HLO_WINOGRAD_INPUT_TILE(T)                                                          \
  HLO_ISA_CLONES void InputTile(                                                            \
      const T* __restrict r0, const T* __restrict r1, const T* __restrict r2,               \
      const T* __restrict r3, int64_t ps, int64_t n, T* __restrict v, int64_t vs) {         \
    const T *q0 = r0 + ps, *q1 = r1 + ps, *q2 = r2 + ps, *q3 = r3 + ps;                     \
    const T *s0 = r0 + 2 * ps, *s1 = r1 + 2 * ps, *s2 = r2 + 2 * ps, *s3 = r3 + 2 * ps;     \
    const T *t0 = r0 + 3 * ps, *t1 = r1 + 3 * ps, *t2 = r2 + 3 * ps, *t3 = r3 + 3 * ps;     \
    _Pragma("GCC ivdep") for (int64_t c = 0; c < n; ++c) {                                 \
      /* B^T d: e_i_j, column j of row i */                                                 \
      HLO_WINOGRAD_COLUMN(T, 0, r) HLO_WINOGRAD_COLUMN(T, 1, q)                              \
      HLO_WINOGRAD_COLUMN(T, 2, s) HLO_WINOGRAD_COLUMN(T, 3, t)                              \
      HLO_WINOGRAD_ROW(0) HLO_WINOGRAD_ROW(1) HLO_WINOGRAD_ROW(2) HLO_WINOGRAD_ROW(3)        \
    }                                                                                       \
  }
#define HLO_WINOGRAD_COLUMN(T, j, p)                                                        \
  const T e0_##j = p##0[c] - p##2[c], e1_##j = p##1[c] + p##2[c];                           \
  const T e2_##j = p##2[c] - p##1[c], e3_##j = p##1[c] - p##3[c];
#define HLO_WINOGRAD_ROW(i)                                                                 \
  v[(4 * i + 0) * vs + c] = e##i##_0 - e##i##_2;                                            \
  v[(4 * i + 1) * vs + c] = e##i##_1 + e##i##_2;                                            \
  v[(4 * i + 2) * vs + c] = e##i##_2 - e##i##_1;                                            \
  v[(4 * i + 3) * vs + c] = e##i##_1 - e##i##_3;
HLO_WINOGRAD_INPUT_TILE(float)
HLO_WINOGRAD_INPUT_TILE(double)
#undef HLO_WINOGRAD_INPUT_TILE
#undef HLO_WINOGRAD_COLUMN
#undef HLO_WINOGRAD_ROW

// The 2x2 outputs (A^T m A) of one tile from m[xi * ms + o]: row 0 at y0,
// row 1 at y1, the second column n elements after the first.
#define HLO_WINOGRAD_OUTPUT_TILE(T)                                                         \
  HLO_ISA_CLONES void OutputTile(                                                           \
      const T* __restrict m, int64_t ms, int64_t n, T* __restrict y0, T* __restrict y1) {   \
    _Pragma("GCC ivdep") for (int64_t o = 0; o < n; ++o) {                                 \
      T s[2][4];                                                                            \
      for (int j = 0; j < 4; ++j) {                                                         \
        const T m0 = m[j * ms + o], m1 = m[(4 + j) * ms + o];                               \
        const T m2 = m[(8 + j) * ms + o], m3 = m[(12 + j) * ms + o];                        \
        s[0][j] = m0 + m1 + m2;                                                             \
        s[1][j] = m1 - m2 - m3;                                                             \
      }                                                                                     \
      y0[o] = s[0][0] + s[0][1] + s[0][2];                                                  \
      y0[n + o] = s[0][1] - s[0][2] - s[0][3];                                              \
      y1[o] = s[1][0] + s[1][1] + s[1][2];                                                  \
      y1[n + o] = s[1][1] - s[1][2] - s[1][3];                                              \
    }                                                                                       \
  }
HLO_WINOGRAD_OUTPUT_TILE(float)
HLO_WINOGRAD_OUTPUT_TILE(double)
#undef HLO_WINOGRAD_OUTPUT_TILE
// clang-format on

// Tile counts and the position of a tile (tiles numbered batch, then tile
// row, then tile column).
struct Tiling {
  int64_t out_h = 0, out_w = 0;  // output spatial sizes
  int64_t rows = 0, cols = 0;    // tiles per image along each axis
  int64_t count = 0;             // tiles in all
  void Locate(int64_t t, int64_t& n, int64_t& y, int64_t& x) const {
    n = t / (rows * cols);
    const int64_t r = t % (rows * cols);
    y = 2 * (r / cols);
    x = 2 * (r % cols);
  }
};

// Input transforms of tiles [t0, t0 + n) into v (tile t0 + i at v + i * C,
// xi stride vs). Tiles that reach into the padding are first copied into a
// zero-filled 4x4 buffer.
template <typename T>
void InputTiles(const WinogradShape& s, const Tiling& tl, const T* x, int64_t t0, int64_t n, T* v,
                int64_t vs) {
  const int64_t C = s.in_features, row = s.in_w * C;
  std::vector<T> edge;
  for (int64_t t = 0; t < n; ++t) {
    int64_t b, y, xx;
    tl.Locate(t0 + t, b, y, xx);
    y -= s.pad_top;  // the tile's first input row and column
    xx -= s.pad_left;
    const T* image = x + b * s.in_h * row;
    const T* rows[4];
    if (y >= 0 && y + 4 <= s.in_h && xx >= 0 && xx + 4 <= s.in_w) {
      for (int r = 0; r < 4; ++r) rows[r] = image + (y + r) * row + xx * C;
    } else {
      edge.assign(16 * C, T(0));
      const int64_t r0 = std::max<int64_t>(0, -y), r1 = std::min<int64_t>(4, s.in_h - y);
      const int64_t c0 = std::max<int64_t>(0, -xx), c1 = std::min<int64_t>(4, s.in_w - xx);
      for (int64_t r = r0; r < r1 && c0 < c1; ++r) {
        std::memcpy(&edge[(r * 4 + c0) * C], image + (y + r) * row + (xx + c0) * C,
                    (c1 - c0) * C * sizeof(T));
      }
      for (int r = 0; r < 4; ++r) rows[r] = edge.data() + r * 4 * C;
    }
    InputTile(rows[0], rows[1], rows[2], rows[3], C, C, v + t * C, vs);
  }
}

// Output transforms of tiles [t0, t0 + n) from m (tile t0 + i at m + i * O,
// xi stride ms). Tiles reaching past the output (odd output sizes) go
// through a 2x2 buffer and copy out their valid part.
template <typename T>
void OutputTiles(const WinogradShape& s, const Tiling& tl, const T* m, int64_t ms, int64_t t0,
                 int64_t n, T* out) {
  const int64_t O = s.out_features, row = tl.out_w * O;
  std::vector<T> edge(4 * O);
  for (int64_t t = 0; t < n; ++t) {
    int64_t b, y, x;
    tl.Locate(t0 + t, b, y, x);
    T* base = out + ((b * tl.out_h + y) * tl.out_w + x) * O;
    if (y + 2 <= tl.out_h && x + 2 <= tl.out_w) {
      OutputTile(m + t * O, ms, O, base, base + row);
      continue;
    }
    OutputTile(m + t * O, ms, O, edge.data(), edge.data() + 2 * O);
    const int64_t nr = std::min<int64_t>(2, tl.out_h - y), nc = std::min<int64_t>(2, tl.out_w - x);
    for (int64_t r = 0; r < nr; ++r)
      std::memcpy(base + r * row, &edge[r * 2 * O], nc * O * sizeof(T));
  }
}

absl::Status Scratch(int64_t a, int64_t b, int64_t c, int64_t& n) {
  if (__builtin_mul_overflow(a, b, &n) || __builtin_mul_overflow(n, c, &n)) {
    return absl::ResourceExhaustedError("a Winograd scratch buffer size overflows");
  }
  return absl::OkStatus();
}

}  // namespace

bool WinogradPays(int64_t in_features, int64_t out_features, int64_t tiles) {
  return in_features * out_features >= 16 && tiles >= kMinBlockTiles;
}

// One worker's scratch: a block's transformed inputs V[xi][tile][c] and
// products M[xi][tile][o].
template <typename T>
struct Worker {
  ScratchBuffer<T> v, m;
};

template <typename T>
absl::Status Winograd3x3(const WinogradShape& s, const T* x, const T* kc, T* out) {
  const int64_t C = s.in_features, O = s.out_features;
  Tiling tl;
  tl.out_h = s.out_h;
  tl.out_w = s.out_w;
  tl.rows = (tl.out_h + 1) / 2;
  tl.cols = (tl.out_w + 1) / 2;
  tl.count = s.batch * tl.rows * tl.cols;
  if (tl.count <= 0 || O == 0) return absl::OkStatus();
  const int64_t per_tile = 16 * (C + O) * static_cast<int64_t>(sizeof(T));
  const int64_t block = std::min(std::max(kBlockBytes / per_tile, kMinBlockTiles), tl.count);
  const int64_t blocks = (tl.count + block - 1) / block;
  const int64_t cores = CoreCount();
  const int64_t nworkers = std::min(cores, blocks);
  int64_t nu = 0, nv = 0, nm = 0;
  // The 16 planes of V and M sit kSkew elements further apart than they
  // need: with power-of-two plane sizes the transforms' 16 streams would
  // all map to the same L1 sets.
  const int64_t vs = block * C + kSkew, ms = block * O + kSkew;
  for (auto st : {Scratch(16, C, O, nu), Scratch(16, vs, 1, nv), Scratch(16, ms, 1, nm)}) {
    if (!st.ok()) return st;
  }
  ScratchBuffer<T> u;
  std::vector<Worker<T>> workers(nworkers);
  if (auto st = u.Reset(nu); !st.ok()) return st;
  for (Worker<T>& w : workers) {
    for (auto st : {w.v.Reset(nv), w.m.Reset(nm)}) {
      if (!st.ok()) return st;
    }
  }
  TransformKernel(s, kc, u.data());
  // Each worker its own run of blocks first, then whichever are left (the
  // machine may be shared; ParallelItems): a block's tiles stay with the
  // core whose rows the next instruction reads.
  auto run = [&](Worker<T>& w, int64_t b) {
    const int64_t t0 = b * block, nt = std::min(block, tl.count - t0);
    InputTiles(s, tl, x, t0, nt, w.v.data(), vs);
    for (int64_t xi = 0; xi < 16; ++xi) {
      gemm::Gemm<T>(false, false, nt, O, C, w.v.data() + xi * vs, C, u.data() + xi * C * O, O,
                    w.m.data() + xi * ms, O, 16 * blocks);
    }
    OutputTiles(s, tl, w.m.data(), ms, t0, nt, out);
  };
  gemm::SingleThreadedBlas one_thread_per_gemm;
  ParallelItems(nworkers, blocks, [&](int64_t w, int64_t b) { run(workers[w], b); });
  return absl::OkStatus();
}

template absl::Status Winograd3x3<float>(const WinogradShape&, const float*, const float*, float*);
template absl::Status Winograd3x3<double>(const WinogradShape&, const double*, const double*,
                                          double*);

}  // namespace conv
}  // namespace hlo
