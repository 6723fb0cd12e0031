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
#include <cstdint>
#include <cstring>
#include <vector>

#include "eval/kernels/reduce_internal.h"
#include "eval/runtime/parallel.h"
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

template <typename V, typename I, bool max>
struct ArgFold {
  V value;
  I index;
  void Step(V b, I bi) {
    const V a = value;
    const bool keep = (max ? a > b : a < b) || a != a;
    const bool take_index = keep || (a == b && index < bi);
    value = keep ? a : b;
    index = take_index ? index : bi;
  }
};

template <typename V, typename I, bool max>
void FoldRows(const V* v, const I* ix, V v0, I i0, int64_t steps, int64_t lo, int64_t hi, V* out_v,
              I* out_i) {
  for (int64_t o = lo; o < hi; ++o) {
    ArgFold<V, I, max> f{v0, i0};
    const int64_t base = o * steps;
    for (int64_t k = 0; k < steps; ++k) f.Step(v[base + k], ix[base + k]);
    out_v[o] = f.value;
    out_i[o] = f.index;
  }
}

// Outputs [lo, hi) of any walk, side by side: each step takes its element
// of every output in turn (a column reduction reads rows in order).
template <typename V, typename I, bool max>
void FoldAcross(const V* v, const I* ix, V v0, I i0, const ReduceWalk& w, int64_t lo, int64_t hi,
                V* out_v, I* out_i) {
  std::vector<int64_t> base(static_cast<size_t>(hi - lo));
  for (int64_t o = lo; o < hi; ++o) base[static_cast<size_t>(o - lo)] = ReduceWalkBase(w, o);
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
