// gemm's matrix-vector path: a gemv that the cores split by rows gives the
// same bits as OpenBLAS's one call over the whole matrix (the oracle here),
// however the split chooser decides, for both row-dot orientations of a
// product and for f32 and f64. And large products, which the cores split by
// rows or by columns: every element within the rounding bound of a plain
// sum in long double.
#include <cblas.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "eval/kernels/gemm.h"
#include "eval/linalg/lapack_fortran.h"  // lapack::Real

namespace hlo {
namespace {

template <typename T>
std::vector<T> Random(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

// y = mat . x by one OpenBLAS call on this thread.
template <typename T>
std::vector<T> OneCall(int64_t rows, int64_t cols, const std::vector<T>& mat,
                       const std::vector<T>& x) {
  std::vector<T> y(rows);
  gemm::SingleThreadedBlas one;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(rows), static_cast<int>(cols), 1.0f,
                mat.data(), static_cast<int>(cols), x.data(), 1, 0.0f, y.data(), 1);
  } else {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(rows), static_cast<int>(cols), 1.0,
                mat.data(), static_cast<int>(cols), x.data(), 1, 0.0, y.data(), 1);
  }
  return y;
}

template <typename T>
void CheckSplitGemv() {
  std::mt19937 rng(11);
  // Row counts on and off the split's 16-row blocks and OpenBLAS's 4-row
  // groups; every matrix is past the split threshold (64 KiB).
  const int64_t shapes[][2] = {{256, 256}, {255, 300}, {1000, 67}, {97, 513}, {4099, 8}};
  for (const auto& shape : shapes) {
    const int64_t rows = shape[0], cols = shape[1];
    const std::vector<T> mat = Random<T>(rows * cols, rng);
    const std::vector<T> x = Random<T>(cols, rng);
    const std::vector<T> want = OneCall(rows, cols, mat, x);
    // Enough calls of one size for the chooser to time and use both ways.
    for (int call = 0; call < 300; ++call) {
      std::vector<T> got(rows, T(-7));
      // mat [rows][cols] . x: an n == 1 product ...
      gemm::Gemm<T>(false, false, rows, 1, cols, mat.data(), cols, x.data(), 1, got.data(), 1);
      REQUIRE(std::memcmp(got.data(), want.data(), rows * sizeof(T)) == 0);
      // ... and x^T . mat^T, an m == 1 product with mat read transposed.
      std::vector<T> row(rows, T(-7));
      gemm::Gemm<T>(false, true, 1, rows, cols, x.data(), cols, mat.data(), cols, row.data(),
                    rows);
      REQUIRE(std::memcmp(row.data(), want.data(), rows * sizeof(T)) == 0);
    }
  }
}

TEST_CASE("A gemv split across the cores gives OpenBLAS's bits (f32)", "[gemm]") {
  CheckSplitGemv<float>();
}

TEST_CASE("A gemv split across the cores gives OpenBLAS's bits (f64)", "[gemm]") {
  CheckSplitGemv<double>();
}

// C = op(A) op(B) for products past the threaded threshold (4M multiply-
// adds), split by rows (m large) or by columns (n large), with either
// operand transposed and sizes off the split's 64-row units; leading
// dimensions wider than the matrices.
template <typename T>
T RandomElement(std::mt19937& rng) {
  std::uniform_real_distribution<double> d(-1, 1);
  if constexpr (std::is_same_v<lapack::Real<T>, T>) {
    return T(d(rng));
  } else {
    const double re = d(rng);
    return T(re, d(rng));
  }
}

template <typename T>
void CheckSplitGemm(int shape_count) {
  using R = lapack::Real<T>;
  std::mt19937 rng(5);
  const int64_t shapes[][3] = {{1000, 130, 40}, {130, 1000, 40}, {129, 129, 300}};
  for (int s = 0; s < shape_count; ++s) {
    const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    for (int trans = 0; trans < 4; ++trans) {
      const bool ta = trans & 1, tb = trans & 2;
      const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;
      std::vector<T> a((ta ? k : m) * lda), b((tb ? n : k) * ldb);
      for (T& x : a) x = RandomElement<T>(rng);
      for (T& x : b) x = RandomElement<T>(rng);
      std::vector<T> c(m * ldc, T(std::numeric_limits<R>::quiet_NaN()));
      gemm::Gemm<T>(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc);
      // The worst element's error over its bound (NaN: an element not written).
      long double worst = 0;
      int64_t worst_i = 0, worst_j = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          // long double, or its complex for complex T.
          using Wide = std::conditional_t<std::is_same_v<R, T>, long double,
                                          std::complex<long double>>;
          Wide want = 0;
          long double magnitude = 0;
          for (int64_t p = 0; p < k; ++p) {
            const Wide x(a[ta ? p * lda + i : i * lda + p]);
            const Wide y(b[tb ? j * ldb + p : p * ldb + j]);
            want += x * y;
            magnitude += std::abs(x) * std::abs(y);
          }
          const long double err = std::abs(Wide(c[i * ldc + j]) - want);
          const long double ratio = err / (4 * k * std::numeric_limits<R>::epsilon() * magnitude);
          if (!(ratio <= worst)) {
            worst = ratio;
            worst_i = i;
            worst_j = j;
          }
        }
      }
      INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb
                << ": worst at (" << worst_i << ", " << worst_j << ")");
      REQUIRE(worst <= 1);
    }
  }
}

TEST_CASE("A large product split across the cores is a correct gemm", "[gemm]") {
  CheckSplitGemm<float>(3);
  CheckSplitGemm<double>(3);
  CheckSplitGemm<std::complex<float>>(1);
}

}  // namespace
}  // namespace hlo
