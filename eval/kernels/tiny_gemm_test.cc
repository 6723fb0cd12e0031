// TinyGemmRows gives the plain k order's bits: each element from +0, one
// rounded product and one rounded sum per k step, for widths across its
// vector and block sizes (1 to 3 blocks of 8 vectors, a partial last
// vector), either form of A, leading dimensions past the matrices, and
// special values (a zero product, -0, infinities and NaN).
#include "eval/kernels/tiny_gemm.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "eval/kernels/plain_order_test_util.h"

namespace hlo {
namespace {

template <typename T>
void CheckTinyGemm() {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> d(-1, 1);
  constexpr int64_t kLanes = 64 / sizeof(T);
  const T specials[] = {T(0), T(-0.0), std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(), T(1e-30)};
  for (const int64_t n :
       {int64_t{1}, kLanes - 1, kLanes, kLanes + 1, 8 * kLanes, 8 * kLanes + 3, 17 * kLanes + 5}) {
    for (const int64_t k : {1, 2, 33}) {
      for (const bool ta : {false, true}) {
        const int64_t m = 5, lda = (ta ? m : k) + 2, ldb = n + 3, ldc = n + 1;
        std::vector<T> a((ta ? k : m) * lda), b(k * ldb);
        for (T& x : a) x = static_cast<T>(d(rng));
        for (T& x : b) x = static_cast<T>(d(rng));
        a[1] = specials[n % 5];
        b[ldb * (k - 1)] = specials[(n + k) % 5];
        std::vector<T> c(m * ldc, T(-7));
        if (!gemm::TinyGemmRows(ta, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc)) {
          return;  // neither AVX-512 nor AVX2 here: gemm runs its plain loop
        }
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            INFO("n=" << n << " k=" << k << " ta=" << ta << " (" << i << ", " << j << ")");
            if (j >= n) {
              REQUIRE(c[i * ldc + j] == T(-7));  // past the columns: untouched
              continue;
            }
            const T want = PlainOrder(ta, i, k, a, lda, [&](int64_t p) { return b[p * ldb + j]; });
            const T got = c[i * ldc + j];
            REQUIRE((std::memcmp(&got, &want, sizeof(T)) == 0 ||
                     (std::isnan(got) && std::isnan(want))));
          }
        }
      }
    }
  }
}

TEST_CASE("TinyGemmRows: the plain k order's bits, every width and form", "[gemm]") {
  CheckTinyGemm<float>();
  CheckTinyGemm<double>();
}

}  // namespace
}  // namespace hlo
