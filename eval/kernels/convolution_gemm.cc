// The im2col + gemm path of convolution (see eval/kernels/convolution_internal.h).
//
// Output rows (batch x output positions) are cut into blocks; per group and
// block the windows are gathered into a patch matrix [rows][taps * kernel_in]
// (one run of in-features per tap, or one run per window row when the last
// window dim is undilated and the group takes every feature) and
// multiplied by the group's kernel matrix with one gemm. A block's patch
// matrix is about 1 MB, so it is still in the core's cache when the gemm
// reads it. Several (group, block) items go to one worker per core, each
// running single-threaded gemms (no wake-up of OpenBLAS's workers per call,
// none spinning while the patches are gathered); a single item runs the
// gather on the cores and then one multi-threaded gemm. Windows reaching
// outside the source (virtual padding) get zeros for those taps.
//
// Pointwise windows (1x1, stride 1, no padding) skip the gather: the
// source rows are the patch matrix.
#include <algorithm>
#include <cstring>

#include "eval/kernels/convolution_internal.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/scratch_buffer.h"

namespace hlo {
namespace conv {

int64_t Geometry::positions() const {
  int64_t p = 1;
  for (int64_t x : out_sp) p *= x;
  return p;
}

int64_t Geometry::taps() const {
  int64_t p = 1;
  for (int64_t x : win) p *= x;
  return p;
}

bool WindowInside(const Geometry& g, const Dims& sp, const Dims& start) {
  for (int64_t i = 0; i < g.nsp; ++i) {
    if (start[i] < 0 || start[i] + (g.win[i] - 1) * g.win_dil[i] >= sp[i]) return false;
  }
  return true;
}

namespace {

// Patch-matrix elements per block (1 MB of f32: a worker's block stays in
// its core's L2 from the gather to the gemm), and the fewest rows a block
// (each gemm reads the whole kernel matrix of its group once).
constexpr int64_t kBlockElements = int64_t{1} << 18;
constexpr int64_t kMinBlockRows = 128;
// A single block is split across the cores from this much work on and
// this many rows a core.
constexpr int64_t kMinSplitMacs = int64_t{1} << 20;
constexpr int64_t kMinSplitRows = 16;

// The window's taps in row-major order: source offset from the window
// origin and reach per dim.
struct Taps {
  std::vector<int64_t> offset;
  std::vector<int64_t> reach;  // [tap][dim]
  int64_t run = 1;             // taps per contiguous source run
};

template <typename T>
Taps MakeTaps(const Geometry& g, const Source<T>& src) {
  Taps t;
  const int64_t n = g.taps();
  t.offset.resize(n);
  t.reach.resize(n * g.nsp);
  Dims w(g.nsp, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int64_t i = 0; i < g.nsp; ++i) {
      t.reach[k * g.nsp + i] = w[i] * g.win_dil[i];
      off += t.reach[k * g.nsp + i] * src.sp_stride[i];
    }
    t.offset[k] = off;
    for (int64_t i = g.nsp - 1; i >= 0; --i) {
      if (++w[i] < g.win[i]) break;
      w[i] = 0;
    }
  }
  // Neighbouring taps along an undilated last dim are kernel_in apart in
  // the source: contiguous when the group reads every feature.
  if (g.nsp > 0 && g.win_dil[g.nsp - 1] == 1 && g.kernel_in == g.in_features) {
    t.run = g.win[g.nsp - 1];
  }
  return t;
}

// One patch row of a window that reaches outside the source: zeros there.
// Along a run (the last window dim, contiguous in the source) the taps
// inside are one stretch, copied at once: a weight gradient's window spans
// the whole image, so nearly every row is an edge row (cnn_grad's
// f32[3,3,3,16]: 1024 taps a row, copied 4 floats at a time before).
template <typename T>
void GatherEdgeRow(const Geometry& g, const Source<T>& src, const Taps& taps, const Dims& start,
                   int64_t off, T* dst) {
  const int64_t kin = g.kernel_in, ntaps = static_cast<int64_t>(taps.offset.size());
  const int64_t last = g.nsp - 1;
  for (int64_t t = 0; t < ntaps; t += taps.run) {
    bool inside = true;
    for (int64_t i = 0; i < last; ++i) {
      const int64_t p = start[i] + taps.reach[t * g.nsp + i];
      inside = inside && p >= 0 && p < src.sp[i];
    }
    // Taps [lo, hi) of the run are inside along the last dim: positions
    // p0, p0 + 1, ... (runs are undilated; a run of one tap is the tap).
    int64_t lo = 0, hi = taps.run;
    if (last >= 0) {
      const int64_t p0 = start[last] + taps.reach[t * g.nsp + last];
      lo = std::clamp<int64_t>(-p0, 0, taps.run);
      hi = std::clamp<int64_t>(src.sp[last] - p0, 0, taps.run);
    }
    if (!inside || hi <= lo) lo = hi = 0;
    T* row = dst + t * kin;
    std::fill(row, row + lo * kin, T(0));
    if (hi > lo) {
      std::memcpy(row + lo * kin, src.x + off + taps.offset[t + lo], (hi - lo) * kin * sizeof(T));
    }
    std::fill(row + std::max(lo, hi) * kin, row + taps.run * kin, T(0));
  }
}

// Patch rows [r0, r0 + n) of the group whose source features start at c0
// and batch at n0 (element offsets) into cols[n][taps * kernel_in].
template <typename T>
void GatherRows(const Geometry& g, const Source<T>& src, const Taps& taps, int64_t c0, int64_t n0,
                int64_t r0, int64_t n, T* cols) {
  const int64_t kin = g.kernel_in, ntaps = static_cast<int64_t>(taps.offset.size());
  const int64_t kdim = ntaps * kin, positions = g.positions();
  Dims o(g.nsp, 0), start(g.nsp, 0);
  int64_t b = r0 / positions, rem = r0 % positions;
  for (int64_t i = g.nsp - 1; i >= 0; --i) {
    o[i] = rem % g.out_sp[i];
    rem /= g.out_sp[i];
  }
  const size_t run_bytes = static_cast<size_t>(taps.run * kin) * sizeof(T);
  for (int64_t r = 0; r < n; ++r) {
    int64_t off = n0 + c0 + b * src.batch_stride;
    for (int64_t i = 0; i < g.nsp; ++i) {
      start[i] = o[i] * g.stride[i] - src.pad[i];
      off += start[i] * src.sp_stride[i];
    }
    T* dst = cols + r * kdim;
    if (WindowInside(g, src.sp, start)) {
      const T* base = src.x + off;
      for (int64_t t = 0; t < ntaps; t += taps.run) {
        std::memcpy(dst + t * kin, base + taps.offset[t], run_bytes);
      }
    } else {
      GatherEdgeRow(g, src, taps, start, off, dst);
    }
    for (int64_t i = g.nsp - 1; i >= 0; --i) {
      if (++o[i] < g.out_sp[i]) break;
      o[i] = 0;
      if (i == 0) ++b;
    }
    if (g.nsp == 0) ++b;
  }
}

template <typename T>
bool Pointwise(const Geometry& g, const Source<T>& src) {
  for (int64_t i = 0; i < g.nsp; ++i) {
    if (g.win[i] != 1 || g.stride[i] != 1 || src.pad[i] != 0 || src.sp[i] != g.out_sp[i]) {
      return false;
    }
  }
  return src.batch_stride == g.positions() * g.in_features;
}

}  // namespace

template <typename T>
absl::Status GemmConvolution(const Geometry& g, const Source<T>& src, const KernelMatrix<T>& k,
                             T* out) {
  const int64_t groups = g.groups(), per = g.per_group(), kin = g.kernel_in;
  const int64_t rows = g.out_batch * g.positions();
  if (rows == 0 || per == 0) return absl::OkStatus();
  // Feature groups read a slice of the features, batch groups of the batch.
  auto c0 = [&](int64_t grp) { return g.feature_groups > 1 ? grp * kin : 0; };
  auto n0 = [&](int64_t grp) {
    return g.batch_groups > 1 ? grp * g.out_batch * src.batch_stride : 0;
  };
  if (Pointwise(g, src)) {
    for (int64_t grp = 0; grp < groups; ++grp) {
      gemm::Gemm<T>(false, false, rows, per, kin, src.x + n0(grp) + c0(grp), g.in_features,
                    k.k + grp * k.group_offset, k.ld, out + grp * per, g.kernel_out, groups);
    }
    return absl::OkStatus();
  }
  const Taps taps = MakeTaps(g, src);
  const int64_t kdim = static_cast<int64_t>(taps.offset.size()) * kin;
  const int64_t cores = CoreCount();
  int64_t block =
      std::min(rows, std::max(kMinBlockRows, kBlockElements / std::max<int64_t>(1, kdim)));
  int64_t blocks = (rows + block - 1) / block;
  // One item with a long contraction (a weight gradient: a few output
  // positions, a window as large as the image) is still worth a block per
  // core: each gathers its rows and runs its own gemm.
  if (blocks == 1 && groups == 1 && rows >= kMinSplitRows * cores &&
      rows * kdim * per >= kMinSplitMacs) {
    blocks = cores;
  }
  // Few items: as many as there are cores (or a multiple), evenly sized.
  if (blocks > 1 && groups * blocks < 4 * cores) {
    blocks = (blocks + cores - 1) / cores * cores;
    block = (rows + blocks - 1) / blocks;
    blocks = (rows + block - 1) / block;
  }
  const int64_t items = groups * blocks;
  const int64_t workers = std::min(cores, items);
  std::vector<ScratchBuffer<T>> cols(workers);
  for (ScratchBuffer<T>& c : cols) {
    if (auto st = c.Reset(block * kdim); !st.ok()) return st;
  }
  auto item = [&](int64_t it, T* buf, bool parallel_gather) {
    const int64_t grp = it / blocks, r0 = (it % blocks) * block;
    const int64_t n = std::min(block, rows - r0);
    if (parallel_gather) {
      ParallelRows(n, 512, [&](int64_t b, int64_t e) {
        GatherRows(g, src, taps, c0(grp), n0(grp), r0 + b, e - b, buf + b * kdim);
      });
    } else {
      GatherRows(g, src, taps, c0(grp), n0(grp), r0, n, buf);
    }
    gemm::Gemm<T>(false, false, n, per, kdim, buf, kdim, k.k + grp * k.group_offset, k.ld,
                  out + r0 * g.kernel_out + grp * per, g.kernel_out, items);
  };
  if (workers == 1) {
    for (int64_t it = 0; it < items; ++it) item(it, cols[0].data(), true);
    return absl::OkStatus();
  }
  // Each worker its own run of items first, then whichever are left (the
  // machine may be shared): the output rows stay with the core whose rows
  // the next instruction (split by halves) reads (ParallelItems).
  gemm::SingleThreadedBlas one_thread_per_gemm;
  ParallelItems(workers, items, [&](int64_t w, int64_t it) { item(it, cols[w].data(), false); });
  return absl::OkStatus();
}

template absl::Status GemmConvolution<float>(const Geometry&, const Source<float>&,
                                             const KernelMatrix<float>&, float*);
template absl::Status GemmConvolution<double>(const Geometry&, const Source<double>&,
                                              const KernelMatrix<double>&, double*);
template absl::Status GemmConvolution<gemm::cfloat>(const Geometry&, const Source<gemm::cfloat>&,
                                                    const KernelMatrix<gemm::cfloat>&,
                                                    gemm::cfloat*);
template absl::Status GemmConvolution<gemm::cdouble>(const Geometry&, const Source<gemm::cdouble>&,
                                                     const KernelMatrix<gemm::cdouble>&,
                                                     gemm::cdouble*);
template absl::Status GemmConvolution<uint64_t>(const Geometry&, const Source<uint64_t>&,
                                                const KernelMatrix<uint64_t>&, uint64_t*);

}  // namespace conv
}  // namespace hlo
