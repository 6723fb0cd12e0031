// select-and-scatter: in each window of the operand pick one element with
// `select` (the first element that is not padding, replaced by each later
// candidate for which select(selected, candidate) is false), then combine
// the source value into the output at that element with `scatter`, in the
// source's row-major order (XLA's SelectAndScatter; padding is never
// selected).
//
// A select that is one compare (GE, GT, LE, LT) of its two parameters and
// a scatter that is a simple reducer (eval/kernels/scalar_apply.h) run as a typed
// loop; other computations through the batched interpreter when both
// compile, else per element through the evaluator.
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <type_traits>

#include "eval/kernels/kernels.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/kernels/strided_axes.h"
#include "eval/runtime/parallel.h"
#include "eval/type_dispatch.h"
#include "eval/vector_clones.h"
#include "ir/compare_order.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {
namespace reduction {
namespace {

// The direction of `ROOT compare(p0, p1)` (p1, p0 read mirrored) when it is
// an ordering test in IEEE (partial) order for floats; nullopt otherwise.
enum class Keep { kGe, kGt, kLe, kLt };
std::optional<Keep> SimpleSelect(const Computation& c) {
  if (c.parameter_count() != 2 || c.instruction_count() != 3) return std::nullopt;
  const Instruction* root = c.root();
  if (!root || root->opcode() != Opcode::kCompare || root->operand_count() != 2) {
    return std::nullopt;
  }
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter || a == b) {
    return std::nullopt;
  }
  if (IsFloat(a->shape().element_type()) && ComparesFloatsInTotalOrder(*root)) {
    return std::nullopt;
  }
  const bool mirrored = a->parameter_number() == 1;
  std::string_view dir = root->GetString(AttrKind::kDirection);
  if (dir == "GE") return mirrored ? Keep::kLe : Keep::kGe;
  if (dir == "GT") return mirrored ? Keep::kLt : Keep::kGt;
  if (dir == "LE") return mirrored ? Keep::kGe : Keep::kLe;
  if (dir == "LT") return mirrored ? Keep::kGt : Keep::kLt;
  return std::nullopt;
}

template <Keep keep, typename T>
inline bool KeepSelected(T selected, T candidate) {
  if constexpr (keep == Keep::kGe) return selected >= candidate;
  if constexpr (keep == Keep::kGt) return selected > candidate;
  if constexpr (keep == Keep::kLe) return selected <= candidate;
  return selected < candidate;
}

template <typename F>
void DispatchKeep(Keep k, F&& f) {
  switch (k) {
    case Keep::kGe:
      f(std::integral_constant<Keep, Keep::kGe>{});
      break;
    case Keep::kGt:
      f(std::integral_constant<Keep, Keep::kGt>{});
      break;
    case Keep::kLe:
      f(std::integral_constant<Keep, Keep::kLe>{});
      break;
    default:
      f(std::integral_constant<Keep, Keep::kLt>{});
      break;
  }
}

// One window position's candidates c against a row's selections so far:
// lane i takes c[i] (and position k) where select(best[i], c[i]) is false.
// Blends, not branches: with random data each lane's choice is a coin flip,
// and a branch per lane cost a misprediction every other element (cnn_grad's
// max-pool gradient, f32[4,32,32,16]: 0.25 ms, nearly all of it here).
// The blends are bit masks: written as `kept ? best[i] : c[i]`, GCC made
// them masked stores, which AMD's cores run slowly.
template <Keep keep, typename T>
HLO_VECTOR_CLONES void SelectCandidates(const T* __restrict c, T* __restrict best,
                                        uint32_t* __restrict pick, int64_t inner, uint32_t k) {
  using Bits = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(Bits) == sizeof(T));
  for (int64_t i = 0; i < inner; ++i) {
    const T b = best[i], v = c[i];
    const bool kept = KeepSelected<keep>(b, v);
    const Bits mask = kept ? static_cast<Bits>(~Bits{0}) : Bits{0};
    const Bits chosen = static_cast<Bits>((std::bit_cast<Bits>(b) & mask) |
                                          (std::bit_cast<Bits>(v) & static_cast<Bits>(~mask)));
    best[i] = std::bit_cast<T>(chosen);
    const uint32_t pmask = kept ? ~uint32_t{0} : 0;
    pick[i] = (pick[i] & pmask) | (k & ~pmask);
  }
}

// Windows whose last axes are Trivial(): a row of `inner` sources selects
// in its windows' runs together, lane i keeping the window position of its
// selection, then scatters. Lanes of a row have distinct targets, and rows
// go in source order, so each target combines its sources in source order.
// `count` rows from `rows`' next on, sources from src, into dst.
template <Keep keep, Opcode op, typename T>
void TypedSelectAndScatterRows(const T* x, const T* src, RowWindows& rows, int64_t count, T* dst) {
  const int64_t inner = rows.inner();
  std::unique_ptr<T[]> best(new T[inner]);  // not std::vector: T may be bool
  // Lane i's selection: valid[pick[i]] (32 bits, as wide as most T, so the
  // compare-and-blend loop vectorises).
  std::vector<uint32_t> pick(inner);
  std::vector<int64_t> valid;
  for (int64_t q = 0; q < count; ++q, src += inner) {
    valid.clear();
    for (int64_t at : rows.Next()) {
      if (at >= 0) valid.push_back(at);
    }
    if (valid.empty()) continue;
    std::copy(x + valid[0], x + valid[0] + inner, best.get());
    std::fill(pick.begin(), pick.end(), 0);
    for (uint32_t k = 1; k < valid.size(); ++k) {
      SelectCandidates<keep>(x + valid[k], best.get(), pick.data(), inner, k);
    }
    for (int64_t i = 0; i < inner; ++i) {
      T& t = dst[valid[pick[i]] + i];
      t = Apply<op>(t, src[i]);
    }
  }
}

// The rows cut across the cores at whole indices of the leading axes whose
// windows are Trivial() (a pooling gradient's batch): their windows, so
// their targets, are disjoint, and each target still combines its sources
// in source order. (One core: the gradient of a 3x3 stride-2 max pool of
// f32[32,112,112,64] took 28 ms.)
template <Keep keep, Opcode op, typename T>
void TypedSelectAndScatterInParts(const T* x, const T* src, const RowWindows& rows,
                                  const std::vector<WindowAxis>& axes, T* dst) {
  int64_t groups = 1;
  for (size_t d = 0; d + 1 < axes.size() && axes[d].Trivial(); ++d) groups *= axes[d].out;
  const int64_t rows_per_group = groups > 0 ? rows.rows() / groups : 0;
  if (groups < 2 || rows_per_group * groups != rows.rows()) {
    RowWindows all = rows;
    return TypedSelectAndScatterRows<keep, op>(x, src, all, rows.rows(), dst);
  }
  const int64_t group_elements = std::max<int64_t>(1, rows_per_group * rows.inner());
  ParallelRows(groups, std::max<int64_t>(1, kMinPartSteps / group_elements),
               [&](int64_t begin, int64_t end) {
                 const int64_t first = begin * rows_per_group;
                 RowWindows part = RowWindowsFrom(rows, first);
                 TypedSelectAndScatterRows<keep, op>(x, src + first * rows.inner(), part,
                                                     (end - begin) * rows_per_group, dst);
               });
}

template <Keep keep, Opcode op, typename T>
void TypedSelectAndScatter(const Literal& operand, const Literal& source,
                           const std::vector<WindowAxis>& axes,
                           absl::Span<const int64_t> in_strides, Literal& out) {
  const T* x = operand.typed<T>();
  const T* src = source.typed<T>();
  T* dst = out.typed<T>();
  if (std::optional<RowWindows> rows = TrailingRows(axes, in_strides, 4)) {
    TypedSelectAndScatterInParts<keep, op>(x, src, *rows, axes, dst);
    return;
  }
  std::vector<int64_t> sdims;
  for (const WindowAxis& a : axes) sdims.push_back(a.out);
  std::vector<int64_t> sidx(sdims.size(), 0), scratch;
  bool dilated = false;
  for (const WindowAxis& a : axes) dilated |= a.base_dilation != 1;
  // Where every window lies inside the operand (max pooling's gradient),
  // its elements are the window's origin plus offsets listed once, in the
  // row-major window order VisitWindowElements uses.
  const bool inside =
      std::all_of(axes.begin(), axes.end(), [](const WindowAxis& a) { return a.Inside(); });
  const std::vector<int64_t> offsets =
      inside ? InsideWindowOffsets(axes, in_strides) : std::vector<int64_t>();
  int64_t s = 0;
  do {
    int64_t chosen = -1;
    T best{};
    auto consider = [&](int64_t i) {
      if (i < 0) return;
      if (chosen < 0 || !KeepSelected<keep>(best, x[i])) {
        chosen = i;
        best = x[i];
      }
    };
    if (inside) {
      const int64_t origin = InsideWindowOrigin(axes, in_strides, sidx);
      for (int64_t at : offsets) consider(origin + at);
    } else if (dilated) {
      VisitWindow(axes, in_strides, sidx, scratch, consider);
    } else {
      VisitWindowElements(axes, in_strides, sidx, scratch, consider);
    }
    if (chosen >= 0) dst[chosen] = Apply<op>(dst[chosen], src[s]);
    ++s;
  } while (NextIndex(sidx, sdims));
}

// Both computations through the batched interpreter, a block of source
// positions at a time: per window position, the lanes that already hold a
// selection run `select` on (selected, candidate) together; then the
// scatter runs over runs of source positions with distinct targets (a
// target hit twice waits for the next run, so each output combines its
// source values in source order).
absl::Status BatchedSelectAndScatter(BatchProgram& select, BatchProgram& scatter,
                                     const Literal& operand, const Literal& source,
                                     const std::vector<WindowAxis>& axes,
                                     absl::Span<const int64_t> in_strides, Literal& out) {
  const int w = ByteWidth(operand.element_type());
  const uint8_t* x = operand.data();
  uint8_t* dst = out.data();
  const size_t r = axes.size();
  std::vector<int64_t> sdims(r), wdims(r);
  for (size_t d = 0; d < r; ++d) {
    sdims[d] = axes[d].out;
    wdims[d] = axes[d].size;
  }
  const int64_t total = source.element_count();
  const int64_t lanes = std::min<int64_t>(total, 4 * BatchProgram::kBlock);
  LaneIndices lane;
  std::vector<int64_t> chosen(lanes), offsets(lanes), compact(lanes), targets(lanes);
  std::vector<uint8_t> best(lanes * w), a(lanes * w), b(lanes * w), pred(lanes);
  std::vector<int64_t> stamp(out.element_count(), -1);
  int64_t run_id = 0;
  std::vector<int64_t> sidx(r, 0);
  for (int64_t start = 0; start < total; start += lanes) {
    const int64_t nb = std::min(lanes, total - start);
    lane.Fill(sidx, sdims, nb);
    std::fill(chosen.begin(), chosen.begin() + nb, -1);
    bool any_window = true;
    for (int64_t size : wdims) any_window &= size > 0;
    std::vector<int64_t> widx(r, 0);
    while (any_window) {
      int64_t m = 0;
      for (int64_t i = 0; i < nb; ++i) {
        const int64_t lin = lane.WindowOffset(axes, in_strides, widx, i);
        if (lin < 0) continue;
        if (chosen[i] < 0) {
          chosen[i] = lin;
          std::memcpy(&best[i * w], x + lin * w, w);
        } else {
          compact[m] = i;
          offsets[m] = lin;
          ++m;
        }
      }
      if (m > 0) {
        for (int64_t k = 0; k < m; ++k) {
          std::memcpy(&a[k * w], &best[compact[k] * w], w);
          std::memcpy(&b[k * w], x + offsets[k] * w, w);
        }
        const void* in[2] = {a.data(), b.data()};
        void* res[1] = {pred.data()};
        absl::Status s = select.Run(in, res, m);
        if (!s.ok()) return s;
        for (int64_t k = 0; k < m; ++k) {
          if (pred[k]) continue;
          const int64_t i = compact[k];
          chosen[i] = offsets[k];
          std::memcpy(&best[i * w], x + offsets[k] * w, w);
        }
      }
      if (!NextIndex(widx, wdims)) break;
    }
    // Scatter in source order, in runs with distinct targets.
    int64_t m = 0;
    auto flush = [&]() -> absl::Status {
      if (m == 0) return absl::OkStatus();
      GatherElements(a.data(), dst, targets.data(), m, w, nullptr);
      const void* in[2] = {a.data(), b.data()};
      void* res[1] = {a.data()};
      absl::Status s = scatter.Run(in, res, m);
      if (!s.ok()) return s;
      ScatterElements(dst, a.data(), targets.data(), m, w);
      m = 0;
      ++run_id;
      return absl::OkStatus();
    };
    for (int64_t i = 0; i < nb; ++i) {
      if (chosen[i] < 0) continue;
      if (stamp[chosen[i]] == run_id) {
        absl::Status s = flush();
        if (!s.ok()) return s;
      }
      stamp[chosen[i]] = run_id;
      targets[m] = chosen[i];
      std::memcpy(&b[m * w], source.data() + (start + i) * w, w);
      ++m;
    }
    absl::Status s = flush();
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status GeneralSelectAndScatter(const Computation& select, const Computation& scatter,
                                     Operands ops, const std::vector<WindowAxis>& axes,
                                     absl::Span<const int64_t> in_strides, Literal& dst,
                                     KernelContext& ev) {
  const Literal& operand = ops[0]->array();
  const Literal& source = ops[1]->array();
  std::vector<int64_t> sdims;
  for (const WindowAxis& a : axes) sdims.push_back(a.out);
  std::vector<int64_t> sidx(sdims.size(), 0), scratch;
  int64_t s = 0;
  absl::Status failure;
  do {
    int64_t chosen = -1;
    Value chosen_value;
    VisitWindow(axes, in_strides, sidx, scratch, [&](int64_t i) {
      if (i < 0 || !failure.ok()) return;
      Value candidate = ScalarAt(operand, i);
      if (chosen < 0) {
        chosen = i;
        chosen_value = candidate;
        return;
      }
      const Value* args[2] = {&chosen_value, &candidate};
      auto keep = ev.Call(select, args);
      if (!keep.ok()) {
        failure = keep.status();
        return;
      }
      if (keep->array().GetInt(0) == 0) {
        chosen = i;
        chosen_value = candidate;
      }
    });
    if (!failure.ok()) return failure;
    if (chosen >= 0) {
      Value current = ScalarAt(dst, chosen);
      Value src = ScalarAt(source, s);
      const Value* args[2] = {&current, &src};
      auto r = ev.Call(scatter, args);
      if (!r.ok()) return r.status();
      StoreScalar(dst, chosen, r->array());
    }
    ++s;
  } while (NextIndex(sidx, sdims));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> EvalSelectAndScatter(const Instruction& inst, Operands ops,
                                           KernelContext& ev) {
  auto select = Called(inst, AttrKind::kSelect);
  if (!select.ok()) return select.status();
  auto scatter = Called(inst, AttrKind::kScatter);
  if (!scatter.ok()) return scatter.status();
  // What the loops index by (see CheckWindowDims): the source has the
  // windows' dims, the result the operand's, the init value is a scalar.
  if (ops.size() != 3 || !ops[0]->is_array() || !ops[1]->is_array() || !ops[2]->is_array()) {
    return absl::InvalidArgumentError("select-and-scatter takes three arrays");
  }
  const Literal& operand = ops[0]->array();
  const Literal& source = ops[1]->array();
  const Literal& init = ops[2]->array();
  HLO_RETURN_IF_ERROR(CheckWindowDims(inst.window() ? *inst.window() : Window{},
                                      operand.shape().dims(), source.shape().dims(),
                                      "the select-and-scatter source"));
  if (!inst.shape().IsArray() || inst.shape().dims() != operand.shape().dims() ||
      init.shape().rank() != 0) {
    return absl::InvalidArgumentError(
        StrCat("select-and-scatter of ", operand.shape().ToString(false), " gives ",
               inst.shape().ToString(false), " from init ", init.shape().ToString(false),
               ": the result must have the operand's dims and the init be a scalar"));
  }
  auto out = NewArrayUninitialized(inst.shape());  // filled with init next
  if (!out.ok()) return out.status();
  Literal& dst = out->mutable_array();
  data_internal::FillElements(ByteWidth(dst.element_type()), dst.data(), dst.element_count(),
                              init.data());
  if (source.element_count() == 0) return out;
  const Window window = inst.window() ? *inst.window() : Window{};
  absl::Span<const int64_t> in_dims = operand.shape().dims();
  const std::vector<WindowAxis> axes = WindowAxes(window, in_dims, source.shape().dims());
  const std::vector<int64_t> in_strides =
      in_dims.empty() ? std::vector<int64_t>{1} : Strides(in_dims);
  const PrimitiveType t = operand.element_type();
  const bool same_types =
      source.element_type() == t && init.element_type() == t && dst.element_type() == t;
  if (ev.options().fast_paths && same_types) {
    std::optional<Keep> keep = SimpleSelect(**select);
    std::optional<Opcode> op = SimpleBinaryReducer(**scatter);
    if (keep && op && (*select)->parameter(0)->shape().element_type() == t &&
        DispatchTypedReducer(t, *op, [&](auto o, auto tag) {
          using T = typename decltype(tag)::T;
          DispatchKeep(*keep, [&](auto k) {
            TypedSelectAndScatter<k.value, o.value, T>(operand, source, axes, in_strides, dst);
          });
        })) {
      return out;
    }
    BatchProgram* sel = ev.BatchProgramFor(**select);
    BatchProgram* sca = ev.BatchProgramFor(**scatter);
    if (sel && sca && sel->parameter_count() == 2 && sel->result_count() == 1 &&
        sel->parameter_type(0) == t && sel->parameter_type(1) == t &&
        sel->result_type(0) == PrimitiveType::kPred && sca->parameter_count() == 2 &&
        sca->result_count() == 1 && sca->parameter_type(0) == t && sca->parameter_type(1) == t &&
        sca->result_type(0) == t) {
      absl::Status s = BatchedSelectAndScatter(*sel, *sca, operand, source, axes, in_strides, dst);
      if (!s.ok()) return s;
      return out;
    }
  }
  absl::Status s = GeneralSelectAndScatter(**select, **scatter, ops, axes, in_strides, dst, ev);
  if (!s.ok()) return s;
  return out;
}

}  // namespace reduction
}  // namespace hlo
