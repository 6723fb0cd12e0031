#include "eval/interp/float_chain.h"

#include <cstring>

#include "eval/interp/elementwise_ops.h"
#include "eval/runtime/stream_store.h"
#include "eval/vector_clones.h"

namespace hlo {
namespace {

// 64-byte vectors of T and of same-width integers (compare results):
// compiled to one AVX-512 register, two AVX2 or four SSE2 ones per clone.
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(64)));
  typedef int32_t M __attribute__((vector_size(64)));
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(64)));
  typedef int64_t M __attribute__((vector_size(64)));
};

// Values per tile: four vectors, held in registers across the links.
constexpr int kTileVectors = 4;

#define HLO_CHAIN_INLINE inline __attribute__((always_inline))
#define HLO_CHAIN_LAMBDA __attribute__((always_inline))

// The helpers below take and return 64-byte vectors, which GCC and clang warn
// would pass differently without AVX-512; they are always inlined into the
// clones, so no call passes one. (GCC warns at the end of the file, so the
// option is off to the end of this one.)
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

template <typename V, typename M>
HLO_CHAIN_INLINE V Select(const M& m, const V& a, const V& b) {
  return (V)(((M)a & m) | ((M)b & ~m));
}

// MaxOf and MinOf (elementwise_ops.h) lane by lane.
template <typename V, typename M>
HLO_CHAIN_INLINE V MaxLanes(const V& a, const V& b) {
  V r = Select<V, M>((M)(a > b), a, b);
  r = Select<V, M>((M)(a == b), (V)((M)a & (M)b), r);
  return Select<V, M>((M)(a != a), a, r);
}
template <typename V, typename M>
HLO_CHAIN_INLINE V MinLanes(const V& a, const V& b) {
  V r = Select<V, M>((M)(a < b), a, b);
  r = Select<V, M>((M)(a == b), (V)((M)a | (M)b), r);
  return Select<V, M>((M)(a != a), a, r);
}

template <typename T>
HLO_CHAIN_INLINE T ApplyScalar(Opcode op, T x, T y) {
  switch (op) {
    case Opcode::kAdd:
      return x + y;
    case Opcode::kSubtract:
      return x - y;
    case Opcode::kMultiply:
      return x * y;
    case Opcode::kDivide:
      return x / y;
    case Opcode::kMaximum:
      return elementwise::MaxOf(x, y);
    case Opcode::kMinimum:
      return elementwise::MinOf(x, y);
    default:
      return x;  // (never: links hold the six ops above)
  }
}

template <typename T>
HLO_CHAIN_INLINE bool CompareScalar(ChainCompare c, T x, T y) {
  switch (c) {
    case ChainCompare::kEq:
      return x == y;
    case ChainCompare::kNe:
      return x != y;
    case ChainCompare::kLt:
      return x < y;
    case ChainCompare::kLe:
      return x <= y;
    case ChainCompare::kGt:
      return x > y;
    case ChainCompare::kGe:
      return x >= y;
  }
  return false;
}

// The tile's vectors are named variables, not an array: GCC keeps an
// array indexed in a loop on the stack, and the chain's value then went
// through L1 at every link as the steps' registers did. Operand j of a
// link is four vectors NAME0..NAME3: loaded from its array, or the value.
#define HLO_CHAIN_OPERAND(name, j)                                                \
  const T* name##_at = static_cast<const T*>(link.operands[j]);                   \
  const V name##0 = name##_at != nullptr ? load(name##_at + i) : v0;              \
  const V name##1 = name##_at != nullptr ? load(name##_at + i + kLanes) : v1;     \
  const V name##2 = name##_at != nullptr ? load(name##_at + i + 2 * kLanes) : v2; \
  const V name##3 = name##_at != nullptr ? load(name##_at + i + 3 * kLanes) : v3
#define HLO_CHAIN_TILE(expr) \
  v0 = (expr)(a0, b0);       \
  v1 = (expr)(a1, b1);       \
  v2 = (expr)(a2, b2);       \
  v3 = (expr)(a3, b3)
#define HLO_CHAIN_MASKS(cmp) \
  m0 = (M)(a0 cmp b0);       \
  m1 = (M)(a1 cmp b1);       \
  m2 = (M)(a2 cmp b2);       \
  m3 = (M)(a3 cmp b3)

template <typename T>
HLO_VECTOR_CLONES void Chain(const FloatChainLink* links, int64_t count, T* out, int64_t n,
                             bool stream_out) {
  using V = typename Lanes<T>::V;
  using M = typename Lanes<T>::M;
  constexpr int64_t kLanes = sizeof(V) / sizeof(T), kTile = kTileVectors * kLanes;
  static_assert(kTileVectors == 4, "the macros above name four vectors");
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
  int64_t i = 0;
  for (; i + kTile <= n; i += kTile) {
    V v0 = {}, v1 = {}, v2 = {}, v3 = {};  // (the first link reads no value)
    for (int64_t k = 0; k < count; ++k) {
      const FloatChainLink& link = links[k];
      HLO_CHAIN_OPERAND(a, 0);
      HLO_CHAIN_OPERAND(b, 1);
      if (link.kind == FloatChainLink::Kind::kBinary) {
        switch (link.op) {
          case Opcode::kAdd:
            HLO_CHAIN_TILE(add);
            break;
          case Opcode::kSubtract:
            HLO_CHAIN_TILE(subtract);
            break;
          case Opcode::kMultiply:
            HLO_CHAIN_TILE(multiply);
            break;
          case Opcode::kDivide:
            HLO_CHAIN_TILE(divide);
            break;
          case Opcode::kMaximum:
            HLO_CHAIN_TILE(maximum);
            break;
          case Opcode::kMinimum:
            HLO_CHAIN_TILE(minimum);
            break;
          default:
            break;  // (never, as in ApplyScalar)
        }
      } else {
        M m0, m1, m2, m3;
        switch (link.compare) {
          case ChainCompare::kEq:
            HLO_CHAIN_MASKS(==);
            break;
          case ChainCompare::kNe:
            HLO_CHAIN_MASKS(!=);
            break;
          case ChainCompare::kLt:
            HLO_CHAIN_MASKS(<);
            break;
          case ChainCompare::kLe:
            HLO_CHAIN_MASKS(<=);
            break;
          case ChainCompare::kGt:
            HLO_CHAIN_MASKS(>);
            break;
          default:
            HLO_CHAIN_MASKS(>=);
            break;
        }
        HLO_CHAIN_OPERAND(c, 2);
        HLO_CHAIN_OPERAND(d, 3);
        v0 = Select<V, M>(m0, c0, d0);
        v1 = Select<V, M>(m1, c1, d1);
        v2 = Select<V, M>(m2, c2, d2);
        v3 = Select<V, M>(m3, c3, d3);
      }
      if (link.tap != nullptr) {
        T* tap = static_cast<T*>(link.tap) + i;
        store(tap, v0);
        store(tap + kLanes, v1);
        store(tap + 2 * kLanes, v2);
        store(tap + 3 * kLanes, v3);
      }
    }
    store_out(out + i, v0);
    store_out(out + i + kLanes, v1);
    store_out(out + i + 2 * kLanes, v2);
    store_out(out + i + 3 * kLanes, v3);
  }
  for (; i < n; ++i) {
    T v = 0;
    for (int64_t k = 0; k < count; ++k) {
      const FloatChainLink& link = links[k];
      auto operand = [&](int j) {
        const T* at = static_cast<const T*>(link.operands[j]);
        return at != nullptr ? at[i] : v;
      };
      if (link.kind == FloatChainLink::Kind::kBinary) {
        v = ApplyScalar(link.op, operand(0), operand(1));
      } else {
        v = CompareScalar(link.compare, operand(0), operand(1)) ? operand(2) : operand(3);
      }
      if (link.tap != nullptr) static_cast<T*>(link.tap)[i] = v;
    }
    out[i] = v;
  }
}

#undef HLO_CHAIN_OPERAND
#undef HLO_CHAIN_TILE
#undef HLO_CHAIN_MASKS

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
