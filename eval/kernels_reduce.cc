// reduce (variadic, any reducer), and the helpers the reduction kernels
// share (kernels_reduce_internal.h).
//
// A reducer that is one known binary op on native types runs as a typed
// loop; any other reducer through the batched interpreter
// (kernels_reduce_batched.cc) when it compiles, else per element through
// the evaluator. reduce-window: kernels_reduce_window.cc; select-and-scatter:
// kernels_select_and_scatter.cc.
#include <algorithm>
#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cmath>
#include <limits>
#include <type_traits>

#include "eval/kernels.h"
#include "eval/kernels_reduce_internal.h"
#include "eval/scalar_apply.h"
#include "eval/type_dispatch.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace reduction {

absl::StatusOr<const Computation*> Called(const Instruction& inst, AttrKind kind) {
  const Attribute* a = inst.FindAttr(kind);
  if (a) {
    const auto* v = std::get_if<std::vector<Computation*>>(&a->value);
    if (v && v->size() == 1 && (*v)[0]) return (*v)[0];
  }
  return absl::InvalidArgumentError(StrCat("missing computation '", AttrName(kind), "'"));
}

std::vector<int64_t> Strides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

bool NextIndex(std::vector<int64_t>& idx, absl::Span<const int64_t> dims) {
  for (size_t d = idx.size(); d-- > 0;) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

bool FastPathType(PrimitiveType t, Opcode op) {
  if (IsSmallFloat(t) || IsComplex(t) || !IsArrayType(t)) return false;
  if (IsInteger(t) && BitWidth(t) < 8) return false;  // sub-byte ints wrap in their width
  if (IsFloat(t) && (op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor)) {
    return false;
  }
  return true;
}

absl::StatusOr<std::vector<Value>> NewOutputs(const Shape& shape, size_t n) {
  std::vector<Value> outs;
  for (size_t k = 0; k < n; ++k) {
    auto v = NewArray(shape.IsTuple() ? shape.tuple_shape(k) : shape);
    if (!v.ok()) return v.status();
    outs.push_back(*std::move(v));
  }
  return outs;
}

namespace {

// ---- reduce -----------------------------------------------------------------

// Folds a contiguous row. Reduction order is implementation-defined (XLA
// and StableHLO), so the row is split over eight independent accumulators
// that the compiler can keep in vector registers, then combined pairwise.
// Float max/min of a row: SSE max/min over 4-lane registers (which return
// the second operand when unordered) with NaNs collected on the side, then
// the IEEE details fixed up: any NaN gives NaN, and a zero result takes +0
// (max) or -0 (min) when the row holds one.
template <Opcode op, typename T>
T FoldRowMinMax(const T* src, int64_t n) {
  T r = src[0];
  bool any_nan = false;
  int64_t k = 0;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    __m128 m0 = _mm_set1_ps(src[0]), m1 = m0;
    __m128 bad = _mm_setzero_ps();
    for (; k + 8 <= n; k += 8) {
      __m128 x0 = _mm_loadu_ps(src + k), x1 = _mm_loadu_ps(src + k + 4);
      bad = _mm_or_ps(bad, _mm_or_ps(_mm_cmpunord_ps(x0, x0), _mm_cmpunord_ps(x1, x1)));
      if constexpr (op == Opcode::kMaximum) {
        m0 = _mm_max_ps(x0, m0);
        m1 = _mm_max_ps(x1, m1);
      } else {
        m0 = _mm_min_ps(x0, m0);
        m1 = _mm_min_ps(x1, m1);
      }
    }
    alignas(16) float lanes[8];
    _mm_store_ps(lanes, m0);
    _mm_store_ps(lanes + 4, m1);
    for (float v : lanes) r = op == Opcode::kMaximum ? (r < v ? v : r) : (v < r ? v : r);
    any_nan = _mm_movemask_ps(bad) != 0;
  }
#endif
  for (; k < n; ++k) {
    T x = src[k];
    r = op == Opcode::kMaximum ? (r < x ? x : r) : (x < r ? x : r);
    any_nan |= x != x;
  }
  if (any_nan) return std::numeric_limits<T>::quiet_NaN();
  if (r == 0) {
    bool want_negative = op == Opcode::kMinimum;
    for (int64_t i = 0; i < n; ++i) {
      if (src[i] == 0 && std::signbit(src[i]) == want_negative) return src[i];
    }
  }
  return r;
}

// A row in kLanes independent accumulators (the compiler keeps them in
// vector registers, several of them, so the adds do not wait on each
// other), combined pairwise.
template <Opcode op, typename T>
T FoldRowLanes(const T* src, int64_t n) {
  constexpr int kLanes = 16;
  if (n < 2 * kLanes) {
    T a = src[0];
    for (int64_t k = 1; k < n; ++k) a = Apply<op>(a, src[k]);
    return a;
  }
  T p[kLanes];
  for (int j = 0; j < kLanes; ++j) p[j] = src[j];
  int64_t k = kLanes;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(p[j], src[k + j]);
  }
  for (; k < n; ++k) p[0] = Apply<op>(p[0], src[k]);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) p[j] = Apply<op>(p[j], p[j + w]);
  }
  return p[0];
}

// Float sums and products round at every step, so their folds are
// pairwise: each whole block of kPairwiseBlock elements folds into the 16
// lanes (16 elements per lane), and the blocks' lane vectors combine as a
// balanced binary tree (a binary counter: block i merges with the blocks
// before it as the trailing ones of i say), lane by lane; then the lanes
// combine pairwise and the last partial block is added. The error grows
// with about 16 + log2(n / 256) + 4 roundings instead of n / 16, at the
// speed of the plain lanes (256 elements is a loop GCC unrolls in full;
// 512 to 2048 measured a third slower on memory-bound rows).
constexpr int64_t kPairwiseBlock = 256;

template <Opcode op, typename T>
constexpr bool kPairwise =
    std::is_floating_point_v<T> && (op == Opcode::kAdd || op == Opcode::kMultiply);

template <Opcode op, typename T>
T FoldRowPairwise(const T* src, int64_t n) {
  constexpr int kLanes = 16;
  if (n <= kPairwiseBlock) return FoldRowLanes<op>(src, n);
  T stack[64][kLanes];
  int top = 0;
  uint64_t count = 0;
  T p[kLanes];
  const int64_t whole = n / kPairwiseBlock * kPairwiseBlock;
  for (int64_t b = 0; b < whole; b += kPairwiseBlock) {
    const T* block = src + b;
    for (int j = 0; j < kLanes; ++j) p[j] = block[j];
    for (int64_t k = kLanes; k < kPairwiseBlock; k += kLanes) {
      for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(p[j], block[k + j]);
    }
    for (uint64_t c = count; c & 1; c >>= 1) {
      --top;
      for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(stack[top][j], p[j]);
    }
    for (int j = 0; j < kLanes; ++j) stack[top][j] = p[j];
    ++top;
    ++count;
  }
  for (int j = 0; j < kLanes; ++j) p[j] = stack[top - 1][j];
  for (int i = top - 2; i >= 0; --i) {
    for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(stack[i][j], p[j]);
  }
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) p[j] = Apply<op>(p[j], p[j + w]);
  }
  if (whole == n) return p[0];
  return Apply<op>(p[0], FoldRowLanes<op>(src + whole, n - whole));
}

// Folds a contiguous row. Reduction order is implementation-defined (XLA
// and StableHLO), so the row is split over eight independent accumulators
// that the compiler can keep in vector registers, then combined pairwise
// (float sums and products: pairwise over blocks, see kPairwiseBlock).
template <Opcode op, typename T>
T FoldRow(const T* src, int64_t n) {
  if constexpr (std::is_floating_point_v<T> &&
                (op == Opcode::kMaximum || op == Opcode::kMinimum)) {
    if (n >= 16) return FoldRowMinMax<op>(src, n);
  }
  if constexpr (kPairwise<op, T>) {
    return FoldRowPairwise<op>(src, n);
  } else {
    return FoldRowLanes<op>(src, n);
  }
}

// A float sum or product over any reduced dimensions, in a tree so that
// no output accumulates more than kLeafRows values in a row (FastReduce's
// single pass accumulates every reduced element of an output in turn).
// Adjacent dimensions that are both reduced or both kept are merged, and
// the walk recurses over the merged dimensions in row-major order, so it
// reads the input in order: at a kept dimension it moves to the next
// output slice, at a reduced one it splits the range in halves (down to
// kLeafRows sub-slices folded in turn) and combines the halves' results,
// which are slices of the output below that dimension, through scratch.
template <Opcode op, typename T>
class PairwiseReduce {
 public:
  static constexpr int64_t kLeafRows = 32;

  PairwiseReduce(const T* src, absl::Span<const int64_t> in_dims,
                 const std::vector<bool>& reduced) : src_(src) {
    for (size_t d = 0; d < in_dims.size(); ++d) {
      if (in_dims[d] == 1) continue;
      if (!dims_.empty() && reduced_.back() == reduced[d]) {
        dims_.back() *= in_dims[d];
      } else {
        dims_.push_back(in_dims[d]);
        reduced_.push_back(reduced[d]);
      }
    }
    const size_t m = dims_.size();
    stride_.assign(m + 1, 1);
    slice_.assign(m + 1, 1);
    for (size_t d = m; d-- > 0;) {
      stride_[d] = stride_[d + 1] * dims_[d];
      slice_[d] = slice_[d + 1] * (reduced_[d] ? 1 : dims_[d]);
    }
    // Scratch for the deepest chain of live partial results: per reduced
    // dimension one slice per level of its tree, and one more.
    int64_t scratch = 0;
    for (size_t d = 0; d < m; ++d) {
      if (!reduced_[d]) continue;
      int64_t levels = 2;
      for (int64_t n = dims_[d]; n > kLeafRows; n = (n + 1) / 2) ++levels;
      scratch += levels * slice_[d + 1];
    }
    scratch_.resize(scratch);
  }

  // out[0..slice) = the reduction (init is folded in by the caller).
  void Run(T* out) { Visit(0, src_, out, false, scratch_.data()); }

 private:
  // dst (+)= the reduction of the sub-array at `src` over dimensions lv..:
  // a slice of slice_[lv] outputs.
  void Visit(size_t lv, const T* src, T* dst, bool accumulate, T* free) {
    const size_t m = dims_.size();
    if (lv == m) {
      *dst = accumulate ? Apply<op>(*dst, *src) : *src;
      return;
    }
    const int64_t n = dims_[lv];
    if (lv + 1 == m) {  // contiguous
      if (reduced_[lv]) {
        T r = FoldRow<op>(src, n);
        *dst = accumulate ? Apply<op>(*dst, r) : r;
      } else if (accumulate) {
        for (int64_t k = 0; k < n; ++k) dst[k] = Apply<op>(dst[k], src[k]);
      } else {
        std::copy(src, src + n, dst);
      }
      return;
    }
    if (!reduced_[lv]) {
      for (int64_t i = 0; i < n; ++i) {
        Visit(lv + 1, src + i * stride_[lv + 1], dst + i * slice_[lv + 1], accumulate, free);
      }
      return;
    }
    if (!accumulate) {
      Range(lv, src, 0, n, dst, free);
      return;
    }
    Range(lv, src, 0, n, free, free + slice_[lv + 1]);
    Combine(dst, free, slice_[lv + 1]);
  }

  // dst = the reduction over indices [lo, hi) of reduced dimension lv.
  void Range(size_t lv, const T* src, int64_t lo, int64_t hi, T* dst, T* free) {
    const int64_t step = stride_[lv + 1];
    if (hi - lo <= kLeafRows) {
      Visit(lv + 1, src + lo * step, dst, false, free);
      for (int64_t i = lo + 1; i < hi; ++i) Visit(lv + 1, src + i * step, dst, true, free);
      return;
    }
    const int64_t mid = lo + (hi - lo + 1) / 2;
    Range(lv, src, lo, mid, dst, free);
    Range(lv, src, mid, hi, free, free + slice_[lv + 1]);
    Combine(dst, free, slice_[lv + 1]);
  }

  static void Combine(T* dst, const T* part, int64_t n) {
    for (int64_t k = 0; k < n; ++k) dst[k] = Apply<op>(dst[k], part[k]);
  }

  const T* src_;
  std::vector<int64_t> dims_, stride_, slice_;
  std::vector<bool> reduced_;
  std::vector<T> scratch_;
};

// Single pass over the input in row-major order, accumulating into the
// output element the input maps to.
template <Opcode op, typename T>
void FastReduce(const Literal& in, T init, absl::Span<const int64_t> in_dims,
                const std::vector<bool>& reduced, Literal& out) {
  T* acc = out.typed<T>();
  for (int64_t i = 0; i < out.element_count(); ++i) acc[i] = init;
  const T* src = in.typed<T>();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  // Output stride of each input dim (0 for reduced dims).
  std::vector<int64_t> out_stride(rank, 0);
  int64_t s = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (!reduced[d]) {
      out_stride[d] = s;
      s *= in_dims[d];
    }
  }
  if (in.element_count() == 0) return;
  if constexpr (kPairwise<op, T>) {
    PairwiseReduce<op, T> tree(src, in_dims, reduced);
    tree.Run(acc);
    for (int64_t i = 0; i < out.element_count(); ++i) acc[i] = Apply<op>(init, acc[i]);
    return;
  }
  const int64_t inner = rank ? in_dims[rank - 1] : 1;
  if (inner == 0) return;
  const int64_t inner_stride = rank ? out_stride[rank - 1] : 0;
  std::vector<int64_t> idx(rank, 0);
  int64_t o = 0;
  for (int64_t base = 0; base < in.element_count(); base += inner) {
    if (inner_stride == 0) {
      acc[o] = Apply<op>(acc[o], FoldRow<op>(src + base, inner));
    } else {
      for (int64_t k = 0; k < inner; ++k) acc[o + k] = Apply<op>(acc[o + k], src[base + k]);
    }
    // Advance the odometer over the outer dims.
    for (int64_t d = rank - 2; d >= 0; --d) {
      o += out_stride[d];
      if (++idx[d] < in_dims[d]) break;
      o -= out_stride[d] * in_dims[d];
      idx[d] = 0;
    }
  }
}


// Every other reducer, per element through the evaluator: for each output
// element, fold the reduced elements in row-major order.
absl::StatusOr<Value> GeneralReduce(const Computation& reducer, Operands ops,
                                    absl::Span<const int64_t> in_dims,
                                    const std::vector<bool>& reduced, std::vector<Value> outs,
                                    Evaluator& ev) {
  const size_t n = ops.size() / 2;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<int64_t> in_strides = Strides(in_dims);
  std::vector<int64_t> kept, red;
  for (int64_t d = 0; d < rank; ++d) (reduced[d] ? red : kept).push_back(d);
  const int64_t out_count = outs[0].array().element_count();
  std::vector<int64_t> kidx(kept.size(), 0);
  std::vector<Value> acc(n), xs(n);
  std::vector<const Value*> args(2 * n);
  for (int64_t o = 0; o < out_count; ++o) {
    int64_t base = 0;
    for (size_t j = 0; j < kept.size(); ++j) base += kidx[j] * in_strides[kept[j]];
    for (size_t k = 0; k < n; ++k) acc[k] = *ops[n + k];
    bool empty = false;
    for (int64_t d : red) empty |= in_dims[d] == 0;
    std::vector<int64_t> ridx(red.size(), 0);
    while (!empty) {
      int64_t off = base;
      for (size_t j = 0; j < red.size(); ++j) off += ridx[j] * in_strides[red[j]];
      for (size_t k = 0; k < n; ++k) {
        xs[k] = ScalarAt(ops[k]->array(), off);
        args[k] = &acc[k];
        args[n + k] = &xs[k];
      }
      auto r = ev.Call(reducer, args);
      if (!r.ok()) return r.status();
      if (n == 1) {
        acc[0] = *std::move(r);
      } else {
        for (size_t k = 0; k < n; ++k) acc[k] = r->element(k);
      }
      size_t j = red.size();
      while (j > 0) {
        --j;
        if (++ridx[j] < in_dims[red[j]]) break;
        ridx[j] = 0;
        if (j == 0) empty = true;
      }
      if (red.empty()) empty = true;
    }
    for (size_t k = 0; k < n; ++k) StoreScalar(outs[k].mutable_array(), o, acc[k].array());
    for (size_t j = kept.size(); j-- > 0;) {
      if (++kidx[j] < in_dims[kept[j]]) break;
      kidx[j] = 0;
    }
  }
  if (n == 1) return std::move(outs[0]);
  return Value::Tuple(std::move(outs));
}

}  // namespace

absl::StatusOr<Value> EvalReduce(const Instruction& inst, Operands ops, Evaluator& ev) {
  auto to_apply = Called(inst, AttrKind::kToApply);
  if (!to_apply.ok()) return to_apply.status();
  const size_t n = ops.size() / 2;
  const Literal& first = ops[0]->array();
  absl::Span<const int64_t> in_dims = first.shape().dims();
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : inst.GetInts(AttrKind::kDimensions)) reduced[d] = true;
  auto made = NewOutputs(inst.shape(), n);
  if (!made.ok()) return made.status();
  std::vector<Value> outs = *std::move(made);
  const bool fast = ev.options().fast_paths;
  std::optional<Opcode> simple = SimpleBinaryReducer(**to_apply);
  PrimitiveType t = first.element_type();
  if (fast && n == 1 && simple && outs[0].array().element_type() == t &&
      DispatchTypedReducer(t, *simple, [&](auto op, auto tag) {
        using T = typename decltype(tag)::T;
        FastReduce<op.value, T>(first, ops[1]->array().typed<T>()[0], in_dims, reduced,
                                outs[0].mutable_array());
      })) {
    return std::move(outs[0]);
  }
  if (fast) {
    std::optional<absl::Status> batched = BatchedReduce(**to_apply, ops, reduced, outs, ev);
    if (batched) {
      if (!batched->ok()) return *batched;
      if (n == 1) return std::move(outs[0]);
      return Value::Tuple(std::move(outs));
    }
  }
  return GeneralReduce(**to_apply, ops, in_dims, reduced, std::move(outs), ev);
}

}  // namespace reduction

absl::StatusOr<Value> EvalReduction(const Instruction& inst, Operands ops, Evaluator& ev) {
  switch (inst.opcode()) {
    case Opcode::kReduce: return reduction::EvalReduce(inst, ops, ev);
    case Opcode::kReduceWindow: return reduction::EvalReduceWindow(inst, ops, ev);
    case Opcode::kSelectAndScatter: return reduction::EvalSelectAndScatter(inst, ops, ev);
    default:
      return absl::InternalError(StrCat("no reduction kernel for ", inst.OpcodeText()));
  }
}

}  // namespace hlo
