// reduce (variadic, any reducer), and the helpers the reduction kernels
// share (eval/kernels/reduce_internal.h).
//
// A reducer that is one known binary op on native types runs as a typed
// loop; any other reducer through the batched interpreter
// (eval/kernels/reduce_batched.cc) when it compiles, else per element through
// the evaluator. reduce-window: eval/kernels/reduce_window.cc; select-and-scatter:
// eval/kernels/select_and_scatter.cc.
#include <algorithm>
#include <functional>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/reduce_fold.h"
#include "eval/interp/reduce_one_pass.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/runtime/parallel.h"
#include "eval/type_dispatch.h"
#include "ir/computation.h"
#include "ir/status_macros.h"
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

absl::StatusOr<std::vector<Value>> NewOutputs(const Shape& shape, size_t n) {
  std::vector<Value> outs;
  for (size_t k = 0; k < n; ++k) {
    auto v = NewArray(shape.IsTuple() ? shape.tuple_shape(k) : shape);
    if (!v.ok()) return v.status();
    outs.push_back(*std::move(v));
  }
  return outs;
}

absl::StatusOr<bool> ReducerOperands::Match(const Computation& reducer, Operands ops) {
  const size_t n = ops.size() / 2;
  if (static_cast<size_t>(reducer.parameter_count()) != 2 * n) return false;
  pointers_.assign(ops.begin(), ops.end());
  converted_.clear();
  converted_.reserve(ops.size());
  bool any = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    // Inputs take the reducer's parameters N.., init values its accumulators.
    const size_t param = i < n ? n + i : i - n;
    const PrimitiveType want = reducer.parameter(param)->shape().element_type();
    if (!ops[i]->is_array() || ops[i]->array().element_type() == want) continue;
    const Literal& from = ops[i]->array();
    auto to = Literal::CreateUninitialized(from.shape().WithElementType(want));
    if (!to.ok()) return to.status();
    if (absl::Status st = elementwise::EvalConvert(from, *to); !st.ok()) return st;
    converted_.push_back(Value::FromLiteral(*std::move(to)));
    pointers_[i] = &converted_.back();
    any = true;
  }
  return any;
}

namespace {

// ---- reduce -----------------------------------------------------------------

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

  PairwiseReduce(const T* src, absl::Span<const int64_t> in_dims, absl::Span<const bool> reduced)
      : src_(src) {
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

  // Inline storage: a reduce in a loop body (an RNN's bias gradient) runs
  // this for a few hundred elements, where five heap allocations showed.
  const T* src_;
  absl::InlinedVector<int64_t, 8> dims_, stride_, slice_;
  absl::InlinedVector<bool, 8> reduced_;
  absl::InlinedVector<T, 64> scratch_;
};

// Single pass over the input in row-major order, accumulating into the
// output element the input maps to: `in_count` elements at src into
// `out_count` at acc.
template <Opcode op, typename T>
void FastReduceRange(const T* src, int64_t in_count, T init, absl::Span<const int64_t> in_dims,
                     absl::Span<const bool> reduced, T* acc, int64_t out_count) {
  for (int64_t i = 0; i < out_count; ++i) acc[i] = init;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  // Output stride of each input dim (0 for reduced dims).
  absl::InlinedVector<int64_t, 8> out_stride(rank, 0);
  int64_t s = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (!reduced[d]) {
      out_stride[d] = s;
      s *= in_dims[d];
    }
  }
  if (in_count == 0) return;
  if constexpr (kPairwise<op, T>) {
    PairwiseReduce<op, T> tree(src, in_dims, reduced);
    tree.Run(acc);
    for (int64_t i = 0; i < out_count; ++i) acc[i] = Apply<op>(init, acc[i]);
    return;
  }
  const int64_t inner = rank ? in_dims[rank - 1] : 1;
  if (inner == 0) return;
  const int64_t inner_stride = rank ? out_stride[rank - 1] : 0;
  absl::InlinedVector<int64_t, 8> idx(rank, 0);
  int64_t o = 0;
  for (int64_t base = 0; base < in_count; base += inner) {
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

// From this many input elements the kept dimensions ahead of the first
// reduced one are split over the cores. Each output's fold does not depend
// on them (they are the walk's outermost loop), so the bits are those of
// one pass. (A softmax's row sums of f32[4,4,64,64] in GPT-2's optimized
// text ran on one core while the other waited.)
constexpr int64_t kMinSplitReduceElements = int64_t{1} << 15;

template <Opcode op, typename T>
void FastReduce(const Literal& in, T init, absl::Span<const int64_t> in_dims,
                absl::Span<const bool> reduced, Literal& out) {
  const T* src = in.typed<T>();
  T* acc = out.typed<T>();
  const int64_t n = in.element_count();
  size_t lead = 0;  // the dims ahead of the first reduced one
  while (lead < in_dims.size() && !reduced[lead]) ++lead;
  int64_t outer = 1;
  for (size_t d = 0; d < lead; ++d) outer *= in_dims[d];
  if (n < kMinSplitReduceElements || outer < 2 || lead == in_dims.size()) {
    FastReduceRange<op, T>(src, n, init, in_dims, reduced, acc, out.element_count());
    return;
  }
  // Each outer index: `in_slab` input elements into `out_slab` outputs.
  const int64_t in_slab = n / outer, out_slab = out.element_count() / outer;
  std::vector<int64_t> part_dims = {0};
  part_dims.insert(part_dims.end(), in_dims.begin() + lead, in_dims.end());
  absl::InlinedVector<bool, 8> part_reduced = {false};
  part_reduced.insert(part_reduced.end(), reduced.begin() + lead, reduced.end());
  const int64_t min_outer = std::max<int64_t>(1, kMinSplitReduceElements / 2 / in_slab);
  ParallelRows(outer, min_outer, [&](int64_t b, int64_t e) {
    std::vector<int64_t> dims = part_dims;
    dims[0] = e - b;
    FastReduceRange<op, T>(src + b * in_slab, (e - b) * in_slab, init, dims, part_reduced,
                           acc + b * out_slab, (e - b) * out_slab);
  });
}

// Every other reducer, per element through the evaluator: for each output
// element, fold the reduced elements in row-major order.
absl::StatusOr<Value> GeneralReduce(const Computation& reducer, Operands ops,
                                    absl::Span<const int64_t> in_dims,
                                    absl::Span<const bool> reduced, std::vector<Value> outs,
                                    KernelContext& ev) {
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

absl::Status CheckInputsAndInits(std::string_view op, Operands ops) {
  if (ops.empty() || ops.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        StrCat(op, " takes inputs and as many init values, not ", ops.size(), " operands"));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] == nullptr || !ops[i]->is_array()) {
      return absl::InvalidArgumentError(StrCat("operand ", i, " of ", op, " must be an array"));
    }
  }
  const size_t n = ops.size() / 2;
  absl::Span<const int64_t> dims = ops[0]->array().shape().dims();
  for (size_t i = 0; i < ops.size(); ++i) {
    absl::Span<const int64_t> d = ops[i]->array().shape().dims();
    if (i < n && d != dims) {
      return absl::InvalidArgumentError(StrCat(op, " input ", i, " has dims {", StrJoin(d, ","),
                                               "} but input 0 has {", StrJoin(dims, ","), "}"));
    }
    if (i >= n && !d.empty()) {
      return absl::InvalidArgumentError(
          StrCat("init value ", i - n, " of ", op, " is not a scalar"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckResultShapes(std::string_view op, const Shape& shape, size_t n,
                               const std::function<absl::Status(const Shape&)>& check) {
  const bool tuple = shape.IsTuple();
  if ((tuple && shape.tuple_shapes().size() != n) || (!tuple && n != 1)) {
    return absl::InvalidArgumentError(StrCat(op, " of ", n, " inputs must give ",
                                             n == 1 ? "an array" : "a tuple of that many", ", not ",
                                             shape.ToString(false)));
  }
  for (size_t k = 0; k < n; ++k) {
    const Shape& result = tuple ? shape.tuple_shape(static_cast<int64_t>(k)) : shape;
    if (!result.IsArray()) {
      return absl::InvalidArgumentError(StrCat("a ", op, " result must be an array"));
    }
    HLO_RETURN_IF_ERROR(check(result));
  }
  return absl::OkStatus();
}

// What the kernels below index by, checked here as well as by the
// verifier, since a module run with --no-verify reaches them unverified:
// 2N array operands (N inputs of one shape, N scalar init values), the
// reduced dims in range and distinct, and each of the N results the
// inputs' dims less those.
absl::Status CheckReduceOperands(const Instruction& inst, Operands ops) {
  HLO_RETURN_IF_ERROR(CheckInputsAndInits("reduce", ops));
  absl::Span<const int64_t> dims = ops[0]->array().shape().dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  absl::InlinedVector<bool, 8> reduced(dims.size(), false);
  for (int64_t d : inst.GetInts(AttrKind::kDimensions)) {
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(
          StrCat("reduce dimension ", d, " is out of range for a rank-", rank, " input"));
    }
    if (reduced[d]) {
      return absl::InvalidArgumentError(StrCat("reduce dimension ", d, " appears twice"));
    }
    reduced[d] = true;
  }
  absl::InlinedVector<int64_t, 8> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) kept.push_back(dims[d]);
  }
  return CheckResultShapes("reduce", inst.shape(), ops.size() / 2, [&](const Shape& result) {
    if (result.dims() == absl::Span<const int64_t>(kept)) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat("reduce result ", result.ToString(false),
                                             " is not the input dims less the reduced ones {",
                                             StrJoin(kept, ","), "}"));
  });
}

absl::StatusOr<Value> EvalReduce(const Instruction& inst, Operands ops, KernelContext& ev) {
  if (absl::Status st = CheckReduceOperands(inst, ops); !st.ok()) return st;
  auto to_apply = Called(inst, AttrKind::kToApply);
  if (!to_apply.ok()) return to_apply.status();
  ReducerOperands matched;
  absl::StatusOr<bool> converted = matched.Match(**to_apply, ops);
  if (!converted.ok()) return converted.status();
  if (*converted) ops = matched.operands();
  const size_t n = ops.size() / 2;
  const Literal& first = ops[0]->array();
  absl::Span<const int64_t> in_dims = first.shape().dims();
  absl::InlinedVector<bool, 8> reduced(in_dims.size(), false);
  for (int64_t d : inst.GetInts(AttrKind::kDimensions)) reduced[d] = true;
  const bool fast = ev.options().fast_paths;
  std::optional<Opcode> simple = SimpleBinaryReducer(**to_apply);
  PrimitiveType t = first.element_type();
  const Shape& out_shape = inst.shape().IsTuple() ? inst.shape().tuple_shape(0) : inst.shape();
  // One input reduced by a simple reducer in its own type: the typed loops.
  const bool typed = fast && n == 1 && simple && out_shape.element_type() == t;
  if (typed) {
    // Columns, and large rows or arrays: one pass, on every core. Its
    // output unzeroed: the pass writes every element when it runs (a zero
    // fill on this thread left the lines another core's part then writes
    // in this core's cache: a split-K sum of f32[8,256,128], 27 -> 32 us).
    std::optional<OnePassForm> form = OnePassFormOf(in_dims, reduced);
    if (form && LoneReduceGains(*form)) {
      absl::StatusOr<Value> out = NewArrayUninitialized(out_shape);
      if (!out.ok()) return out.status();
      OnePassReduce r{form->axes, *simple, &ops[1]->array(), &out->mutable_array()};
      if (ReduceInOnePass(first, form->rows, form->cols, {r})) return *std::move(out);
    }
  }
  auto made = NewOutputs(inst.shape(), n);
  if (!made.ok()) return made.status();
  std::vector<Value> outs = *std::move(made);
  if (typed && DispatchTypedReducer(t, *simple, [&](auto op, auto tag) {
        using T = typename decltype(tag)::T;
        FastReduce<op.value, T>(first, ops[1]->array().typed<T>()[0], in_dims, reduced,
                                outs[0].mutable_array());
      })) {
    return std::move(outs[0]);
  }
  if (fast && n == 1 && simple &&
      HalfReduce(**to_apply, *simple, first, ops[1]->array(), reduced, ev.options().flush_denormals,
                 outs[0].mutable_array())) {
    return std::move(outs[0]);
  }
  if (fast && n == 2 && ArgReduce(**to_apply, ops, reduced, outs)) {
    return Value::Tuple(std::move(outs));
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

absl::StatusOr<Value> EvalReduction(const Instruction& inst, Operands ops, KernelContext& ev) {
  switch (inst.opcode()) {
    case Opcode::kReduce:
      return reduction::EvalReduce(inst, ops, ev);
    case Opcode::kReduceWindow:
      return reduction::EvalReduceWindow(inst, ops, ev);
    case Opcode::kSelectAndScatter:
      return reduction::EvalSelectAndScatter(inst, ops, ev);
    default:
      return absl::InternalError(StrCat("no reduction kernel for ", inst.OpcodeText()));
  }
}

namespace reduction {

std::optional<RawReduce> RawReduceOf(const Instruction& inst) {
  if (inst.opcode() != Opcode::kReduce || inst.operand_count() != 2 || !inst.shape().IsArray()) {
    return std::nullopt;
  }
  const Shape& in = inst.operand(0)->shape();
  const Shape& init = inst.operand(1)->shape();
  const Computation* reducer = inst.to_apply();
  if (!in.IsArray() || !init.IsArray() || init.rank() != 0 || reducer == nullptr ||
      reducer->parameter_count() != 2) {
    return std::nullopt;
  }
  RawReduce plan;
  plan.type = in.element_type();
  // No operand converted to the reducer's types (ReducerOperands).
  if (init.element_type() != plan.type || inst.shape().element_type() != plan.type ||
      reducer->parameter(0)->shape().element_type() != plan.type ||
      reducer->parameter(1)->shape().element_type() != plan.type) {
    return std::nullopt;
  }
  std::optional<Opcode> op = SimpleBinaryReducer(*reducer);
  if (!op || !DispatchTypedReducer(plan.type, *op, [](auto, auto) {})) return std::nullopt;
  plan.op = *op;
  plan.dims.assign(in.dims().begin(), in.dims().end());
  plan.reduced.assign(plan.dims.size(), false);
  for (int64_t d : inst.GetInts(AttrKind::kDimensions)) {
    if (d < 0 || d >= in.rank() || plan.reduced[d]) return std::nullopt;
    plan.reduced[d] = true;
  }
  absl::InlinedVector<int64_t, 8> kept;
  for (size_t d = 0; d < plan.dims.size(); ++d) {
    if (!plan.reduced[d]) kept.push_back(plan.dims[d]);
  }
  if (inst.shape().dims() != absl::Span<const int64_t>(kept)) return std::nullopt;
  plan.in_count = in.ElementCount();
  plan.out_count = inst.shape().ElementCount();
  // EvalReduce's choices ahead of FastReduce's one-core pass.
  std::optional<OnePassForm> form = OnePassFormOf(plan.dims, plan.reduced);
  if (plan.in_count >= kMinSplitReduceElements || (form && LoneReduceGains(*form))) {
    return std::nullopt;
  }
  return plan;
}

void RunRawReduce(const RawReduce& plan, const void* in, const void* init, void* out) {
  DispatchTypedReducer(plan.type, plan.op, [&](auto op, auto tag) {
    using T = typename decltype(tag)::T;
    FastReduceRange<op.value, T>(static_cast<const T*>(in), plan.in_count,
                                 static_cast<const T*>(init)[0], plan.dims, plan.reduced,
                                 static_cast<T*>(out), plan.out_count);
  });
}

}  // namespace reduction

void FlushFastReductionResult(const Instruction& inst, Value& result) {
  if (inst.opcode() != Opcode::kReduce && inst.opcode() != Opcode::kReduceWindow) return;
  const Computation* reducer = inst.to_apply();
  if (!reducer || !SimpleBinaryReducer(*reducer) || !result.is_array() ||
      !ContainsDenormals(result.array())) {
    return;
  }
  if (!result.unique()) result = Value::Array(std::make_shared<Literal>(result.array()));
  FlushDenormalsInPlace(result.mutable_array());
}

}  // namespace hlo
