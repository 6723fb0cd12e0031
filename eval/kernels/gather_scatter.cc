// gather (and the dispatch to scatter, eval/kernels/scatter_update.cc).
//
// For each batch position of start_indices the kernel reads the index
// vector, clamps the slice start into the operand (StableHLO and XLA clamp,
// so a gather never reads out of bounds), adds the batching coordinates, and
// copies the slice into the result. The slice is the same strided block for
// every position (only its two base offsets move), so its axes are
// normalised once and each copy is a memcpy per contiguous run, or a typed
// strided loop per element byte width. Element types never matter: elements
// move as 1/2/4/8/16-byte words.
#include <algorithm>
#include <cstring>

#include "eval/kernels/gather_index.h"
#include "eval/kernels/kernels.h"
#include "eval/runtime/parallel.h"
#include "ir/strings.h"

namespace hlo {
namespace gather_internal {
// Defined in eval/kernels/scatter_update.cc.
absl::StatusOr<Value> EvalScatter(const Instruction& inst, Operands ops, KernelContext& ev);
}  // namespace gather_internal

namespace {

using namespace gather_internal;  // NOLINT: this file's own helpers

struct Word128 {
  uint64_t lo, hi;
};

// Results of this many bytes and more are gathered on both cores.
constexpr int64_t kParallelGatherBytes = 1 << 20;

// The gather's dimension numbers, checked against the operand, the indices
// and the instruction's result shape.
struct GatherPlan {
  IndexBatch batch;
  Dims start_index_map;
  Dims result_batch_dims;     // result dims that are not offset dims
  Dims result_batch_strides;  // their strides in the result
  Dims start_limit;           // per index component: operand dim - slice size
  Dims start_stride;          // per index component: its operand dim's stride
  Dims batching_coord;        // per batching pair: the batch coordinate it reads
  Dims batching_stride;       // per batching pair: the operand dim's stride
  Axes slice_axes;            // the slice: dst = result, src = operand strides
  bool empty = false;         // the slice or the result has no elements
};

// The dimension numbers of a gather.
struct GatherDims {
  explicit GatherDims(const Instruction& inst)
      : offset_dims(inst.GetInts(AttrKind::kOffsetDims)),
        collapsed(inst.GetInts(AttrKind::kCollapsedSliceDims)),
        sim(inst.GetInts(AttrKind::kStartIndexMap)),
        obd(inst.GetInts(AttrKind::kOperandBatchingDims)),
        ibd(inst.GetInts(AttrKind::kStartIndicesBatchingDims)),
        sizes(inst.GetInts(AttrKind::kSliceSizes)),
        ivd(inst.GetInt(AttrKind::kIndexVectorDim)) {}
  absl::Span<const int64_t> offset_dims, collapsed, sim, obd, ibd, sizes;
  int64_t ivd;
};

// slice_sizes within the operand, and the dimension lists: in range,
// disjoint where they must be, of matching lengths, collapsed and batching
// dimensions of slice size 1, batching dimensions of equal sizes.
absl::Status CheckGatherDims(const GatherDims& g, const Shape& operand, const Shape& indices,
                             const Shape& result, int64_t vector_size) {
  constexpr std::string_view kOp = "gather";
  const int64_t rank = operand.rank();
  if (static_cast<int64_t>(g.sizes.size()) != rank) {
    return Invalid(StrCat("gather slice_sizes=", DimsText(g.sizes),
                          " needs one size per operand dimension of ", operand.ToString(false)));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (g.sizes[d] < 0 || g.sizes[d] > operand.dim(d)) {
      return Invalid(StrCat("gather slice_sizes=", DimsText(g.sizes), ": size ", g.sizes[d],
                            " of dimension ", d, " is not in [0, ", operand.dim(d), "]"));
    }
  }
  absl::Status st = CheckDimList(kOp, "collapsed_slice_dims", g.collapsed, rank, true);
  if (st.ok()) st = CheckDimList(kOp, "operand_batching_dims", g.obd, rank, true);
  if (st.ok()) st = CheckDimList(kOp, "start_index_map", g.sim, rank, false);
  if (st.ok()) st = CheckDimList(kOp, "start_indices_batching_dims", g.ibd, indices.rank(), false);
  if (st.ok()) st = CheckDimList(kOp, "offset_dims", g.offset_dims, result.rank(), true);
  if (st.ok()) {
    st = CheckDisjoint(kOp, "collapsed_slice_dims", g.collapsed, "operand_batching_dims", g.obd);
  }
  if (st.ok()) st = CheckDisjoint(kOp, "start_index_map", g.sim, "operand_batching_dims", g.obd);
  if (!st.ok()) return st;
  for (int64_t d : g.collapsed) {
    if (g.sizes[d] != 1) {
      return Invalid(
          StrCat("gather collapses dimension ", d, " whose slice size is ", g.sizes[d], ", not 1"));
    }
  }
  if (static_cast<int64_t>(g.sim.size()) != vector_size) {
    return Invalid(StrCat("gather start_index_map=", DimsText(g.sim), " has ", g.sim.size(),
                          " entries but the index vectors have ", vector_size));
  }
  if (g.obd.size() != g.ibd.size()) {
    return Invalid(StrCat("gather operand_batching_dims=", DimsText(g.obd),
                          " and start_indices_batching_dims=", DimsText(g.ibd),
                          " differ in length"));
  }
  for (size_t i = 0; i < g.obd.size(); ++i) {
    if (g.ibd[i] == g.ivd) {
      return Invalid(
          StrCat("gather start_indices_batching_dims contains index_vector_dim ", g.ivd));
    }
    if (g.sizes[g.obd[i]] != 1 || operand.dim(g.obd[i]) != indices.dim(g.ibd[i])) {
      return Invalid(StrCat("gather batching dimension ", g.obd[i], " of the operand (size ",
                            operand.dim(g.obd[i]), ", slice size ", g.sizes[g.obd[i]],
                            ") does not match dimension ", g.ibd[i], " of the indices (size ",
                            indices.dim(g.ibd[i]), ")"));
    }
  }
  return absl::OkStatus();
}

// The slice's axes, the result's batch dimensions and strides, the starts'
// limits and the batching coordinates, once the result is known to fit.
absl::Status PlanGatherSlices(const GatherDims& g, const Shape& operand, const Shape& indices,
                              const Shape& result, GatherPlan& p) {
  const int64_t rank = operand.rank();
  const int64_t offsets = rank - static_cast<int64_t>(g.collapsed.size() + g.obd.size());
  if (static_cast<int64_t>(g.offset_dims.size()) != offsets ||
      result.rank() != offsets + static_cast<int64_t>(p.batch.dims.size())) {
    return Invalid(StrCat("gather offset_dims=", DimsText(g.offset_dims), " and the result ",
                          result.ToString(false), " do not fit the operand ",
                          operand.ToString(false), " and indices ", indices.ToString(false)));
  }
  // Result dims: batch dims in index-array order, offset dims in operand order.
  for (int64_t d = 0; d < result.rank(); ++d) {
    if (!Contains(g.offset_dims, d)) p.result_batch_dims.push_back(d);
  }
  bool fits = true;
  for (size_t j = 0; j < p.result_batch_dims.size(); ++j) {
    fits &= result.dim(p.result_batch_dims[j]) == p.batch.dims[j];
  }
  Dims rstrides = RowMajorStrides(result.dims());
  Dims ostrides = RowMajorStrides(operand.dims());
  size_t k = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (Contains(g.collapsed, d) || Contains(g.obd, d)) continue;
    int64_t rd = g.offset_dims[k++];
    fits &= result.dim(rd) == g.sizes[d];
    p.slice_axes.push_back({g.sizes[d], rstrides[rd], ostrides[d]});
  }
  if (!fits) {
    return Invalid(StrCat("gather result ", result.ToString(false), " does not match operand ",
                          operand.ToString(false), ", indices ", indices.ToString(false),
                          " and slice_sizes=", DimsText(g.sizes)));
  }
  p.start_index_map.assign(g.sim.begin(), g.sim.end());
  for (int64_t rd : p.result_batch_dims) p.result_batch_strides.push_back(rstrides[rd]);
  for (int64_t d : g.sim) {
    p.start_limit.push_back(operand.dim(d) - g.sizes[d]);
    p.start_stride.push_back(ostrides[d]);
  }
  for (size_t i = 0; i < g.obd.size(); ++i) {
    for (size_t j = 0; j < p.batch.array_dim.size(); ++j) {
      if (p.batch.array_dim[j] == g.ibd[i]) p.batching_coord.push_back(static_cast<int64_t>(j));
    }
    p.batching_stride.push_back(ostrides[g.obd[i]]);
  }
  p.empty = !NormalizeAxes(p.slice_axes) || result.ElementCount() == 0;
  return absl::OkStatus();
}

absl::Status CheckGather(const Instruction& inst, const Shape& operand, const Shape& indices,
                         GatherPlan& p) {
  const Shape& result = inst.shape();
  if (!result.IsArray() || result.element_type() != operand.element_type()) {
    return Invalid(
        StrCat("gather of ", operand.ToString(false), " cannot give ", result.ToString(false)));
  }
  if (!inst.HasAttr(AttrKind::kIndexVectorDim)) return Invalid("gather needs index_vector_dim");
  auto batch = MakeIndexBatch("gather", indices, inst.GetInt(AttrKind::kIndexVectorDim));
  if (!batch.ok()) return batch.status();
  p.batch = *std::move(batch);
  const GatherDims dims(inst);
  if (auto st = CheckGatherDims(dims, operand, indices, result, p.batch.vector_size); !st.ok()) {
    return st;
  }
  return PlanGatherSlices(dims, operand, indices, result, p);
}

// Copies the slices of batch positions [begin, end); E is the element's
// storage word. `by_element`: every element moved on its own (the general
// evaluator's walk, --no-fast-paths), else contiguous runs by memcpy.
template <typename E>
void GatherSlices(const GatherPlan& p, const Literal& indices, IndexReader read, uint8_t* out_bytes,
                  const uint8_t* in_bytes, int64_t begin, int64_t end, bool by_element) {
  E* __restrict out = reinterpret_cast<E*>(out_bytes);
  const E* __restrict in = reinterpret_cast<const E*>(in_bytes);
  const IndexBatch& b = p.batch;
  const uint8_t* idx = indices.data();
  const size_t nstart = p.start_index_map.size();
  Dims coords(b.dims.size(), 0);
  for (size_t j = coords.size(), rest = begin; begin > 0 && j-- > 0;) {
    coords[j] = static_cast<int64_t>(rest % b.dims[j]);
    rest /= b.dims[j];
  }
  const bool single = p.slice_axes.size() == 1 && p.slice_axes[0].size == 1;
  auto copy_row = [&](int64_t dst, int64_t src, int64_t n, int64_t ds, int64_t ss) {
    if (ds == 1 && ss == 1 && !by_element) {
      std::memcpy(out + dst, in + src, n * sizeof(E));
    } else {
      for (int64_t i = 0; i < n; ++i) out[dst + i * ds] = in[src + i * ss];
    }
  };
  for (int64_t pos = begin; pos < end; ++pos) {
    int64_t ibase = 0, rbase = 0, obase = 0;
    for (size_t j = 0; j < coords.size(); ++j) {
      ibase += coords[j] * b.strides[j];
      rbase += coords[j] * p.result_batch_strides[j];
    }
    for (size_t k = 0; k < nstart; ++k) {  // the start clamped once per slice
      int64_t v = read(idx, ibase + static_cast<int64_t>(k) * b.vector_stride);
      v = std::clamp<int64_t>(v, 0, p.start_limit[k]);
      obase += v * p.start_stride[k];
    }
    for (size_t i = 0; i < p.batching_coord.size(); ++i) {
      obase += coords[p.batching_coord[i]] * p.batching_stride[i];
    }
    if (single) {
      out[rbase] = in[obase];  // one element per position: no row walk
    } else {
      ForEachRow(p.slice_axes, rbase, obase, copy_row);
    }
    NextPosition(coords, b.dims);
  }
}

// Batch positions are independent: large gathers are split over the cores.
template <typename E>
void Gather(const GatherPlan& p, const Literal& indices, IndexReader read, uint8_t* out,
            const uint8_t* in, int64_t result_bytes, bool fast) {
  const int64_t count = p.batch.count;
  if (!fast || result_bytes < kParallelGatherBytes || count < 2) {
    GatherSlices<E>(p, indices, read, out, in, 0, count, !fast);
    return;
  }
  const int64_t slice_bytes = std::max<int64_t>(1, result_bytes / count);
  ParallelRows(
      count, std::max<int64_t>(1, kParallelGatherBytes / 2 / slice_bytes),
      [&](int64_t b, int64_t e) { GatherSlices<E>(p, indices, read, out, in, b, e, false); });
}

absl::StatusOr<Value> EvalGather(const Instruction& inst, Operands ops, bool fast) {
  if (ops.size() != 2 || !ops[0]->is_array() || !ops[1]->is_array()) {
    return Invalid("gather takes two arrays: the operand and the start indices");
  }
  const Literal& operand = ops[0]->array();
  const Literal& indices = ops[1]->array();
  IndexReader read = ReaderFor(indices.element_type());
  if (!read) {
    return Invalid(
        StrCat("gather start indices must be integers, not ", indices.shape().ToString(false)));
  }
  GatherPlan p;
  if (auto st = CheckGather(inst, operand.shape(), indices.shape(), p); !st.ok()) return st;
  // Every result element is written: the slices tile the result.
  auto out = p.empty ? NewArray(inst.shape()) : NewArrayUninitialized(inst.shape());
  if (!out.ok() || p.empty) return out;
  uint8_t* dst = out->mutable_array().data();
  const uint8_t* src = operand.data();
  const int64_t bytes = static_cast<int64_t>(out->array().size_bytes());
  switch (ByteWidth(operand.element_type())) {
    case 1:
      Gather<uint8_t>(p, indices, read, dst, src, bytes, fast);
      break;
    case 2:
      Gather<uint16_t>(p, indices, read, dst, src, bytes, fast);
      break;
    case 4:
      Gather<uint32_t>(p, indices, read, dst, src, bytes, fast);
      break;
    case 8:
      Gather<uint64_t>(p, indices, read, dst, src, bytes, fast);
      break;
    case 16:
      Gather<Word128>(p, indices, read, dst, src, bytes, fast);
      break;
    default:
      return Invalid(StrCat("gather cannot move ", operand.shape().ToString(false)));
  }
  return out;
}

}  // namespace

absl::StatusOr<Value> EvalGatherScatter(const Instruction& inst, Operands ops, KernelContext& ev) {
  switch (inst.opcode()) {
    case Opcode::kGather:
      return EvalGather(inst, ops, ev.options().fast_paths);
    case Opcode::kScatter:
      return EvalScatter(inst, ops, ev);
    default:
      return absl::InternalError(StrCat("no gather/scatter kernel for ", inst.OpcodeText()));
  }
}

}  // namespace hlo
