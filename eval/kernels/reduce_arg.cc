// JAX's argmax and argmin: a reduce of (values, indices) whose reducer,
// over (acc value, acc index, x value, x index), is
//
//   keep = or(compare(a, b, GT), compare(a, a, NE))     (LT: argmin)
//   value = select(keep, a, b)
//   index = select(or(keep, and(compare(a, b, EQ), compare(ai, bi, LT))), ai, bi)
//
// (the or and and operands either way round). The batched interpreter ran
// it a program call per reduced element over a block of outputs: 17 ns an
// element (an argmax over a language model's vocabulary for 2048 tokens,
// f32[2048,4096], 146 ms). Here each output folds its elements in the
// general evaluator's order (row-major over the reduced dimensions, from
// the init values) with that step in C++, so the bits are the same: the
// compares are the hardware's, as the interpreter's are (under
// --denormals=flush MXCSR reads denormals as zeros in both), and the
// selects move the chosen operands' bits.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/compare_order.h"

namespace hlo {
namespace reduction {
namespace {

const Instruction* Param(const Instruction* i, int64_t number) {
  return i != nullptr && i->opcode() == Opcode::kParameter && i->parameter_number() == number
             ? i
             : nullptr;
}

// compare(x, y) in `dir`, partial order, with x and y the given parameters.
bool IsCompare(const Instruction* c, CompareDirection dir, int64_t x, int64_t y) {
  return c != nullptr && c->opcode() == Opcode::kCompare && c->operand_count() == 2 &&
         CompareDirectionOf(*c) == dir && !ComparesFloatsInTotalOrder(*c) &&
         Param(c->operand(0), x) != nullptr && Param(c->operand(1), y) != nullptr;
}

// A binary op `op` whose operands, either way round, satisfy f and g.
template <typename F, typename G>
bool EitherWay(const Instruction* i, Opcode op, F f, G g) {
  if (i == nullptr || i->opcode() != op || i->operand_count() != 2) return false;
  return (f(i->operand(0)) && g(i->operand(1))) || (f(i->operand(1)) && g(i->operand(0)));
}

// Whether `keep` is or(compare(p0, p2, dir), compare(p0, p0, NE)).
bool IsKeep(const Instruction* keep, CompareDirection dir) {
  return EitherWay(
      keep, Opcode::kOr, [&](const Instruction* c) { return IsCompare(c, dir, 0, 2); },
      [](const Instruction* c) { return IsCompare(c, CompareDirection::kNe, 0, 0); });
}

// GT (argmax) or LT (argmin) where `reducer` is that reducer.
std::optional<CompareDirection> ArgDirection(const Computation& reducer) {
  const Instruction* root = reducer.root();
  if (reducer.parameter_count() != 4 || root == nullptr || root->opcode() != Opcode::kTuple ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  const Instruction* value = root->operand(0);
  const Instruction* index = root->operand(1);
  if (value->opcode() != Opcode::kSelect || index->opcode() != Opcode::kSelect ||
      Param(value->operand(1), 0) == nullptr || Param(value->operand(2), 2) == nullptr ||
      Param(index->operand(1), 1) == nullptr || Param(index->operand(2), 3) == nullptr) {
    return std::nullopt;
  }
  for (CompareDirection dir : {CompareDirection::kGt, CompareDirection::kLt}) {
    const Instruction* keep = value->operand(0);
    if (!IsKeep(keep, dir)) continue;
    const bool index_matches = EitherWay(
        index->operand(0), Opcode::kOr, [&](const Instruction* k) { return k == keep; },
        [](const Instruction* tie) {
          return EitherWay(
              tie, Opcode::kAnd,
              [](const Instruction* c) { return IsCompare(c, CompareDirection::kEq, 0, 2); },
              [](const Instruction* c) { return IsCompare(c, CompareDirection::kLt, 1, 3); });
        });
    if (index_matches) return dir;
  }
  return std::nullopt;
}

// The reducer's step: (value, index) folded with (b, bi), its tests
// combined without branches (so that a loop of them vectorises).
template <typename V, typename I, bool max>
inline void ArgStep(V& value, I& index, V b, I bi) {
  const V a = value;
  const bool keep = (max ? a > b : a < b) | (a != a);
  const bool take_index = keep | ((a == b) & (index < bi));
  value = keep ? a : b;
  index = take_index ? index : bi;
}

template <typename V, typename I, bool max>
struct ArgFold {
  V value;
  I index;
  void Step(V b, I bi) { ArgStep<V, I, max>(value, index, b, bi); }
};

// Rows by a shortcut with the fold's bits (AVX-512; 1.03 -> 0.2 ns an
// element for f32 rows of 4096). Over its sequence (the init value, then
// the row) the fold's state changes so: a NaN value stays, so the first
// NaN wins with its index; else the value ends in the class E of values
// equal (==) to the greatest (GT; the least for LT), entered at its first
// member, after which each member takes the value and the lesser index.
// So the result is E's last member's value and its members' least index,
// found by two passes: E's value and whether a NaN is there (vector
// max), then E's members (a compare per vector, which rarely finds one).
// The compares are the hardware's on both ways, under the same MXCSR.
template <typename T, bool max>
T Extreme(T a, T b) {
  return (max ? b > a : b < a) ? b : a;
}

// The greater (lesser) of a and b lane by lane, as Extreme does.
template <bool max, typename Vec>
HLO_AVX512_INLINE Vec FoldLanes(Vec a, Vec b) {
  return max ? avx512::Greater(a, b) : avx512::Lesser(a, b);
}

// E's value in v[0, n) (n > 0) as `extreme`; whether v holds a NaN.
template <typename T, bool max>
__attribute__((target("avx512f"))) bool RowExtreme(const T* v, int64_t n, T& extreme) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  using Vec = decltype(avx512::Load(v));
  Vec a0 = avx512::Broadcast(v[0]), a1 = a0, a2 = a0, a3 = a0;
  uint32_t nan = 0;
  int64_t k = 0;
  for (; k + 4 * kLanes <= n; k += 4 * kLanes) {
    const Vec x0 = avx512::Load(v + k), x1 = avx512::Load(v + k + kLanes);
    const Vec x2 = avx512::Load(v + k + 2 * kLanes), x3 = avx512::Load(v + k + 3 * kLanes);
    a0 = FoldLanes<max>(a0, x0);
    a1 = FoldLanes<max>(a1, x1);
    a2 = FoldLanes<max>(a2, x2);
    a3 = FoldLanes<max>(a3, x3);
    // unordered(x, y): x or y is NaN
    nan |= avx512::UnorderedLanes(x0, x1) | avx512::UnorderedLanes(x2, x3);
  }
  for (; k < n; k += kLanes) {  // lanes past n read as a0's
    const Vec x = avx512::LoadFirstOr(v + k, std::min(kLanes, n - k), a0);
    a0 = FoldLanes<max>(a0, x);
    nan |= avx512::UnorderedLanes(x, x);
  }
  alignas(64) T lanes[kLanes];
  a0 = FoldLanes<max>(FoldLanes<max>(a0, a1), FoldLanes<max>(a2, a3));
  std::memcpy(lanes, &a0, sizeof(lanes));
  extreme = lanes[0];
  for (int64_t j = 1; j < kLanes; ++j) extreme = Extreme<T, max>(extreme, lanes[j]);
  return nan != 0;
}

// The first position of a NaN in v[0, n) (there is one).
template <typename T>
__attribute__((target("avx512f"))) int64_t FirstNan(const T* v, int64_t n) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  for (int64_t k = 0; k < n; k += kLanes) {
    const int64_t m = std::min(kLanes, n - k);
    const auto x = avx512::LoadFirst(v + k, m);
    const uint32_t nan = avx512::UnorderedLanes(x, x);
    if (nan != 0) return k + std::countr_zero(nan);
  }
  return 0;  // (never)
}

// E's members in v[0, n): `index` lowered to their least index, and the
// last one's position returned (-1: none).
template <typename T, typename I>
__attribute__((target("avx512f"))) int64_t EqualMembers(const T* v, const I* ix, int64_t n, T e,
                                                        I& index) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  const auto ev = avx512::Broadcast(e);
  int64_t last = -1;
  auto take = [&](uint32_t members, int64_t at) {
    for (; members != 0; members &= members - 1) {
      last = at + std::countr_zero(members);
      index = std::min(index, ix[last]);
    }
  };
  int64_t k = 0;
  for (; k + 4 * kLanes <= n; k += 4 * kLanes) {
    const uint32_t m0 = avx512::EqualLanes(avx512::Load(v + k), ev);
    const uint32_t m1 = avx512::EqualLanes(avx512::Load(v + k + kLanes), ev);
    const uint32_t m2 = avx512::EqualLanes(avx512::Load(v + k + 2 * kLanes), ev);
    const uint32_t m3 = avx512::EqualLanes(avx512::Load(v + k + 3 * kLanes), ev);
    if ((m0 | m1 | m2 | m3) == 0) continue;
    take(m0, k);
    take(m1, k + kLanes);
    take(m2, k + 2 * kLanes);
    take(m3, k + 3 * kLanes);
  }
  for (; k < n; k += kLanes) {
    const int64_t m = std::min(kLanes, n - k);
    take(avx512::EqualLanes(avx512::LoadFirst(v + k, m), ev) & ((uint32_t{1} << m) - 1), k);
  }
  return last;
}

template <typename T, typename I, bool max>
__attribute__((target("avx512f"))) void FoldRowAvx512(const T* v, const I* ix, T v0, I i0,
                                                      int64_t n, T& out_v, I& out_i) {
  out_v = v0;
  out_i = i0;
  if (n == 0 || v0 != v0) return;  // a NaN init value stays
  T e;
  if (RowExtreme<T, max>(v, n, e)) {
    const int64_t p = FirstNan(v, n);
    out_v = v[p];
    out_i = ix[p];
    return;
  }
  e = Extreme<T, max>(e, v0);
  I index = v0 == e ? i0 : std::numeric_limits<I>::max();
  const int64_t last = EqualMembers(v, ix, n, e, index);
  if (last >= 0) out_v = v[last];
  out_i = index;
}

template <typename V, typename I, bool max>
void FoldRows(const V* v, const I* ix, V v0, I i0, int64_t steps, int64_t lo, int64_t hi, V* out_v,
              I* out_i) {
  if (avx512::Available()) {
    for (int64_t o = lo; o < hi; ++o) {
      FoldRowAvx512<V, I, max>(v + o * steps, ix + o * steps, v0, i0, steps, out_v[o], out_i[o]);
    }
    return;
  }
  for (int64_t o = lo; o < hi; ++o) {
    ArgFold<V, I, max> f{v0, i0};
    const int64_t base = o * steps;
    for (int64_t k = 0; k < steps; ++k) f.Step(v[base + k], ix[base + k]);
    out_v[o] = f.value;
    out_i[o] = f.index;
  }
}

// One step of n folds whose elements lie side by side, lane by lane: the
// loop vectorises (5.7 -> 2.9-3.8 ms for a column argmax of
// f32[2048,4096], memory-bound).
template <typename V, typename I, bool max>
HLO_VECTOR_CLONES void StepLanes(V* __restrict acc_v, I* __restrict acc_i, const V* __restrict v,
                                 const I* __restrict ix, int64_t n) {
  for (int64_t c = 0; c < n; ++c) ArgStep<V, I, max>(acc_v[c], acc_i[c], v[c], ix[c]);
}

// n outputs whose elements lie side by side at each step (from v and ix).
template <typename V, typename I, bool max>
void FoldSideBySide(const V* v, const I* ix, V v0, I i0, const ReduceWalk& w, int64_t n, V* out_v,
                    I* out_i) {
  std::fill(out_v, out_v + n, v0);
  std::fill(out_i, out_i + n, i0);
  std::vector<int64_t> ridx(w.red_dims.size(), 0);
  int64_t red = 0;
  for (int64_t s = 0; s < w.steps; ++s) {
    StepLanes<V, I, max>(out_v, out_i, v + red, ix + red, n);
    ReduceWalkNext(w, ridx, red);
  }
}

// Outputs [lo, hi) of any walk, side by side: each step takes its element
// of every output in turn (a column reduction reads rows in order).
template <typename V, typename I, bool max>
void FoldAcross(const V* v, const I* ix, V v0, I i0, const ReduceWalk& w, int64_t lo, int64_t hi,
                V* out_v, I* out_i) {
  std::vector<int64_t> base(static_cast<size_t>(hi - lo));
  for (int64_t o = lo; o < hi; ++o) base[static_cast<size_t>(o - lo)] = ReduceWalkBase(w, o);
  bool side_by_side = true;
  for (int64_t o = lo + 1; o < hi && side_by_side; ++o) {
    side_by_side = base[static_cast<size_t>(o - lo)] == base[0] + (o - lo);
  }
  if (side_by_side) {
    FoldSideBySide<V, I, max>(v + base[0], ix + base[0], v0, i0, w, hi - lo, out_v + lo,
                              out_i + lo);
    return;
  }
  std::vector<ArgFold<V, I, max>> acc(static_cast<size_t>(hi - lo), ArgFold<V, I, max>{v0, i0});
  std::vector<int64_t> ridx(w.red_dims.size(), 0);
  int64_t red = 0;
  for (int64_t s = 0; s < w.steps; ++s) {
    for (size_t k = 0; k < acc.size(); ++k) acc[k].Step(v[base[k] + red], ix[base[k] + red]);
    ReduceWalkNext(w, ridx, red);
  }
  for (int64_t o = lo; o < hi; ++o) {
    out_v[o] = acc[static_cast<size_t>(o - lo)].value;
    out_i[o] = acc[static_cast<size_t>(o - lo)].index;
  }
}

template <typename V, typename I, bool max>
void Fold(const V* v, const I* ix, V v0, I i0, const ReduceWalk& w, V* out_v, I* out_i) {
  // Parts of at least 2^14 elements a core.
  const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, w.steps));
  ParallelRows(w.outputs, min_rows, [&](int64_t lo, int64_t hi) {
    if (w.rows) {
      FoldRows<V, I, max>(v, ix, v0, i0, w.steps, lo, hi, out_v, out_i);
    } else {
      FoldAcross<V, I, max>(v, ix, v0, i0, w, lo, hi, out_v, out_i);
    }
  });
}

template <typename V, typename I>
void FoldTyped(bool max, Operands ops, const ReduceWalk& w, std::vector<Value>& outs) {
  const V* v = ops[0]->array().typed<V>();
  const I* ix = ops[1]->array().typed<I>();
  const V v0 = ops[2]->array().typed<V>()[0];
  const I i0 = ops[3]->array().typed<I>()[0];
  V* ov = outs[0].mutable_array().typed<V>();
  I* oi = outs[1].mutable_array().typed<I>();
  if (max) {
    Fold<V, I, true>(v, ix, v0, i0, w, ov, oi);
  } else {
    Fold<V, I, false>(v, ix, v0, i0, w, ov, oi);
  }
}

template <typename V>
bool FoldByIndex(bool max, PrimitiveType index_type, Operands ops, const ReduceWalk& w,
                 std::vector<Value>& outs) {
  if (index_type == PrimitiveType::kS32) {
    FoldTyped<V, int32_t>(max, ops, w, outs);
  } else if (index_type == PrimitiveType::kS64) {
    FoldTyped<V, int64_t>(max, ops, w, outs);
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool ArgReduce(const Computation& reducer, Operands ops, absl::Span<const bool> reduced,
               std::vector<Value>& outs) {
  if (ops.size() != 4 || outs.size() != 2) return false;
  const PrimitiveType vt = ops[0]->array().element_type();
  const PrimitiveType it = ops[1]->array().element_type();
  if ((vt != PrimitiveType::kF32 && vt != PrimitiveType::kF64) ||
      ops[2]->array().element_type() != vt || ops[3]->array().element_type() != it ||
      outs[0].array().element_type() != vt || outs[1].array().element_type() != it) {
    return false;
  }
  const std::optional<CompareDirection> dir = ArgDirection(reducer);
  if (!dir) return false;
  const ReduceWalk w = ReduceWalkOf(ops[0]->array().shape().dims(), reduced);
  if (w.outputs != outs[0].array().element_count()) return false;
  if (w.outputs == 0) return true;
  const bool max = *dir == CompareDirection::kGt;
  return vt == PrimitiveType::kF32 ? FoldByIndex<float>(max, it, ops, w, outs)
                                   : FoldByIndex<double>(max, it, ops, w, outs);
}

}  // namespace reduction
}  // namespace hlo
