// Sorting by any comparator through the batched interpreter
// (eval/interp/batch_program.h). A merge sort asks one comparison at a time, each
// depending on the last; a sorting network's comparisons are fixed in
// advance, so each stage's compare-exchanges, for every slice at once, are
// one batch. Batcher's odd-even merge sort needs about n log2(n)^2 / 4
// compare-exchanges for n elements (padded to a power of two: pairs that
// reach past n are dropped, which is the same as padding with elements
// greater than all, which never move).
//
// Each compare-exchange of positions lo < hi swaps when x[hi] is less than
// x[lo], or when neither is less and x[hi] came first in the input: under a
// strict weak order that is the strict total order (key, original index),
// which any sorting network sorts into the stable sort's answer. It takes
// one question: when x[lo] came first, whether x[hi] < x[lo] (swap if so);
// otherwise whether x[lo] < x[hi] (swap if not).
#include <algorithm>
#include <cstring>
#include <vector>

#include "eval/kernels/sort_internal.h"

namespace hlo {
namespace sort_internal {
namespace {

// Compare-exchanges asked per batch.
constexpr int64_t kChunk = 4096;
// Elements of the slices sorted together.
constexpr int64_t kGroupElements = 16384;

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

// Calls f(tag) with tag's E an unsigned type of `width` bytes (1, 2, 4, 8),
// or a 16-byte struct.
struct Bytes16 {
  uint64_t lo, hi;
};
template <typename F>
void ByWidth(int width, F&& f) {
  switch (width) {
    case 1:
      f(uint8_t{});
      break;
    case 2:
      f(uint16_t{});
      break;
    case 4:
      f(uint32_t{});
      break;
    case 8:
      f(uint64_t{});
      break;
    default:
      f(Bytes16{});
      break;
  }
}

// One operand's elements of a group of slices, slice after slice, in their
// current order.
struct Column {
  int width = 0;
  std::vector<uint8_t> data;      // the group's elements
  std::vector<uint8_t> lhs, rhs;  // one batch's parameters
};

// dst[q] = src[index[q]] (elements of type E).
template <typename E>
void GatherTyped(const uint8_t* src, const int64_t* index, int64_t count, uint8_t* dst) {
  const E* s = reinterpret_cast<const E*>(src);
  E* d = reinterpret_cast<E*>(dst);
  for (int64_t q = 0; q < count; ++q) d[q] = s[index[q]];
}

// Swaps data[a[q]] and data[b[q]] for every q with swap[q].
template <typename E>
void SwapTyped(uint8_t* data, const int64_t* a, const int64_t* b, const uint8_t* swap,
               int64_t count) {
  E* d = reinterpret_cast<E*>(data);
  for (int64_t q = 0; q < count; ++q) {
    // Without a branch: half the swaps go either way, unpredictably.
    const E x = d[a[q]], y = d[b[q]];
    const bool s = swap[q] != 0;
    d[a[q]] = s ? y : x;
    d[b[q]] = s ? x : y;
  }
}

// Sorts slices [first, first + count) (bases[first..]) with all stages of
// the network; order[g * n + pos] ends as the input position at pos.
absl::Status SortGroup(const Slices& s, BatchProgram& program,
                       absl::Span<const Literal* const> operands, const int64_t* bases,
                       int64_t count, std::vector<Column>& columns, std::vector<int64_t>& order) {
  const int64_t n = s.n;
  order.resize(count * n);
  for (int64_t g = 0; g < count; ++g) {
    for (int64_t j = 0; j < n; ++j) order[g * n + j] = j;
  }
  for (size_t o = 0; o < columns.size(); ++o) {
    Column& col = columns[o];
    col.data.resize(count * n * col.width);
    ByWidth(col.width, [&](auto e) {
      using E = decltype(e);
      const E* in = reinterpret_cast<const E*>(operands[o]->data());
      E* out = reinterpret_cast<E*>(col.data.data());
      for (int64_t g = 0; g < count; ++g) {
        for (int64_t j = 0; j < n; ++j) out[g * n + j] = in[bases[g] + j * s.inner];
      }
    });
  }
  // Per batch position: the group positions read as left and right
  // parameter, the pair's two positions, and whether to swap them.
  std::vector<int64_t> left(kChunk), right(kChunk), lo_at(kChunk), hi_at(kChunk);
  std::vector<uint8_t> less(kChunk), swap(kChunk);
  std::vector<const void*> inputs(2 * columns.size());
  std::vector<void*> outputs = {less.data()};
  std::vector<std::pair<int64_t, int64_t>> pairs;
  int64_t padded = 1;
  while (padded < n) padded *= 2;
  for (int64_t p = 1; p < padded; p *= 2) {
    for (int64_t k = p; k >= 1; k /= 2) {
      StagePairs(padded, n, p, k, pairs);
      const int64_t per_slice = static_cast<int64_t>(pairs.size());
      const int64_t total = count * per_slice;
      for (int64_t start = 0; start < total; start += kChunk) {
        const int64_t c = std::min(kChunk, total - start);
        int64_t g = start / per_slice, j = start % per_slice;
        for (int64_t q = 0; q < c; ++q) {
          const int64_t lo = g * n + pairs[j].first, hi = g * n + pairs[j].second;
          const bool in_order = order[lo] < order[hi];
          lo_at[q] = lo;
          hi_at[q] = hi;
          left[q] = in_order ? hi : lo;
          right[q] = in_order ? lo : hi;
          if (++j == per_slice) {
            j = 0;
            ++g;
          }
        }
        for (size_t o = 0; o < columns.size(); ++o) {
          Column& col = columns[o];
          col.lhs.resize(kChunk * col.width);
          col.rhs.resize(kChunk * col.width);
          ByWidth(col.width, [&](auto e) {
            GatherTyped<decltype(e)>(col.data.data(), left.data(), c, col.lhs.data());
            GatherTyped<decltype(e)>(col.data.data(), right.data(), c, col.rhs.data());
          });
          inputs[2 * o] = col.lhs.data();
          inputs[2 * o + 1] = col.rhs.data();
        }
        if (auto st = program.Run(inputs, outputs, c); !st.ok()) return st;
        for (int64_t q = 0; q < c; ++q) {
          // In order: less(x[hi], x[lo]) swaps; else !less(x[lo], x[hi]) does.
          swap[q] = (less[q] != 0) == (order[lo_at[q]] < order[hi_at[q]]);
        }
        SwapTyped<int64_t>(reinterpret_cast<uint8_t*>(order.data()), lo_at.data(), hi_at.data(),
                           swap.data(), c);
        for (Column& col : columns) {
          ByWidth(col.width, [&](auto e) {
            SwapTyped<decltype(e)>(col.data.data(), lo_at.data(), hi_at.data(), swap.data(), c);
          });
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool BatchedComparatorFits(const BatchProgram& program, absl::Span<const Literal* const> operands) {
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

absl::Status SortSlicesBatched(
    const Slices& s, BatchProgram& program, absl::Span<const Literal* const> operands,
    const std::function<void(int64_t, const std::vector<int64_t>&)>& emit) {
  std::vector<int64_t> bases;
  s.ForEach([&](int64_t base) {
    bases.push_back(base);
    return true;
  });
  std::vector<Column> columns(operands.size());
  for (size_t o = 0; o < operands.size(); ++o) {
    columns[o].width = ByteWidth(operands[o]->element_type());
  }
  // Slices sorted together: enough for full batches, few enough that their
  // elements stay in cache through the stages.
  const int64_t group = std::max<int64_t>(1, kGroupElements / std::max<int64_t>(s.n, 1));
  std::vector<int64_t> order, slice_perm(s.n);
  const int64_t slices = static_cast<int64_t>(bases.size());
  for (int64_t first = 0; first < slices; first += group) {
    const int64_t count = std::min(group, slices - first);
    auto st = SortGroup(s, program, operands, bases.data() + first, count, columns, order);
    if (!st.ok()) return st;
    for (int64_t g = 0; g < count; ++g) {
      std::copy(order.begin() + g * s.n, order.begin() + (g + 1) * s.n, slice_perm.begin());
      emit(bases[first + g], slice_perm);
    }
  }
  return absl::OkStatus();
}

}  // namespace sort_internal
}  // namespace hlo
