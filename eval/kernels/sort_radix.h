// Private to eval/kernels/sort.cc: an LSD radix sort of (key, index) pairs for
// the typed sort path. It is stable, so on pairs laid out in index order it
// gives exactly the stable sort's answer, in a few linear passes instead of
// n log n comparisons.
#ifndef HLO_EVAL_KERNELS_SORT_RADIX_H_
#define HLO_EVAL_KERNELS_SORT_RADIX_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "eval/kernels/sort_internal.h"

namespace hlo {
namespace sort_internal {

template <typename U>
struct RadixEntry {
  U key;
  uint32_t index;
};

// An unsigned key whose order is K's `<` (floats: IEEE `<` on non-NaN
// values, so -0 and +0 get the same key; the caller rules NaNs out).
template <typename K>
inline auto RadixKey(K k) {
  if constexpr (std::is_same_v<K, bool>) {
    return static_cast<uint32_t>(k);
  } else if constexpr (std::is_floating_point_v<K>) {
    if (k == 0) k = 0;  // -0 == +0
    auto t = TotalKey(k);
    using U = std::make_unsigned_t<decltype(t)>;
    return static_cast<U>(t) ^ (U{1} << (8 * sizeof(U) - 1));
  } else if constexpr (std::is_signed_v<K>) {
    using S = std::conditional_t<(sizeof(K) <= 4), int32_t, int64_t>;
    using U = std::make_unsigned_t<S>;
    return static_cast<U>(static_cast<S>(k)) ^ (U{1} << (8 * sizeof(U) - 1));
  } else {
    using U = std::conditional_t<(sizeof(K) <= 4), uint32_t, uint64_t>;
    return static_cast<U>(k);
  }
}

// The radix key of an entry: a pair's key, or a bare key itself.
template <typename U>
inline U RadixKeyOf(const RadixEntry<U>& e) {
  return e.key;
}
template <typename U, typename = std::enable_if_t<std::is_unsigned_v<U>>>
inline U RadixKeyOf(U key) {
  return key;
}

// Sorts a[0, n) by RadixKeyOf, stably, 8 bits a pass; passes whose digit
// is the same for every key are skipped. buf is scratch of n entries.
// Entries are (key, index) pairs or bare unsigned keys (integers sorted by
// their own value, where equal keys are equal elements).
template <typename E>
void RadixSort(E* a, E* buf, int64_t n) {
  using U = decltype(RadixKeyOf(E{}));
  constexpr int kPasses = sizeof(U);
  static_assert(kPasses <= 8);
  int64_t counts[kPasses][256];
  std::memset(counts, 0, sizeof(counts));
  for (int64_t i = 0; i < n; ++i) {
    U k = RadixKeyOf(a[i]);
    for (int p = 0; p < kPasses; ++p) ++counts[p][(k >> (8 * p)) & 0xFF];
  }
  E* src = a;
  E* dst = buf;
  for (int p = 0; p < kPasses; ++p) {
    int64_t* c = counts[p];
    if (n == 0 || c[(RadixKeyOf(src[0]) >> (8 * p)) & 0xFF] == n) continue;
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      int64_t x = c[d];
      c[d] = sum;
      sum += x;
    }
    for (int64_t i = 0; i < n; ++i) dst[c[(RadixKeyOf(src[i]) >> (8 * p)) & 0xFF]++] = src[i];
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

}  // namespace sort_internal
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_SORT_RADIX_H_
