// Sorting by any comparator through the batched interpreter
// (eval/batch_program.h). A merge sort asks one comparison at a time, each
// depending on the last; a sorting network's comparisons are fixed in
// advance, so each stage's compare-exchanges, for every slice at once, are
// one batch. Batcher's odd-even merge sort needs about n log2(n)^2 / 4
// compare-exchanges for n elements (padded to a power of two: pairs that
// reach past n are dropped, which is the same as padding with elements
// greater than all, which never move).
//
// Each compare-exchange of positions lo < hi asks the comparator both
// less(x[hi], x[lo]) and less(x[lo], x[hi]) and swaps when x[hi] is less,
// or when neither is and x[hi] came first in the input: under a strict weak
// order that is the strict total order (key, original index), which any
// sorting network sorts into the stable sort's answer.
#include <algorithm>
#include <cstring>
#include <vector>

#include "eval/kernels_sort_internal.h"

namespace hlo {
namespace sort_internal {
namespace {

// Positions run per batch (two comparisons each).
constexpr int64_t kChunk = 4096;

// The compare-exchange pairs (lo, hi) of stage (p, k) of Batcher's
// odd-even merge sort over `padded` (a power of two) positions, those with
// hi < n kept.
void StagePairs(int64_t padded, int64_t n, int64_t p, int64_t k,
                std::vector<std::pair<int64_t, int64_t>>& pairs) {
  pairs.clear();
  for (int64_t j = k % p; j + k < padded; j += 2 * k) {
    for (int64_t i = 0; i < k && i + j + k < padded; ++i) {
      const int64_t lo = i + j, hi = i + j + k;
      if (lo / (2 * p) == hi / (2 * p) && hi < n) pairs.push_back({lo, hi});
    }
  }
}

// dst[q] = src[index[q]] for elements of `width` bytes.
template <typename E>
void GatherTyped(const uint8_t* src, const int64_t* index, int64_t count, uint8_t* dst) {
  const E* s = reinterpret_cast<const E*>(src);
  E* d = reinterpret_cast<E*>(dst);
  for (int64_t q = 0; q < count; ++q) d[q] = s[index[q]];
}

void Gather(const uint8_t* src, int width, const int64_t* index, int64_t count, uint8_t* dst) {
  switch (width) {
    case 1: GatherTyped<uint8_t>(src, index, count, dst); break;
    case 2: GatherTyped<uint16_t>(src, index, count, dst); break;
    case 4: GatherTyped<uint32_t>(src, index, count, dst); break;
    case 8: GatherTyped<uint64_t>(src, index, count, dst); break;
    default:
      for (int64_t q = 0; q < count; ++q) {
        std::memcpy(dst + q * width, src + index[q] * width, width);
      }
  }
}

}  // namespace

bool BatchedComparatorFits(const BatchProgram& program,
                           absl::Span<const Literal* const> operands) {
  if (program.parameter_count() != 2 * static_cast<int64_t>(operands.size()) ||
      program.result_count() != 1 || program.result_type(0) != PrimitiveType::kPred) {
    return false;
  }
  for (size_t k = 0; k < operands.size(); ++k) {
    const PrimitiveType t = operands[k]->element_type();
    if (program.parameter_type(2 * k) != t || program.parameter_type(2 * k + 1) != t) {
      return false;
    }
  }
  return true;
}

absl::Status SortSlicesBatched(const Slices& s, BatchProgram& program,
                               absl::Span<const Literal* const> operands,
                               const std::function<void(int64_t, const std::vector<int64_t>&)>& emit) {
  const int64_t n_ops = static_cast<int64_t>(operands.size());
  const int64_t slices = s.outer * s.inner;
  // perm[g * n + pos]: the input position now at pos of slice g.
  std::vector<int64_t> perm(slices * s.n);
  std::vector<int64_t> bases;
  s.ForEach([&](int64_t base) {
    bases.push_back(base);
    return true;
  });
  for (int64_t g = 0; g < slices; ++g) {
    for (int64_t j = 0; j < s.n; ++j) perm[g * s.n + j] = j;
  }
  // For each batch position: the element read (a flat index into the
  // operands) as left and right parameter; positions [0, c) ask
  // less(x[hi], x[lo]), [c, 2c) less(x[lo], x[hi]).
  std::vector<int64_t> left(2 * kChunk), right(2 * kChunk);
  std::vector<std::vector<uint8_t>> lhs(n_ops), rhs(n_ops);
  for (int64_t k = 0; k < n_ops; ++k) {
    lhs[k].resize(2 * kChunk * ByteWidth(operands[k]->element_type()));
    rhs[k].resize(lhs[k].size());
  }
  std::vector<uint8_t> less(2 * kChunk);
  std::vector<const void*> inputs(2 * n_ops);
  std::vector<void*> outputs = {less.data()};
  std::vector<std::pair<int64_t, int64_t>> pairs;
  int64_t padded = 1;
  while (padded < s.n) padded *= 2;
  for (int64_t p = 1; p < padded; p *= 2) {
    for (int64_t k = p; k >= 1; k /= 2) {
      StagePairs(padded, s.n, p, k, pairs);
      const int64_t per_slice = static_cast<int64_t>(pairs.size());
      const int64_t total = slices * per_slice;
      for (int64_t start = 0; start < total; start += kChunk) {
        const int64_t c = std::min(kChunk, total - start);
        for (int64_t q = 0; q < c; ++q) {
          const int64_t g = (start + q) / per_slice;
          const auto [lo, hi] = pairs[(start + q) % per_slice];
          const int64_t x_lo = bases[g] + perm[g * s.n + lo] * s.inner;
          const int64_t x_hi = bases[g] + perm[g * s.n + hi] * s.inner;
          left[q] = x_hi;
          right[q] = x_lo;
          left[c + q] = x_lo;
          right[c + q] = x_hi;
        }
        for (int64_t o = 0; o < n_ops; ++o) {
          const int w = ByteWidth(operands[o]->element_type());
          Gather(operands[o]->data(), w, left.data(), 2 * c, lhs[o].data());
          Gather(operands[o]->data(), w, right.data(), 2 * c, rhs[o].data());
          inputs[2 * o] = lhs[o].data();
          inputs[2 * o + 1] = rhs[o].data();
        }
        if (auto st = program.Run(inputs, outputs, 2 * c); !st.ok()) return st;
        for (int64_t q = 0; q < c; ++q) {
          const int64_t g = (start + q) / per_slice;
          const auto [lo, hi] = pairs[(start + q) % per_slice];
          int64_t& a = perm[g * s.n + lo];
          int64_t& b = perm[g * s.n + hi];
          if (less[q] != 0 || (less[c + q] == 0 && b < a)) std::swap(a, b);
        }
      }
    }
  }
  std::vector<int64_t> slice_perm(s.n);
  for (int64_t g = 0; g < slices; ++g) {
    std::copy(perm.begin() + g * s.n, perm.begin() + (g + 1) * s.n, slice_perm.begin());
    emit(bases[g], slice_perm);
  }
  return absl::OkStatus();
}

}  // namespace sort_internal
}  // namespace hlo
