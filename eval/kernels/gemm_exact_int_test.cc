// Integer products on the float BLAS (gemm_exact_int.h): the bound that
// picks f32, f64 or the wrapping loop, and Gemm<uint64_t>'s results against
// a wrapping sum written here, on the bounds' edges, in every transposition.
#include "eval/kernels/gemm_exact_int.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "eval/kernels/gemm.h"

namespace hlo {
namespace {

using gemm::ExactFloatBits;

TEST_CASE("an integer product runs in the float whose integers hold every sum",
          "[gemm_exact_int]") {
  // s8 x s8: |a b| <= 2^14, so k = 1023 stays within 2^24; 1024 would reach it.
  CHECK(ExactFloatBits(1023, 128, 128) == 32);
  CHECK(ExactFloatBits(1024, 128, 128) == 64);
  CHECK(ExactFloatBits(1 << 20, 128, 128) == 64);
  // 2^53 is the double's edge.
  CHECK(ExactFloatBits(1 << 13, uint64_t{1} << 20, uint64_t{1} << 19) == 64);
  CHECK(ExactFloatBits(1 << 14, uint64_t{1} << 20, uint64_t{1} << 20) == 0);
  CHECK(ExactFloatBits(2, uint64_t{1} << 63, 1) == 0);
  // Zeros make every sum zero.
  CHECK(ExactFloatBits(1 << 30, 0, uint64_t{1} << 63) == 32);
}

// C = op(A) op(B) summed modulo 2^64, element by element.
std::vector<uint64_t> Reference(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                                const std::vector<uint64_t>& a, int64_t lda,
                                const std::vector<uint64_t>& b, int64_t ldb) {
  std::vector<uint64_t> c(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint64_t sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * n + j] = sum;
    }
  }
  return c;
}

// Values in [lo, hi], sign-extended as the dot's operand views hold them.
std::vector<uint64_t> Ints(int64_t count, int64_t lo, int64_t hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<uint64_t> v(count);
  for (uint64_t& x : v) x = static_cast<uint64_t>(d(rng));
  return v;
}

void CheckProduct(int64_t m, int64_t n, int64_t k, int64_t lo, int64_t hi, bool extremes) {
  std::mt19937_64 rng(static_cast<uint64_t>(m * 131 + n * 17 + k));
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
      std::vector<uint64_t> a = Ints((ta ? k : m) * lda, lo, hi, rng);
      std::vector<uint64_t> b = Ints((tb ? n : k) * ldb, lo, hi, rng);
      if (extremes) {  // every product hi * hi, odd: sums past the float's
        std::fill(a.begin(), a.end(), static_cast<uint64_t>(hi));  // integers would round
        std::fill(b.begin(), b.end(), static_cast<uint64_t>(hi));
      }
      std::vector<uint64_t> c(m * ldc, 0xdeadbeef);
      gemm::Gemm<uint64_t>(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc);
      const std::vector<uint64_t> want = Reference(ta, tb, m, n, k, a, lda, b, ldb);
      int64_t wrong = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) wrong += c[i * ldc + j] != want[i * n + j];
        for (int64_t j = n; j < ldc; ++j) wrong += c[i * ldc + j] != 0xdeadbeef;
      }
      INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb);
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("integer products give the wrapping sums on every path", "[gemm_exact_int]") {
  SECTION("s8 on sgemm, up to the f32 edge") {
    CheckProduct(40, 36, 64, -128, 127, false);
    CheckProduct(8, 9, 1040, -127, 127, true);  // 1040 * 127^2 < 2^24
  }
  SECTION("past f32's edge, on dgemm") {
    CheckProduct(8, 9, 1100, -127, 127, true);                    // 1100 * 127^2 > 2^24
    CheckProduct(24, 20, 300, -(1 << 15), (1 << 15) - 1, false);  // s16
    CheckProduct(16, 18, 200, 0, 65535, false);                   // u16
  }
  SECTION("past f64's edge: the wrapping loop, sums wrapping modulo 2^64") {
    CheckProduct(16, 20, 128, -(int64_t{1} << 40), int64_t{1} << 40, false);
    CheckProduct(12, 10, 300, INT64_MIN, INT64_MAX, false);
  }
  SECTION("small products stay on the loop") { CheckProduct(3, 4, 5, -128, 127, false); }
}

}  // namespace
}  // namespace hlo
