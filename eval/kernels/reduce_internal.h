// Shared by the reduction kernels (eval/kernels/reduce*.cc,
// eval/kernels/select_and_scatter.cc): window geometry per dimension, and the
// batched-interpreter helpers that run any other reducer over blocks of
// output positions (the simple reducers as typed operations:
// eval/interp/reduce_ops.h).
#ifndef HLO_EVAL_KERNELS_REDUCE_INTERNAL_H_
#define HLO_EVAL_KERNELS_REDUCE_INTERNAL_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/batch_program.h"
#include "eval/interp/kernel_context.h"
#include "eval/interp/reduce_ops.h"
#include "eval/kernels/kernels.h"
#include "eval/type_dispatch.h"
#include "ir/computation.h"
#include "ir/instruction.h"

namespace hlo {
namespace reduction {

// The single computation named by attribute `kind`.
absl::StatusOr<const Computation*> Called(const Instruction& inst, AttrKind kind);

// XLA's verifier takes reducer operands whose float type differs from the
// reducer's parameters (VerifyReducerShape compares ignoring fp precision:
// an f16 init value for an f32 max, say), while the kernels read inputs and
// init values as the reducer's types. ReducerOperands converts those that
// differ: `ops` is N inputs then N init values, matched to the reducer's
// input parameters N..2N-1 and accumulators 0..N-1.
class ReducerOperands {
 public:
  // Whether any operand was converted; then operands() holds them all.
  absl::StatusOr<bool> Match(const Computation& reducer, Operands ops);
  Operands operands() const { return pointers_; }

 private:
  std::vector<Value> converted_;
  std::vector<const Value*> pointers_;
};

// Row-major strides of dims.
std::vector<int64_t> Strides(absl::Span<const int64_t> dims);

// Advances a row-major odometer; false after the last index.
bool NextIndex(std::vector<int64_t>& idx, absl::Span<const int64_t> dims);

// ---- window geometry ---------------------------------------------------------

// One dimension of a window over an operand: output position o and window
// position k read operand index Index(o, k), or padding / a hole of base
// dilation (-1), which reads the init value.
struct WindowAxis {
  int64_t in = 1;   // operand extent
  int64_t out = 1;  // output extent
  int64_t size = 1, stride = 1, pad_lo = 0, pad_hi = 0, base_dilation = 1, window_dilation = 1;
  int64_t dilated = 1;  // operand extent after base dilation

  int64_t Index(int64_t o, int64_t k) const {
    int64_t pos = o * stride + k * window_dilation - pad_lo;
    if (pos < 0 || pos >= dilated) return -1;
    if (base_dilation == 1) return pos;
    return pos % base_dilation == 0 ? pos / base_dilation : -1;
  }
  // Whether every window lies inside the operand: no padding, no base
  // dilation (max pooling and its gradient).
  bool Inside() const {
    return pad_lo == 0 && pad_hi == 0 && base_dilation == 1 && size > 0 &&
           (out - 1) * stride + (size - 1) * window_dilation < in;
  }
  // A window of one element that reads the operand as it is.
  bool Trivial() const {
    return size == 1 && stride == 1 && pad_lo == 0 && pad_hi == 0 && base_dilation == 1 &&
           window_dilation == 1;
  }
  // Whether every window starts at or before the first element, ends at the
  // last and has no padding after it (reduce-window as a prefix scan:
  // jnp.cumsum's `size=n pad=n-1_0`, XLA's `size=4 pad=4_0`).
  bool Prefix() const {
    return stride == 1 && base_dilation == 1 && window_dilation == 1 && pad_lo >= 0 &&
           pad_hi == 0 && size >= in && in > 0;
  }
  // The mirror image: no padding before, every window reaches the last
  // element (a reversed cumulative reduction).
  bool Suffix() const {
    return stride == 1 && base_dilation == 1 && window_dilation == 1 && pad_lo == 0 &&
           pad_hi >= 0 && size >= in && in > 0;
  }
  // Prefix(): the last operand index in output o's window (-1: padding only).
  int64_t PrefixEnd(int64_t o) const { return o - pad_lo + size - 1; }
};

// The operands of reduce and reduce-window (`op`), checked in the kernels
// as well as by the verifier (a module run with --no-verify reaches them
// unverified): 2N arrays, N inputs of one shape and N scalar init values.
absl::Status CheckInputsAndInits(std::string_view op, Operands ops);
// Their result `shape`: an array for one input, a tuple of N arrays for N,
// each passing `check`.
absl::Status CheckResultShapes(std::string_view op, const Shape& shape, size_t n,
                               const std::function<absl::Status(const Shape&)>& check);

// What a windowed kernel indexes by, checked there as well as by the
// verifier (a module run with --no-verify reaches it unverified): at most
// one window dim per input dim, each with positive size, stride and
// dilations, and `out_dims` the windows' count along every dim. `what`
// names the array for the error ("reduce-window result", ...).
absl::Status CheckWindowDims(const Window& window, absl::Span<const int64_t> in_dims,
                             absl::Span<const int64_t> out_dims, std::string_view what);

// The axes of `window` over operand dims and output dims. A rank-0 operand
// gets one axis of extent 1 (its window is the one element).
std::vector<WindowAxis> WindowAxes(const Window& window, absl::Span<const int64_t> in_dims,
                                   absl::Span<const int64_t> out_dims);

// The only axis whose window is not Trivial(), or -1 (none or several).
int SingleWindowAxis(const std::vector<WindowAxis>& axes);

// Where every axis is Inside(): the offset of each window position from
// its window's origin (the element at window position 0), in row-major
// window order, the same for every window.
std::vector<int64_t> InsideWindowOffsets(const std::vector<WindowAxis>& axes,
                                         absl::Span<const int64_t> in_strides);
// The operand element where output out_idx's window starts, for the same.
inline int64_t InsideWindowOrigin(const std::vector<WindowAxis>& axes,
                                  absl::Span<const int64_t> in_strides,
                                  absl::Span<const int64_t> out_idx) {
  int64_t origin = 0;
  for (size_t d = 0; d < axes.size(); ++d) origin += out_idx[d] * axes[d].stride * in_strides[d];
  return origin;
}

// Calls f(operand linear index, or -1 for padding and holes) for each
// position of output out_idx's window, in row-major window order; `w` is
// scratch.
template <typename F>
void VisitWindow(const std::vector<WindowAxis>& axes, absl::Span<const int64_t> in_strides,
                 absl::Span<const int64_t> out_idx, std::vector<int64_t>& w, F&& f) {
  const size_t rank = axes.size();
  for (const WindowAxis& a : axes) {
    if (a.size == 0) return;
  }
  w.assign(rank, 0);
  while (true) {
    int64_t lin = 0;
    for (size_t d = 0; d < rank && lin >= 0; ++d) {
      int64_t i = axes[d].Index(out_idx[d], w[d]);
      lin = i < 0 ? -1 : lin + i * in_strides[d];
    }
    f(lin);
    size_t d = rank;
    while (d > 0 && ++w[d - 1] == axes[d - 1].size) w[--d] = 0;
    if (d == 0) return;
  }
}

// Calls f(operand linear index) for each position of output out_idx's
// window that reads an operand element (padding skipped), in row-major
// window order, with the valid range of each axis worked out once. Needs
// base_dilation 1 on every axis; `scratch` is scratch.
template <typename F>
void VisitWindowElements(const std::vector<WindowAxis>& axes, absl::Span<const int64_t> in_strides,
                         absl::Span<const int64_t> out_idx, std::vector<int64_t>& scratch, F&& f) {
  const size_t r = axes.size();
  scratch.resize(4 * r);
  int64_t* lo = scratch.data();
  int64_t* hi = lo + r;
  int64_t* k = hi + r;
  int64_t* step = k + r;
  int64_t off = 0;
  for (size_t d = 0; d < r; ++d) {
    const WindowAxis& a = axes[d];
    const int64_t c = out_idx[d] * a.stride - a.pad_lo;  // operand index of k = 0
    const int64_t wd = a.window_dilation;
    int64_t l = c >= 0 ? 0 : (-c + wd - 1) / wd;
    int64_t h = a.in - 1 - c < 0 ? 0 : (a.in - 1 - c) / wd + 1;
    l = std::min(l, a.size);
    h = std::clamp(h, l, a.size);
    if (l >= h) return;
    lo[d] = k[d] = l;
    hi[d] = h;
    step[d] = wd * in_strides[d];
    off += (c + l * wd) * in_strides[d];
  }
  while (true) {
    int64_t i = off;
    for (int64_t kk = lo[r - 1]; kk < hi[r - 1]; ++kk, i += step[r - 1]) f(i);
    size_t d = r - 1;
    bool advanced = false;
    while (d-- > 0) {
      if (++k[d] < hi[d]) {
        off += step[d];
        advanced = true;
        break;
      }
      off -= (hi[d] - 1 - lo[d]) * step[d];
      k[d] = lo[d];
    }
    if (!advanced) return;
  }
}

// The window positions of the axes before `tail` for one output row: the
// operand offset of each position's run (-1: padding or a hole), in
// row-major window order. Where those axes are Inside(), the offsets are
// the row's origin plus offsets listed once; elsewhere sums of per-axis
// tables.
class RowWindows {
 public:
  RowWindows(const std::vector<WindowAxis>& axes, absl::Span<const int64_t> in_strides,
             size_t tail);
  int64_t rows() const { return rows_; }
  int64_t inner() const { return inner_; }
  // The offsets for the next row (rows in row-major order).
  absl::Span<const int64_t> Next();
  // Whether every row's offsets are its origin plus InsideOffsets(), and
  // then the next row's origin (moving on as Next() does).
  bool inside() const { return inside_; }
  absl::Span<const int64_t> InsideOffsets() const { return inside_offsets_; }
  int64_t NextOrigin() {
    Advance();
    return origin_;
  }

 private:
  // Moves row_ on to the next row; the first axis whose index moved.
  size_t Advance();

  std::vector<WindowAxis> outer_;
  std::vector<int64_t> strides_, out_dims_, row_, inside_offsets_, offsets_, scratch_;
  // Not inside: per axis d, [output index][window position] -> the offset
  // read (Index() * stride) or -1, where the tables are small (tabled_).
  std::vector<std::vector<int64_t>> axis_offsets_;
  // Tabled: level d holds the positions of axes 0..d-1 for this row, the
  // last level all of them.
  std::vector<std::vector<int64_t>> levels_;
  // Inside: per axis, the origin's step from one output index to the
  // next; the current row's origin.
  std::vector<int64_t> origin_steps_;
  int64_t origin_ = 0;
  int64_t rows_ = 1, inner_ = 1;
  bool inside_ = false, tabled_ = false, started_ = false;
};

// Where the window's last axes are Trivial() (a pooling window's
// channels), each output row along them reads, per window position, one
// contiguous run of `inner` operand elements: typed loops fold a whole run
// at a time. The rows of such a window when its other axes are not all
// Trivial() and the runs hold at least `min_inner` elements; nullopt
// otherwise (decided before any offsets are worked out).
std::optional<RowWindows> TrailingRows(const std::vector<WindowAxis>& axes,
                                       absl::Span<const int64_t> in_strides, int64_t min_inner);

// A copy of `rows` moved on to row `first`, for a part of the rows that
// runs on its own core (Next() is a few nanoseconds a row).
inline RowWindows RowWindowsFrom(const RowWindows& rows, int64_t first) {
  RowWindows part = rows;
  for (int64_t q = 0; q < first; ++q) part.Next();
  return part;
}

// Every row's window offsets, [row][position] (Next() for each row in
// order; leaves `rows` past its last row).
std::vector<int64_t> AllRowOffsets(RowWindows& rows);

// The fewest lane steps (element folds) a part cut across the cores
// takes: waking a core costs a few microseconds of them.
inline constexpr int64_t kMinPartSteps = int64_t{1} << 17;

// How many parts (at most the core count) `blocks` blocks of
// `block_steps` lane steps each are split into: every part at least
// kMinPartSteps lane steps.
int64_t PartsOfBlocks(int64_t blocks, int64_t block_steps);

// Runs run(program, begin, end) over the blocks [0, blocks) in
// programs.size() parts, each part on its own program (a program holds
// its registers); the first failure met is returned.
absl::Status RunBlocksInParts(
    int64_t blocks, absl::Span<BatchProgram* const> programs,
    const std::function<absl::Status(BatchProgram&, int64_t, int64_t)>& run);

// The operands, inits and outputs of a variadic reduce-window as raw
// element buffers.
struct WindowBuffers {
  size_t m = 0;
  std::vector<const uint8_t*> in, init;
  std::vector<uint8_t*> out;
  std::vector<int> width;
};

// Block-of-positions bookkeeping for the batched paths: lane i of a block
// is the position whose index per dimension d is lanes[d][i].
struct LaneIndices {
  std::vector<std::vector<int64_t>> lanes;
  // Fills lanes 0..n-1 with the positions from `next` on (row-major over
  // dims), leaving `next` after the last.
  void Fill(std::vector<int64_t>& next, absl::Span<const int64_t> dims, int64_t n) {
    lanes.resize(dims.size());
    for (auto& l : lanes) l.resize(std::max<int64_t>(static_cast<int64_t>(l.size()), n));
    for (int64_t i = 0; i < n; ++i) {
      for (size_t d = 0; d < dims.size(); ++d) lanes[d][i] = next[d];
      NextIndex(next, dims);
    }
  }
  // The operand element lane i's window reads at window position widx, or
  // -1 (padding, a hole).
  int64_t WindowOffset(const std::vector<WindowAxis>& axes, absl::Span<const int64_t> in_strides,
                       const std::vector<int64_t>& widx, int64_t i) const {
    int64_t lin = 0;
    for (size_t d = 0; d < axes.size() && lin >= 0; ++d) {
      const int64_t k = axes[d].Index(lanes[d][i], widx[d]);
      lin = k < 0 ? -1 : lin + k * in_strides[d];
    }
    return lin;
  }
};

// The result arrays of a (variadic) reduction: element k of a tuple shape,
// or the shape itself.
absl::StatusOr<std::vector<Value>> NewOutputs(const Shape& shape, size_t n);

// ---- batched interpreter helpers ----------------------------------------------

// Copies n elements of `width` bytes: dst[i] = src[offsets[i]], or `fill`
// (one element) where offsets[i] < 0.
void GatherElements(uint8_t* dst, const uint8_t* src, const int64_t* offsets, int64_t n, int width,
                    const uint8_t* fill);
// dst[offsets[i]] = src[i].
void ScatterElements(uint8_t* dst, const uint8_t* src, const int64_t* offsets, int64_t n,
                     int width);

// The batched program of a reducer over m operands (parameters acc_0..,
// x_0.., results m) when it has exactly that signature on these element
// types; null otherwise (or with fast paths off).
BatchProgram* ReducerProgram(const Computation& reducer, absl::Span<const PrimitiveType> types,
                             KernelContext& ev);

// Whether reducer(init, init) == init bit for bit (so a run of padding
// folds to the init value, and a prefix scan is exact).
absl::StatusOr<bool> InitIsStable(BatchProgram& program, absl::Span<const Literal* const> inits);

// ---- the three operations -----------------------------------------------------

absl::StatusOr<Value> EvalReduce(const Instruction& inst, Operands ops, KernelContext& ev);
absl::StatusOr<Value> EvalReduceWindow(const Instruction& inst, Operands ops, KernelContext& ev);
absl::StatusOr<Value> EvalSelectAndScatter(const Instruction& inst, Operands ops,
                                           KernelContext& ev);

// A reduce of one array by a simple reducer (add, multiply, maximum, ...)
// that EvalReduce runs as one plain pass on one core, planned once for raw
// buffers: small programs (eval/fusion/small_program.h) run a loop body's
// small reduces through it instead of a kernel call, with its checks,
// reducer matching and result array per trip. The same loop, so the same
// bits.
struct RawReduce {
  Opcode op = Opcode::kAdd;
  PrimitiveType type = PrimitiveType::kF32;
  absl::InlinedVector<int64_t, 8> dims;
  absl::InlinedVector<bool, 8> reduced;
  int64_t in_count = 0, out_count = 0;
};
// The plan for `inst`, or nullopt where EvalReduce would take another path
// (several inputs, a reducer that converts or is not simple, an operand
// large enough to split or to run in one pass over the cores).
std::optional<RawReduce> RawReduceOf(const Instruction& inst);
// out = the reduce of `in` from the scalar at `init` (the plan's type).
void RunRawReduce(const RawReduce& plan, const void* in, const void* init, void* out);

// How a reduce's outputs take their elements, in the general evaluator's
// order (row-major over the reduced dimensions): the kept and reduced
// dimensions longer than one with their strides, and whether each
// output's elements are contiguous (the reduced dimensions last: rows).
struct ReduceWalk {
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  int64_t steps = 1, outputs = 1;
  bool rows = true;
};

inline ReduceWalk ReduceWalkOf(absl::Span<const int64_t> dims, absl::Span<const bool> reduced) {
  ReduceWalk w;
  const std::vector<int64_t> strides = Strides(dims);
  bool seen_reduced = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;  // neither the order nor an offset changes
    if (reduced[d]) {
      w.red_dims.push_back(dims[d]);
      w.red_strides.push_back(strides[d]);
      w.steps *= dims[d];
      seen_reduced = true;
    } else {
      w.kept_dims.push_back(dims[d]);
      w.kept_strides.push_back(strides[d]);
      w.outputs *= dims[d];
      if (seen_reduced) w.rows = false;
    }
  }
  return w;
}

// Output o's first element.
inline int64_t ReduceWalkBase(const ReduceWalk& w, int64_t o) {
  int64_t offset = 0;
  for (size_t d = w.kept_dims.size(); d-- > 0;) {
    offset += (o % w.kept_dims[d]) * w.kept_strides[d];
    o /= w.kept_dims[d];
  }
  return offset;
}

// Moves `red` (the offset of a step) and `ridx` to the walk's next step.
inline void ReduceWalkNext(const ReduceWalk& w, std::vector<int64_t>& ridx, int64_t& red) {
  for (size_t d = w.red_dims.size(); d-- > 0;) {
    red += w.red_strides[d];
    if (++ridx[d] < w.red_dims[d]) return;
    red -= w.red_strides[d] * w.red_dims[d];
    ridx[d] = 0;
  }
}

// out = the reduce of a bf16 or f16 `in` over `reduced` by `reducer`, a
// SimpleBinaryReducer of `op` (add, multiply, maximum or minimum), from
// `init`: each output folded in the general evaluator's order with the
// batched interpreter's 16-bit steps (reduce_half.cc); false, nothing
// written, for other types and ops. `flush`: --denormals=flush.
bool HalfReduce(const Computation& reducer, Opcode op, const Literal& in, const Literal& init,
                absl::Span<const bool> reduced, bool flush, Literal& out);

// JAX's argmax or argmin (reduce_arg.cc): (f32 or f64 values, s32 or s64
// indices) by its compare-and-select reducer, into `outs` (made by the
// caller), each output folded in the general evaluator's order; false,
// nothing written, for any other reduce.
bool ArgReduce(const Computation& reducer, Operands ops, absl::Span<const bool> reduced,
               std::vector<Value>& outs);

// reduce with a reducer the batched interpreter runs, into `outs` (made by
// the caller); nullopt when it cannot (the caller then uses the general
// evaluator).
std::optional<absl::Status> BatchedReduce(const Computation& reducer, Operands ops,
                                          absl::Span<const bool> reduced, std::vector<Value>& outs,
                                          KernelContext& ev);

}  // namespace reduction
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_REDUCE_INTERNAL_H_
