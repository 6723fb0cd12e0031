// gemm's matrix-vector path: a gemv that the cores split by rows gives the
// same bits as one call of its kernel over the whole matrix on one thread
// (RowDots), however the split
// chooser decides, for both row-dot orientations of a product and for f32
// and f64; every element within the rounding bound of a sum in long double.
// RowDots alone: each row the same bits whatever rows go with it. And large
// products, which the cores split by rows or by columns: every element
// within the rounding bound of a plain sum in long double.
#include "eval/kernels/gemm.h"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "eval/kernels/column_dots.h"
#include "eval/kernels/gemm_libxsmm.h"
#include "eval/kernels/gemm_onednn.h"
#include "eval/kernels/plain_order_test_util.h"
#include "eval/kernels/row_dots.h"
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

// y = mat . x by one call of the row-dot kernel on this thread.
template <typename T>
std::vector<T> OneCall(int64_t rows, int64_t cols, const std::vector<T>& mat,
                       const std::vector<T>& x) {
  std::vector<T> y(rows);
  gemm::RowDots(rows, cols, mat.data(), cols, x.data(), y.data(), 1);
  return y;
}

// Every y[r] within the bound of a sum of cols products: |err| <=
// cols * eps * sum |m x| (generous: blocked sums do better).
template <typename T>
void CheckRowSums(int64_t rows, int64_t cols, const T* mat, int64_t ld, const T* x, const T* y,
                  int64_t incy) {
  for (int64_t r = 0; r < rows; ++r) {
    long double want = 0, magnitude = 0;
    for (int64_t c = 0; c < cols; ++c) {
      want += static_cast<long double>(mat[r * ld + c]) * x[c];
      magnitude += std::abs(static_cast<long double>(mat[r * ld + c]) * x[c]);
    }
    const long double err = std::abs(static_cast<long double>(y[r * incy]) - want);
    INFO("rows=" << rows << " cols=" << cols << " row " << r);
    REQUIRE(err <= cols * std::numeric_limits<T>::epsilon() * magnitude);
  }
}

template <typename T>
void CheckSplitGemv() {
  std::mt19937 rng(11);
  // Row counts on and off the split's 16-row blocks, the kernels' 8-row and
  // OpenBLAS's 4-row groups, columns on and off whole vectors; every matrix
  // is past the split threshold (64 KiB).
  const int64_t shapes[][2] = {{256, 256}, {255, 300}, {1000, 67}, {97, 513}, {4099, 8}};
  for (const auto& shape : shapes) {
    const int64_t rows = shape[0], cols = shape[1];
    const std::vector<T> mat = Random<T>(rows * cols, rng);
    const std::vector<T> x = Random<T>(cols, rng);
    const std::vector<T> want = OneCall(rows, cols, mat, x);
    CheckRowSums(rows, cols, mat.data(), cols, x.data(), want.data(), 1);
    // Enough calls of one size for the chooser to time and use both ways.
    for (int call = 0; call < 300; ++call) {
      std::vector<T> got(rows, T(-7));
      // mat [rows][cols] . x: an n == 1 product ...
      gemm::Gemm<T>(false, false, rows, 1, cols, mat.data(), cols, x.data(), 1, got.data(), 1);
      REQUIRE(std::memcmp(got.data(), want.data(), rows * sizeof(T)) == 0);
      // ... and x^T . mat^T, an m == 1 product with mat read transposed.
      std::vector<T> row(rows, T(-7));
      gemm::Gemm<T>(false, true, 1, rows, cols, x.data(), cols, mat.data(), cols, row.data(), rows);
      REQUIRE(std::memcmp(row.data(), want.data(), rows * sizeof(T)) == 0);
    }
  }
}

TEST_CASE("A gemv split across the cores gives one call's bits (f32)", "[gemm]") {
  CheckSplitGemv<float>();
}

TEST_CASE("A gemv split across the cores gives one call's bits (f64)", "[gemm]") {
  CheckSplitGemv<double>();
}

// RowDots on rows [r0, r1) of a matrix with a leading dimension past its
// columns, into a strided y: each row the bits of the whole call, and
// within the sum's bound.
template <typename T>
void CheckRowDotsGroups() {
  std::mt19937 rng(3);
  for (const int64_t cols : {1, 7, 15, 16, 17, 31, 33, 100}) {
    const int64_t rows = 29, ld = cols + 3, incy = 2;
    const std::vector<T> mat = Random<T>(rows * ld, rng);
    const std::vector<T> x = Random<T>(cols, rng);
    std::vector<T> whole(rows * incy, T(-7));
    gemm::RowDots(rows, cols, mat.data(), ld, x.data(), whole.data(), incy);
    CheckRowSums(rows, cols, mat.data(), ld, x.data(), whole.data(), incy);
    for (const auto& [r0, r1] : {std::pair<int64_t, int64_t>{0, 1}, {3, 12}, {5, 29}, {20, 28}}) {
      std::vector<T> part((r1 - r0) * incy, T(-7));
      gemm::RowDots(r1 - r0, cols, mat.data() + r0 * ld, ld, x.data(), part.data(), incy);
      for (int64_t r = r0; r < r1; ++r) {
        INFO("cols=" << cols << " rows [" << r0 << ", " << r1 << ") row " << r);
        REQUIRE(std::memcmp(&part[(r - r0) * incy], &whole[r * incy], sizeof(T)) == 0);
      }
    }
  }
}

TEST_CASE("RowDots: each row the same bits in any group of rows, within the sum's bound",
          "[gemm]") {
  CheckRowDotsGroups<float>();
  CheckRowDotsGroups<double>();
}

// Row r of RowDots as its header defines it, one scalar at a time: each
// of the 64 bytes' lanes sums its columns (c, c + lanes, ...) in order
// from +0 with fused multiply-adds, then the lanes fold in halves, each
// half's lane i plus the other half's lane i.
template <typename T>
T RowDotsOrder(int64_t cols, const T* row, const T* x) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  T lane[kLanes] = {};
  for (int64_t c = 0; c < cols; ++c) lane[c % kLanes] = std::fma(row[c], x[c], lane[c % kLanes]);
  for (int64_t half = kLanes / 2; half >= 1; half /= 2) {
    for (int64_t i = 0; i < half; ++i) lane[i] = lane[i] + lane[i + half];
  }
  return lane[0];
}

// The blocks of columns (16 vectors of x at a time) and chunks of rows
// (64) that RowDots works in leave every row the bits of RowDotsOrder:
// columns on both sides of the block size and its multiples, rows on both
// sides of the chunk size. The loop of machines without AVX-512 too.
template <typename T>
void CheckRowDotsOrder() {
  constexpr int64_t kBlockCols = 16 * 64 / sizeof(T);
  std::mt19937 rng(5);
  for (const int64_t cols : {int64_t{0}, int64_t{1}, int64_t{64 / sizeof(T) + 1}, kBlockCols - 1,
                             kBlockCols, kBlockCols + 1, 2 * kBlockCols + 5, 3 * kBlockCols}) {
    for (const int64_t rows : {1, 63, 64, 65, 130}) {
      const int64_t ld = cols + 5, incy = 3;
      const std::vector<T> mat = Random<T>(rows * ld, rng);
      const std::vector<T> x = Random<T>(cols, rng);
      std::vector<T> y(rows * incy, T(-7));
      gemm::RowDots(rows, cols, mat.data(), ld, x.data(), y.data(), incy);
      std::vector<T> portable(rows * incy, T(-7));
      gemm::PortableRowDots(rows, cols, mat.data(), ld, x.data(), portable.data(), incy);
      for (int64_t r = 0; r < rows; ++r) {
        const T want = RowDotsOrder(cols, mat.data() + r * ld, x.data());
        INFO("rows=" << rows << " cols=" << cols << " row " << r << ": " << y[r * incy] << " want "
                     << want << ", portable " << portable[r * incy]);
        REQUIRE(std::memcmp(&y[r * incy], &want, sizeof(T)) == 0);
        REQUIRE(std::memcmp(&portable[r * incy], &want, sizeof(T)) == 0);
      }
    }
  }
}

TEST_CASE("RowDots: every row the bits of its lanes' order, across blocks and chunks", "[gemm]") {
  CheckRowDotsOrder<float>();
  CheckRowDotsOrder<double>();
}

// ColumnDots: every result the bits of RowDotsOrder on a's row and b's
// column, for column counts around the vector's lanes (masked loads),
// contractions around the lanes and past the AVX2 path's chunks of p (256
// f32, 128 f64), row counts from 1 to 13 (the AVX2 path takes rows in
// groups of 6, the AVX-512 one in groups of 8), with leading dimensions
// past the sizes. Machines with neither AVX-512 nor AVX2 and FMA
// skip it (it returns false).
template <typename T>
void CheckColumnDotsOrder() {
  constexpr int64_t kLanes = 64 / sizeof(T);
  std::mt19937 rng(11);
  for (const int64_t k :
       {int64_t{1}, kLanes - 1, kLanes, kLanes + 3, int64_t{300}, int64_t{16 * 64 + 5}}) {
    for (const int64_t n :
         {int64_t{2}, kLanes / 2 - 1, kLanes - 1, kLanes, kLanes + 1, 3 * kLanes + 2}) {
      const int64_t m = 1 + (k + n) % 13, lda = k + 2, ldb = n + 3, ldc = n + 4;
      const std::vector<T> a = Random<T>(m * lda, rng);
      const std::vector<T> b = Random<T>(k * ldb, rng);
      std::vector<T> c(m * ldc, T(-7));
      if (!gemm::ColumnDots(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc)) return;
      std::vector<T> column(k);
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t p = 0; p < k; ++p) column[p] = b[p * ldb + j];
        for (int64_t i = 0; i < m; ++i) {
          const T want = RowDotsOrder(k, column.data(), a.data() + i * lda);
          INFO("k=" << k << " n=" << n << " c[" << i << "][" << j << "] = " << c[i * ldc + j]
                    << " want " << want);
          REQUIRE(std::memcmp(&c[i * ldc + j], &want, sizeof(T)) == 0);
        }
      }
      // Nothing past each row's n results is written.
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = n; j < ldc; ++j) REQUIRE(c[i * ldc + j] == T(-7));
      }
    }
  }
}

TEST_CASE("ColumnDots: every result the bits of RowDots' lanes on a column", "[gemm]") {
  CheckColumnDotsOrder<float>();
  CheckColumnDotsOrder<double>();
}

// Infinities and NaNs reach their rows (a masked tail adds zeros only).
TEST_CASE("RowDots: an infinity or NaN in a row's tail reaches that row only", "[gemm]") {
  const int64_t rows = 9, cols = 19;
  std::vector<float> mat(rows * cols, 1.0f), x(cols, 1.0f), y(rows);
  mat[2 * cols + 18] = std::numeric_limits<float>::infinity();
  mat[8 * cols + 17] = std::numeric_limits<float>::quiet_NaN();
  gemm::RowDots(rows, cols, mat.data(), cols, x.data(), y.data(), 1);
  for (int64_t r = 0; r < rows; ++r) {
    INFO("row " << r);
    if (r == 2) {
      REQUIRE(std::isinf(y[r]));
    } else if (r == 8) {
      REQUIRE(std::isnan(y[r]));
    } else {
      REQUIRE(y[r] == 19.0f);
    }
  }
}

// Products of at most 1024 results over k >= 32 sum every result as
// RowDots does, in every transpose form and for one row or column (the
// matrix-vector products among them): each element the bits of
// RowDotsOrder over row i of op(A) and column j of op(B). Against a single
// chain of k fused multiply-adds, positive terms (a classifier's pooled
// activations) come out closer to the exact sum.
template <typename T>
void CheckLaneProducts() {
  std::mt19937 rng(11);
  const int64_t shapes[][3] = {
      {8, 10, 512}, {1, 40, 200}, {40, 1, 200}, {32, 32, 33}, {3, 7, 4096}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    for (int trans = 0; trans < 4; ++trans) {
      const bool ta = trans & 1, tb = trans & 2;
      const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;
      const std::vector<T> a = Random<T>((ta ? k : m) * lda, rng);
      const std::vector<T> b = Random<T>((tb ? n : k) * ldb, rng);
      std::vector<T> c(m * ldc, T(-7));
      gemm::Gemm<T>(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc);
      std::vector<T> row(k), col(k);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t p = 0; p < k; ++p) row[p] = a[ta ? p * lda + i : i * lda + p];
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t p = 0; p < k; ++p) col[p] = b[tb ? j * ldb + p : p * ldb + j];
          const T want = RowDotsOrder(k, row.data(), col.data());
          INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb << " (" << i
                    << ", " << j << "): " << c[i * ldc + j] << " want " << want);
          REQUIRE(std::memcmp(&c[i * ldc + j], &want, sizeof(T)) == 0);
        }
      }
    }
  }
  // Positive terms: lanes stay within 3 units in the last place of the
  // exact sum where one chain of 512 drifts further (about k/2 roundings
  // up in the worst case).
  const int64_t m = 8, n = 10, k = 512;
  std::uniform_real_distribution<double> d(0, 1);
  std::vector<T> a(m * k), b(k * n), c(m * n);
  for (T& x : a) x = static_cast<T>(d(rng));
  for (T& x : b) x = static_cast<T>(d(rng));
  gemm::Gemm<T>(false, false, m, n, k, a.data(), k, b.data(), n, c.data(), n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      long double exact = 0;
      for (int64_t p = 0; p < k; ++p)
        exact += static_cast<long double>(a[i * k + p]) * b[p * n + j];
      const long double ulp = std::numeric_limits<T>::epsilon() * exact / 2;
      INFO("(" << i << ", " << j << "): " << c[i * n + j] << " exact "
               << static_cast<double>(exact));
      REQUIRE(std::abs(c[i * n + j] - exact) <= 3 * ulp);
    }
  }
}

TEST_CASE("Products of few results sum each in RowDots' lanes, in every transpose form", "[gemm]") {
  CheckLaneProducts<float>();
  CheckLaneProducts<double>();
}

// C = op(A) op(B) for products past the threaded threshold (2M multiply-
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

// C = op(A) op(B) through Gemm (or, with `onednn`, OnednnGemm alone, which
// may decline: then false), every element within factor * k * eps * sum |a b|
// of the exact sum (C starts as NaN: an element not written fails). `calls`:
// Gemm's count of such products in the instruction.
template <typename T>
bool CheckGemm(int64_t m, int64_t n, int64_t k, bool ta, bool tb, std::mt19937& rng,
               long double factor, bool onednn = false, int64_t calls = 1) {
  using R = lapack::Real<T>;
  const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;
  std::vector<T> a((ta ? k : m) * lda), b((tb ? n : k) * ldb);
  for (T& x : a) x = RandomElement<T>(rng);
  for (T& x : b) x = RandomElement<T>(rng);
  std::vector<T> c(m * ldc, T(std::numeric_limits<R>::quiet_NaN()));
  if constexpr (std::is_same_v<T, float>) {
    if (onednn && !gemm::OnednnGemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc)) {
      return false;
    }
  }
  if (!onednn) gemm::Gemm<T>(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, calls);
  // The worst element's error over its bound (NaN: an element not written).
  long double worst = 0;
  int64_t worst_i = 0, worst_j = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      // long double, or its complex for complex T.
      using Wide = std::conditional_t<std::is_same_v<R, T>, long double, std::complex<long double>>;
      Wide want = 0;
      long double magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        const Wide x(a[ta ? p * lda + i : i * lda + p]);
        const Wide y(b[tb ? j * ldb + p : p * ldb + j]);
        want += x * y;
        magnitude += std::abs(x) * std::abs(y);
      }
      const long double err = std::abs(Wide(c[i * ldc + j]) - want);
      const long double ratio = err / (factor * k * std::numeric_limits<R>::epsilon() * magnitude);
      if (!(ratio <= worst)) {
        worst = ratio;
        worst_i = i;
        worst_j = j;
      }
    }
  }
  INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb << ": worst at ("
            << worst_i << ", " << worst_j << ")");
  REQUIRE(worst <= 1);
  return true;
}

template <typename T>
void CheckSplitGemm(int shape_count) {
  std::mt19937 rng(5);
  // Split by rows (many rows; few rows with a small B), and by columns
  // (fewer rows than two split units).
  const int64_t shapes[][3] = {{1000, 130, 40}, {130, 1000, 40}, {129, 129, 300}, {100, 1000, 40}};
  for (int s = 0; s < shape_count; ++s) {
    for (int trans = 0; trans < 4; ++trans) {
      CheckGemm<T>(shapes[s][0], shapes[s][1], shapes[s][2], trans & 1, trans & 2, rng, 4);
    }
  }
}

TEST_CASE("A large product split across the cores is a correct gemm", "[gemm]") {
  CheckSplitGemm<float>(4);
  CheckSplitGemm<double>(4);
  CheckSplitGemm<std::complex<float>>(1);
}

// An f32 product of ones and twos with A[5][term] = inf and B's row `term`
// zero: row 5 of C is NaN (inf * 0), every other element 2 (k - 1).
void CheckInfTimesZero(int64_t m, int64_t n, int64_t k, int64_t term) {
  std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f), c(m * n, -1.0f);
  a[5 * k + term] = INFINITY;
  for (int64_t j = 0; j < n; ++j) b[term * n + j] = 0;
  gemm::Gemm<float>(false, false, m, n, k, a.data(), k, b.data(), n, c.data(), n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      INFO("(" << i << ", " << j << ")");
      if (i == 5) {
        REQUIRE(std::isnan(c[i * n + j]));
      } else {
        REQUIRE(c[i * n + j] == 2.0f * (k - 1));
      }
    }
  }
}

// Products of at most 256 terms per element, which run on libxsmm where it
// is built in, A is untransposed and the instruction has 2^23 multiply-adds
// or more (one fused multiply-add chain each, so within k * eps * sum |a b|):
// sizes on and off its register tiles and the 4x4 tiles of a transposed B's
// panel copy, leading dimensions wider than the matrices, one column panel,
// whole panels and a narrower last one, every transpose form, and products
// that reach 2^23 only as one of a batch's 24. An infinity times a zero
// gives NaN.
TEST_CASE("Short f32 products are correct gemms (libxsmm's or OpenBLAS's)", "[gemm]") {
  std::mt19937 rng(9);
  // The first five are under libxsmm's 2^23 multiply-adds (OpenBLAS's).
  const int64_t shapes[][3] = {{33, 17, 256},  {100, 64, 64},   {7, 300, 129},   {300, 3, 250},
                               {5, 2048, 256}, {64, 1024, 200}, {40, 2049, 256}, {3, 16000, 200},
                               {300, 600, 64}, {65, 517, 250}};
  for (const auto& s : shapes) {
    for (int trans = 0; trans < 4; ++trans) {
      CheckGemm<float>(s[0], s[1], s[2], trans & 1, trans & 2, rng, 1);
    }
  }
  for (const auto& s : {std::array<int64_t, 3>{128, 128, 64}, {128, 64, 128}, {97, 131, 63}}) {
    for (int trans = 0; trans < 4; ++trans) {
      CheckGemm<float>(s[0], s[1], s[2], trans & 1, trans & 2, rng, 1, false, 24);
    }
  }
  CheckInfTimesZero(512, 200, 100, 7);  // libxsmm's when built in
}

// Small products with B transposed (B is copied by rows first) keep the
// plain k order's bits: widths on and off the vector lanes, either form of
// A, leading dimensions past the matrices, a NaN and an infinity, and the
// columns past n left alone.
template <typename T>
void CheckTinyTransposedB() {
  std::mt19937 rng(31);
  const int64_t shapes[][3] = {{4, 32, 32}, {5, 17, 3}, {1, 1, 1}, {3, 40, 33}, {16, 16, 16}};
  for (const auto& s : shapes) {
    for (const bool ta : {false, true}) {
      const int64_t m = s[0], n = s[1], k = s[2], lda = (ta ? m : k) + 1, ldbt = k + 2, ldc = n + 1;
      std::vector<T> a = Random<T>((ta ? k : m) * lda, rng), bt = Random<T>(n * ldbt, rng);
      a[0] = std::numeric_limits<T>::quiet_NaN();
      bt[ldbt * (n - 1)] = std::numeric_limits<T>::infinity();
      std::vector<T> c(m * ldc, T(-7));
      gemm::Gemm<T>(ta, true, m, n, k, a.data(), lda, bt.data(), ldbt, c.data(), ldc, 1);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " (" << i << ", " << j
                    << ")");
          const T got = c[i * ldc + j];
          if (j >= n) {
            REQUIRE(got == T(-7));
            continue;
          }
          const T want = PlainOrder(ta, i, k, a, lda, [&](int64_t p) { return bt[j * ldbt + p]; });
          REQUIRE(std::memcmp(&got, &want, sizeof(T)) == 0);
        }
      }
    }
  }
}

TEST_CASE("Small products with B transposed keep the plain k order's bits", "[gemm]") {
  CheckTinyTransposedB<float>();
  CheckTinyTransposedB<double>();
}

// libxsmm's product with B transposed (a panel copy) gives the bits of the
// product with B as it is: one panel, whole panels and a narrower last one,
// k off the copy's 4x4 tiles.
TEST_CASE("libxsmm gives a transposed B's product the bits of the untransposed one", "[gemm]") {
  std::mt19937 rng(21);
  const int64_t shapes[][3] = {{128, 128, 64}, {64, 600, 130}, {33, 257, 255}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2], lda = k + 1, ldb = n + 3, ldbt = k + 2;
    const std::vector<float> a = Random<float>(m * lda, rng), b = Random<float>(k * ldb, rng);
    std::vector<float> bt(n * ldbt, NAN), c(m * n, NAN), ct(m * n, NAN);
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j) bt[j * ldbt + p] = b[p * ldb + j];
    }
    const int64_t calls = int64_t{1} << 23;  // past libxsmm's threshold
    if (!gemm::LibxsmmGemm(false, m, n, k, a.data(), lda, b.data(), ldb, c.data(), n, calls)) {
      WARN("libxsmm did not run here (not built in, or this CPU's kernels decline the shape)");
      continue;
    }
    REQUIRE(gemm::LibxsmmGemm(true, m, n, k, a.data(), lda, bt.data(), ldbt, ct.data(), n, calls));
    INFO("m=" << m << " n=" << n << " k=" << k);
    REQUIRE(std::memcmp(c.data(), ct.data(), c.size() * sizeof(float)) == 0);
  }
}

// libxsmm's products of more than 256 terms (LibxsmmBlockedGemm, where its
// kernels are AVX-512 and OpenBLAS's narrower): every element a sum of its
// k-blocks' sums (blocks of nearly equal length, at most kLibxsmmBlockK
// terms; 257 is 85 + 86 + 86), so within that scheme's worst-case error,
// (longest block + blocks - 1) * u * sum |a b|, far under one chain's k * u
// (a block run short or long, or a block sum left out, is off by a whole
// product or more). The order inside a block is libxsmm's (its kernels sum
// a panel's last 8 or 1 columns in another order than the rest), so no bits
// are asserted. One panel, panels of equal width (300 columns: two of 150)
// and unequal (520: 174 + 174 + 172), 129 and 136 columns, B as it is and
// transposed, leading dimensions wider than the matrices. Through Gemm,
// split across the cores, such products are correct gemms.
TEST_CASE("libxsmm's k-blocked products are within their blocks' error bound", "[gemm]") {
  std::mt19937 rng(31);
  const int64_t shapes[][3] = {{128, 64, 257},  {130, 300, 513}, {200, 520, 1000},
                               {128, 160, 384}, {128, 129, 384}, {128, 136, 384}};
  int ran = 0;
  for (const auto& s : shapes) {
    for (const bool tb : {false, true}) {
      const int64_t m = s[0], n = s[1], k = s[2], lda = k + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;
      const std::vector<float> a = Random<float>(m * lda, rng),
                               b = Random<float>((tb ? n : k) * ldb, rng);
      std::vector<float> c(m * ldc, NAN);
      if (!gemm::LibxsmmBlockedGemm(tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc,
                                    int64_t{1} << 23)) {
        continue;
      }
      ++ran;
      const int64_t blocks = (k + gemm::kLibxsmmBlockK - 1) / gemm::kLibxsmmBlockK;
      const long double unit = std::numeric_limits<float>::epsilon() / 2.0L;
      const long double terms = static_cast<long double>((k + blocks - 1) / blocks + blocks - 1);
      int64_t outside = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          long double want = 0, magnitude = 0;
          for (int64_t p = 0; p < k; ++p) {
            const long double x = a[i * lda + p], y = b[tb ? j * ldb + p : p * ldb + j];
            want += x * y;
            magnitude += std::fabs(x * y);
          }
          outside += !(std::fabs(c[i * ldc + j] - want) <= terms * unit * magnitude);
        }
      }
      INFO("m=" << m << " n=" << n << " k=" << k << " tb=" << tb);
      REQUIRE(outside == 0);
    }
  }
  if (ran == 0)
    WARN("libxsmm's k-blocks did not run here (not built in, no AVX-512, or AVX-512 OpenBLAS)");
  for (const auto& s : {std::array<int64_t, 3>{128, 64, 257}, {130, 300, 513}, {128, 129, 384}}) {
    for (int trans = 0; trans < 4; ++trans) {
      CheckGemm<float>(s[0], s[1], s[2], trans & 1, trans & 2, rng, 1);
    }
  }
}

// Pages locked in this process, in kB (VmLck of /proc/self/status), or -1
// where the kernel does not say.
int64_t LockedKilobytes() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  int64_t kb = -1;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    long long value = 0;
    if (std::sscanf(line, "VmLck: %lld kB", &value) == 1) kb = value;
  }
  std::fclose(status);
  return kb;
}

// libxsmm 1.17 maps its code registry and scratch with MAP_LOCKED, which
// faults in every page (9 MB) at once; the executables wrap mmap to drop
// the flag (libxsmm_mmap.cc). After libxsmm has made and run a kernel, no
// page of this process is locked.
TEST_CASE("libxsmm's mappings are not locked", "[gemm]") {
  std::mt19937 rng(23);
  const int64_t m = 64, n = 256, k = 64;
  const std::vector<float> a = Random<float>(m * k, rng), b = Random<float>(k * n, rng);
  std::vector<float> c(m * n);
  if (!gemm::LibxsmmGemm(false, m, n, k, a.data(), k, b.data(), n, c.data(), n, int64_t{1} << 23)) {
    WARN("libxsmm did not run here (not built in, or this CPU's kernels decline the shape)");
    return;
  }
  const int64_t locked = LockedKilobytes();
  if (locked < 0) {
    WARN("/proc/self/status gives no VmLck here");
    return;
  }
  REQUIRE(locked == 0);
}

// Long f32 products (k past libxsmm's 256), which run on oneDNN where it is
// built in, the CPU has AVX-512 and the product has 2^25 multiply-adds or
// more, in blocks of at most 256 terms: k on and
// off whole blocks (513 is three of 171), every transpose form, leading
// dimensions wider than the matrices; through Gemm (split across the cores)
// and through OnednnGemm alone, which says whether it ran. An infinity
// times a zero gives NaN.
TEST_CASE("Long f32 products are correct gemms (oneDNN's or OpenBLAS's)", "[gemm]") {
  std::mt19937 rng(13);
  const int64_t shapes[][3] = {{300, 230, 512}, {130, 520, 513}, {64, 1100, 768}, {97, 131, 3000}};
  int ran_alone = 0;
  for (const auto& s : shapes) {
    for (int trans = 0; trans < 4; ++trans) {
      CheckGemm<float>(s[0], s[1], s[2], trans & 1, trans & 2, rng, 1);
      ran_alone += CheckGemm<float>(s[0], s[1], s[2], trans & 1, trans & 2, rng, 1, true);
    }
  }
  if (ran_alone == 0) WARN("oneDNN did not run here (not built in, or no AVX-512)");
  CheckInfTimesZero(256, 400, 600, 300);  // oneDNN's second block
}

}  // namespace
}  // namespace hlo
