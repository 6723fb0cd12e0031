#include "eval/interp/float_chain.h"

#include <cstring>

#include "eval/interp/elementwise_ops.h"
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

// The tile's vectors are named variables, not an array: GCC keeps an
// array indexed in a loop on the stack, and the chain's value then went
// through L1 at every link as the steps' registers did.
#define HLO_CHAIN_TILE(expr) \
  v0 = (expr)(v0, w0);       \
  v1 = (expr)(v1, w1);       \
  v2 = (expr)(v2, w2);       \
  v3 = (expr)(v3, w3)

template <typename T>
HLO_VECTOR_CLONES void Chain(const T* first, const FloatChainLink* links, int64_t count, T* out,
                             int64_t n) {
  using V = typename Lanes<T>::V;
  using M = typename Lanes<T>::M;
  constexpr int64_t kLanes = sizeof(V) / sizeof(T), kTile = kTileVectors * kLanes;
  static_assert(kTileVectors == 4, "HLO_CHAIN_TILE names four vectors");
  auto load = [](const T* p) HLO_CHAIN_LAMBDA {
    V x;
    std::memcpy(&x, p, sizeof(V));
    return x;
  };
  auto add = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x + y; };
  auto subtract = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x - y; };
  auto multiply = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x * y; };
  auto divide = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return x / y; };
  auto maximum = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return MaxLanes<V, M>(x, y); };
  auto minimum = [](const V& x, const V& y) HLO_CHAIN_LAMBDA { return MinLanes<V, M>(x, y); };
  int64_t i = 0;
  for (; i + kTile <= n; i += kTile) {
    V v0 = load(first + i), v1 = load(first + i + kLanes), v2 = load(first + i + 2 * kLanes),
      v3 = load(first + i + 3 * kLanes);
    for (int64_t k = 0; k < count; ++k) {
      const FloatChainLink& link = links[k];
      const T* o = static_cast<const T*>(link.other) + i;
      V w0 = load(o), w1 = load(o + kLanes), w2 = load(o + 2 * kLanes), w3 = load(o + 3 * kLanes);
      if (link.value_on_right) {
        // op(other, value): the other operand becomes the left one.
        std::swap(v0, w0);
        std::swap(v1, w1);
        std::swap(v2, w2);
        std::swap(v3, w3);
      }
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
    }
    std::memcpy(out + i, &v0, sizeof(V));
    std::memcpy(out + i + kLanes, &v1, sizeof(V));
    std::memcpy(out + i + 2 * kLanes, &v2, sizeof(V));
    std::memcpy(out + i + 3 * kLanes, &v3, sizeof(V));
  }
  for (; i < n; ++i) {
    T v = first[i];
    for (int64_t k = 0; k < count; ++k) {
      const T w = static_cast<const T*>(links[k].other)[i];
      v = links[k].value_on_right ? ApplyScalar(links[k].op, w, v) : ApplyScalar(links[k].op, v, w);
    }
    out[i] = v;
  }
}

#undef HLO_CHAIN_TILE

}  // namespace

void RunFloatChain(PrimitiveType type, const void* first, absl::Span<const FloatChainLink> links,
                   void* out, int64_t n) {
  const int64_t count = static_cast<int64_t>(links.size());
  if (type == PrimitiveType::kF32) {
    Chain(static_cast<const float*>(first), links.data(), count, static_cast<float*>(out), n);
  } else {
    Chain(static_cast<const double*>(first), links.data(), count, static_cast<double*>(out), n);
  }
}

}  // namespace hlo
