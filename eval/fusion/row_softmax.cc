#include "eval/fusion/row_softmax.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "eval/denormals.h"
#include "eval/fusion/pattern_match.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/reduce_fold.h"
#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/computation.h"

namespace hlo {
namespace {

using reduction::Apply;
using reduction::FoldRow;
using reduction::RowStream;

// Elements per core's part: a row costs tens of ns besides its elements
// (its folds, exp and divide are calls of their own), so a quarter of the
// other fused groups' 64 Ki: attention's f32[16,64,64] softmax 0.061 ->
// 0.034 ms on both cores.
constexpr int64_t kMinPartElements = 16 * 1024;
// Columns per chunk of x - max: its scratch and its exp stay in L1.
constexpr int64_t kChunk = 2048;
// Narrower rows gain nothing from the diamond over the separate passes.
constexpr int64_t kMinCols = 8;

// A per-row value reaches the [rows, cols] array through `b`, a broadcast
// along the last dim of an array of the leading dims, over a chain of
// reshapes and identity broadcasts that keep the elements in order (JAX
// writes max(x, axis, keepdims=True) as reduce, reshape to [..., 1],
// broadcast, reshape back, broadcast). Returns the chain's start, the value
// of `rows` elements read, and appends the broadcast and the chain's other
// links, each read only by the next, to `links`; null when not of this form.
const Instruction* RowValueOf(const Instruction& b, const Shape& shape,
                              std::vector<const Instruction*>* links) {
  if (b.opcode() != Opcode::kBroadcast || b.operand_count() != 1) return nullptr;
  const Shape& s = b.operand(0)->shape();
  if (!s.IsArray() || s.element_type() != shape.element_type() || s.rank() + 1 != shape.rank()) {
    return nullptr;
  }
  absl::Span<const int64_t> map = b.GetInts(AttrKind::kDimensions);
  if (static_cast<int64_t>(map.size()) != s.rank()) return nullptr;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (map[d] != d || s.dims()[d] != shape.dims()[d]) return nullptr;
  }
  links->push_back(&b);
  const Instruction* v = b.operand(0);
  for (;;) {
    if (v->operand_count() != 1) return v;
    const Shape& in = v->operand(0)->shape();
    const bool link = in.IsArray() && in.element_type() == shape.element_type() &&
                      in.ElementCount() == v->shape().ElementCount() &&
                      (v->opcode() == Opcode::kReshape ||
                       (v->opcode() == Opcode::kBroadcast && in.dims() == v->shape().dims()));
    if (!link || !OnlyUsers(*v, {links->back()})) return v;
    links->push_back(v);
    v = v->operand(0);
  }
}

// `r` reduces an array of `shape` over its last dim alone with `op` and a
// scalar init of its type.
bool IsMinorReduce(const Instruction& r, const Shape& shape, Opcode op) {
  if (r.opcode() != Opcode::kReduce || r.operand_count() != 2 || !r.shape().IsArray()) {
    return false;
  }
  absl::Span<const int64_t> dims = r.GetInts(AttrKind::kDimensions);
  const Shape& init = r.operand(1)->shape();
  const Computation* reducer = r.to_apply();
  return dims.size() == 1 && dims[0] == shape.rank() - 1 && init.IsArray() && init.rank() == 0 &&
         init.element_type() == shape.element_type() && reducer != nullptr &&
         SimpleBinaryReducer(*reducer) == op;
}

// out[k] = x[k] - s and o[k] /= t, vectorised for the machine (the build's
// baseline is SSE2: its 4-lane divide took 40% of a softmax over rows of
// 256).
template <typename T>
HLO_VECTOR_CLONES void SubtractScalar(const T* __restrict x, T s, T* __restrict out, int64_t n) {
  for (int64_t k = 0; k < n; ++k) out[k] = x[k] - s;
}
template <typename T>
HLO_VECTOR_CLONES void DivideByScalar(T* o, T t, int64_t n) {
  for (int64_t k = 0; k < n; ++k) o[k] = o[k] / t;
}
// o[k] *= t, t on the left where the multiply has it there (the same
// product but for which NaN's payload survives).
template <typename T>
HLO_VECTOR_CLONES void MultiplyByScalar(T* o, T t, bool left, int64_t n) {
  if (left) {
    for (int64_t k = 0; k < n; ++k) o[k] = t * o[k];
  } else {
    for (int64_t k = 0; k < n; ++k) o[k] = o[k] * t;
  }
}

// o[k] = exp(x[k] - s) in one pass where libmvec serves f32 (the same
// bits as the two passes); false: the caller makes the passes.
bool ExpOfDifference(const float* x, float s, float* o, int64_t n) {
  return elementwise::VecExpOfDifference(x, s, o, n);
}
bool ExpOfDifference(const double*, double, double*, int64_t) { return false; }

// One scalar flushed as FlushDenormalsInPlace flushes (a subnormal becomes
// the zero of its sign), inline: the row's max, floor and sum took four
// calls of the array flush a row, 10% of a softmax over rows of 128.
template <typename T>
void FlushOne(T* v) {
  if (std::fpclassify(*v) == FP_SUBNORMAL) *v = std::copysign(T{0}, *v);
}

// The row max's floor as the unfused maximum computes it: both operands
// flushed under --denormals=flush (the reduce's result already is), and
// its result.
template <typename T>
T Floored(const RowSoftmax& op, T max, T floor) {
  if (op.flush) FlushOne(&floor);
  T r = op.floor == RowSoftmax::Floor::kLeft ? elementwise::MaxOf(floor, max)
                                             : elementwise::MaxOf(max, floor);
  if (op.flush) FlushOne(&r);
  return r;
}

// The group's input values: x (s where masked); shift, the max's init
// (own_max) or the row values to subtract; the floor's scalar (op.floor);
// the mask (pred bytes), fill and scale (op.masked).
template <typename T>
struct SoftmaxInputs {
  const T* x = nullptr;
  const T* shift = nullptr;
  const T* floor = nullptr;
  T sum_init = 0;
  const uint8_t* mask = nullptr;
  T fill = 0, scale = 0;
  // A divide by scale is a multiply by its reciprocal (both normal powers
  // of two: the same rounding of the one real s / 2^e).
  bool scale_by_reciprocal = false;
  T numerator = 1;           // op.reciprocal's
  bool exp_flushes = false;  // the exp kernel flushes its results itself
};

// Whether t is a normal power of two (+ or -).
template <typename T>
bool IsNormalPowerOfTwo(T t) {
  int exponent = 0;
  return std::isnormal(t) && std::fabs(std::frexp(t, &exponent)) == T{0.5};
}

// What MaskedRowF32 does to s before the mask picks it.
enum class LaneOp { kNone, kMultiply, kDivide };

// MaskedRow for f32 on AVX-512 (BW for the mask's bytes): 16 lanes a step,
// each lane's op the scalar one (a multiply by a c that is not NaN gives
// the same bits in either order) and the mask a blend of bits; the
// compiler's clone of the scalar loop ran byte by byte (16% of GPT-2's
// softmax).
__attribute__((target("avx512f,avx512bw,avx512vl"))) void MaskedRowF32(
    const float* __restrict s, const uint8_t* __restrict mask, float fill, LaneOp op, float c,
    float* __restrict row, int64_t n) {
  const __m512 fills = _mm512_set1_ps(fill), cs = _mm512_set1_ps(c);
  for (int64_t k = 0; k < n; k += 16) {
    const __mmask16 lanes = n - k >= 16 ? 0xffff : static_cast<__mmask16>((1u << (n - k)) - 1);
    const __m128i bytes = _mm_maskz_loadu_epi8(lanes, mask + k);
    const __mmask16 keep = _mm_test_epi8_mask(bytes, bytes);
    __m512 v = _mm512_maskz_loadu_ps(lanes, s + k);
    if (op == LaneOp::kMultiply) v = _mm512_mul_ps(v, cs);
    if (op == LaneOp::kDivide) v = _mm512_div_ps(v, cs);
    _mm512_mask_storeu_ps(row + k, lanes, _mm512_mask_blend_ps(keep, fills, v));
  }
}

bool HasAvx512Bw() {
  static const bool has = avx512::Available() && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
}

// row[k] = mask[k] ? s[k] op c : fill, each op the unfused one (select
// keeps the bits it picks). The op runs on every lane and the choice is
// a blend of bits: a branch per element on a random mask mispredicted
// half the time (3.4x the unfused pair on GPT-2's attention).
template <typename T>
HLO_VECTOR_CLONES void MaskedRow(const RowSoftmax& op, const T* __restrict s,
                                 const uint8_t* __restrict mask, T fill, T c, bool by_reciprocal,
                                 T* __restrict row, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (HasAvx512Bw()) {
      const bool divide = op.scale == Opcode::kDivide;
      if (!op.scale) return MaskedRowF32(s, mask, fill, LaneOp::kNone, c, row, n);
      if (divide && !by_reciprocal) return MaskedRowF32(s, mask, fill, LaneOp::kDivide, c, row, n);
      const float factor = divide ? 1.0f / c : c;
      if (!std::isnan(factor)) {
        return MaskedRowF32(s, mask, fill, LaneOp::kMultiply, factor, row, n);
      }
    }
  }
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const Bits fill_bits = std::bit_cast<Bits>(fill);
  auto pick = [&](int64_t k, T v) {
    const Bits keep = Bits{0} - static_cast<Bits>(mask[k] != 0);
    row[k] = std::bit_cast<T>((std::bit_cast<Bits>(v) & keep) | (fill_bits & ~keep));
  };
  if (!op.scale) {
    for (int64_t k = 0; k < n; ++k) pick(k, s[k]);
  } else if (*op.scale == Opcode::kDivide) {
    if (by_reciprocal) {  // (attention's 1 / sqrt(64) = 1 / 8)
      const T reciprocal = T{1} / c;
      for (int64_t k = 0; k < n; ++k) pick(k, s[k] * reciprocal);
    } else {
      for (int64_t k = 0; k < n; ++k) pick(k, s[k] / c);
    }
  } else if (op.scale_left) {
    for (int64_t k = 0; k < n; ++k) pick(k, c * s[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) pick(k, s[k] * c);
  }
}

// The row's max as the group computes it: of x itself (own_max: the
// reduce, its init and flush) or the given per-row value; then the floor.
template <typename T>
T RowMax(const RowSoftmax& op, const SoftmaxInputs<T>& in, const T* xr, int64_t r) {
  T max = op.own_max ? Apply<Opcode::kMaximum>(in.shift[0], FoldRow<Opcode::kMaximum>(xr, op.cols))
                     : in.shift[r];
  if (op.flush && op.own_max) FlushOne(&max);  // the reduce's
  if (op.floor != RowSoftmax::Floor::kNone) max = Floored(op, max, *in.floor);
  return max;
}

// o = exp(x - max) over a row's piece, flushed as the unfused exp is.
template <typename T>
void ExpPiece(const RowSoftmax& op, bool exp_flushes, const T* x, T max, T* o, T* scratch,
              int64_t n) {
  if (!ExpOfDifference(x, max, o, n)) {
    SubtractScalar(x, max, scratch, n);
    elementwise::UnaryFloatKernel<T>(Opcode::kExp, scratch, o, n);
  }
  if (op.flush && !exp_flushes) FlushDenormalsInPlace(op.type, o, n);
}

// The row's exps divided by their sum (total, the reduce's result).
template <typename T>
void Normalize(const RowSoftmax& op, const SoftmaxInputs<T>& in, T total, T* o) {
  if (op.flush) FlushOne(&total);
  if (op.reciprocal) {
    MultiplyByScalar(o, in.numerator / total, op.reciprocal_left, op.cols);
  } else {
    DivideByScalar(o, total, op.cols);
  }
}

// Rows of at most one chunk, a group at a time and each step for all of
// the group's rows before the next: a row's steps wait on each other (its
// max, then its exps, their sum, then the divide), and a group's rows do
// not, so the core overlaps them (GPT-2's masked attention softmax,
// f32[2,12,128,128]: 0.177 -> 0.154 ms at 4 rows, 0.146 at 8 and at 16).
// Each row's arithmetic is the one-row path's. At most kRowGroup rows,
// their masked copies within kGroupBytes (in L1).
constexpr int64_t kRowGroup = 8;
constexpr int64_t kGroupBytes = 16 * 1024;
template <typename T>
void ShortSoftmaxRows(const RowSoftmax& op, const SoftmaxInputs<T>& in, T* out, int64_t r0,
                      int64_t r1) {
  const int64_t cols = op.cols;
  std::vector<T> scratch(static_cast<size_t>(cols));
  const int64_t group =
      std::clamp<int64_t>(kGroupBytes / (cols * static_cast<int64_t>(sizeof(T))), 1, kRowGroup);
  std::vector<T> masked(static_cast<size_t>(op.masked ? group * cols : 0));
  const T* x[kRowGroup];
  T max[kRowGroup];
  for (int64_t g0 = r0; g0 < r1; g0 += group) {
    const int64_t rows = std::min(group, r1 - g0);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t r = g0 + i;
      x[i] = in.x + r * cols;
      if (op.masked) {
        MaskedRow(op, x[i], in.mask + (r % op.mask_rows) * cols, in.fill, in.scale,
                  in.scale_by_reciprocal, masked.data() + i * cols, cols);
        x[i] = masked.data() + i * cols;
      }
    }
    for (int64_t i = 0; i < rows; ++i) max[i] = RowMax(op, in, x[i], g0 + i);
    for (int64_t i = 0; i < rows; ++i) {
      ExpPiece(op, in.exp_flushes, x[i], max[i], out + (g0 + i) * cols, scratch.data(), cols);
    }
    // (A row of one piece: RowStream's sum is FoldRow's.)
    for (int64_t i = 0; i < rows; ++i) {
      T* o = out + (g0 + i) * cols;
      Normalize(op, in, Apply<Opcode::kAdd>(in.sum_init, FoldRow<Opcode::kAdd>(o, cols)), o);
    }
  }
}

template <typename T>
void SoftmaxRows(const RowSoftmax& op, const SoftmaxInputs<T>& in, T* out, int64_t r0, int64_t r1) {
  const int64_t cols = op.cols;
  if (cols <= kChunk) return ShortSoftmaxRows(op, in, out, r0, r1);
  std::vector<T> scratch(static_cast<size_t>(kChunk));
  std::vector<T> masked(static_cast<size_t>(op.masked ? cols : 0));
  RowStream<Opcode::kAdd, T> sum;
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = in.x + r * cols;
    if (op.masked) {
      MaskedRow(op, xr, in.mask + (r % op.mask_rows) * cols, in.fill, in.scale,
                in.scale_by_reciprocal, masked.data(), cols);
      xr = masked.data();
    }
    T* o = out + r * cols;
    const T max = RowMax(op, in, xr, r);
    sum.Reset();
    for (int64_t c = 0; c < cols; c += kChunk) {
      const int64_t n = std::min(kChunk, cols - c);
      ExpPiece(op, in.exp_flushes, xr + c, max, o + c, scratch.data(), n);
      sum.Add(o + c, n);
    }
    Normalize(op, in, Apply<Opcode::kAdd>(in.sum_init, sum.Result()), o);
  }
}

template <typename T>
void RunTyped(const RowSoftmax& op, absl::Span<const Value* const> inputs, T* out) {
  SoftmaxInputs<T> in;
  in.x = inputs[0]->array().typed<T>();
  in.shift = inputs[1]->array().typed<T>();
  in.sum_init = inputs[2]->array().typed<T>()[0];
  size_t next = 3;
  if (op.floor != RowSoftmax::Floor::kNone) in.floor = inputs[next++]->array().typed<T>();
  if (op.masked) {
    in.mask = static_cast<const uint8_t*>(inputs[next++]->array().data());
    in.fill = inputs[next++]->array().typed<T>()[0];
    if (op.scale) in.scale = inputs[next++]->array().typed<T>()[0];
  }
  if (op.reciprocal) in.numerator = inputs[next++]->array().typed<T>()[0];
  in.scale_by_reciprocal = op.scale == Opcode::kDivide && IsNormalPowerOfTwo(in.scale) &&
                           IsNormalPowerOfTwo(T{1} / in.scale);
  in.exp_flushes = ExpFlushesItself(op.type);
  ParallelRows(op.rows, std::max<int64_t>(1, kMinPartElements / op.cols),
               [&](int64_t r0, int64_t r1) { SoftmaxRows<T>(op, in, out, r0, r1); });
}

// x = select(p, s', broadcast(fill)), s' = s | divide(s, broadcast(c)) |
// multiply(s, broadcast(c)) (either order), p a pred array of x's shape or
// broadcast(mask) over x's trailing dims (read only by the select), x and
// s' read only by `readers`: sets op's mask fields, appends the members
// and the inputs {mask, fill, c}; returns s, or null.
const Instruction* MatchMaskedInput(const Instruction& x, const Shape& shape,
                                    std::initializer_list<const Instruction*> readers,
                                    RowSoftmax& op, std::vector<const Instruction*>* members,
                                    std::vector<const Instruction*>* inputs) {
  if (x.opcode() != Opcode::kSelect || x.operand_count() != 3 || !OnlyUsers(x, readers)) {
    return nullptr;
  }
  const Instruction& p = *x.operand(0);
  const Instruction& f = *x.operand(2);
  const Instruction* s = x.operand(1);
  if (!IsScalarBroadcast(f, shape) || !SameArray(s->shape(), shape) || !p.shape().IsArray() ||
      p.shape().element_type() != PrimitiveType::kPred || p.shape().dims() != shape.dims()) {
    return nullptr;
  }
  // The mask: p itself, or the array p broadcasts over x's trailing dims.
  const Instruction* mask = &p;
  op.mask_rows = op.rows;
  if (p.opcode() == Opcode::kBroadcast && p.operand_count() == 1 && OnlyUsers(p, {&x})) {
    const Shape& m = p.operand(0)->shape();
    absl::Span<const int64_t> map = p.GetInts(AttrKind::kDimensions);
    bool trailing = m.IsArray() && m.rank() >= 1 && m.rank() <= shape.rank() &&
                    static_cast<int64_t>(map.size()) == m.rank();
    for (int64_t d = 0; trailing && d < m.rank(); ++d) {
      trailing = map[d] == shape.rank() - m.rank() + d &&
                 m.dims()[d] == shape.dims()[shape.rank() - m.rank() + d];
    }
    if (trailing) {
      mask = p.operand(0);
      op.mask_rows = m.ElementCount() / op.cols;
      members->push_back(&p);
    }
  }
  op.masked = true;
  members->push_back(&x);
  members->push_back(&f);
  inputs->push_back(mask);
  inputs->push_back(f.operand(0));
  if ((s->opcode() == Opcode::kDivide || s->opcode() == Opcode::kMultiply) &&
      s->operand_count() == 2 && OnlyUsers(*s, {&x})) {
    for (int side : {1, 0}) {
      const Instruction& c = *s->operand(side);
      if (!IsScalarBroadcast(c, shape) || (side == 0 && s->opcode() == Opcode::kDivide)) continue;
      op.scale = s->opcode();
      op.scale_left = side == 0;
      members->push_back(s);
      members->push_back(&c);
      inputs->push_back(c.operand(0));
      return s->operand(1 - side);
    }
  }
  return s;
}

}  // namespace

// diamond ::= out = divide(e, row(sum)) | multiply(e, row(rcp)) | multiply(row(rcp), e),
//             rcp = divide(broadcast(scalar), sum), sum = reduce(e, init) add,
//             e = exp(subtract(x, row(shift)))
// shift   ::= max | maximum(max, broadcast(scalar)) | maximum(broadcast(scalar), max)
//             | any array of one value per row
// max     ::= reduce(x, init) maximum
// row(v)  ::= RowValueOf's chain from v to the broadcast
std::optional<RowSoftmax> MatchRowSoftmax(const Instruction& root, bool flush_denormals,
                                          std::vector<const Instruction*>* members,
                                          std::vector<const Instruction*>* inputs) {
  const Shape& shape = root.shape();
  const bool divides = root.opcode() == Opcode::kDivide;
  if ((!divides && root.opcode() != Opcode::kMultiply) || root.operand_count() != 2 ||
      !root.control_predecessors().empty() || !shape.IsArray() || shape.rank() < 1 ||
      (shape.element_type() != PrimitiveType::kF32 &&
       shape.element_type() != PrimitiveType::kF64)) {
    return std::nullopt;
  }
  RowSoftmax op;
  op.type = shape.element_type();
  op.flush = flush_denormals;
  op.cols = shape.dims().back();
  op.rows = shape.ElementCount() / std::max<int64_t>(1, op.cols);
  if (op.cols < kMinCols || op.rows < 1) return std::nullopt;
  std::vector<const Instruction*> sum_links, shift_links;
  const Instruction* e_ptr = nullptr;
  const Instruction* sum = nullptr;
  const Instruction* rcp = nullptr;  // the reciprocals' divide
  if (divides) {
    e_ptr = root.operand(0);
    sum = RowValueOf(*root.operand(1), shape, &sum_links);
  } else {
    for (int side : {1, 0}) {
      sum_links.clear();
      const Instruction* v = RowValueOf(*root.operand(side), shape, &sum_links);
      if (v == nullptr || v->opcode() != Opcode::kDivide || v->operand_count() != 2 ||
          !IsScalarBroadcast(*v->operand(0), v->shape()) || !OnlyUsers(*v, {sum_links.back()})) {
        continue;
      }
      op.reciprocal = true;
      op.reciprocal_left = side == 0;
      rcp = v;
      e_ptr = root.operand(1 - side);
      sum = v->operand(1);
      break;
    }
  }
  if (sum == nullptr) return std::nullopt;
  const Instruction& e = *e_ptr;
  const Instruction* sum_user = rcp != nullptr ? rcp : sum_links.back();
  if (e.opcode() != Opcode::kExp || e.operand_count() != 1 || !SameArray(e.shape(), shape) ||
      !IsMinorReduce(*sum, shape, Opcode::kAdd) || sum->operand(0) != &e ||
      !OnlyUsers(*sum, {sum_user}) || !OnlyUsers(*sum_links.front(), {&root}) ||
      !OnlyUsers(e, {sum, &root})) {
    return std::nullopt;
  }
  const Instruction& shifted = *e.operand(0);
  if (shifted.opcode() != Opcode::kSubtract || !SameArray(shifted.shape(), shape) ||
      !OnlyUsers(shifted, {&e})) {
    return std::nullopt;
  }
  const Instruction& x = *shifted.operand(0);
  const Instruction* shift = RowValueOf(*shifted.operand(1), shape, &shift_links);
  if (shift == nullptr || !SameArray(x.shape(), shape) || &x == &e || &x == shift_links.front() ||
      !OnlyUsers(*shift_links.front(), {&shifted}) || !shift->shape().IsArray() ||
      shift->shape().element_type() != op.type || shift->shape().ElementCount() != op.rows) {
    return std::nullopt;
  }
  auto is_max_of_x = [&](const Instruction& r, const Instruction& user) {
    return IsMinorReduce(r, shape, Opcode::kMaximum) && r.operand(0) == &x && OnlyUsers(r, {&user});
  };
  op.own_max = is_max_of_x(*shift, *shift_links.back());
  const Instruction* floor_broadcast = nullptr;
  if (!op.own_max && shift->opcode() == Opcode::kMaximum && shift->operand_count() == 2 &&
      OnlyUsers(*shift, {shift_links.back()})) {
    for (int side : {0, 1}) {
      const Instruction& b = *shift->operand(side);
      const Instruction& r = *shift->operand(1 - side);
      if (IsScalarBroadcast(b, shift->shape()) && is_max_of_x(r, *shift)) {
        op.own_max = true;
        op.floor = side == 0 ? RowSoftmax::Floor::kLeft : RowSoftmax::Floor::kRight;
        floor_broadcast = &b;
        break;
      }
    }
  }
  const Instruction* max = floor_broadcast == nullptr
                               ? shift
                               : shift->operand(op.floor == RowSoftmax::Floor::kLeft ? 1 : 0);
  *members = {&shifted, &e, sum, &root};
  members->insert(members->end(), sum_links.begin(), sum_links.end());
  if (rcp != nullptr) {
    members->push_back(rcp);
    members->push_back(rcp->operand(0));
  }
  members->insert(members->end(), shift_links.begin(), shift_links.end());
  if (op.own_max) members->push_back(max);
  if (floor_broadcast != nullptr) {
    members->push_back(shift);
    members->push_back(floor_broadcast);
  }
  *inputs = {&x, op.own_max ? max->operand(1) : shift, sum->operand(1)};
  if (floor_broadcast != nullptr) inputs->push_back(floor_broadcast->operand(0));
  // x computed in the row where it is JAX's masked, scaled scores.
  const Instruction* x_max = op.own_max ? max : nullptr;
  if (const Instruction* s =
          x_max != nullptr ? MatchMaskedInput(x, shape, {x_max, &shifted}, op, members, inputs)
                           : MatchMaskedInput(x, shape, {&shifted}, op, members, inputs)) {
    (*inputs)[0] = s;
  }
  if (rcp != nullptr) inputs->push_back(rcp->operand(0)->operand(0));
  return op;
}

absl::StatusOr<Value> RunRowSoftmax(const RowSoftmax& op, const Shape& shape,
                                    absl::Span<const Value* const> inputs,
                                    const std::vector<bool>& reusable) {
  const size_t floors = op.floor == RowSoftmax::Floor::kNone ? 0 : 1;
  const size_t masks = op.masked ? (op.scale ? 3 : 2) : 0;
  const size_t numerators = op.reciprocal ? 1 : 0;
  if (inputs.size() != 3 + floors + masks + numerators) {
    return absl::InvalidArgumentError("a fused group has the wrong inputs");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = inputs[i];
    const bool is_mask = op.masked && i == 3 + floors;
    const PrimitiveType want = is_mask ? PrimitiveType::kPred : op.type;
    const int64_t count = i == 0    ? op.rows * op.cols
                          : i == 1  ? (op.own_max ? 1 : op.rows)
                          : is_mask ? op.mask_rows * op.cols
                                    : 1;
    if (v == nullptr || !v->is_array() || v->array().element_type() != want ||
        v->array().element_count() != count) {
      return absl::InvalidArgumentError("a fused input has the wrong type or shape");
    }
  }
  if (op.masked && (op.mask_rows < 1 || op.rows % op.mask_rows != 0)) {
    return absl::InvalidArgumentError("a fused mask does not tile the rows");
  }
  absl::StatusOr<Value> result = TakeOrNewArray(*inputs[0], reusable[0], shape);
  if (!result.ok()) return result.status();
  Literal& out = result->mutable_array();
  if (op.type == PrimitiveType::kF32) {
    RunTyped<float>(op, inputs, out.typed<float>());
  } else {
    RunTyped<double>(op, inputs, out.typed<double>());
  }
  return result;
}

}  // namespace hlo
