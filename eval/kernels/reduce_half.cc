// Reductions of bf16 and f16 by add, multiply, maximum and minimum. The
// batched interpreter (reduce_batched.cc) ran them a reducer call per
// reduced element over a block of outputs, and one output (a sum of
// everything) a call per element: 197 ns an element, 1.6 s for
// bf16[2048,4096]. Here each output folds its elements in that same order
// (row-major over the reduced dimensions, from the init value), and each
// step is the interpreter's 16-bit op: both operands widened to f32, the
// f32 op, the result rounded back (FloatToBF16, FloatToHalf), so the bits
// are the same. Rows' maximum and minimum take a shortcut with those bits
// (ExtremeByKey: the values' order as integer keys).
//
// --denormals=flush: MXCSR (set on every evaluating thread) reads the f32
// add's and multiply's denormal operands as zeros and flushes their
// denormal results, as the interpreter's explicit flush of the bf16
// operands does; maximum and minimum choose by compares that read
// denormals as zero and return the chosen operand, which is flushed here
// at each step as the interpreter flushes its steps' results
// (eval/denormals.cc's HardwareReadsFlushed; the evaluator flushes the
// reduce's result too, FlushFastReductionResult). f16 values are normal
// f32s.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/float_formats.h"

namespace hlo {
namespace reduction {
namespace {

template <PrimitiveType P>
struct Half;
template <>
struct Half<PrimitiveType::kBF16> {
  static float Widen(uint16_t b) { return BF16ToFloat(b); }
  static uint16_t Narrow(float f) { return FloatToBF16(f); }
};
template <>
struct Half<PrimitiveType::kF16> {
  static float Widen(uint16_t b) { return HalfToFloat(b); }
  static uint16_t Narrow(float f) { return FloatToHalf(f); }
};

// A denormal f32 as a zero of its sign.
inline float FlushedFloat(float f) {
  const uint32_t b = std::bit_cast<uint32_t>(f);
  return (b & 0x7F800000u) == 0 ? std::bit_cast<float>(b & 0x80000000u) : f;
}

// One step of the fold: acc op x (x op acc where the reducer names its
// parameters the other way round: a NaN's sign is the first operand's), as
// the interpreter's 16-bit op.
template <PrimitiveType P, Opcode op, bool flush, bool swapped>
inline uint16_t Step(uint16_t acc, uint16_t x) {
  const float a = Half<P>::Widen(swapped ? x : acc), b = Half<P>::Widen(swapped ? acc : x);
  float r;
  if constexpr (op == Opcode::kAdd) {
    r = a + b;
  } else if constexpr (op == Opcode::kMultiply) {
    r = a * b;
  } else if constexpr (op == Opcode::kMaximum) {
    r = elementwise::MaxOf(a, b);
  } else {
    r = elementwise::MinOf(a, b);
  }
  if constexpr (flush && P == PrimitiveType::kBF16 &&
                (op == Opcode::kMaximum || op == Opcode::kMinimum)) {
    r = FlushedFloat(r);
  }
  return Half<P>::Narrow(r);
}

// acc[c] = acc[c] op x[c] for c < n: one step of n independent folds,
// compiled per vector width (the conversions vectorise).
template <PrimitiveType P, Opcode op, bool flush, bool swapped>
HLO_VECTOR_CLONES void StepLanes(uint16_t* __restrict acc, const uint16_t* __restrict x,
                                 int64_t n) {
  for (int64_t c = 0; c < n; ++c) acc[c] = Step<P, op, flush, swapped>(acc[c], x[c]);
}

// A 16-bit float's bits as a signed integer in the values' order (-0
// below +0), for values that are not NaN; its own inverse.
inline int16_t OrderKey(uint16_t bits) {
  const auto b = static_cast<int16_t>(bits);
  return static_cast<int16_t>(b ^ ((b >> 15) & 0x7fff));
}

// Maximum and minimum by the keys: a fold by MaxOf or MinOf ends at the
// greatest (least) value whatever the order; values equal to it share its
// bits but for the zeros, where the fold's AND (OR) of the signs gives +0
// (-0) if any is, as the keys' order does. A row with a NaN returns false,
// for the fold step by step (the NaN's bits depend on the order). With
// `flush_small` (bf16 under DAZ, where the fold flushes between steps and
// reads subnormals as zeros) an extreme that is zero or subnormal becomes
// the zero of its sign: the fold's AND (OR) of its zero-like values' signs,
// which the keys order the same way. The keys' loop vectorises.
template <PrimitiveType P, bool max, bool flush_small>
HLO_VECTOR_CLONES bool ExtremeByKey(const uint16_t* __restrict x, int64_t n, uint16_t init,
                                    uint16_t* out) {
  constexpr uint16_t kInf = P == PrimitiveType::kBF16 ? 0x7f80 : 0x7c00;
  if (n == 0) {  // the init value, as the fold leaves it
    *out = init;
    return true;
  }
  int16_t best = OrderKey(init);
  uint16_t nan = (init & 0x7fff) > kInf;
  for (int64_t k = 0; k < n; ++k) {
    const int16_t key = OrderKey(x[k]);
    best = (max ? key > best : key < best) ? key : best;
    nan |= static_cast<uint16_t>((x[k] & 0x7fff) > kInf);
  }
  if (nan != 0) return false;
  auto bits = static_cast<uint16_t>(OrderKey(static_cast<uint16_t>(best)));
  if (flush_small && (bits & kInf) == 0) bits &= 0x8000;
  *out = bits;
  return true;
}

// Outputs [lo, hi) of a rows walk, kLanes side by side: a tile of their
// rows transposed, then each column of the tile one step of all of them.
template <PrimitiveType P, Opcode op, bool flush, bool swapped>
void FoldRows(const uint16_t* in, int64_t inner, uint16_t init, int64_t lo, int64_t hi,
              uint16_t* out) {
  constexpr int64_t kLanes = 32, kTile = 256;
  uint16_t acc[kLanes], tile[kTile * kLanes];
  // Maximum and minimum by the keys (false: fold this output step by step).
  auto by_key = [&](int64_t o) {
    if constexpr (op == Opcode::kMaximum || op == Opcode::kMinimum) {
      constexpr bool kFlushSmall = flush && P == PrimitiveType::kBF16;
      return ExtremeByKey<P, op == Opcode::kMaximum, kFlushSmall>(in + o * inner, inner, init,
                                                                  out + o);
    } else {
      return false;
    }
  };
  if (hi - lo == 1) {  // one chain (a sum of everything): no tile
    if (by_key(lo)) return;
    uint16_t a = init;
    for (int64_t k = 0; k < inner; ++k) a = Step<P, op, flush, swapped>(a, in[lo * inner + k]);
    out[lo] = a;
    return;
  }
  for (int64_t o = lo; o < hi; o += kLanes) {
    const int64_t lanes = std::min(kLanes, hi - o);
    // A block with a row the keys do not answer (a NaN) folds whole.
    bool all = true;
    for (int64_t c = 0; c < lanes && all; ++c) all = by_key(o + c);
    if (all) continue;
    for (int64_t c = 0; c < lanes; ++c) acc[c] = init;
    for (int64_t k0 = 0; k0 < inner; k0 += kTile) {
      const int64_t cols = std::min(kTile, inner - k0);
      for (int64_t c = 0; c < lanes; ++c) {
        const uint16_t* row = in + (o + c) * inner + k0;
        for (int64_t k = 0; k < cols; ++k) tile[k * kLanes + c] = row[k];
      }
      for (int64_t k = 0; k < cols; ++k) {
        StepLanes<P, op, flush, swapped>(acc, tile + k * kLanes, lanes);
      }
    }
    std::memcpy(out + o, acc, static_cast<size_t>(lanes) * sizeof(uint16_t));
  }
}

// Any walk: every output steps through its reduced elements in order, all
// the outputs side by side.
template <PrimitiveType P, Opcode op, bool flush, bool swapped>
void FoldGeneral(const uint16_t* in, const ReduceWalk& w, uint16_t init, uint16_t* out) {
  std::vector<int64_t> base(static_cast<size_t>(w.outputs));
  for (int64_t i = 0; i < w.outputs; ++i) base[static_cast<size_t>(i)] = ReduceWalkBase(w, i);
  for (int64_t i = 0; i < w.outputs; ++i) out[i] = init;
  // Outputs that lie side by side in each step's elements (the kept
  // dimensions last: a column reduction) step as one run.
  bool contiguous = true;
  for (int64_t i = 0; i < w.outputs && contiguous; ++i) {
    contiguous = base[static_cast<size_t>(i)] == i;
  }
  std::vector<int64_t> ridx(w.red_dims.size(), 0);
  int64_t red = 0;
  for (int64_t s = 0; s < w.steps; ++s) {
    if (contiguous) {
      StepLanes<P, op, flush, swapped>(out, in + red, w.outputs);
    } else {
      for (int64_t i = 0; i < w.outputs; ++i) {
        out[i] = Step<P, op, flush, swapped>(out[i], in[base[static_cast<size_t>(i)] + red]);
      }
    }
    ReduceWalkNext(w, ridx, red);
  }
}

template <PrimitiveType P, Opcode op, bool flush, bool swapped>
void Fold(const Literal& in, uint16_t init, const ReduceWalk& w, Literal& out) {
  const auto* x = reinterpret_cast<const uint16_t*>(in.data());
  auto* o = reinterpret_cast<uint16_t*>(out.data());
  if (!w.rows) {
    FoldGeneral<P, op, flush, swapped>(x, w, init, o);
    return;
  }
  // Parts of at least 2^15 elements a core.
  const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, w.steps));
  ParallelRows(w.outputs, min_rows, [&](int64_t lo, int64_t hi) {
    FoldRows<P, op, flush, swapped>(x, w.steps, init, lo, hi, o);
  });
}

template <PrimitiveType P, bool flush, bool swapped>
bool FoldByOp(Opcode op, const Literal& in, uint16_t init, const ReduceWalk& w, Literal& out) {
  switch (op) {
    case Opcode::kAdd:
      Fold<P, Opcode::kAdd, flush, swapped>(in, init, w, out);
      return true;
    case Opcode::kMultiply:
      Fold<P, Opcode::kMultiply, flush, swapped>(in, init, w, out);
      return true;
    case Opcode::kMaximum:
      Fold<P, Opcode::kMaximum, flush, swapped>(in, init, w, out);
      return true;
    case Opcode::kMinimum:
      Fold<P, Opcode::kMinimum, flush, swapped>(in, init, w, out);
      return true;
    default:
      return false;
  }
}

template <PrimitiveType P>
bool FoldByMode(Opcode op, bool flush, bool swapped, const Literal& in, uint16_t init,
                const ReduceWalk& w, Literal& out) {
  if (flush) {
    return swapped ? FoldByOp<P, true, true>(op, in, init, w, out)
                   : FoldByOp<P, true, false>(op, in, init, w, out);
  }
  return swapped ? FoldByOp<P, false, true>(op, in, init, w, out)
                 : FoldByOp<P, false, false>(op, in, init, w, out);
}

}  // namespace

bool HalfReduce(const Computation& reducer, Opcode op, const Literal& in, const Literal& init,
                absl::Span<const bool> reduced, bool flush, Literal& out) {
  const PrimitiveType t = in.element_type();
  if ((t != PrimitiveType::kBF16 && t != PrimitiveType::kF16) || init.element_type() != t ||
      out.element_type() != t || init.element_count() != 1 || reducer.root() == nullptr ||
      reducer.root()->operand_count() != 2) {
    return false;
  }
  const bool swapped = reducer.root()->operand(0)->parameter_number() != 0;
  const ReduceWalk w = ReduceWalkOf(in.shape().dims(), reduced);
  if (w.outputs != out.element_count()) return false;
  if (w.outputs == 0) return true;
  uint16_t init_bits;
  std::memcpy(&init_bits, init.data(), sizeof(init_bits));
  if (t == PrimitiveType::kBF16) {
    return FoldByMode<PrimitiveType::kBF16>(op, flush, swapped, in, init_bits, w, out);
  }
  // (f16 values are normal f32s: nothing to flush.)
  return FoldByMode<PrimitiveType::kF16>(op, false, swapped, in, init_bits, w, out);
}

}  // namespace reduction
}  // namespace hlo
