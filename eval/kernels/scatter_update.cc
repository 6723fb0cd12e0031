// scatter: one or several inputs, any update computation, full dimension
// numbers (batching dims included).
//
// The results start as copies of the inputs (or, for one input that nobody
// else can see, the input's own buffer). For each batch position of the
// scatter indices the update window lands at start + batching coordinates;
// a window any part of which would fall outside the input is skipped whole,
// as XLA does (StableHLO leaves out-of-bounds updates implementation-defined
// per element; XLA's evaluator and CPU backend drop the whole window).
// Windows are applied in row-major order of the batch positions, so later
// updates of the same element see earlier ones.
//
// This file checks the dimension numbers, lists the windows (each index
// vector read and bounds-checked once) and picks how the update computation
// runs (eval/kernels/scatter_internal.h): a typed loop for the known
// combiners, else the batched interpreter, else (and under --no-fast-paths)
// the evaluator once per element.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "eval/kernels/kernels.h"
#include "eval/kernels/operand_reuse.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/kernels/scatter_internal.h"
#include "eval/vector_clones.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace gather_internal {

namespace {

constexpr std::string_view kOp = "scatter";

// The dimension numbers of a scatter.
struct ScatterDims {
  explicit ScatterDims(const Instruction& inst)
      : uwd(inst.GetInts(AttrKind::kUpdateWindowDims)),
        iwd(inst.GetInts(AttrKind::kInsertedWindowDims)),
        sdod(inst.GetInts(AttrKind::kScatterDimsToOperandDims)),
        ibd(inst.GetInts(AttrKind::kInputBatchingDims)),
        sibd(inst.GetInts(AttrKind::kScatterIndicesBatchingDims)) {}
  absl::Span<const int64_t> uwd, iwd, sdod, ibd, sibd;
};

// N inputs, the indices and N updates, of matching shapes, and a result of
// the inputs' shapes.
absl::Status CheckScatterOperands(const Instruction& inst, Operands ops, size_t n) {
  const Shape& input = ops[0]->array().shape();
  const Shape& updates = ops[n + 1]->array().shape();
  for (size_t k = 0; k < n; ++k) {
    const Shape& in = ops[k]->array().shape();
    const Shape& up = ops[n + 1 + k]->array().shape();
    const Shape& res =
        inst.shape().IsTuple() && n > 1 && k < static_cast<size_t>(inst.shape().tuple_size())
            ? inst.shape().tuple_shape(k)
            : inst.shape();
    if (in.dims() != input.dims() || up.dims() != updates.dims() ||
        up.element_type() != in.element_type()) {
      return Invalid(StrCat("scatter input ", k, " ", in.ToString(false), " and update ",
                            up.ToString(false), " do not match input 0 ", input.ToString(false),
                            " and update 0 ", updates.ToString(false)));
    }
    if (!res.IsArray() || res.dims() != in.dims() || res.element_type() != in.element_type()) {
      return Invalid(
          StrCat("scatter of ", in.ToString(false), " cannot give ", inst.shape().ToString(false)));
    }
  }
  if ((n > 1) != inst.shape().IsTuple() ||
      (n > 1 && inst.shape().tuple_size() != static_cast<int64_t>(n))) {
    return Invalid(StrCat("scatter of ", n, " inputs cannot give ", inst.shape().ToString(false)));
  }
  return absl::OkStatus();
}

// The dimension lists: in range, disjoint where they must be, of matching
// lengths, and the batching dimensions of equal sizes.
absl::Status CheckScatterDims(const ScatterDims& d, const Shape& input, const Shape& indices,
                              const Shape& updates, int64_t ivd, int64_t vector_size) {
  const int64_t rank = input.rank();
  absl::Status st = CheckDimList(kOp, "update_window_dims", d.uwd, updates.rank(), true);
  if (st.ok()) st = CheckDimList(kOp, "inserted_window_dims", d.iwd, rank, true);
  if (st.ok()) st = CheckDimList(kOp, "input_batching_dims", d.ibd, rank, true);
  if (st.ok()) st = CheckDimList(kOp, "scatter_dims_to_operand_dims", d.sdod, rank, false);
  if (st.ok()) {
    st = CheckDimList(kOp, "scatter_indices_batching_dims", d.sibd, indices.rank(), false);
  }
  if (st.ok()) st = CheckDisjoint(kOp, "inserted_window_dims", d.iwd, "input_batching_dims", d.ibd);
  if (st.ok()) {
    st = CheckDisjoint(kOp, "scatter_dims_to_operand_dims", d.sdod, "input_batching_dims", d.ibd);
  }
  if (!st.ok()) return st;
  if (static_cast<int64_t>(d.sdod.size()) != vector_size) {
    return Invalid(StrCat("scatter scatter_dims_to_operand_dims=", DimsText(d.sdod), " has ",
                          d.sdod.size(), " entries but the index vectors have ", vector_size));
  }
  if (d.ibd.size() != d.sibd.size()) {
    return Invalid(StrCat("scatter input_batching_dims=", DimsText(d.ibd),
                          " and scatter_indices_batching_dims=", DimsText(d.sibd),
                          " differ in length"));
  }
  for (size_t i = 0; i < d.ibd.size(); ++i) {
    if (d.sibd[i] == ivd) {
      return Invalid(
          StrCat("scatter scatter_indices_batching_dims contains index_vector_dim ", ivd));
    }
    if (input.dim(d.ibd[i]) != indices.dim(d.sibd[i])) {
      return Invalid(StrCat("scatter batching dimension ", d.ibd[i], " of the input (size ",
                            input.dim(d.ibd[i]), ") does not match dimension ", d.sibd[i],
                            " of the indices (size ", indices.dim(d.sibd[i]), ")"));
    }
  }
  return absl::OkStatus();
}

// The windows' axes and strides, the starts' limits and the batching
// coordinates, once the updates are known to fit.
absl::Status PlanScatterWindows(const ScatterDims& d, const Shape& input, const Shape& indices,
                                const Shape& updates, ScatterPlan& p) {
  const int64_t rank = input.rank();
  const int64_t windows = rank - static_cast<int64_t>(d.iwd.size() + d.ibd.size());
  if (static_cast<int64_t>(d.uwd.size()) != windows ||
      updates.rank() != windows + static_cast<int64_t>(p.batch.dims.size())) {
    return Invalid(StrCat("scatter update_window_dims=", DimsText(d.uwd), " and the updates ",
                          updates.ToString(false), " do not fit the input ", input.ToString(false),
                          " and indices ", indices.ToString(false)));
  }
  Dims ustrides = RowMajorStrides(updates.dims());
  Dims istrides = RowMajorStrides(input.dims());
  bool fits = true;
  size_t j = 0;
  for (int64_t dim = 0; dim < updates.rank(); ++dim) {
    if (Contains(d.uwd, dim)) continue;
    fits &= updates.dim(dim) == p.batch.dims[j++];
    p.update_batch_strides.push_back(ustrides[dim]);
  }
  Dims window(rank, 1);
  size_t k = 0;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (Contains(d.iwd, dim) || Contains(d.ibd, dim)) continue;
    int64_t ud = d.uwd[k++];
    window[dim] = updates.dim(ud);
    fits &= window[dim] <= input.dim(dim);
    p.window_axes.push_back({window[dim], istrides[dim], ustrides[ud]});
  }
  if (!fits) {
    return Invalid(StrCat("scatter updates ", updates.ToString(false), " do not match the input ",
                          input.ToString(false), " and indices ", indices.ToString(false)));
  }
  for (int64_t dim : d.sdod) {
    p.start_limit.push_back(input.dim(dim) - window[dim]);
    p.start_stride.push_back(istrides[dim]);
  }
  for (size_t i = 0; i < d.ibd.size(); ++i) {
    for (size_t b = 0; b < p.batch.array_dim.size(); ++b) {
      if (p.batch.array_dim[b] == d.sibd[i]) p.batching_coord.push_back(static_cast<int64_t>(b));
    }
    p.batching_stride.push_back(istrides[d.ibd[i]]);
  }
  int64_t lead = 0;  // leading input dims where every window is one element wide
  while (lead < rank && window[lead] == 1) ++lead;
  p.slab = lead == 0 ? 0 : istrides[lead - 1];
  p.empty = !NormalizeAxes(p.window_axes) || updates.ElementCount() == 0;
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckScatter(const Instruction& inst, Operands ops, ScatterPlan& p) {
  if (ops.size() < 3 || ops.size() % 2 == 0) {
    return Invalid(
        StrCat("scatter takes N inputs, the indices and N updates, not ", ops.size(), " operands"));
  }
  for (const Value* v : ops) {
    if (!v->is_array()) return Invalid("scatter operands must be arrays");
  }
  p.n = (ops.size() - 1) / 2;
  const Shape& input = ops[0]->array().shape();
  p.type = input.element_type();
  p.input_elements = input.ElementCount();
  const Shape& indices = ops[p.n]->array().shape();
  const Shape& updates = ops[p.n + 1]->array().shape();
  if (auto st = CheckScatterOperands(inst, ops, p.n); !st.ok()) return st;
  if (!inst.HasAttr(AttrKind::kIndexVectorDim)) return Invalid("scatter needs index_vector_dim");
  const int64_t ivd = inst.GetInt(AttrKind::kIndexVectorDim);
  auto batch = MakeIndexBatch(kOp, indices, ivd);
  if (!batch.ok()) return batch.status();
  p.batch = *std::move(batch);
  const ScatterDims dims(inst);
  if (auto st = CheckScatterDims(dims, input, indices, updates, ivd, p.batch.vector_size);
      !st.ok()) {
    return st;
  }
  return PlanScatterWindows(dims, input, indices, updates, p);
}

namespace {

// ListWindows over one index type: `read(i)` is index element i. The
// common types read inline (a call through IndexReader per component was
// a fifth of a max-pool gradient's scatter of 16384 windows). The lists are
// sized once and cut at the end, a window's bounds are tested without a
// branch per component, and one batch dimension (the usual [N, k] indices)
// steps without the coordinate loop: that scatter's list took half the time.
// kN: the index vectors' length when known here (1-4: the loop over the
// components unrolls, the limits and strides held in registers), else 0.
template <size_t kN, typename Read>
WindowList ListWindowsWith(const ScatterPlan& p, Read read) {
  const IndexBatch& b = p.batch;
  const size_t nstart = kN > 0 ? kN : p.start_limit.size();
  WindowList w;
  for (size_t k = 0; k < nstart; ++k) {
    if (p.start_limit[k] < 0) return w;  // the window is wider than the input
  }
  w.input_base.resize(b.count);
  w.update_base.resize(b.count);
  size_t kept = 0;
  // A start of v in [0, limit] along each dim: as unsigned, v <= limit (a
  // negative v wraps past it); the offset is summed unsigned, since it is
  // kept only when every component is in bounds.
  // The plan's lists in locals: stores into the lists below could alias
  // them, and reloading every field per window was most of this loop.
  const uint64_t* limit = reinterpret_cast<const uint64_t*>(p.start_limit.data());
  const uint64_t* stride = reinterpret_cast<const uint64_t*>(p.start_stride.data());
  uint64_t fixed_limit[kN > 0 ? kN : 1], fixed_stride[kN > 0 ? kN : 1];
  if constexpr (kN > 0) {
    std::copy_n(limit, kN, fixed_limit);
    std::copy_n(stride, kN, fixed_stride);
    limit = fixed_limit;
    stride = fixed_stride;
  }
  const int64_t vstride = b.vector_stride;
  int64_t* input_base = w.input_base.data();
  int64_t* update_base = w.update_base.data();
  auto window = [&, limit, stride, vstride, input_base, update_base](int64_t ibase, int64_t ubase,
                                                                     int64_t batching) {
    bool inside = true;
    uint64_t obase = static_cast<uint64_t>(batching);
    for (size_t k = 0; k < nstart; ++k) {
      const int64_t v = read(ibase + static_cast<int64_t>(k) * vstride);
      inside &= static_cast<uint64_t>(v) <= limit[k];
      obase += static_cast<uint64_t>(v) * stride[k];
    }
    input_base[kept] = static_cast<int64_t>(obase);
    update_base[kept] = ubase;
    kept += inside;
  };
  if (b.dims.size() == 1 && p.batching_coord.empty()) {
    const int64_t istep = b.strides[0], ustep = p.update_batch_strides[0];
    for (int64_t pos = 0; pos < b.count; ++pos) window(pos * istep, pos * ustep, 0);
  } else {
    Dims coords(b.dims.size(), 0);
    for (int64_t pos = 0; pos < b.count; ++pos) {
      int64_t ibase = 0, ubase = 0, batching = 0;
      for (size_t j = 0; j < coords.size(); ++j) {
        ibase += coords[j] * b.strides[j];
        ubase += coords[j] * p.update_batch_strides[j];
      }
      for (size_t i = 0; i < p.batching_coord.size(); ++i) {
        batching += coords[p.batching_coord[i]] * p.batching_stride[i];
      }
      window(ibase, ubase, batching);
      NextPosition(coords, b.dims);
    }
  }
  w.input_base.resize(kept);
  w.update_base.resize(kept);
  return w;
}

}  // namespace

namespace {

// [N, kN] s32 index rows (contiguous vectors, one batch dimension) into
// an input of fewer than 2^31 elements: a window's offset and bounds test
// fit 32-bit lanes, worked out for every row without a branch (a loop the
// compiler vectorises), then the rows outside the input dropped.
template <size_t kN>
HLO_VECTOR_CLONES void RowOffsetsS32(const int32_t* __restrict idx, int64_t rows,
                                     const uint32_t* __restrict limit,
                                     const uint32_t* __restrict stride, uint32_t* __restrict offset,
                                     uint8_t* __restrict inside) {
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t o = 0, in = 1;
    for (size_t k = 0; k < kN; ++k) {
      const uint32_t v = static_cast<uint32_t>(idx[r * static_cast<int64_t>(kN) + k]);
      in &= v <= limit[k] ? 1u : 0u;
      o += v * stride[k];
    }
    offset[r] = o;
    inside[r] = static_cast<uint8_t>(in);
  }
}

template <size_t kN>
WindowList ListRowsS32(const ScatterPlan& p, const int32_t* idx) {
  const int64_t rows = p.batch.count, ustep = p.update_batch_strides[0];
  uint32_t limit[kN], stride[kN];
  for (size_t k = 0; k < kN; ++k) {
    limit[k] = static_cast<uint32_t>(p.start_limit[k]);
    stride[k] = static_cast<uint32_t>(p.start_stride[k]);
  }
  std::vector<uint32_t> offset(rows);
  std::vector<uint8_t> inside(rows);
  RowOffsetsS32<kN>(idx, rows, limit, stride, offset.data(), inside.data());
  WindowList w;
  w.input_base.resize(rows);
  w.update_base.resize(rows);
  size_t kept = 0;
  for (int64_t r = 0; r < rows; ++r) {
    w.input_base[kept] = offset[r];
    w.update_base[kept] = r * ustep;
    kept += inside[r];
  }
  w.input_base.resize(kept);
  w.update_base.resize(kept);
  return w;
}

// Whether ListRowsS32 takes these indices.
bool RowsOfS32(const ScatterPlan& p) {
  const IndexBatch& b = p.batch;
  const size_t n = p.start_limit.size();
  if (n < 1 || n > 4 || b.dims.size() != 1 || !p.batching_coord.empty() || b.vector_stride != 1 ||
      b.strides[0] != static_cast<int64_t>(n) || p.input_elements >= (int64_t{1} << 31)) {
    return false;
  }
  for (size_t k = 0; k < n; ++k) {
    if (p.start_limit[k] < 0 || p.start_limit[k] >= (int64_t{1} << 31) ||
        p.start_stride[k] >= (int64_t{1} << 31)) {
      return false;
    }
  }
  return true;
}

template <typename Read>
WindowList ListWindowsOfLength(const ScatterPlan& p, Read read) {
  switch (p.start_limit.size()) {
    case 1:
      return ListWindowsWith<1>(p, read);
    case 2:
      return ListWindowsWith<2>(p, read);
    case 3:
      return ListWindowsWith<3>(p, read);
    case 4:
      return ListWindowsWith<4>(p, read);
    default:
      return ListWindowsWith<0>(p, read);
  }
}

}  // namespace

WindowList ListWindows(const ScatterPlan& p, const Literal& indices) {
  const uint8_t* idx = indices.data();
  switch (indices.element_type()) {
    case PrimitiveType::kS32: {
      const int32_t* x = reinterpret_cast<const int32_t*>(idx);
      if (RowsOfS32(p)) {
        switch (p.start_limit.size()) {
          case 1:
            return ListRowsS32<1>(p, x);
          case 2:
            return ListRowsS32<2>(p, x);
          case 3:
            return ListRowsS32<3>(p, x);
          default:
            return ListRowsS32<4>(p, x);
        }
      }
      return ListWindowsOfLength(p, [x](int64_t i) { return static_cast<int64_t>(x[i]); });
    }
    case PrimitiveType::kS64: {
      const int64_t* x = reinterpret_cast<const int64_t*>(idx);
      return ListWindowsOfLength(p, [x](int64_t i) { return x[i]; });
    }
    default: {
      IndexReader read = ReaderFor(indices.element_type());
      return ListWindowsWith<0>(p, [read, idx](int64_t i) { return read(idx, i); });
    }
  }
}

namespace {

// Any computation, any number of inputs: the evaluator once per element.
absl::Status ScatterGeneric(const ScatterPlan& p, const WindowList& windows,
                            const Computation& update, Operands ops, std::vector<Value>& outs,
                            KernelContext& ev) {
  const size_t n = p.n;
  std::vector<Value> args_v(2 * n);
  std::vector<const Value*> args(2 * n);
  for (size_t k = 0; k < 2 * n; ++k) args[k] = &args_v[k];
  absl::Status failure;
  auto apply = [&](int64_t o, int64_t u) {
    for (size_t k = 0; k < n; ++k) {
      args_v[k] = ScalarAt(outs[k].array(), o);
      args_v[n + k] = ScalarAt(ops[n + 1 + k]->array(), u);
    }
    auto r = ev.Call(update, args);
    if (!r.ok()) {
      failure = r.status();
      return false;
    }
    for (size_t k = 0; k < n; ++k) {
      const Value* v =
          n == 1 ? &*r : (r->is_tuple() && r->elements().size() == n ? &r->element(k) : nullptr);
      Literal& dst = outs[k].mutable_array();
      if (!v || !v->is_array() || v->array().element_count() != 1 ||
          v->array().element_type() != dst.element_type()) {
        failure = Invalid(StrCat("scatter's update computation must return ",
                                 n == 1 ? "a scalar" : StrCat("a tuple of ", n, " scalars"),
                                 " of the inputs' element types"));
        return false;
      }
      StoreScalar(dst, o, v->array());
    }
    return true;
  };
  for (size_t w = 0; w < windows.size() && failure.ok(); ++w) {
    ForEachRow(p.window_axes, windows.input_base[w], windows.update_base[w],
               [&](int64_t o, int64_t u, int64_t m, int64_t os, int64_t us) {
                 for (int64_t i = 0; i < m && failure.ok(); ++i) apply(o + i * os, u + i * us);
               });
  }
  return failure;
}

}  // namespace

absl::StatusOr<Value> EvalScatter(const Instruction& inst, Operands ops, KernelContext& ev) {
  ScatterPlan p;
  if (auto st = CheckScatter(inst, ops, p); !st.ok()) return st;
  const Literal& indices = ops[p.n]->array();
  if (!ReaderFor(indices.element_type())) {
    return Invalid(
        StrCat("scatter indices must be integers, not ", indices.shape().ToString(false)));
  }
  const Attribute* a = inst.FindAttr(AttrKind::kToApply);
  const auto* called = a ? std::get_if<std::vector<Computation*>>(&a->value) : nullptr;
  if (!called || called->size() != 1 || !(*called)[0]) {
    return Invalid("scatter needs an update computation (to_apply)");
  }
  const Computation& update = *(*called)[0];
  if (update.parameter_count() != static_cast<int64_t>(2 * p.n)) {
    return Invalid(StrCat("scatter's update computation takes ", update.parameter_count(),
                          " parameters, not ", 2 * p.n));
  }
  const bool in_place = p.n == 1 && ops[0]->unique() && SoleReaderOfOperand(inst, 0);
  const bool fast = ev.options().fast_paths && !p.empty;
  const TypedWindows typed = fast ? TypedCombiner(p, update) : TypedWindows{};
  std::vector<Value> outs;
  if (typed.window) {
    // The typed loop makes the copy itself, tile by tile.
    const Literal& updates = ops[2]->array();
    if (in_place) {
      outs.push_back(*ops[0]);
      ApplyTypedWindows(p, ListWindows(p, indices), typed, nullptr, updates,
                        outs[0].mutable_array());
    } else {
      auto out = NewArrayUninitialized(ops[0]->array().shape());
      if (!out.ok()) return out.status();
      outs.push_back(*std::move(out));
      ApplyTypedWindows(p, ListWindows(p, indices), typed, &ops[0]->array(), updates,
                        outs[0].mutable_array());
    }
    return std::move(outs[0]);
  }
  for (size_t k = 0; k < p.n; ++k) {
    if (in_place) {
      outs.push_back(*ops[0]);  // update in place: nobody else sees this buffer
      continue;
    }
    // A copy (the copy constructor skips the zero fill of a new array).
    outs.push_back(Value::Array(std::make_shared<Literal>(ops[k]->array())));
  }
  if (!p.empty) {
    const WindowList windows = ListWindows(p, indices);
    BatchProgram* program = fast ? ev.BatchProgramFor(update) : nullptr;
    absl::Status st = program && BatchedCombinerFits(p, *program, ops)
                          ? ApplyBatchedWindows(p, windows, *program, ops, outs)
                          : ScatterGeneric(p, windows, update, ops, outs, ev);
    if (!st.ok()) return st;
  }
  if (p.n == 1) return std::move(outs[0]);
  return Value::Tuple(std::move(outs));
}

}  // namespace gather_internal
}  // namespace hlo
