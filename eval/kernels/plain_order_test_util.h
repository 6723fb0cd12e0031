// The small-product order that gemm's plain loops and TinyGemmRows keep
// (gemm.cc's NaiveGemm): for tests of their bits.
#ifndef HLO_EVAL_KERNELS_PLAIN_ORDER_TEST_UTIL_H_
#define HLO_EVAL_KERNELS_PLAIN_ORDER_TEST_UTIL_H_

#include <cstdint>
#include <vector>

namespace hlo {

// c = 0; c = c + A(i, p) * B(p) for each p in order, every step rounded to
// T (volatile keeps the compiler from fusing the multiply and the add).
// `b_at(p)`: B(p, j) of the result's column j.
template <typename T, typename BAt>
T PlainOrder(bool ta, int64_t i, int64_t k, const std::vector<T>& a, int64_t lda, BAt b_at) {
  T c = 0;
  for (int64_t p = 0; p < k; ++p) {
    volatile T product = (ta ? a[p * lda + i] : a[i * lda + p]) * b_at(p);
    c = c + product;
  }
  return c;
}

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_PLAIN_ORDER_TEST_UTIL_H_
