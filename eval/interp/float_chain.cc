#include "eval/interp/float_chain.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "absl/container/inlined_vector.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/vector_lanes.h"
#include "eval/runtime/stream_store.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace {

// Values per tile: eight vectors, held in registers across the links. Each
// link costs a dispatch per tile, which at four vectors cost more than the
// link's arithmetic (GPT-2's GELU chains ran at about 4 cycles an op and
// vector); eight, with two operands, fill 24 of AVX-512's 32 registers (the
// AVX2 and SSE2 clones spill some).
constexpr int kTileVectors = 8;

#define HLO_CHAIN_LAMBDA __attribute__((always_inline))

// MaxOf and MinOf (elementwise_ops.h) lane by lane.
template <typename V, typename M>
HLO_LANES_INLINE V MaxLanes(const V& a, const V& b) {
  V r = Select<V, M>((M)(a > b), a, b);
  r = Select<V, M>((M)(a == b), (V)((M)a & (M)b), r);
  return Select<V, M>((M)(a != a), a, r);
}
template <typename V, typename M>
HLO_LANES_INLINE V MinLanes(const V& a, const V& b) {
  V r = Select<V, M>((M)(a < b), a, b);
  r = Select<V, M>((M)(a == b), (V)((M)a | (M)b), r);
  return Select<V, M>((M)(a != a), a, r);
}

// A binary link's op and where its operands come from as one switch
// index: 4 * op + (lhs is the value) + 2 * (rhs is the value), op in
// kBinaryOps' order; compare-select links take kCompareSelectCode: one
// indirect jump per link and tile, where a test per operand and a switch
// on the op made three branches.
constexpr Opcode kBinaryOps[] = {Opcode::kAdd,    Opcode::kSubtract, Opcode::kMultiply,
                                 Opcode::kDivide, Opcode::kMaximum,  Opcode::kMinimum};
constexpr uint8_t kCompareSelectCode = 4 * std::size(kBinaryOps);
// Unary links: this one on the value, the next on an array.
constexpr uint8_t kUnaryCode = kCompareSelectCode + 1;

uint8_t LinkCode(const FloatChainLink& link) {
  if (link.kind == FloatChainLink::Kind::kCompareSelect) return kCompareSelectCode;
  if (link.kind == FloatChainLink::Kind::kUnary) {
    return static_cast<uint8_t>(kUnaryCode + (link.operands[0] != nullptr));
  }
  size_t op = 0;
  while (op + 1 < std::size(kBinaryOps) && kBinaryOps[op] != link.op) ++op;
  return static_cast<uint8_t>(4 * op + (link.operands[0] == nullptr) +
                              2 * (link.operands[1] == nullptr));
}

// v[j] = f(a[j], b[j]) for j < m, one loop per op so that it vectorises
// (a or b may be v: each position is read before it is written).
template <typename T, typename F>
HLO_LANES_INLINE void ZipTail(const T* a, const T* b, T* v, int64_t m, F f) {
  for (int64_t j = 0; j < m; ++j) v[j] = f(a[j], b[j]);
}

template <typename T>
HLO_LANES_INLINE void BinaryTail(Opcode op, const T* a, const T* b, T* v, int64_t m) {
  switch (op) {
    case Opcode::kAdd:
      return ZipTail(a, b, v, m, [](T x, T y) { return x + y; });
    case Opcode::kSubtract:
      return ZipTail(a, b, v, m, [](T x, T y) { return x - y; });
    case Opcode::kMultiply:
      return ZipTail(a, b, v, m, [](T x, T y) { return x * y; });
    case Opcode::kDivide:
      return ZipTail(a, b, v, m, [](T x, T y) { return x / y; });
    case Opcode::kMaximum:
      return ZipTail(a, b, v, m, [](T x, T y) { return elementwise::MaxOf(x, y); });
    case Opcode::kMinimum:
      return ZipTail(a, b, v, m, [](T x, T y) { return elementwise::MinOf(x, y); });
    default:
      return;  // (never: links hold the six ops above)
  }
}

// v[j] = compare(a[j], b[j]) ? c[j] : d[j], both loaded so that the choice
// is a blend of their bits.
template <typename T, typename C>
HLO_LANES_INLINE void SelectTail(const T* a, const T* b, const T* c, const T* d, T* v, int64_t m,
                                 C compare) {
  for (int64_t j = 0; j < m; ++j) {
    const T x = c[j], y = d[j];
    v[j] = compare(a[j], b[j]) ? x : y;
  }
}

template <typename T>
HLO_LANES_INLINE void CompareSelectTail(ChainCompare c, const T* a, const T* b, const T* x,
                                        const T* y, T* v, int64_t m) {
  switch (c) {
    case ChainCompare::kEq:
      return SelectTail(a, b, x, y, v, m, [](T p, T q) { return p == q; });
    case ChainCompare::kNe:
      return SelectTail(a, b, x, y, v, m, [](T p, T q) { return p != q; });
    case ChainCompare::kLt:
      return SelectTail(a, b, x, y, v, m, [](T p, T q) { return p < q; });
    case ChainCompare::kLe:
      return SelectTail(a, b, x, y, v, m, [](T p, T q) { return p <= q; });
    case ChainCompare::kGt:
      return SelectTail(a, b, x, y, v, m, [](T p, T q) { return p > q; });
    case ChainCompare::kGe:
      return SelectTail(a, b, x, y, v, m, [](T p, T q) { return p >= q; });
  }
}

// The last m < kTile elements (from element `at`), link by link over all
// of them, each link one loop (vectorised: inlined into Chain's clones):
// a scan over 64 lanes is nothing but tails, and element-by-element links
// (a switch per element) were 17% of a logaddexp cumsum's time. A unary
// link is one call of its loop over the rest, not one per element (a
// logaddexp scan over 192 lanes spent 40% of its time on its last 64
// lanes' calls of exp and log1p one element at a time). Each element gets
// the same ops in the same order as in a tile.
template <typename T>
HLO_LANES_INLINE void ChainTail(const FloatChainLink* links, int64_t count, T* out, int64_t at,
                                int64_t m) {
  constexpr int64_t kTile = kTileVectors * sizeof(typename Lanes<T>::V) / sizeof(T);
  alignas(64) T v[kTile] = {};  // (the first link reads no value)
  for (int64_t k = 0; k < count; ++k) {
    const FloatChainLink& link = links[k];
    auto operand = [&](int j) {
      const T* p = static_cast<const T*>(link.operands[j]);
      return p != nullptr ? p + at : v;
    };
    if (link.kind == FloatChainLink::Kind::kBinary) {
      BinaryTail(link.op, operand(0), operand(1), v, m);
    } else if (link.kind == FloatChainLink::Kind::kUnary) {
      link.unary(operand(0), v, m);
    } else {
      CompareSelectTail(link.compare, operand(0), operand(1), operand(2), operand(3), v, m);
    }
    if (link.tap != nullptr) std::memcpy(static_cast<T*>(link.tap) + at, v, m * sizeof(T));
  }
  std::memcpy(out, v, m * sizeof(T));
}

// The tile's vectors are named variables, not an array: GCC keeps an
// array indexed in a loop on the stack, and the chain's value then went
// through L1 at every link as the steps' registers did. HLO_CHAIN_EACH(X)
// writes X(j) for each of them; an operand is the vectors NAMEj: loaded
// from its array, or the value's vj.
#define HLO_CHAIN_EACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define HLO_CHAIN_LOAD(name, at) \
  const T* name##_at = (at);     \
  HLO_CHAIN_EACH(HLO_CHAIN_LOAD_ONE_##name)
#define HLO_CHAIN_LOAD_ONE_a(j) const V a##j = load(a_at + i + j * kLanes);
#define HLO_CHAIN_LOAD_ONE_b(j) const V b##j = load(b_at + i + j * kLanes);
#define HLO_CHAIN_VALUE_OR(name, j)                             \
  const T* name##_at = static_cast<const T*>(link.operands[j]); \
  HLO_CHAIN_EACH(HLO_CHAIN_OR_ONE_##name)
#define HLO_CHAIN_OR_ONE_a(j) const V a##j = a_at != nullptr ? load(a_at + i + j * kLanes) : v##j;
#define HLO_CHAIN_OR_ONE_b(j) const V b##j = b_at != nullptr ? load(b_at + i + j * kLanes) : v##j;
#define HLO_CHAIN_OR_ONE_c(j) const V c##j = c_at != nullptr ? load(c_at + i + j * kLanes) : v##j;
#define HLO_CHAIN_OR_ONE_d(j) const V d##j = d_at != nullptr ? load(d_at + i + j * kLanes) : v##j;
// v = f_(x, y) vector by vector, x and y each `a`, `b` or `v`.
#define HLO_CHAIN_APPLY(x, y) HLO_CHAIN_EACH(HLO_CHAIN_APPLY_##x##y)
#define HLO_CHAIN_APPLY_ab(j) v##j = f_(a##j, b##j);
#define HLO_CHAIN_APPLY_vb(j) v##j = f_(v##j, b##j);
#define HLO_CHAIN_APPLY_av(j) v##j = f_(a##j, v##j);
#define HLO_CHAIN_APPLY_vv(j) v##j = f_(v##j, v##j);
// The four cases of op index `index` (function f, as f_).
#define HLO_CHAIN_BINARY(index, f)                              \
  case 4 * (index): {                                           \
    const auto& f_ = f;                                         \
    HLO_CHAIN_LOAD(a, static_cast<const T*>(link.operands[0])); \
    HLO_CHAIN_LOAD(b, static_cast<const T*>(link.operands[1])); \
    HLO_CHAIN_APPLY(a, b);                                      \
    break;                                                      \
  }                                                             \
  case 4 * (index) + 1: {                                       \
    const auto& f_ = f;                                         \
    HLO_CHAIN_LOAD(b, static_cast<const T*>(link.operands[1])); \
    HLO_CHAIN_APPLY(v, b);                                      \
    break;                                                      \
  }                                                             \
  case 4 * (index) + 2: {                                       \
    const auto& f_ = f;                                         \
    HLO_CHAIN_LOAD(a, static_cast<const T*>(link.operands[0])); \
    HLO_CHAIN_APPLY(a, v);                                      \
    break;                                                      \
  }                                                             \
  case 4 * (index) + 3: {                                       \
    const auto& f_ = f;                                         \
    HLO_CHAIN_APPLY(v, v);                                      \
    break;                                                      \
  }
// The masks m0.. of compare `c` (a ChainCompare) of a and b.
#define HLO_CHAIN_COMPARE(c)                       \
  HLO_CHAIN_EACH(HLO_CHAIN_MASK_DECLARE_ONE)       \
  switch (c) {                                     \
    case ChainCompare::kEq:                        \
      HLO_CHAIN_EACH(HLO_CHAIN_MASK_ONE_eq) break; \
    case ChainCompare::kNe:                        \
      HLO_CHAIN_EACH(HLO_CHAIN_MASK_ONE_ne) break; \
    case ChainCompare::kLt:                        \
      HLO_CHAIN_EACH(HLO_CHAIN_MASK_ONE_lt) break; \
    case ChainCompare::kLe:                        \
      HLO_CHAIN_EACH(HLO_CHAIN_MASK_ONE_le) break; \
    case ChainCompare::kGt:                        \
      HLO_CHAIN_EACH(HLO_CHAIN_MASK_ONE_gt) break; \
    default:                                       \
      HLO_CHAIN_EACH(HLO_CHAIN_MASK_ONE_ge) break; \
  }
#define HLO_CHAIN_MASK_DECLARE_ONE(j) M m##j;
#define HLO_CHAIN_MASK_ONE_eq(j) m##j = (M)(a##j == b##j);
#define HLO_CHAIN_MASK_ONE_ne(j) m##j = (M)(a##j != b##j);
#define HLO_CHAIN_MASK_ONE_lt(j) m##j = (M)(a##j < b##j);
#define HLO_CHAIN_MASK_ONE_le(j) m##j = (M)(a##j <= b##j);
#define HLO_CHAIN_MASK_ONE_gt(j) m##j = (M)(a##j > b##j);
#define HLO_CHAIN_MASK_ONE_ge(j) m##j = (M)(a##j >= b##j);
#define HLO_CHAIN_SELECT_ONE(j) v##j = Select<V, M>(m##j, c##j, d##j);
#define HLO_CHAIN_ZERO_ONE(j) V v##j = {};
#define HLO_CHAIN_TAP_ONE(j) store(tap + j * kLanes, v##j);
#define HLO_CHAIN_SPILL_ONE(j) store(spill + j * kLanes, v##j);
#define HLO_CHAIN_RELOAD_ONE(j) v##j = load(spill + j * kLanes);
#define HLO_CHAIN_OUT_ONE(j) store_out(out + i + j * kLanes, v##j);

template <typename T>
HLO_VECTOR_CLONES void Chain(const FloatChainLink* links, int64_t count, T* out, int64_t n,
                             bool stream_out) {
  using V = typename Lanes<T>::V;
  using M = typename Lanes<T>::M;
  constexpr int64_t kLanes = sizeof(V) / sizeof(T), kTile = kTileVectors * kLanes;
  static_assert(kTileVectors == 8, "HLO_CHAIN_EACH names eight vectors");
  auto load = [](const T* p) HLO_CHAIN_LAMBDA {
    V x;
    std::memcpy(&x, p, sizeof(V));
    return x;
  };
  auto store = [](T* p, const V& x) HLO_CHAIN_LAMBDA { std::memcpy(p, &x, sizeof(V)); };
  // Streaming stores need whole aligned vectors; tiles are whole lines.
  const bool stream = stream_out && reinterpret_cast<uintptr_t>(out) % sizeof(V) == 0;
  auto store_out = [&](T* p, const V& x) HLO_CHAIN_LAMBDA {
    if (stream) {
      StreamVector(p, x);
    } else {
      store(p, x);
    }
  };
  auto add = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x + y; };
  auto subtract = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x - y; };
  auto multiply = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x * y; };
  auto divide = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x / y; };
  auto maximum = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return MaxLanes<V, M>(x, y); };
  auto minimum = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return MinLanes<V, M>(x, y); };
  absl::InlinedVector<uint8_t, 64> codes(count);
  for (int64_t k = 0; k < count; ++k) codes[k] = LinkCode(links[k]);
  alignas(64) T spill[kTile];  // a unary link's tile, in L1
  int64_t i = 0;
  for (; i + kTile <= n; i += kTile) {
    HLO_CHAIN_EACH(HLO_CHAIN_ZERO_ONE)  // (the first link reads no value)
    for (int64_t k = 0; k < count; ++k) {
      const FloatChainLink& link = links[k];
      switch (codes[k]) {
        HLO_CHAIN_BINARY(0, add)
        HLO_CHAIN_BINARY(1, subtract)
        HLO_CHAIN_BINARY(2, multiply)
        HLO_CHAIN_BINARY(3, divide)
        HLO_CHAIN_BINARY(4, maximum)
        HLO_CHAIN_BINARY(5, minimum)
        case kUnaryCode:
          HLO_CHAIN_EACH(HLO_CHAIN_SPILL_ONE)
          link.unary(spill, spill, kTile);
          HLO_CHAIN_EACH(HLO_CHAIN_RELOAD_ONE)
          break;
        case kUnaryCode + 1:
          link.unary(static_cast<const T*>(link.operands[0]) + i, spill, kTile);
          HLO_CHAIN_EACH(HLO_CHAIN_RELOAD_ONE)
          break;
        default: {
          // select(compare(a, b), c, d): the masks before c and d are
          // loaded, so that fewer vectors are live at once.
          HLO_CHAIN_VALUE_OR(a, 0)
          HLO_CHAIN_VALUE_OR(b, 1)
          HLO_CHAIN_COMPARE(link.compare)
          HLO_CHAIN_VALUE_OR(c, 2)
          HLO_CHAIN_VALUE_OR(d, 3)
          HLO_CHAIN_EACH(HLO_CHAIN_SELECT_ONE)
          break;
        }
      }
      if (link.tap != nullptr) {
        T* tap = static_cast<T*>(link.tap) + i;
        HLO_CHAIN_EACH(HLO_CHAIN_TAP_ONE)
      }
    }
    HLO_CHAIN_EACH(HLO_CHAIN_OUT_ONE)
  }
  if (i < n) ChainTail(links, count, out + i, i, n - i);
}

#undef HLO_CHAIN_EACH
#undef HLO_CHAIN_LOAD
#undef HLO_CHAIN_LOAD_ONE_a
#undef HLO_CHAIN_LOAD_ONE_b
#undef HLO_CHAIN_VALUE_OR
#undef HLO_CHAIN_OR_ONE_a
#undef HLO_CHAIN_OR_ONE_b
#undef HLO_CHAIN_OR_ONE_c
#undef HLO_CHAIN_OR_ONE_d
#undef HLO_CHAIN_APPLY
#undef HLO_CHAIN_APPLY_ab
#undef HLO_CHAIN_APPLY_vb
#undef HLO_CHAIN_APPLY_av
#undef HLO_CHAIN_APPLY_vv
#undef HLO_CHAIN_BINARY
#undef HLO_CHAIN_COMPARE
#undef HLO_CHAIN_MASK_DECLARE_ONE
#undef HLO_CHAIN_MASK_ONE_eq
#undef HLO_CHAIN_MASK_ONE_ne
#undef HLO_CHAIN_MASK_ONE_lt
#undef HLO_CHAIN_MASK_ONE_le
#undef HLO_CHAIN_MASK_ONE_gt
#undef HLO_CHAIN_MASK_ONE_ge
#undef HLO_CHAIN_SELECT_ONE
#undef HLO_CHAIN_ZERO_ONE
#undef HLO_CHAIN_TAP_ONE
#undef HLO_CHAIN_SPILL_ONE
#undef HLO_CHAIN_RELOAD_ONE
#undef HLO_CHAIN_OUT_ONE

}  // namespace

void RunFloatChain(PrimitiveType type, absl::Span<const FloatChainLink> links, void* out, int64_t n,
                   bool stream_out) {
  const int64_t count = static_cast<int64_t>(links.size());
  if (type == PrimitiveType::kF32) {
    Chain(links.data(), count, static_cast<float*>(out), n, stream_out);
  } else {
    Chain(links.data(), count, static_cast<double*>(out), n, stream_out);
  }
}

}  // namespace hlo
