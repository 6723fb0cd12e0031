// Folds of contiguous rows under a simple reducer (the typed reduce fast
// paths: eval/kernels/reduce.cc, eval/interp/reduce_one_pass.cc). Reduction order is
// implementation-defined in XLA and StableHLO; float sums and products fold
// pairwise so that their error grows with log n, not n.
#ifndef HLO_EVAL_INTERP_REDUCE_FOLD_H_
#define HLO_EVAL_INTERP_REDUCE_FOLD_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "eval/interp/reduce_ops.h"

namespace hlo {
namespace reduction {

// Folds a contiguous row. Reduction order is implementation-defined (XLA
// and StableHLO), so the row is split over eight independent accumulators
// that the compiler can keep in vector registers, then combined pairwise.
// Float max/min of a row: SSE max/min over 4-lane registers (which return
// the second operand when unordered) with NaNs collected on the side, then
// the IEEE details fixed up: any NaN gives NaN, and a zero result takes +0
// (max) or -0 (min) when the row holds one.
#if defined(__x86_64__)
// The float loop of FoldRowMinMax on 8-lane AVX2 registers, four of them:
// folds src[0, k) into *r and *any_nan, returns k (a multiple of 32).
template <Opcode op>
__attribute__((target("avx2"))) int64_t FoldMinMaxAvx2(const float* src, int64_t n, float* r,
                                                       bool* any_nan) {
  __m256 m[4], bad = _mm256_setzero_ps();
  for (__m256& v : m) v = _mm256_set1_ps(src[0]);
  int64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    __m256 x[4];
    for (int j = 0; j < 4; ++j) {
      x[j] = _mm256_loadu_ps(src + k + 8 * j);
      m[j] = op == Opcode::kMaximum ? _mm256_max_ps(x[j], m[j]) : _mm256_min_ps(x[j], m[j]);
    }
    // unordered(a, b): a or b is NaN, so one compare checks two registers
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(x[0], x[1], _CMP_UNORD_Q));
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(x[2], x[3], _CMP_UNORD_Q));
  }
  // The lanes folded as a tree (a scalar pass over 32 lanes was most of a
  // 64-element row's fold): which of equal values wins does not show, as
  // zeros are fixed up after and NaNs answered apart.
  __m128 h;
  if constexpr (op == Opcode::kMaximum) {
    const __m256 v = _mm256_max_ps(_mm256_max_ps(m[0], m[1]), _mm256_max_ps(m[2], m[3]));
    h = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ps(h, _mm_shuffle_ps(h, h, 1));
  } else {
    const __m256 v = _mm256_min_ps(_mm256_min_ps(m[0], m[1]), _mm256_min_ps(m[2], m[3]));
    h = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_min_ps(h, _mm_movehl_ps(h, h));
    h = _mm_min_ps(h, _mm_shuffle_ps(h, h, 1));
  }
  const float lane = _mm_cvtss_f32(h);
  const float acc = *r;
  *r = op == Opcode::kMaximum ? (acc < lane ? lane : acc) : (lane < acc ? lane : acc);
  *any_nan = _mm256_movemask_ps(bad) != 0;
  return k;
}

inline bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

template <Opcode op, typename T>
T FoldRowMinMax(const T* src, int64_t n) {
  T r = src[0];
  bool any_nan = false;
  int64_t k = 0;
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>) {
    if (n >= 64 && HasAvx2()) k = FoldMinMaxAvx2<op>(src, n, &r, &any_nan);
  }
#endif
#if defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>) {
    __m128 m0 = _mm_set1_ps(src[0]), m1 = m0;
    __m128 bad = _mm_setzero_ps();
    for (; k + 8 <= n; k += 8) {
      __m128 x0 = _mm_loadu_ps(src + k), x1 = _mm_loadu_ps(src + k + 4);
      bad = _mm_or_ps(bad, _mm_or_ps(_mm_cmpunord_ps(x0, x0), _mm_cmpunord_ps(x1, x1)));
      if constexpr (op == Opcode::kMaximum) {
        m0 = _mm_max_ps(x0, m0);
        m1 = _mm_max_ps(x1, m1);
      } else {
        m0 = _mm_min_ps(x0, m0);
        m1 = _mm_min_ps(x1, m1);
      }
    }
    alignas(16) float lanes[8];
    _mm_store_ps(lanes, m0);
    _mm_store_ps(lanes + 4, m1);
    for (float v : lanes) r = op == Opcode::kMaximum ? (r < v ? v : r) : (v < r ? v : r);
    any_nan |= _mm_movemask_ps(bad) != 0;
  }
#endif
  for (; k < n; ++k) {
    T x = src[k];
    r = op == Opcode::kMaximum ? (r < x ? x : r) : (x < r ? x : r);
    any_nan |= x != x;
  }
  if (any_nan) return std::numeric_limits<T>::quiet_NaN();
  if (r == 0) {
    bool want_negative = op == Opcode::kMinimum;
    for (int64_t i = 0; i < n; ++i) {
      if (src[i] == 0 && std::signbit(src[i]) == want_negative) return src[i];
    }
  }
  return r;
}

// A row in kLanes independent accumulators (the compiler keeps them in
// vector registers, several of them, so the adds do not wait on each
// other), combined pairwise.
template <Opcode op, typename T>
T FoldRowLanes(const T* src, int64_t n) {
  constexpr int kLanes = 16;
  if (n < 2 * kLanes) {
    T a = src[0];
    for (int64_t k = 1; k < n; ++k) a = Apply<op>(a, src[k]);
    return a;
  }
  T p[kLanes];
  for (int j = 0; j < kLanes; ++j) p[j] = src[j];
  int64_t k = kLanes;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(p[j], src[k + j]);
  }
  for (; k < n; ++k) p[0] = Apply<op>(p[0], src[k]);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) p[j] = Apply<op>(p[j], p[j + w]);
  }
  return p[0];
}

// Float sums and products round at every step, so their folds are
// pairwise: each whole block of kPairwiseBlock elements folds into the 16
// lanes (16 elements per lane), and the blocks' lane vectors combine as a
// balanced binary tree (a binary counter: block i merges with the blocks
// before it as the trailing ones of i say), lane by lane; then the lanes
// combine pairwise and the last partial block is added. The error grows
// with about 16 + log2(n / 256) + 4 roundings instead of n / 16, at the
// speed of the plain lanes (256 elements is a loop GCC unrolls in full;
// 512 to 2048 measured a third slower on memory-bound rows).
constexpr int64_t kPairwiseBlock = 256;

template <Opcode op, typename T>
constexpr bool kPairwise = std::is_floating_point_v<T> &&
                           (op == Opcode::kAdd || op == Opcode::kMultiply);

// p, q = the lanes of the blocks at `blocks` and `blocks + kPairwiseBlock`
// (PairwiseStack::PushTwo), on SSE2 registers or, below, AVX2 ones (16
// lanes of two blocks do not fit SSE2's 16 registers without spills).
template <Opcode op, typename T, int kLanes>
inline void FoldTwoBlocks(const T* blocks, T* p_out, T* q_out) {
  const T* b = blocks + kPairwiseBlock;
  T p[kLanes], q[kLanes];  // locals: registers, as the outputs might alias
  for (int j = 0; j < kLanes; ++j) {
    p[j] = blocks[j];
    q[j] = b[j];
  }
  for (int64_t k = kLanes; k < kPairwiseBlock; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      p[j] = Apply<op>(p[j], blocks[k + j]);
      q[j] = Apply<op>(q[j], b[k + j]);
    }
  }
  for (int j = 0; j < kLanes; ++j) {
    p_out[j] = p[j];
    q_out[j] = q[j];
  }
}
#if defined(__x86_64__)
template <Opcode op>
__attribute__((target("avx2"))) inline __m256 ApplyAvx2(__m256 a, __m256 b) {
  return op == Opcode::kAdd ? _mm256_add_ps(a, b) : _mm256_mul_ps(a, b);
}

// PairwiseStack<op, float>::PushAll on AVX2 for float sums and products:
// pairs of blocks folded together into 16 lanes each (two registers a
// block, four chains of 15 dependent ops), each then merged into the
// binary counter, all in registers. The same values as Push per block.
// Returns the elements taken (whole pairs of blocks).
template <Opcode op>
__attribute__((target("avx2"))) int64_t PushPairsAvx2(float (*stack)[16], int& top, uint64_t& count,
                                                      const float* src, int64_t n) {
  int64_t b = 0;
  for (; b + 2 * kPairwiseBlock <= n; b += 2 * kPairwiseBlock) {
    const float* x = src + b;
    const float* y = x + kPairwiseBlock;
    __m256 v[2][2] = {{_mm256_loadu_ps(x), _mm256_loadu_ps(x + 8)},
                      {_mm256_loadu_ps(y), _mm256_loadu_ps(y + 8)}};
    for (int64_t k = 16; k < kPairwiseBlock; k += 16) {
      v[0][0] = ApplyAvx2<op>(v[0][0], _mm256_loadu_ps(x + k));
      v[0][1] = ApplyAvx2<op>(v[0][1], _mm256_loadu_ps(x + k + 8));
      v[1][0] = ApplyAvx2<op>(v[1][0], _mm256_loadu_ps(y + k));
      v[1][1] = ApplyAvx2<op>(v[1][1], _mm256_loadu_ps(y + k + 8));
    }
    for (auto& p : v) {
      for (uint64_t c = count; c & 1; c >>= 1) {
        --top;
        p[0] = ApplyAvx2<op>(_mm256_loadu_ps(stack[top]), p[0]);
        p[1] = ApplyAvx2<op>(_mm256_loadu_ps(stack[top] + 8), p[1]);
      }
      _mm256_storeu_ps(stack[top], p[0]);
      _mm256_storeu_ps(stack[top] + 8, p[1]);
      ++top;
      ++count;
    }
  }
  return b;
}
#endif

// The binary counter of a pairwise fold: whole blocks fold into kLanes
// lanes each, and a block merges with the ones before it as the trailing
// ones of its index say.
template <Opcode op, typename T>
struct PairwiseStack {
  static constexpr int kLanes = 16;
  T stack[64][kLanes];
  int top = 0;
  uint64_t count = 0;

  void Push(const T* block) {
    T p[kLanes];
    FoldBlock(block, p);
    Merge(p);
  }
  // Two consecutive blocks: their folds interleaved, so that the adds of
  // one fill the latency of the other's (each lane is a chain of 15
  // dependent adds); the same values as two Push calls.
  void PushTwo(const T* blocks) {
    T p[kLanes], q[kLanes];
    FoldTwoBlocks<op, T, kLanes>(blocks, p, q);
    Merge(p);
    Merge(q);
  }
  static void FoldBlock(const T* block, T* p) {
    for (int j = 0; j < kLanes; ++j) p[j] = block[j];
    for (int64_t k = kLanes; k < kPairwiseBlock; k += kLanes) {
      for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(p[j], block[k + j]);
    }
  }
  // Adds a block's lanes to the counter.
  void Merge(const T* lanes) {
    T p[kLanes];  // a local: the compiler keeps it in registers
    for (int j = 0; j < kLanes; ++j) p[j] = lanes[j];
    for (uint64_t c = count; c & 1; c >>= 1) {
      --top;
      for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(stack[top][j], p[j]);
    }
    for (int j = 0; j < kLanes; ++j) stack[top][j] = p[j];
    ++top;
    ++count;
  }
  // Whole blocks from src on: returns how many elements it took.
  int64_t PushAll(const T* src, int64_t n) {
    int64_t b = 0;
#if defined(__x86_64__)
    if constexpr (std::is_same_v<T, float> && kLanes == 16 && kPairwise<op, T>) {
      if (HasAvx2()) b = PushPairsAvx2<op>(stack, top, count, src, n);
    }
#endif
    for (; b + 2 * kPairwiseBlock <= n; b += 2 * kPairwiseBlock) PushTwo(src + b);
    if (b + kPairwiseBlock <= n) {
      Push(src + b);
      b += kPairwiseBlock;
    }
    return b;
  }
  // The blocks so far (at least one) combined: the stack from the top
  // down, then the lanes pairwise.
  T Fold() const {
    T p[kLanes];
    for (int j = 0; j < kLanes; ++j) p[j] = stack[top - 1][j];
    for (int i = top - 2; i >= 0; --i) {
      for (int j = 0; j < kLanes; ++j) p[j] = Apply<op>(stack[i][j], p[j]);
    }
    for (int w = kLanes / 2; w > 0; w /= 2) {
      for (int j = 0; j < w; ++j) p[j] = Apply<op>(p[j], p[j + w]);
    }
    return p[0];
  }
};

template <Opcode op, typename T>
T FoldRowPairwise(const T* src, int64_t n) {
  if (n <= kPairwiseBlock) return FoldRowLanes<op>(src, n);
  PairwiseStack<op, T> s;
  const int64_t whole = n / kPairwiseBlock * kPairwiseBlock;
  s.PushAll(src, whole);
  const T r = s.Fold();
  if (whole == n) return r;
  return Apply<op>(r, FoldRowLanes<op>(src + whole, n - whole));
}

// Folds a contiguous row. Reduction order is implementation-defined (XLA
// and StableHLO), so the row is split over eight independent accumulators
// that the compiler can keep in vector registers, then combined pairwise
// (float sums and products: pairwise over blocks, see kPairwiseBlock).
template <Opcode op, typename T>
T FoldRow(const T* src, int64_t n) {
  if constexpr (std::is_floating_point_v<T> && (op == Opcode::kMaximum || op == Opcode::kMinimum)) {
    if (n >= 16) return FoldRowMinMax<op>(src, n);
  }
  if constexpr (kPairwise<op, T>) {
    return FoldRowPairwise<op>(src, n);
  } else {
    return FoldRowLanes<op>(src, n);
  }
}

// FoldRow over a row given in consecutive pieces of any lengths, with the
// same result as FoldRow over the whole row (pieces that split a pairwise
// block are gathered first). Reset() before each row.
template <Opcode op, typename T>
class RowStream {
 public:
  void Reset() {
    if constexpr (kPairwise<op, T>) {
      stack_.top = 0;
      stack_.count = 0;
      fill_ = 0;
    } else {
      any_ = false;
    }
  }
  void Add(const T* src, int64_t n) {
    if (n <= 0) return;
    if constexpr (kPairwise<op, T>) {
      if (fill_ > 0) {
        const int64_t take = std::min<int64_t>(kPairwiseBlock - fill_, n);
        std::copy(src, src + take, part_ + fill_);
        fill_ += take;
        src += take;
        n -= take;
        if (fill_ < kPairwiseBlock) return;
        stack_.Push(part_);
        fill_ = 0;
      }
      const int64_t took = stack_.PushAll(src, n);
      src += took;
      n -= took;
      std::copy(src, src + n, part_);
      fill_ = n;
    } else {
      const T r = FoldRow<op>(src, n);
      acc_ = any_ ? Apply<op>(acc_, r) : r;
      any_ = true;
    }
  }
  // Whether any element was added.
  bool Empty() const {
    if constexpr (kPairwise<op, T>) {
      return stack_.count == 0 && fill_ == 0;
    } else {
      return !any_;
    }
  }
  // The fold of the elements added (at least one).
  T Result() const {
    if constexpr (kPairwise<op, T>) {
      // FoldRowPairwise: a row of at most one block folds in lanes.
      if (stack_.count == 0) return FoldRowLanes<op>(part_, fill_);
      const T r = stack_.Fold();
      return fill_ == 0 ? r : Apply<op>(r, FoldRowLanes<op>(part_, fill_));
    } else {
      return acc_;
    }
  }

 private:
  PairwiseStack<op, T> stack_;
  T part_[kPairwiseBlock];
  int64_t fill_ = 0;
  T acc_{};
  bool any_ = false;
};

}  // namespace reduction
}  // namespace hlo

#endif  // HLO_EVAL_INTERP_REDUCE_FOLD_H_
