// Private to the sort family (eval/kernels/sort.cc, eval/kernels/sort_topk.cc) and the
// TopK custom-call (custom_call.cc): a merge sort that stays in bounds
// whatever the comparator answers, the recognition of the common
// comparators, and the top-k kernels.
#ifndef HLO_EVAL_KERNELS_SORT_INTERNAL_H_
#define HLO_EVAL_KERNELS_SORT_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/interp/batch_program.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/kernel_context.h"
#include "eval/kernels/kernels.h"
#include "eval/type_dispatch.h"
#include "ir/computation.h"
#include "ir/float_formats.h"

namespace hlo {
namespace sort_internal {

// The slices of a sort: `outer` blocks of n * inner elements; element j
// of slice (o, i) is at o * n * inner + i + j * inner (its base + j * inner).
struct Slices {
  int64_t outer = 1, n = 1, inner = 1;
  template <typename F>
  void ForEach(F&& f) const {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        if (!f(o * n * inner + i)) return;
      }
    }
  }
};

// out[base + j * inner] = in[base + perm[j] * inner] for one slice.
void Permute(const Literal& in, Literal& out, int64_t base, int64_t inner,
             absl::Span<const int64_t> perm);

// Stable bottom-up merge sort of a[0, n) using buf[0, n) as scratch. Every
// access is bounds-checked by the loop structure alone, so a comparator
// that is not a strict weak order (NaNs under `<`, a user computation, one
// that failed and answers false) gives some permutation, never undefined
// behaviour — unlike std::sort.
template <typename T, typename Less>
void MergeSort(T* a, int64_t n, T* buf, Less&& less) {
  constexpr int64_t kRun = 16;
  for (int64_t lo = 0; lo < n; lo += kRun) {
    const int64_t hi = std::min(lo + kRun, n);
    for (int64_t i = lo + 1; i < hi; ++i) {
      T x = a[i];
      int64_t j = i;
      for (; j > lo && less(x, a[j - 1]); --j) a[j] = a[j - 1];
      a[j] = x;
    }
  }
  T* src = a;
  T* dst = buf;
  for (int64_t width = kRun; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      int64_t i = lo, j = mid, o = lo;
      if (mid < hi && !less(src[mid], src[mid - 1])) {
        std::copy(src + lo, src + hi, dst + lo);  // already in order
        continue;
      }
      while (i < mid && j < hi) dst[o++] = less(src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[o++] = src[i++];
      while (j < hi) dst[o++] = src[j++];
    }
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

// XLA's total order of floats as a signed integer key: -NaN < -inf < ... <
// -0 < +0 < ... < +inf < +NaN (negative values get their magnitude bits
// flipped).
inline int32_t TotalKey(float v) {
  int32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits ^ static_cast<int32_t>(static_cast<uint32_t>(bits >> 31) >> 1);
}
inline int64_t TotalKey(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
}
// The same from the raw bits of a narrow float (sign bit at width - 1;
// f8e8m0fnu has none).
inline int32_t SmallTotalKey(uint32_t bits, int width, bool has_sign) {
  bits &= (1u << width) - 1;
  if (!has_sign) return static_cast<int32_t>(bits);
  const uint32_t sign = 1u << (width - 1);
  const int32_t magnitude = static_cast<int32_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude - 1 : magnitude;
}

// Calls f(key) with key(data, i) giving element i of an array of type t as
// a value whose `<` is the comparison's: the element itself (integers,
// pred, f32/f64), a narrow float decoded to float, or with `total` the
// total-order key of a float. False (f not called) for complex types.
template <typename F>
bool DispatchKey(PrimitiveType t, bool total, F&& f) {
  if (!IsArrayType(t) || IsComplex(t)) return false;
  if (IsSmallFloat(t)) {
    const int width = BitWidth(t);
    const bool has_sign = !GetSmallFloatInfo(t).unsigned_only;
    if (total && ByteWidth(t) == 2) {
      f([=](const uint8_t* d, int64_t i) {
        uint16_t b;
        std::memcpy(&b, d + 2 * i, 2);
        return SmallTotalKey(b, width, has_sign);
      });
    } else if (total) {
      f([=](const uint8_t* d, int64_t i) { return SmallTotalKey(d[i], width, has_sign); });
    } else {
      const int w = ByteWidth(t);
      f([=](const uint8_t* d, int64_t i) {
        float x;
        elementwise::DecodeSmallFloats(t, d + i * w, &x, 1);
        return x;
      });
    }
    return true;
  }
  DispatchType(t, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (std::is_arithmetic_v<T>) {
      auto native = [](const uint8_t* d, int64_t i) { return reinterpret_cast<const T*>(d)[i]; };
      if constexpr (std::is_floating_point_v<T>) {
        if (total) {
          f([](const uint8_t* d, int64_t i) { return TotalKey(reinterpret_cast<const T*>(d)[i]); });
          return;
        }
      }
      f(native);
    }
  });
  return true;
}

// One substitution of a canonicalising select around a comparator's
// parameter (JAX sorts floats with select(x != x, NaN, select(x == 0, 0,
// x)) so that all NaNs and both zeros compare equal): elements that are NaN
// (kNaN) or equal to `match` (kEqual) compare as the constant `result_bits`.
struct KeyRule {
  enum Kind { kNaN, kEqual } kind = kNaN;
  double match = 0;
  uint64_t result_bits = 0;
  bool operator==(const KeyRule&) const = default;
};

// One key of a lexicographic comparator: the elements of operand
// `operand` (its parameters 2k and 2k+1), converted to f32 first when
// `widened` (a bf16/f16 operand), canonicalised by `rules` (outermost
// first; only with total_order), then ordered by IEEE `<` (floats without
// total_order), XLA's total order, or the integers' order; `descending`
// reverses it.
struct SortKey {
  int64_t operand = 0;
  bool descending = false;
  bool total_order = false;
  bool widened = false;
  std::vector<KeyRule> rules;
  // The same key up to its direction (what an EQ/NE compare tests).
  bool SameOrder(const SortKey& o) const {
    return operand == o.operand && total_order == o.total_order && widened == o.widened &&
           rules == o.rules;
  }
};

// A comparator that orders by its keys lexicographically: the first key
// decides unless it ties, then the next, and so on. Ties of all keys are
// neither less (the stable sort keeps their order).
struct KeyComparator {
  std::vector<SortKey> keys;
};
// For comparators of 2 * n_operands parameters (eval/kernels/sort_keys.cc): one
// LT/GT compare of a key pair, or the lexicographic forms JAX and XLA build
// from such compares with EQ/NE, and/or and select. Anything else (LE/GE,
// complex keys, arithmetic on the values) is not recognised.
std::optional<KeyComparator> RecognizeComparator(const Computation& comparator, int64_t n_operands);

// keys as the key reads it: the f32 conversion of a widened key's
// bf16/f16 operand (made in *widened), else keys itself.
const Literal& KeySource(const Literal& keys, const SortKey& key, std::optional<Literal>* widened);

// Fills out (one per element of `keys`, in memory order) with an unsigned
// key whose order is the key's, its direction included. False when a float
// key under IEEE order holds a NaN (no strict weak order) or the type has
// no order (complex).
bool OrderKeys(const Literal& keys, const SortKey& key, std::vector<uint64_t>& out);

// Element i's XLA total-order key (as int64) of a float type, from its bits.
int64_t TotalKeyOfBits(PrimitiveType t, uint64_t bits);

// Calls f(key) with key(data, i) the total-order key of element i of a
// float array after the rules (first matching rule wins). False (f not
// called) for a type that is not a real float type.
template <typename F>
bool DispatchRuleKey(PrimitiveType t, const std::vector<KeyRule>& rules, F&& f) {
  if (!IsFloat(t)) return false;
  std::vector<int64_t> results;
  for (const KeyRule& r : rules) results.push_back(TotalKeyOfBits(t, r.result_bits));
  // f32 and f64 read their elements directly, and f32's keys are 32-bit
  // (half the entries to sort); the narrow floats decode first.
  auto native = [&](auto tag) {
    using T = decltype(tag);
    using K = decltype(TotalKey(T{}));
    std::vector<K> keys(results.begin(), results.end());  // each fits: a key of a T
    f([&rules, keys](const uint8_t* d, int64_t i) -> K {
      T v;
      std::memcpy(&v, d + i * sizeof(T), sizeof(T));
      const double x = v;
      for (size_t k = 0; k < rules.size(); ++k) {
        if (rules[k].kind == KeyRule::kNaN ? x != x : x == rules[k].match) return keys[k];
      }
      return TotalKey(v);
    });
  };
  if (t == PrimitiveType::kF32) {
    native(float{});
    return true;
  }
  if (t == PrimitiveType::kF64) {
    native(double{});
    return true;
  }
  const int w = ByteWidth(t);
  f([t, w, &rules, results](const uint8_t* d, int64_t i) {
    uint32_t bits = 0;
    std::memcpy(&bits, d + i * w, w);  // little-endian: the low bytes
    const double x = DecodeSmallFloat(t, bits);
    for (size_t k = 0; k < rules.size(); ++k) {
      if (rules[k].kind == KeyRule::kNaN ? x != x : x == rules[k].match) return results[k];
    }
    return TotalKeyOfBits(t, bits);
  });
  return true;
}

// topk over the last dimension: values and indices of the k largest (or
// smallest) elements of each row, ties to the lower index, in XLA's total
// order for floats (NaN above +inf, -0 below +0). `result` is the
// (values, indices) tuple shape.
absl::StatusOr<Value> TopK(const Literal& operand, int64_t k, bool largest, const Shape& result);
// Sorts every slice of s by the keys' order keys (OrderKeys of each key's
// operand, `order_keys[k]` for keys[k]), ties by index, and calls
// emit(base, perm) with each slice's permutation. Long slices sort by
// radix, key by key from the last.
void SortSlicesByOrderKeys(const Slices& s, const std::vector<std::vector<uint64_t>>& order_keys,
                           const std::function<void(int64_t, const std::vector<int64_t>&)>& emit);

// Whether `program` (a comparator for the batched interpreter) takes one
// pair of parameters per operand, of its element type, and returns a pred.
bool BatchedComparatorFits(const BatchProgram& program, absl::Span<const Literal* const> operands);
// Sorts every slice of s by the batched comparator: a sorting network
// (Batcher's odd-even merge sort) whose stages each ask the program about
// all pairs of all slices at once, ties (neither less) broken by the
// original index, so for a strict weak order the answer is the stable
// sort's. Calls emit(base, perm) with each slice's permutation.
absl::Status SortSlicesBatched(
    const Slices& s, BatchProgram& program, absl::Span<const Literal* const> operands,
    const std::function<void(int64_t, const std::vector<int64_t>&)>& emit);

// custom-call TopK (XLA's TopkRewriter): k from the result shape; without a
// comparator the k largest, with one (to_apply or called_computations: 2
// parameters, or 4 with the s32 indices) the first k of a stable sort by it.
absl::StatusOr<Value> EvalTopKCustomCall(const Instruction& inst, Operands ops, KernelContext& ev);

}  // namespace sort_internal
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_SORT_INTERNAL_H_
