// gemm's matrix-vector path: a gemv that the cores split by rows gives the
// same bits as OpenBLAS's one call over the whole matrix (the oracle here),
// however the split chooser decides, for both row-dot orientations of a
// product and for f32 and f64.
#include <cblas.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "eval/kernels/gemm.h"

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

}  // namespace
}  // namespace hlo
