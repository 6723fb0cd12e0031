// reduce-window (strides, padding, base and window dilation, variadic).
//
// Each output folds its window in row-major window order, starting from
// the init value, with padding and base-dilation holes reading the init
// value (the spec's reduce_window; XLA's evaluator folds in this order).
// Four ways to do it, all giving that fold bit for bit:
//
// * a window along one dimension that covers the operand from its start
//   (jnp.cumsum's `size=n pad=n-1_0`) is an inclusive scan, O(n) per line:
//   output o is output o-1 folded with one more element, provided a run of
//   padding folds to the init value (reducer(init, init) == init);
//   the mirror image (a reversed cumulative reduction) is a scan from the
//   end, for reducers that are exactly associative;
// * a simple reducer (eval/kernels/scalar_apply.h) otherwise runs as a typed loop,
//   O(outputs x window), vectorised across the output's minor dimension;
// * a reducer that picks one of its argument tuples whole by a predicate
//   of some operands (XLA's select-and-scatter expansion) folds those and
//   the winner's offset (eval/kernels/reduce_window_select.h);
// * any other reducer through the batched interpreter
//   (eval/interp/batch_program.h), across blocks of output positions, or per
//   element through the evaluator when it does not compile.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/vector_lanes.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/kernels/reduce_window_select.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/kernels/strided_axes.h"
#include "eval/kernels/transpose_4x4.h"
#include "eval/runtime/parallel.h"
#include "eval/type_dispatch.h"
#include "eval/vector_clones.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {
namespace reduction {

absl::Status CheckWindowDims(const Window& window, absl::Span<const int64_t> in_dims,
                             absl::Span<const int64_t> out_dims, std::string_view what) {
  const size_t rank = in_dims.size();
  if (window.size() > rank) {
    return absl::InvalidArgumentError(
        StrCat("the window has ", window.size(), " dims but the input has rank ", rank));
  }
  // Past this, a window's reach or count would overflow.
  constexpr int64_t kMost = int64_t{1} << 40;
  std::vector<int64_t> want(rank);
  for (size_t d = 0; d < rank; ++d) {
    const WindowDim w = d < window.size() ? window[d] : WindowDim{};
    for (int64_t v : {w.size, w.stride, w.base_dilation, w.window_dilation}) {
      if (v < 1 || v > kMost) {
        return absl::InvalidArgumentError(StrCat("window dim ", d, " has a size, stride or ",
                                                 "dilation of ", v, ", not 1 to 2^40"));
      }
    }
    if (std::abs(w.padding_low) > kMost || std::abs(w.padding_high) > kMost) {
      return absl::InvalidArgumentError(StrCat("window dim ", d, " pads past 2^40"));
    }
    const int64_t dilated = in_dims[d] == 0 ? 0 : (in_dims[d] - 1) * w.base_dilation + 1;
    const int64_t padded = dilated + w.padding_low + w.padding_high;
    const int64_t reach = (w.size - 1) * w.window_dilation + 1;
    want[d] = padded < reach ? 0 : (padded - reach) / w.stride + 1;
  }
  if (out_dims != absl::Span<const int64_t>(want)) {
    return absl::InvalidArgumentError(StrCat(what, " has dims {", StrJoin(out_dims, ","),
                                             "} but the windows give {", StrJoin(want, ","), "}"));
  }
  return absl::OkStatus();
}

std::vector<WindowAxis> WindowAxes(const Window& window, absl::Span<const int64_t> in_dims,
                                   absl::Span<const int64_t> out_dims) {
  if (in_dims.empty()) return {WindowAxis{}};
  std::vector<WindowAxis> axes(in_dims.size());
  for (size_t d = 0; d < in_dims.size(); ++d) {
    const WindowDim w = d < window.size() ? window[d] : WindowDim{};
    WindowAxis& a = axes[d];
    a.in = in_dims[d];
    a.out = out_dims[d];
    a.size = w.size;
    a.stride = w.stride;
    a.pad_lo = w.padding_low;
    a.pad_hi = w.padding_high;
    a.base_dilation = w.base_dilation;
    a.window_dilation = w.window_dilation;
    a.dilated = a.in == 0 ? 0 : (a.in - 1) * a.base_dilation + 1;
  }
  return axes;
}

int SingleWindowAxis(const std::vector<WindowAxis>& axes) {
  int found = -1;
  for (size_t d = 0; d < axes.size(); ++d) {
    if (axes[d].Trivial()) continue;
    if (found >= 0) return -1;
    found = static_cast<int>(d);
  }
  return found;
}

std::vector<int64_t> InsideWindowOffsets(const std::vector<WindowAxis>& axes,
                                         absl::Span<const int64_t> in_strides) {
  std::vector<int64_t> offsets, widx(axes.size(), 0), wdims;
  for (const WindowAxis& a : axes) wdims.push_back(a.size);
  do {
    int64_t at = 0;
    for (size_t d = 0; d < axes.size(); ++d) {
      at += widx[d] * axes[d].window_dilation * in_strides[d];
    }
    offsets.push_back(at);
  } while (NextIndex(widx, wdims));
  return offsets;
}

std::optional<RowWindows> TrailingRows(const std::vector<WindowAxis>& axes,
                                       absl::Span<const int64_t> in_strides, int64_t min_inner) {
  size_t tail = axes.size();
  int64_t inner = 1;
  while (tail > 0 && axes[tail - 1].Trivial()) inner *= axes[--tail].in;
  if (tail == 0 || tail == axes.size() || inner < min_inner) return std::nullopt;
  return RowWindows(axes, in_strides, tail);
}

int64_t PartsOfBlocks(int64_t blocks, int64_t block_steps) {
  const int64_t steps = std::max<int64_t>(1, block_steps);
  const int64_t min_blocks = (kMinPartSteps + steps - 1) / steps;
  return std::min(CoreCount(), std::max<int64_t>(1, blocks / min_blocks));
}

absl::Status RunBlocksInParts(
    int64_t blocks, absl::Span<BatchProgram* const> programs,
    const std::function<absl::Status(BatchProgram&, int64_t, int64_t)>& run) {
  const int64_t parts = static_cast<int64_t>(programs.size());
  if (parts == 1) return run(*programs[0], 0, blocks);
  std::atomic<int64_t> next_program{0};
  std::mutex failure_mu;
  absl::Status failure;
  ParallelRows(blocks, (blocks + parts - 1) / parts, [&](int64_t begin, int64_t end) {
    BatchProgram& program = *programs[std::min<int64_t>(next_program++, parts - 1)];
    absl::Status s = run(program, begin, end);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(failure_mu);
      if (failure.ok()) failure = s;
    }
  });
  return failure;
}

std::vector<int64_t> AllRowOffsets(RowWindows& rows) {
  std::vector<int64_t> offsets;
  for (int64_t q = 0; q < rows.rows(); ++q) {
    absl::Span<const int64_t> row = rows.Next();
    offsets.insert(offsets.end(), row.begin(), row.end());
  }
  return offsets;
}

RowWindows::RowWindows(const std::vector<WindowAxis>& axes, absl::Span<const int64_t> in_strides,
                       size_t tail)
    : outer_(axes.begin(), axes.begin() + tail),
      strides_(in_strides.begin(), in_strides.begin() + tail),
      row_(tail, 0) {
  for (size_t d = tail; d < axes.size(); ++d) inner_ *= axes[d].in;
  for (const WindowAxis& a : outer_) {
    out_dims_.push_back(a.out);
    rows_ *= a.out;
  }
  inside_ =
      std::all_of(outer_.begin(), outer_.end(), [](const WindowAxis& a) { return a.Inside(); });
  if (inside_) {
    inside_offsets_ = tail == 0 ? std::vector<int64_t>{0} : InsideWindowOffsets(outer_, strides_);
    offsets_.resize(inside_offsets_.size());
    for (size_t d = 0; d < tail; ++d) origin_steps_.push_back(outer_[d].stride * strides_[d]);
    return;
  }
  // Padding, holes or dilation: per axis, the offset each (output index,
  // window position) reads (-1: padding or a hole), worked out once, so a
  // row's positions are sums of table entries, not Index()'s divisions.
  int64_t entries = 0;
  for (const WindowAxis& a : outer_) entries += a.out * a.size;
  if (entries > (int64_t{1} << 16)) return;  // VisitWindow per row instead
  axis_offsets_.resize(tail);
  for (size_t d = 0; d < tail; ++d) {
    const WindowAxis& a = outer_[d];
    axis_offsets_[d].resize(a.out * a.size);
    for (int64_t o = 0; o < a.out; ++o) {
      for (int64_t k = 0; k < a.size; ++k) {
        const int64_t i = a.Index(o, k);
        axis_offsets_[d][o * a.size + k] = i < 0 ? -1 : i * strides_[d];
      }
    }
  }
  levels_.assign(tail + 1, std::vector<int64_t>{0});
  for (size_t d = 0; d < tail; ++d) levels_[d + 1].resize(levels_[d].size() * outer_[d].size);
  tabled_ = true;
}

size_t RowWindows::Advance() {
  // The next row, row-major: `changed` is the first axis whose index moved
  // (the later ones went back to 0).
  size_t changed = 0;
  if (started_) {
    changed = row_.size();
    while (changed > 0) {
      --changed;
      if (++row_[changed] < out_dims_[changed]) {
        if (inside_) origin_ += origin_steps_[changed];
        break;
      }
      if (inside_) origin_ -= (out_dims_[changed] - 1) * origin_steps_[changed];
      row_[changed] = 0;
    }
  }
  started_ = true;
  return changed;
}

absl::Span<const int64_t> RowWindows::Next() {
  const size_t changed = Advance();
  if (inside_) {
    for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] = origin_ + inside_offsets_[k];
  } else if (tabled_) {
    // The positions in row-major window order (the last axis's vary
    // fastest): level d + 1 is level d expanded by axis d's entries for
    // this row, padding or a hole on any axis making a position -1. The
    // levels before the first axis that changed stay.
    for (size_t d = changed; d < outer_.size(); ++d) {
      const std::vector<int64_t>& from = levels_[d];
      int64_t* to = levels_[d + 1].data();
      const int64_t size = outer_[d].size;
      const int64_t* entries = axis_offsets_[d].data() + row_[d] * size;
      for (size_t n = 0; n < from.size(); ++n) {
        for (int64_t k = 0; k < size; ++k) {
          const int64_t base = from[n], v = entries[k];
          to[n * size + k] = base < 0 || v < 0 ? -1 : base + v;
        }
      }
    }
    return levels_.back();
  } else {
    offsets_.clear();
    VisitWindow(outer_, strides_, row_, scratch_, [&](int64_t i) { offsets_.push_back(i); });
  }
  return offsets_;
}

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The operand as [outer, axis, inner] around window axis d.
struct Lines {
  int64_t outer = 1, inner = 1;
};
Lines LinesAround(const std::vector<WindowAxis>& axes, int d) {
  Lines l;
  for (int i = 0; i < d; ++i) l.outer *= axes[i].in;
  for (size_t i = d + 1; i < axes.size(); ++i) l.inner *= axes[i].in;
  return l;
}

// ---- simple reducers: typed loops ---------------------------------------------

// Whether folding `init` into an accumulator that started at `init` leaves
// it bit for bit: the identities of max (-inf), min (+inf) and the integer
// ops, and +0 for float sums (an accumulator whose first operand was +0 is
// never -0 when rounding to nearest without flushing, the one value +0
// would change).
template <Opcode op, typename T>
bool InitFoldIsNoOp(T init) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == Opcode::kAnd || op == Opcode::kMultiply || op == Opcode::kMinimum) return init;
    return !init;  // add, or, xor, maximum
  } else if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Opcode::kMultiply:
        return init == 1;
      case Opcode::kAnd:
        return init == static_cast<T>(~T{0});
      case Opcode::kMaximum:
        return init == std::numeric_limits<T>::min();
      case Opcode::kMinimum:
        return init == std::numeric_limits<T>::max();
      default:
        return init == 0;  // add, or, xor
    }
  } else {
    if (op == Opcode::kAdd) return !std::signbit(init) && init == 0 && !FlushesDenormalResults();
    if (op == Opcode::kMaximum) return init == -std::numeric_limits<T>::infinity();
    if (op == Opcode::kMinimum) return init == std::numeric_limits<T>::infinity();
    return false;
  }
}

// Folds `init` into rows whose accumulators started at `init` (padding and
// base-dilation holes); nothing to do where that is the identity (`noop`:
// InitFoldIsNoOp, worked out once per reduce-window, since reading MXCSR
// costs more than a short row).
template <Opcode op, typename T>
void ApplyInit(T* row, int64_t n, T init, bool noop) {
  if (noop) return;
  for (int64_t o = 0; o < n; ++o) row[o] = Apply<op>(row[o], init);
}

// One line along the minor axis `a` (Prefix()), from x into y.
template <Opcode op, typename T>
void ScanLine(const T* x, T init, const WindowAxis& a, T* y) {
  T acc = init;
  int64_t folded = -1;
  for (int64_t o = 0; o < a.out; ++o) {
    for (const int64_t e = a.PrefixEnd(o); folded < e; ++folded)
      acc = Apply<op>(acc, x[folded + 1]);
    y[o] = acc;
  }
}

// Lines scanned side by side as one tile: a vector register's worth.
template <typename T>
constexpr int64_t kTileLines = std::max<int64_t>(8, 64 / static_cast<int64_t>(sizeof(T)));
// Operand columns moved into a tile at a time.
constexpr int64_t kTileColumns = 256;

// dst[c * ds + r] = src[r * ss + c] for r < rows, c < cols: a line tile's
// way in and out, in 4x4 SSE blocks for 4-byte elements. (StridedCopy took
// the strided path for these short tiles: 60% of a long scan's time.)
// kRowsOuter walks src's rows in the outer loop (contiguous reads: into a
// tile), else dst's (contiguous writes: out of one, so each output line is
// written as one run, not 16 bytes at a time across all the lines).
template <bool kRowsOuter, typename T>
void TransposeTile(T* dst, int64_t ds, const T* src, int64_t ss, int64_t rows, int64_t cols) {
  const int64_t full_rows = rows - rows % 4, full_cols = cols - cols % 4;
  auto element = [&](int64_t r, int64_t c) { dst[c * ds + r] = src[r * ss + c]; };
#if defined(__SSE2__)
  if constexpr (sizeof(T) == 4) {
    auto block = [&](int64_t r, int64_t c) {
      Transpose4x4<false>(reinterpret_cast<uint32_t*>(dst + c * ds + r), ds,
                          reinterpret_cast<const uint32_t*>(src + r * ss + c), ss);
    };
    for (int64_t outer = 0; outer < (kRowsOuter ? full_rows : full_cols); outer += 4) {
      for (int64_t inner = 0; inner < (kRowsOuter ? full_cols : full_rows); inner += 4) {
        kRowsOuter ? block(outer, inner) : block(inner, outer);
      }
    }
    for (int64_t r = 0; r < full_rows; ++r) {
      for (int64_t c = full_cols; c < cols; ++c) element(r, c);
    }
    for (int64_t r = full_rows; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) element(r, c);
    }
    return;
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) element(r, c);
  }
}

// A part's tile buffers (not std::vector: T may be bool).
template <typename T>
struct LineTiles {
  std::unique_ptr<T[]> in = std::make_unique<T[]>(kTileColumns * kTileLines<T>);
  std::unique_ptr<T[]> out;
  int64_t out_size = 0;
};

// acc (+)= each of `n` rows of a tile in turn, each result also written as a
// row of `out` when given: a vector operation per lane group, at the
// machine's vector width (one IEEE operation per lane: every clone gives
// the same bits).
template <Opcode op, typename T>
HLO_VECTOR_CLONES void FoldTileRows(T* __restrict acc, const T* __restrict rows, int64_t n,
                                    T* __restrict out) {
  constexpr int64_t kLanes = kTileLines<T>;
  T a[kLanes];
  std::copy_n(acc, kLanes, a);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < kLanes; ++j) a[j] = Apply<op>(a[j], rows[r * kLanes + j]);
    if (out != nullptr) std::copy_n(a, kLanes, out + r * kLanes);
  }
  std::copy_n(a, kLanes, acc);
}

// `count` (at most kTileLines<T>) lines along the minor axis `a`, from x +
// j * a.in into y + j * a.out: a chunk of operand columns at a time is moved
// into a [column, line] tile (a transpose), folded down the tile's rows, one
// vector operation per row for every line (each line's fold in ScanLine's
// order, so the same bits), and each output column moved back. (ScanLine
// chains, eight side by side as it was, ran a scalar chain per element: a
// cummax along the last axis of f32[4096,1024] took 6.2 ms, 1.9-2.2 now.)
template <Opcode op, typename T>
void ScanLineTile(const T* x, T init, const WindowAxis& a, int64_t count, T* y,
                  LineTiles<T>& tiles) {
  constexpr int64_t kLanes = kTileLines<T>;
  T acc[kLanes];
  std::fill_n(acc, kLanes, init);
  T* in_tile = tiles.in.get();
  if (count < kLanes) {  // lanes past `count` fold init
    std::fill_n(in_tile, std::min(kTileColumns, a.in) * kLanes, init);
  }
  // PrefixEnd(q) = q + reach: outputs q < -reach are padding only (init),
  // the first with elements may fold several, each later one one more.
  const int64_t reach = a.size - 1 - a.pad_lo;
  int64_t o = 0;
  for (int64_t first = 0; first < a.in; first += kTileColumns) {
    const int64_t columns = std::min(kTileColumns, a.in - first);
    // Outputs [o, o_end) end within these columns (none, where the first
    // window reaches past them: a window as long as the line, unpadded).
    const int64_t o_end = std::clamp(first + columns - reach, o, a.out);
    TransposeTile<true>(in_tile, kLanes, x + first, a.in, count, columns);
    if (tiles.out_size < (o_end - o) * kLanes) {
      tiles.out_size = (o_end - o) * kLanes;
      tiles.out = std::make_unique<T[]>(tiles.out_size);
    }
    T* out_tile = tiles.out.get();
    int64_t q = o;
    for (; q < o_end && a.PrefixEnd(q) < 0; ++q)
      std::copy_n(acc, kLanes, out_tile + (q - o) * kLanes);
    // Rows before output q's last one, then one row per output.
    const int64_t before = q < o_end ? a.PrefixEnd(q) - first : columns;
    FoldTileRows<op>(acc, in_tile, before, static_cast<T*>(nullptr));
    FoldTileRows<op>(acc, in_tile + before * kLanes, o_end - q, out_tile + (q - o) * kLanes);
    TransposeTile<false>(y + o, a.out, out_tile, kLanes, o_end - o, count);
    o = o_end;  // a.out after the last chunk: the last window ends at the last column
  }
}

// Axis d is Prefix(): out[.., o, ..] = out[.., o-1, ..] (+) x[.., e(o), ..].
template <Opcode op, typename T>
void PrefixScan(const T* src, T init, const std::vector<WindowAxis>& axes, int d, T* dst) {
  const WindowAxis& a = axes[d];
  const Lines l = LinesAround(axes, d);
  const int64_t inner = l.inner;
  if (inner == 1 && l.outer < kTileLines<T>) {
    for (int64_t q = 0; q < l.outer; ++q) ScanLine<op>(src + q * a.in, init, a, dst + q * a.out);
    return;
  }
  if (inner == 1) {
    // The scan along the minor dimension: a tile of lines at a time, the
    // tiles on the cores.
    constexpr int64_t kLanes = kTileLines<T>;
    const int64_t tiles = (l.outer + kLanes - 1) / kLanes;
    const int64_t min_tiles = std::max<int64_t>(1, (int64_t{1} << 16) / (kLanes * a.in));
    ParallelRows(tiles, min_tiles, [&](int64_t begin, int64_t end) {
      LineTiles<T> buffers;
      for (int64_t t = begin; t < end; ++t) {
        const int64_t q = t * kLanes;
        ScanLineTile<op>(src + q * a.in, init, a, std::min(kLanes, l.outer - q), dst + q * a.out,
                         buffers);
      }
    });
    return;
  }
  for (int64_t q = 0; q < l.outer; ++q) {
    const T* x = src + q * a.in * inner;
    T* y = dst + q * a.out * inner;
    for (int64_t o = 0; o < a.out; ++o) {
      T* row = y + o * inner;
      const int64_t e = a.PrefixEnd(o);
      if (e < 0) {
        std::fill(row, row + inner, init);
      } else if (o == 0 || e == 0) {
        // The first window with elements: init folded with x_0..x_e.
        std::fill(row, row + inner, init);
        for (int64_t k = 0; k <= e; ++k) {
          const T* xk = x + k * inner;
          for (int64_t i = 0; i < inner; ++i) row[i] = Apply<op>(row[i], xk[i]);
        }
      } else {
        const T* prev = row - inner;
        const T* xe = x + e * inner;
        for (int64_t i = 0; i < inner; ++i) row[i] = Apply<op>(prev[i], xe[i]);
      }
    }
  }
}

// Axis d is Suffix() and op exactly associative: output o folds init, the
// elements o..n-1 (a scan from the end, R_o = x_o (+) R_{o+1}) and, when
// its window runs past the end, the padding (which folds to init).
template <Opcode op, typename T>
void SuffixScan(const T* src, T init, bool init_noop, const std::vector<WindowAxis>& axes, int d,
                T* dst) {
  const WindowAxis& a = axes[d];
  const Lines l = LinesAround(axes, d);
  const int64_t inner = l.inner;
  std::unique_ptr<T[]> r(new T[inner]);  // not std::vector: T may be bool
  for (int64_t q = 0; q < l.outer; ++q) {
    const T* x = src + q * a.in * inner;
    T* y = dst + q * a.out * inner;
    for (int64_t o = a.in; o < a.out; ++o) std::fill(y + o * inner, y + (o + 1) * inner, init);
    for (int64_t o = a.in - 1; o >= 0; --o) {
      const T* xo = x + o * inner;
      if (o == a.in - 1) {
        std::copy(xo, xo + inner, r.get());
      } else {
        for (int64_t i = 0; i < inner; ++i) r[i] = Apply<op>(xo[i], r[i]);
      }
      if (o >= a.out) continue;
      T* row = y + o * inner;
      for (int64_t i = 0; i < inner; ++i) row[i] = Apply<op>(init, r[i]);
      if (a.size > a.in - o) ApplyInit<op>(row, inner, init, init_noop);
    }
  }
}

// row[o] (+)= the window elements of the last axis for every output o of
// the row, for all window positions k in order; `line` is the operand line
// the outer window position reads.
template <Opcode op, typename T>
void FoldLastAxis(T* row, const T* line, const WindowAxis& a, T init, bool init_noop) {
  const int64_t n = a.out, w = a.size, s = a.stride, wd = a.window_dilation;
  if (a.base_dilation != 1) {
    for (int64_t k = 0; k < w; ++k) {
      for (int64_t o = 0; o < n; ++o) {
        const int64_t i = a.Index(o, k);
        row[o] = Apply<op>(row[o], i < 0 ? init : line[i]);
      }
    }
    return;
  }
  if (n >= 8 || w == 1) {
    // Window position outermost: the output loop vectorises (stride 1).
    for (int64_t k = 0; k < w; ++k) {
      const int64_t c = k * wd - a.pad_lo;  // operand index of output 0
      int64_t lo = c >= 0 ? 0 : CeilDiv(-c, s);
      int64_t hi = a.in - 1 - c < 0 ? 0 : (a.in - 1 - c) / s + 1;
      lo = std::min(lo, n);
      hi = std::clamp(hi, lo, n);
      ApplyInit<op>(row, lo, init, init_noop);
      if (s == 1 && hi > lo) {
        const T* p = line + (lo + c);
        T* q = row + lo;
        for (int64_t o = 0; o < hi - lo; ++o) q[o] = Apply<op>(q[o], p[o]);
      } else if (s != 1) {
        for (int64_t o = lo; o < hi; ++o) row[o] = Apply<op>(row[o], line[o * s + c]);
      }
      ApplyInit<op>(row + hi, n - hi, init, init_noop);
    }
    return;
  }
  // Few outputs, long windows: each output folds its window in turn.
  for (int64_t o = 0; o < n; ++o) {
    const int64_t c = o * s - a.pad_lo;  // operand index of window position 0
    int64_t lo = c >= 0 ? 0 : CeilDiv(-c, wd);
    int64_t hi = a.in - 1 - c < 0 ? 0 : (a.in - 1 - c) / wd + 1;
    lo = std::min(lo, w);
    hi = std::clamp(hi, lo, w);
    T acc = row[o];
    for (int64_t k = 0; k < lo; ++k) acc = Apply<op>(acc, init);
    for (int64_t k = lo; k < hi; ++k) acc = Apply<op>(acc, line[c + k * wd]);
    for (int64_t k = hi; k < w; ++k) acc = Apply<op>(acc, init);
    row[o] = acc;
  }
}

// Any window: per row of outputs along the last axis, each outer window
// position folds one operand line (or padding) into the row.
template <Opcode op, typename T>
void DirectWindow(const T* src, T init, bool init_noop, const std::vector<WindowAxis>& axes,
                  absl::Span<const int64_t> in_strides, T* dst) {
  const size_t r = axes.size();
  const WindowAxis& last = axes[r - 1];
  std::vector<int64_t> out_outer, win_outer;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < r; ++d) {
    out_outer.push_back(axes[d].out);
    win_outer.push_back(axes[d].size);
    rows *= axes[d].out;
  }
  bool empty_window = false;
  for (const WindowAxis& a : axes) empty_window |= a.size == 0;
  std::vector<int64_t> oidx(r - 1, 0), widx(r - 1, 0);
  for (int64_t q = 0; q < rows; ++q, NextIndex(oidx, out_outer)) {
    T* row = dst + q * last.out;
    std::fill(row, row + last.out, init);
    if (empty_window) continue;
    do {
      int64_t base = 0;
      for (size_t d = 0; d + 1 < r && base >= 0; ++d) {
        const int64_t i = axes[d].Index(oidx[d], widx[d]);
        base = i < 0 ? -1 : base + i * in_strides[d];
      }
      if (base < 0) {
        for (int64_t k = 0; k < last.size; ++k) ApplyInit<op>(row, last.out, init, init_noop);
      } else {
        FoldLastAxis<op>(row, src + base, last, init, init_noop);
      }
    } while (NextIndex(widx, win_outer));
  }
}

// Apply<op> (eval/interp/reduce_ops.h) lane by lane, for float and double.
template <Opcode op, typename V, typename M>
HLO_LANES_INLINE V ApplyLanes(const V& a, const V& b) {
  if constexpr (op == Opcode::kAdd) {
    return a + b;
  } else if constexpr (op == Opcode::kMultiply) {
    return a * b;
  } else {
    constexpr bool kMax = op == Opcode::kMaximum;
    V r = Select<V, M>(kMax ? (M)(a > b) : (M)(a < b), a, b);
    r = Select<V, M>((M)(a == b), kMax ? (V)((M)a & (M)b) : (V)((M)a | (M)b), r);
    r = Select<V, M>((M)(a != a), a, r);
    return Select<V, M>((M)(b != b), b, r);
  }
}

// A window run's vector at src + at folded into acc, or the init value
// (`init_lanes`) for a run of padding or holes (at < 0), skipped where that
// is the identity.
template <Opcode op, typename T, typename V = typename Lanes<T>::V,
          typename M = typename Lanes<T>::M>
HLO_LANES_INLINE V FoldLanes(const V& acc, const T* src, int64_t at, const V& init_lanes,
                             bool init_noop) {
  if (at < 0) return init_noop ? acc : ApplyLanes<op, V, M>(acc, init_lanes);
  V x;
  std::memcpy(&x, src + at, sizeof(V));
  return ApplyLanes<op, V, M>(acc, x);
}

template <typename T, typename V = typename Lanes<T>::V>
HLO_LANES_INLINE V EveryLane(T value) {
  V v;
  for (size_t j = 0; j < sizeof(V) / sizeof(T); ++j) v[j] = value;
  return v;
}

// Windows whose last axes are Trivial(): each output row of `inner`
// elements folds its window positions' runs (or the init value, for
// padding and holes) in window order, at the machine's vector width (one
// IEEE operation per lane: every clone gives the same bits).
// One output row: init, folded with the run at each offset in turn (init
// again for a -1). One call per row, the folds inlined into the clone: a
// call per run cost about 9 ns, most of a 2x2 max pool over 16 channels
// (f32[8,32,32,16]: 77 us, 60 with an array of lanes, which GCC kept on
// the stack).
template <Opcode op, typename T>
HLO_VECTOR_CLONES void FoldRow(T* __restrict dst, const T* __restrict src,
                               absl::Span<const int64_t> offsets, int64_t inner, T init,
                               bool init_noop) {
  int64_t i0 = 0;
  if constexpr (std::is_floating_point_v<T>) {
    // A vector's worth of the row at a time, its accumulator in registers
    // across the runs (folded in memory, each run's loads waited on the
    // last run's stores to the same row: a 2x2 pool took 37 ns a row).
    using V = typename Lanes<T>::V;
    constexpr int64_t kLanes = sizeof(V) / sizeof(T);
    const V init_lanes = EveryLane(init);
    for (; i0 + kLanes <= inner; i0 += kLanes) {
      V acc = init_lanes;
      for (const int64_t at : offsets) {
        acc = FoldLanes<op>(acc, src + i0, at, init_lanes, init_noop);
      }
      std::memcpy(dst + i0, &acc, sizeof(V));
    }
    if (i0 == inner) return;
  }
  for (int64_t i = i0; i < inner; ++i) dst[i] = init;
  for (const int64_t at : offsets) {
    if (at < 0) {
      if (init_noop) continue;
      for (int64_t i = i0; i < inner; ++i) dst[i] = Apply<op>(dst[i], init);
      continue;
    }
    for (int64_t i = i0; i < inner; ++i) dst[i] = Apply<op>(dst[i], src[at + i]);
  }
}

// Four float rows with `count` runs each, their accumulators folded side
// by side: one row's folds are a chain of dependent compares and blends,
// four chains keep the core busy (a 2x2 max pool over 16 channels: 51 ->
// 36 us). Row r's runs start at bases[r] + offsets[r][k] (-1: the init
// value): each row's listed offsets from the operand's start, or, where
// the windows lie inside the operand, the row's origin and the offsets
// listed once for every row (no row's offsets listed: 28 -> 13 us more).
// False where the rows are not float or whole vectors long.
template <Opcode op, typename T>
HLO_VECTOR_CLONES bool FoldFourRows(T* __restrict dst, const T* const* bases,
                                    const int64_t* const* offsets, int64_t count, int64_t inner,
                                    T init, bool init_noop) {
  if constexpr (!std::is_floating_point_v<T>) {
    return false;
  } else {
    using V = typename Lanes<T>::V;
    constexpr int64_t kLanes = sizeof(V) / sizeof(T);
    if (inner % kLanes != 0) return false;
    const V init_lanes = EveryLane(init);
    const T *s0 = bases[0], *s1 = bases[1], *s2 = bases[2], *s3 = bases[3];
    const int64_t *o0 = offsets[0], *o1 = offsets[1], *o2 = offsets[2], *o3 = offsets[3];
    for (int64_t i0 = 0; i0 < inner; i0 += kLanes) {
      V a0 = init_lanes, a1 = init_lanes, a2 = init_lanes, a3 = init_lanes;
      for (int64_t k = 0; k < count; ++k) {
        a0 = FoldLanes<op>(a0, s0 + i0, o0[k], init_lanes, init_noop);
        a1 = FoldLanes<op>(a1, s1 + i0, o1[k], init_lanes, init_noop);
        a2 = FoldLanes<op>(a2, s2 + i0, o2[k], init_lanes, init_noop);
        a3 = FoldLanes<op>(a3, s3 + i0, o3[k], init_lanes, init_noop);
      }
      std::memcpy(dst + i0, &a0, sizeof(V));
      std::memcpy(dst + inner + i0, &a1, sizeof(V));
      std::memcpy(dst + 2 * inner + i0, &a2, sizeof(V));
      std::memcpy(dst + 3 * inner + i0, &a3, sizeof(V));
    }
    return true;
  }
}

// RowsWindow where rows.inside(): rows by their origins.
template <Opcode op, typename T>
void InsideRowsWindow(const T* src, T init, bool init_noop, RowWindows& rows, int64_t count,
                      T* dst) {
  const int64_t inner = rows.inner();
  const absl::Span<const int64_t> offsets = rows.InsideOffsets();
  const int64_t positions = static_cast<int64_t>(offsets.size());
  std::vector<int64_t> at(offsets.size());
  for (int64_t q = 0; q < count;) {
    const int64_t n = std::min<int64_t>(4, count - q);
    int64_t origins[4] = {};
    for (int64_t r = 0; r < n; ++r) origins[r] = rows.NextOrigin();
    const T* bases[4] = {src + origins[0], src + origins[1], src + origins[2], src + origins[3]};
    const int64_t* listed[4] = {offsets.data(), offsets.data(), offsets.data(), offsets.data()};
    if (n < 4 || !FoldFourRows<op>(dst, bases, listed, positions, inner, init, init_noop)) {
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t k = 0; k < positions; ++k) at[k] = origins[r] + offsets[k];
        FoldRow<op>(dst + r * inner, src, at, inner, init, init_noop);
      }
    }
    q += n;
    dst += n * inner;
  }
}

// `count` rows from `rows`' next on, into dst.
template <Opcode op, typename T>
void RowsWindow(const T* src, T init, bool init_noop, RowWindows& rows, int64_t count, T* dst) {
  if (rows.inside()) {
    InsideRowsWindow<op>(src, init, init_noop, rows, count, dst);
    return;
  }
  const int64_t inner = rows.inner();
  std::vector<int64_t> four;  // four rows' offsets, one row after another
  int64_t starts[5] = {};
  int64_t q = 0;
  for (; q + 4 <= count; q += 4, dst += 4 * inner) {
    four.clear();
    for (int r = 0; r < 4; ++r) {
      const absl::Span<const int64_t> at = rows.Next();
      for (const int64_t v : at) four.push_back(v);  // (a few: insert's memmove cost more)
      starts[r + 1] = static_cast<int64_t>(four.size());
    }
    const int64_t count = starts[1];
    if (starts[4] == 4 * count) {  // (rows of one length: the pointers stay in `four`)
      const T* bases[4] = {src, src, src, src};
      const int64_t* listed[4] = {four.data(), four.data() + count, four.data() + 2 * count,
                                  four.data() + 3 * count};
      if (FoldFourRows<op>(dst, bases, listed, count, inner, init, init_noop)) continue;
    }
    for (int r = 0; r < 4; ++r) {
      const absl::Span<const int64_t> at(four.data() + starts[r], starts[r + 1] - starts[r]);
      FoldRow<op>(dst + r * inner, src, at, inner, init, init_noop);
    }
  }
  for (; q < count; ++q, dst += inner) {
    FoldRow<op>(dst, src, rows.Next(), inner, init, init_noop);
  }
}

// The rows cut across the cores, each part from its own copy of `rows`
// (RowWindowsFrom); every output is its own fold, so the cut changes no
// bits. (One core: a 3x3
// stride-2 max pool of f32[32,112,112,64] took 21-23 ms.)
template <Opcode op, typename T>
void RowsWindowInParts(const T* src, T init, bool init_noop, const RowWindows& rows,
                       int64_t window_elements, T* dst) {
  const int64_t inner = rows.inner();
  const int64_t min_rows =
      std::max<int64_t>(1, kMinPartSteps / std::max<int64_t>(1, inner * window_elements));
  ParallelRows(rows.rows(), min_rows, [&](int64_t begin, int64_t end) {
    RowWindows part = RowWindowsFrom(rows, begin);
    RowsWindow<op>(src, init, init_noop, part, end - begin, dst + begin * inner);
  });
}

template <Opcode op, typename T>
void TypedReduceWindow(const Literal& operand, T init, const std::vector<WindowAxis>& axes,
                       absl::Span<const int64_t> in_strides, Literal& out) {
  const T* src = operand.typed<T>();
  T* dst = out.typed<T>();
  const T twice = Apply<op>(init, init);
  const bool stable = std::memcmp(&twice, &init, sizeof(T)) == 0;
  const bool init_noop = InitFoldIsNoOp<op>(init);
  const int d = SingleWindowAxis(axes);
  if (d >= 0 && stable && axes[d].Prefix()) {
    PrefixScan<op>(src, init, axes, d, dst);
  } else if (d >= 0 && stable && kExactlyAssociative<op, T> && axes[d].Suffix()) {
    SuffixScan<op>(src, init, init_noop, axes, d, dst);
  } else if (std::optional<RowWindows> rows = TrailingRows(axes, in_strides, 4)) {
    int64_t window_elements = 1;
    for (const WindowAxis& a : axes) window_elements *= a.size;
    RowsWindowInParts<op>(src, init, init_noop, *rows, window_elements, dst);
  } else {
    DirectWindow<op>(src, init, init_noop, axes, in_strides, dst);
  }
}

// ---- other reducers: the batched interpreter ----------------------------------

using Buffers = WindowBuffers;

// A scan along the minor axis: its lanes' elements lie a.in apart, and
// each step gathered them and scattered its results (XLA's blocked
// cumulative sums, [64,3,16] scanned along the 16: an eighth of the run).
// Here each operand is transposed once to [a.in, lanes], each step reads
// its elements side by side, its results are written side by side into
// [a.out, lanes], and that is transposed into the output: the same
// operations on the same values. Only where the copies are small
// (kMinorScanCopyBytes an operand or result): a long scan's copies would
// double its memory, and the gathers cost little beside a long scan's steps.
constexpr int64_t kMinorScanCopyBytes = int64_t{4} << 20;

bool MinorScanCopiesFit(const Buffers& b, const WindowAxis& a, int64_t total) {
  for (size_t j = 0; j < b.m; ++j) {
    if (std::max(a.in, a.out) * total * b.width[j] > kMinorScanCopyBytes) return false;
  }
  return true;
}

absl::Status MinorPrefixScan(BatchProgram& program, const Buffers& b, const WindowAxis& a,
                             int64_t total) {
  const int64_t lanes = std::min<int64_t>(total, 4 * BatchProgram::kBlock);
  // (Uninitialised: every byte is written before it is read.)
  std::vector<std::unique_ptr<uint8_t[]>> steps_in(b.m), steps_out(b.m), acc(b.m);
  std::vector<const void*> in(2 * b.m);
  std::vector<void*> out(b.m);
  for (size_t j = 0; j < b.m; ++j) {
    const int w = b.width[j];
    steps_in[j].reset(new uint8_t[a.in * total * w]);
    steps_out[j].reset(new uint8_t[a.out * total * w]);
    acc[j].reset(new uint8_t[lanes * w]);
    in[j] = out[j] = acc[j].get();
    data_internal::StridedCopy(w, steps_in[j].get(), b.in[j], {{total, 1, a.in}, {a.in, total, 1}});
  }
  for (int64_t start = 0; start < total; start += lanes) {
    const int64_t nb = std::min(lanes, total - start);
    for (size_t j = 0; j < b.m; ++j)
      data_internal::FillElements(b.width[j], acc[j].get(), nb, b.init[j]);
    int64_t folded = -1;  // the last operand index folded into acc
    for (int64_t o = 0; o < a.out; ++o) {
      for (const int64_t e = a.PrefixEnd(o); folded < e; ++folded) {
        for (size_t j = 0; j < b.m; ++j) {
          in[b.m + j] = steps_in[j].get() + ((folded + 1) * total + start) * b.width[j];
        }
        absl::Status s = program.Run(in, out, nb);
        if (!s.ok()) return s;
      }
      for (size_t j = 0; j < b.m; ++j) {
        std::memcpy(steps_out[j].get() + (o * total + start) * b.width[j], acc[j].get(),
                    static_cast<size_t>(nb * b.width[j]));
      }
    }
  }
  for (size_t j = 0; j < b.m; ++j) {
    data_internal::StridedCopy(b.width[j], b.out[j], steps_out[j].get(),
                               {{total, a.out, 1}, {a.out, 1, total}});
  }
  return absl::OkStatus();
}

// Axis d is Prefix() and the init stable: a scan over lanes (the [outer,
// inner] positions), a block of lanes at a time.
absl::Status BatchedPrefixScan(BatchProgram& program, const Buffers& b,
                               const std::vector<WindowAxis>& axes, int d) {
  const WindowAxis& a = axes[d];
  const Lines l = LinesAround(axes, d);
  if (l.inner == 1 && l.outer > 1 && MinorScanCopiesFit(b, a, l.outer)) {
    return MinorPrefixScan(program, b, a, l.outer);
  }
  const int64_t total = l.outer * l.inner;
  const int64_t lanes = std::min<int64_t>(total, 4 * BatchProgram::kBlock);
  std::vector<int64_t> in_base(lanes), out_base(lanes);
  std::vector<std::vector<uint8_t>> acc(b.m), xs(b.m);
  std::vector<const void*> in(2 * b.m);
  std::vector<void*> out(b.m);
  for (size_t j = 0; j < b.m; ++j) {
    acc[j].resize(lanes * b.width[j]);
    xs[j].resize(lanes * b.width[j]);
    in[j] = out[j] = acc[j].data();
    in[b.m + j] = xs[j].data();
  }
  for (int64_t start = 0; start < total; start += lanes) {
    const int64_t nb = std::min(lanes, total - start);
    for (int64_t i = 0; i < nb; ++i) {
      const int64_t q = (start + i) / l.inner, r = (start + i) % l.inner;
      in_base[i] = q * a.in * l.inner + r;
      out_base[i] = q * a.out * l.inner + r;
    }
    for (size_t j = 0; j < b.m; ++j)
      data_internal::FillElements(b.width[j], acc[j].data(), nb, b.init[j]);
    int64_t folded = -1;  // the last operand index folded into acc
    for (int64_t o = 0; o < a.out; ++o) {
      const int64_t e = a.PrefixEnd(o);
      // (Each step's elements lie at the lanes' bases shifted by whole
      // lines: the bases are gathered from a shifted origin.)
      for (; folded < e; ++folded) {
        const int64_t shift = (folded + 1) * l.inner;
        for (size_t j = 0; j < b.m; ++j) {
          GatherElements(xs[j].data(), b.in[j] + shift * b.width[j], in_base.data(), nb, b.width[j],
                         nullptr);
        }
        absl::Status s = program.Run(in, out, nb);
        if (!s.ok()) return s;
      }
      for (size_t j = 0; j < b.m; ++j) {
        ScatterElements(b.out[j] + o * l.inner * b.width[j], acc[j].data(), out_base.data(), nb,
                        b.width[j]);
      }
    }
  }
  return absl::OkStatus();
}

// Lanes [lane, lane + length) whose windows start at consecutive elements.
struct LaneRun {
  int64_t lane, length;
};

void ConsecutiveRuns(const int64_t* origins, int64_t n, std::vector<LaneRun>& runs) {
  runs.clear();
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0 && origins[i] == origins[i - 1] + 1) {
      ++runs.back().length;
    } else {
      runs.push_back({i, 1});
    }
  }
}

// Each lane's element `at` past its window's origin, a run at a time.
void CopyRuns(uint8_t* dst, const uint8_t* src, const int64_t* origins, int64_t at,
              const std::vector<LaneRun>& runs, int width) {
  for (const LaneRun& run : runs) {
    std::memcpy(dst + run.lane * width, src + (origins[run.lane] + at) * width,
                static_cast<size_t>(run.length) * width);
  }
}

// Any window: a block of consecutive outputs accumulates in place; each
// window position gathers its element (or the init value) per output.
absl::Status BatchedWindow(BatchProgram& program, const Buffers& b,
                           const std::vector<WindowAxis>& axes,
                           absl::Span<const int64_t> in_strides, int64_t out_count) {
  const size_t r = axes.size();
  std::vector<int64_t> out_dims(r), win_dims(r);
  int64_t positions = 1;
  for (size_t d = 0; d < r; ++d) {
    out_dims[d] = axes[d].out;
    win_dims[d] = axes[d].size;
    positions *= axes[d].size;
  }
  for (size_t j = 0; j < b.m; ++j)
    data_internal::FillElements(b.width[j], b.out[j], out_count, b.init[j]);
  if (positions == 0) return absl::OkStatus();
  const int64_t lanes = std::min<int64_t>(out_count, 4 * BatchProgram::kBlock);
  LaneIndices lane;
  std::vector<int64_t> offsets(lanes);
  std::vector<std::vector<uint8_t>> xs(b.m);
  for (size_t j = 0; j < b.m; ++j) xs[j].resize(lanes * b.width[j]);
  std::vector<const void*> in(2 * b.m);
  std::vector<void*> out(b.m);
  std::vector<int64_t> oidx(r, 0);
  // Where every window lies inside the operand (max-pooling's argmax),
  // lane i reads its window's origin plus the window position's offset,
  // each computed once, not per lane and position.
  const bool inside =
      std::all_of(axes.begin(), axes.end(), [](const WindowAxis& a) { return a.Inside(); });
  const std::vector<int64_t> inside_offsets =
      inside ? InsideWindowOffsets(axes, in_strides) : std::vector<int64_t>();
  std::vector<int64_t> origins(inside ? lanes : 0);
  std::vector<LaneRun> runs;
  for (int64_t start = 0; start < out_count; start += lanes) {
    const int64_t nb = std::min(lanes, out_count - start);
    lane.Fill(oidx, out_dims, nb);
    for (size_t j = 0; j < b.m; ++j) {
      in[j] = out[j] = b.out[j] + start * b.width[j];
      in[b.m + j] = xs[j].data();
    }
    if (inside) {
      std::fill(origins.begin(), origins.begin() + nb, 0);
      for (size_t d = 0; d < r; ++d) {
        const int64_t step = axes[d].stride * in_strides[d];
        for (int64_t i = 0; i < nb; ++i) origins[i] += lane.lanes[d][i] * step;
      }
      ConsecutiveRuns(origins.data(), nb, runs);
    }
    // Lanes whose windows start at consecutive elements (a pooling
    // window's features) read each window position as runs, copied at once
    // rather than element by element: cnn_grad's argmax over five
    // operands gathers 16-element runs.
    const bool by_runs = inside && static_cast<int64_t>(runs.size()) * 4 <= nb;
    std::vector<int64_t> widx(r, 0);
    size_t position = 0;
    do {
      const int64_t at = inside ? inside_offsets[position++] : 0;
      if (by_runs) {
        for (size_t j = 0; j < b.m; ++j)
          CopyRuns(xs[j].data(), b.in[j], origins.data(), at, runs, b.width[j]);
      } else {
        if (inside) {
          for (int64_t i = 0; i < nb; ++i) offsets[i] = origins[i] + at;
        } else {
          for (int64_t i = 0; i < nb; ++i)
            offsets[i] = lane.WindowOffset(axes, in_strides, widx, i);
        }
        for (size_t j = 0; j < b.m; ++j) {
          GatherElements(xs[j].data(), b.in[j], offsets.data(), nb, b.width[j], b.init[j]);
        }
      }
      absl::Status s = program.Run(in, out, nb);
      if (!s.ok()) return s;
    } while (NextIndex(widx, win_dims));
  }
  return absl::OkStatus();
}

// Windows whose last axes are Trivial() (a pooling window's channels): a
// block of output rows, each `inner` lanes reading one run per window
// position (or the init value where the position is padding or a hole),
// without working out each lane's window. The accumulators alternate
// between the output and a scratch block, so the program never updates an
// array in place (which costs it a copy of each result per call), and end
// in the output. Blocks are independent: they go to the cores, each part
// on its own copy of the program (a max pool's argmax, a variadic reducer
// of a dozen steps per position, was single-threaded).
absl::Status BatchedRowsWindow(const Computation& reducer, BatchProgram& program, const Buffers& b,
                               RowWindows& rows, KernelContext& ev) {
  const int64_t inner = rows.inner();
  const int64_t rows_per_block = std::max<int64_t>(1, 4 * BatchProgram::kBlock / inner);
  const int64_t lanes = std::min(rows.rows(), rows_per_block) * inner;
  const std::vector<int64_t> offsets = AllRowOffsets(rows);
  if (rows.rows() == 0) return absl::OkStatus();
  const size_t positions = offsets.size() / rows.rows();
  const int64_t blocks = (rows.rows() + rows_per_block - 1) / rows_per_block;
  const int64_t parts = PartsOfBlocks(
      blocks, lanes * static_cast<int64_t>(positions) * std::max<int64_t>(1, program.step_count()));
  std::vector<BatchProgram*> programs(parts, &program);
  for (int64_t p = 1; p < parts; ++p) {
    programs[p] = ev.BatchProgramCopy(reducer, p);
    if (programs[p] == nullptr) return absl::InternalError("no copy of a reducer's program");
  }
  auto run_blocks = [&](BatchProgram& prog, int64_t block_begin, int64_t block_end) {
    std::vector<std::vector<uint8_t>> xs(b.m), spare(b.m);
    for (size_t j = 0; j < b.m; ++j) {
      xs[j].resize(lanes * b.width[j]);
      spare[j].resize(lanes * b.width[j]);
    }
    std::vector<const void*> in(2 * b.m);
    std::vector<void*> out(b.m);
    for (int64_t blk = block_begin; blk < block_end; ++blk) {
      const int64_t first = blk * rows_per_block;
      const int64_t nrows = std::min(rows_per_block, rows.rows() - first);
      const int64_t nb = nrows * inner;
      const int64_t* block_offsets = offsets.data() + first * positions;
      // The accumulator before position k: the output when positions - k is
      // even, else the spare block.
      auto acc = [&](size_t j, size_t k) -> uint8_t* {
        return (positions - k) % 2 == 0 ? b.out[j] + first * inner * b.width[j] : spare[j].data();
      };
      for (size_t j = 0; j < b.m; ++j) {
        data_internal::FillElements(b.width[j], acc(j, 0), nb, b.init[j]);
        in[b.m + j] = xs[j].data();
      }
      for (size_t k = 0; k < positions; ++k) {
        for (size_t j = 0; j < b.m; ++j) {
          const int w = b.width[j];
          const size_t bytes = static_cast<size_t>(inner) * w;
          for (int64_t q = 0; q < nrows; ++q) {
            uint8_t* dst = xs[j].data() + q * bytes;
            const int64_t at = block_offsets[q * positions + k];
            if (at < 0) {
              data_internal::FillElements(w, dst, inner, b.init[j]);
            } else if (bytes == 64) {  // 16 f32/s32 channels: inline, no call
              __builtin_memcpy(dst, b.in[j] + at * w, 64);
            } else {
              std::memcpy(dst, b.in[j] + at * w, bytes);
            }
          }
          in[j] = acc(j, k);
          out[j] = acc(j, k + 1);
        }
        absl::Status s = prog.Run(in, out, nb);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  };
  return RunBlocksInParts(blocks, programs, run_blocks);
}

// nullopt: the reducer does not compile for the batched interpreter.
std::optional<absl::Status> BatchedReduceWindow(const Computation& reducer, Operands ops,
                                                const std::vector<WindowAxis>& axes,
                                                absl::Span<const int64_t> in_strides,
                                                std::vector<Value>& outs, KernelContext& ev) {
  Buffers b;
  b.m = ops.size() / 2;
  std::vector<PrimitiveType> types(b.m);
  std::vector<const Literal*> inits(b.m);
  for (size_t j = 0; j < b.m; ++j) {
    types[j] = ops[j]->array().element_type();
    if (ops[b.m + j]->array().element_type() != types[j] ||
        outs[j].array().element_type() != types[j]) {
      return std::nullopt;
    }
    b.in.push_back(ops[j]->array().data());
    b.init.push_back(ops[b.m + j]->array().data());
    b.out.push_back(outs[j].mutable_array().data());
    b.width.push_back(ByteWidth(types[j]));
    inits[j] = &ops[b.m + j]->array();
  }
  BatchProgram* program = ReducerProgram(reducer, types, ev);
  if (!program) return std::nullopt;
  const int d = SingleWindowAxis(axes);
  if (d >= 0 && axes[d].Prefix()) {
    absl::StatusOr<bool> stable = InitIsStable(*program, inits);
    if (!stable.ok()) return stable.status();
    if (*stable) return BatchedPrefixScan(*program, b, axes, d);
  }
  if (std::optional<RowWindows> rows = TrailingRows(axes, in_strides, 8)) {
    return BatchedRowsWindow(reducer, *program, b, *rows, ev);
  }
  return BatchedWindow(*program, b, axes, in_strides, outs[0].array().element_count());
}

// ---- every other case: the evaluator per element ------------------------------

absl::Status GeneralReduceWindow(const Computation& reducer, Operands ops,
                                 const std::vector<WindowAxis>& axes,
                                 absl::Span<const int64_t> in_strides, std::vector<Value>& outs,
                                 KernelContext& ev) {
  const size_t n = ops.size() / 2;
  std::vector<int64_t> out_dims;
  for (const WindowAxis& a : axes) out_dims.push_back(a.out);
  std::vector<int64_t> oidx(out_dims.size(), 0), scratch;
  std::vector<Value> acc(n), xs(n);
  std::vector<const Value*> args(2 * n);
  int64_t o = 0;
  absl::Status failure;
  do {
    for (size_t k = 0; k < n; ++k) acc[k] = *ops[n + k];
    VisitWindow(axes, in_strides, oidx, scratch, [&](int64_t i) {
      if (!failure.ok()) return;
      for (size_t k = 0; k < n; ++k) {
        xs[k] = i < 0 ? *ops[n + k] : ScalarAt(ops[k]->array(), i);
        args[k] = &acc[k];
        args[n + k] = &xs[k];
      }
      auto r = ev.Call(reducer, args);
      if (!r.ok()) {
        failure = r.status();
        return;
      }
      if (n == 1) {
        acc[0] = *std::move(r);
      } else {
        for (size_t k = 0; k < n; ++k) acc[k] = r->element(k);
      }
    });
    if (!failure.ok()) return failure;
    for (size_t k = 0; k < n; ++k) StoreScalar(outs[k].mutable_array(), o, acc[k].array());
    ++o;
  } while (NextIndex(oidx, out_dims));
  return absl::OkStatus();
}

}  // namespace

// reduce-window's operands and result, checked as CheckReduceOperands
// checks reduce's: N inputs of one shape, N scalar init values, and N
// results of the windows' dims.
absl::Status CheckReduceWindowOperands(const Instruction& inst, Operands ops) {
  HLO_RETURN_IF_ERROR(CheckInputsAndInits("reduce-window", ops));
  const Window window = inst.window() ? *inst.window() : Window{};
  absl::Span<const int64_t> dims = ops[0]->array().shape().dims();
  return CheckResultShapes("reduce-window", inst.shape(), ops.size() / 2, [&](const Shape& result) {
    return CheckWindowDims(window, dims, result.dims(), "the reduce-window result");
  });
}

absl::StatusOr<Value> EvalReduceWindow(const Instruction& inst, Operands ops, KernelContext& ev) {
  HLO_RETURN_IF_ERROR(CheckReduceWindowOperands(inst, ops));
  auto to_apply = Called(inst, AttrKind::kToApply);
  if (!to_apply.ok()) return to_apply.status();
  ReducerOperands matched;
  absl::StatusOr<bool> converted = matched.Match(**to_apply, ops);
  if (!converted.ok()) return converted.status();
  if (*converted) ops = matched.operands();
  const size_t n = ops.size() / 2;
  const Literal& first = ops[0]->array();
  // The result takes the init values' types (XLA's InferReduceWindowShape),
  // which may be another float type than the reducer's accumulators: the
  // windows are reduced in the accumulators' types, then converted.
  auto declared = [&](size_t i) -> const Shape& {
    return inst.shape().IsTuple() ? inst.shape().tuple_shape(static_cast<int64_t>(i))
                                  : inst.shape();
  };
  std::vector<Value> outs;
  for (size_t i = 0; i < n; ++i) {
    PrimitiveType acc = (*to_apply)->parameter(static_cast<int64_t>(i))->shape().element_type();
    auto out = NewArray(declared(i).WithElementType(acc));
    if (!out.ok()) return out.status();
    outs.push_back(*std::move(out));
  }
  auto result = [&]() -> absl::StatusOr<Value> {
    for (size_t i = 0; i < n; ++i) {
      if (outs[i].array().element_type() == declared(i).element_type()) continue;
      auto to = NewArrayUninitialized(declared(i));
      if (!to.ok()) return to.status();
      HLO_RETURN_IF_ERROR(elementwise::EvalConvert(outs[i].array(), to->mutable_array()));
      outs[i] = *std::move(to);
    }
    return n == 1 ? std::move(outs[0]) : Value::Tuple(std::move(outs));
  };
  if (outs[0].array().element_count() == 0) return result();
  const Window window = inst.window() ? *inst.window() : Window{};
  absl::Span<const int64_t> in_dims = first.shape().dims();
  const std::vector<WindowAxis> axes = WindowAxes(window, in_dims, outs[0].array().shape().dims());
  const std::vector<int64_t> in_strides =
      in_dims.empty() ? std::vector<int64_t>{1} : Strides(in_dims);
  const bool fast = ev.options().fast_paths;
  std::optional<Opcode> simple = SimpleBinaryReducer(**to_apply);
  const PrimitiveType t = first.element_type();
  if (fast && n == 1 && simple && outs[0].array().element_type() == t &&
      DispatchTypedReducer(t, *simple, [&](auto op, auto tag) {
        using T = typename decltype(tag)::T;
        TypedReduceWindow<op.value, T>(first, ops[1]->array().typed<T>()[0], axes, in_strides,
                                       outs[0].mutable_array());
      })) {
    return result();
  }
  if (fast && n > 1) {
    std::optional<absl::Status> selected =
        SelectReduceWindow(**to_apply, ops, axes, in_strides, outs, ev);
    if (selected) {
      if (!selected->ok()) return *selected;
      return result();
    }
  }
  if (fast) {
    std::optional<absl::Status> batched =
        BatchedReduceWindow(**to_apply, ops, axes, in_strides, outs, ev);
    if (batched) {
      if (!batched->ok()) return *batched;
      return result();
    }
  }
  absl::Status s = GeneralReduceWindow(**to_apply, ops, axes, in_strides, outs, ev);
  if (!s.ok()) return s;
  return result();
}

}  // namespace reduction
}  // namespace hlo
