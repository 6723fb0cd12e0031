// Sorting by several keys (a lexicographic comparator recognised by
// eval/kernels/sort_keys.cc): each key becomes one unsigned order key per
// element, in which `<` is the key's order with its direction, so a slice
// sorts by comparing integers (by radix when long: a stable pass per key,
// the last key first, leaves them in lexicographic order with ties in index
// order, the stable sort's answer).
#include <algorithm>
#include <vector>

#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/sort_internal.h"
#include "eval/kernels/sort_radix.h"

namespace hlo {
namespace sort_internal {

const Literal& KeySource(const Literal& keys, const SortKey& key, std::optional<Literal>* widened) {
  if (!key.widened) return keys;
  auto f32 = Literal::CreateUninitialized(Shape::Array(PrimitiveType::kF32, keys.shape().dims()));
  if (!f32.ok()) return keys;  // only for a shape that the operand has already
  elementwise::DecodeSmallFloats(keys.element_type(), keys.data(),
                                 reinterpret_cast<float*>(f32->data()), keys.element_count());
  widened->emplace(*std::move(f32));
  return **widened;
}

bool OrderKeys(const Literal& keys, const SortKey& key, std::vector<uint64_t>& out) {
  const int64_t n = keys.element_count();
  out.resize(n);
  const uint64_t flip = key.descending ? ~uint64_t{0} : 0;
  bool weak = true;
  auto fill = [&](auto read) {
    for (int64_t i = 0; i < n; ++i) {
      auto k = read(keys.data(), i);
      if constexpr (std::is_floating_point_v<decltype(k)>) {
        if (k != k) {
          weak = false;
          return;
        }
      }
      out[i] = static_cast<uint64_t>(RadixKey(k)) ^ flip;
    }
  };
  const PrimitiveType t = keys.element_type();
  const bool typed = key.rules.empty() ? DispatchKey(t, key.total_order, fill)
                                       : DispatchRuleKey(t, key.rules, fill);
  return typed && weak;
}

void SortSlicesByOrderKeys(const Slices& s, const std::vector<std::vector<uint64_t>>& order_keys,
                           const std::function<void(int64_t, const std::vector<int64_t>&)>& emit) {
  constexpr int64_t kRadixMinimum = 512;
  const int64_t m = static_cast<int64_t>(order_keys.size());
  std::vector<int64_t> perm(s.n);
  std::vector<RadixEntry<uint64_t>> entries(s.n), buf(s.n);
  std::vector<uint64_t> row(s.n * m);  // row[j * m + k]: key k of element j
  s.ForEach([&](int64_t base) {
    for (int64_t j = 0; j < s.n; ++j) {
      perm[j] = j;
      for (int64_t k = 0; k < m; ++k) row[j * m + k] = order_keys[k][base + j * s.inner];
    }
    if (s.n >= kRadixMinimum) {
      for (int64_t k = m - 1; k >= 0; --k) {
        for (int64_t j = 0; j < s.n; ++j) {
          entries[j] = {row[perm[j] * m + k], static_cast<uint32_t>(perm[j])};
        }
        RadixSort(entries.data(), buf.data(), s.n);
        for (int64_t j = 0; j < s.n; ++j) perm[j] = entries[j].index;
      }
    } else {
      std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
        const uint64_t* x = &row[a * m];
        const uint64_t* y = &row[b * m];
        for (int64_t k = 0; k < m; ++k) {
          if (x[k] != y[k]) return x[k] < y[k];
        }
        return a < b;
      });
    }
    emit(base, perm);
    return true;
  });
}

}  // namespace sort_internal
}  // namespace hlo
