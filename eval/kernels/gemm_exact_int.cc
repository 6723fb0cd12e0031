#include "eval/kernels/gemm_exact_int.h"

#include <algorithm>
#include <cmath>

#include "eval/kernels/gemm.h"
#include "eval/runtime/scratch_buffer.h"

namespace hlo {
namespace gemm {
namespace {

// Below this many multiply-adds the wrapping loop is as quick as the
// conversions.
constexpr double kLeastProduct = double{1 << 15};

// |v| of v read as a two's-complement int64; 2^63 for INT64_MIN.
uint64_t Magnitude(uint64_t v) {
  const auto s = static_cast<int64_t>(v);
  return s < 0 ? uint64_t{0} - v : v;
}

// The largest magnitude among `rows` rows of `cols` elements, `ld` apart.
uint64_t LargestMagnitude(const uint64_t* p, int64_t rows, int64_t cols, int64_t ld) {
  uint64_t most = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t* row = p + r * ld;
    for (int64_t j = 0; j < cols; ++j) most = std::max(most, Magnitude(row[j]));
  }
  return most;
}

// `rows` rows of `cols` elements, `ld` apart, as F, packed (ld = cols).
template <typename F>
void ToFloats(const uint64_t* p, int64_t rows, int64_t cols, int64_t ld, F* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t* row = p + r * ld;
    F* to = out + r * cols;
    for (int64_t j = 0; j < cols; ++j) to[j] = static_cast<F>(static_cast<int64_t>(row[j]));
  }
}

template <typename F>
bool RunAs(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const uint64_t* a, int64_t lda,
           const uint64_t* b, int64_t ldb, uint64_t* c, int64_t ldc, int64_t calls) {
  // op(A) is m x k: stored as m rows of k (k rows of m transposed); B alike.
  const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  ScratchBuffer<F> fa, fb, fc;
  if (!fa.Reset(a_rows * a_cols).ok() || !fb.Reset(b_rows * b_cols).ok() || !fc.Reset(m * n).ok()) {
    return false;
  }
  ToFloats(a, a_rows, a_cols, lda, fa.data());
  ToFloats(b, b_rows, b_cols, ldb, fb.data());
  Gemm<F>(ta, tb, m, n, k, fa.data(), a_cols, fb.data(), b_cols, fc.data(), n, calls);
  // Each sum is an exact integer within 2^53: back to int64, then its
  // two's complement, as the loop's modular sum reads.
  for (int64_t i = 0; i < m; ++i) {
    const F* from = fc.data() + i * n;
    uint64_t* to = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) to[j] = static_cast<uint64_t>(static_cast<int64_t>(from[j]));
  }
  return true;
}

}  // namespace

int ExactFloatBits(int64_t k, uint64_t max_a, uint64_t max_b) {
  if (k <= 0 || max_a == 0 || max_b == 0) return 32;
  // k * max_a * max_b in doubles: five roundings at most, each within
  // 2^-53 relatively, so a computed bound at most 2^x (1 - 2^-50) means the
  // true one is at most 2^x. Integers up to 2^24 (2^53) are floats
  // (doubles), so is every product and partial sum then.
  const double bound =
      static_cast<double>(k) * static_cast<double>(max_a) * static_cast<double>(max_b);
  const double margin = 1.0 - std::ldexp(1.0, -50);
  if (bound <= std::ldexp(1.0, 24) * margin) return 32;
  if (bound <= std::ldexp(1.0, 53) * margin) return 64;
  return 0;
}

bool ExactIntegerGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const uint64_t* a,
                      int64_t lda, const uint64_t* b, int64_t ldb, uint64_t* c, int64_t ldc,
                      int64_t calls) {
  if (k < 1 || static_cast<double>(m) * n * k < kLeastProduct) return false;
  const uint64_t max_a = LargestMagnitude(a, ta ? k : m, ta ? m : k, lda);
  const uint64_t max_b = LargestMagnitude(b, tb ? n : k, tb ? k : n, ldb);
  switch (ExactFloatBits(k, max_a, max_b)) {
    case 32:
      return RunAs<float>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, calls);
    case 64:
      return RunAs<double>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, calls);
    default:
      return false;
  }
}

}  // namespace gemm
}  // namespace hlo
