// 8-bit integer products on oneDNN's VNNI gemm: every element the exact
// sum modulo the result's width (a plain int64 loop), for each operand type
// pair, transpose form, result width and leading dimension, on operands
// that reach -128 and 255; the bound on k at its edge (the largest sums the
// s32 lanes may hold); and the cases that must be declined.
#include "eval/kernels/gemm_int8.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "eval/kernels/gemm_onednn.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

struct Matrix {
  int64_t rows, cols, ld;
  std::vector<uint8_t> bytes;  // s8 or u8 elements, row-major with ld
};

// Random elements of `type`, with the type's extremes at the corners.
Matrix RandomMatrix(PT type, int64_t rows, int64_t cols, int64_t pad, std::mt19937& rng) {
  Matrix m{rows, cols, cols + pad, {}};
  m.bytes.resize(static_cast<size_t>(rows * m.ld));
  std::uniform_int_distribution<int> d(0, 255);
  for (uint8_t& b : m.bytes) b = static_cast<uint8_t>(d(rng));
  const uint8_t low = type == PT::kU8 ? 0 : 0x80, high = type == PT::kU8 ? 255 : 0x7f;
  m.bytes[0] = low;
  m.bytes[static_cast<size_t>((rows - 1) * m.ld + cols - 1)] = high;
  return m;
}

int64_t Element(PT type, const Matrix& m, int64_t r, int64_t c) {
  const uint8_t v = m.bytes[static_cast<size_t>(r * m.ld + c)];
  return type == PT::kU8 ? v : static_cast<int8_t>(v);
}

// The exact sum of op(A) op(B) at (i, j).
int64_t ExactSum(PT at, const Matrix& a, bool ta, PT bt, const Matrix& b, bool tb, int64_t k,
                 int64_t i, int64_t j) {
  int64_t s = 0;
  for (int64_t x = 0; x < k; ++x) {
    s += Element(at, a, ta ? x : i, ta ? i : x) * Element(bt, b, tb ? j : x, tb ? x : j);
  }
  return s;
}

// The result element at (i, j) of C (ldc), as its bits in a uint64.
uint64_t Stored(PT result, const std::vector<uint8_t>& c, int64_t ldc, int64_t i, int64_t j) {
  const int bytes = BitWidth(result) / 8;
  uint64_t v = 0;
  std::memcpy(&v, c.data() + (i * ldc + j) * bytes, static_cast<size_t>(bytes));
  return v;
}

uint64_t Wrapped(PT result, int64_t sum) {
  const int bits = BitWidth(result);
  const uint64_t u = static_cast<uint64_t>(sum);
  return bits == 64 ? u : u & ((uint64_t{1} << bits) - 1);
}

// Int8Gemm against the exact sums; false when it declined. `dense`: no
// padding past any row (where AMX runs, the only products oneDNN's AMX
// kernels take).
bool CheckProduct(PT at, PT bt, PT result, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                  std::mt19937& rng, bool dense = false) {
  const int pad = dense ? 0 : 1;
  const Matrix a = ta ? RandomMatrix(at, k, m, 3 * pad, rng) : RandomMatrix(at, m, k, 5 * pad, rng);
  const Matrix b = tb ? RandomMatrix(bt, n, k, 2 * pad, rng) : RandomMatrix(bt, k, n, 7 * pad, rng);
  const int64_t ldc = n + pad;
  std::vector<uint8_t> c(static_cast<size_t>(m * ldc * (BitWidth(result) / 8)), 0xab);
  // `calls` puts these small products past the size where oneDNN pays.
  if (!gemm::Int8Gemm(at, bt, result, ta, tb, m, n, k, a.bytes.data(), a.ld, b.bytes.data(), b.ld,
                      c.data(), ldc, int64_t{1} << 30)) {
    return false;
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t sum = ExactSum(at, a, ta, bt, b, tb, k, i, j);
      if (Stored(result, c, ldc, i, j) != Wrapped(result, sum)) ++wrong;
    }
    // The padding column is left alone.
    const int bytes = BitWidth(result) / 8;
    for (int x = 0; x < bytes * pad; ++x) {
      if (c[static_cast<size_t>((i * ldc + n) * bytes + x)] != 0xab) ++wrong;
    }
  }
  CHECK(wrong == 0);
  return true;
}

TEST_CASE("8-bit integer products are the exact sums modulo the result's width", "[gemm]") {
  if (!gemm::OnednnInt8Available()) {
    WARN("oneDNN's VNNI int8 gemm is not available here: Int8Gemm declines");
    std::mt19937 rng(1);
    CHECK_FALSE(CheckProduct(PT::kS8, PT::kS8, PT::kS32, false, false, 130, 70, 300, rng));
    return;
  }
  std::mt19937 rng(7);
  for (PT at : {PT::kS8, PT::kU8}) {
    for (PT bt : {PT::kS8, PT::kU8}) {
      for (PT result : {PT::kS32, PT::kU32, PT::kS8, PT::kU16, PT::kS64, PT::kU64}) {
        for (int form = 0; form < 4; ++form) {
          INFO("a " << static_cast<int>(at) << " b " << static_cast<int>(bt) << " result "
                    << static_cast<int>(result) << " form " << form);
          // 130 rows: two parts by rows; 40 rows: parts by columns.
          const int64_t m = form % 2 == 0 ? 130 : 40;
          REQUIRE(CheckProduct(at, bt, result, form & 1, form & 2, m, 150, 333, rng));
          REQUIRE(CheckProduct(at, bt, result, form & 1, form & 2, m, 150, 333, rng, true));
        }
      }
    }
  }
}

TEST_CASE("8-bit products at the bound on k hold their largest sums exactly", "[gemm]") {
  if (!gemm::OnednnInt8Available()) return;
  const int64_t k = gemm::kInt8MaxK;
  // Every term at its largest magnitude: s8 x s8 (-128)^2 k = 1.08e9, u8 x
  // s8 255 (-128) k = -(2^31 - 128), u8 x u8 255^2 k (wraps in s32).
  struct Case {
    PT at, bt;
    uint8_t a, b;
  };
  for (const Case& t : {Case{PT::kS8, PT::kS8, 0x80, 0x80}, Case{PT::kU8, PT::kS8, 255, 0x80},
                        Case{PT::kS8, PT::kU8, 0x80, 255}, Case{PT::kU8, PT::kU8, 255, 255}}) {
    const int64_t m = 2, n = 3;
    std::vector<uint8_t> a(static_cast<size_t>(m * k), t.a), b(static_cast<size_t>(k * n), t.b);
    std::vector<int32_t> c(static_cast<size_t>(m * n), 0);
    REQUIRE(gemm::Int8Gemm(t.at, t.bt, PT::kS32, false, false, m, n, k, a.data(), k, b.data(), n,
                           c.data(), n, int64_t{1} << 30));
    const int64_t av = t.at == PT::kU8 ? t.a : static_cast<int8_t>(t.a);
    const int64_t bv = t.bt == PT::kU8 ? t.b : static_cast<int8_t>(t.b);
    const int32_t want = static_cast<int32_t>(static_cast<uint32_t>(av * bv * k));
    for (int32_t v : c) CHECK(v == want);
  }
}

TEST_CASE("8-bit products decline what s32 sums cannot hold exactly", "[gemm]") {
  std::vector<uint8_t> a(2 * 70000, 1), b(70000 * 2, 1);
  std::vector<int64_t> c(4);
  auto run = [&](PT at, PT bt, PT result, int64_t k) {
    return gemm::Int8Gemm(at, bt, result, false, false, 2, 2, k, a.data(), k, b.data(), 2, c.data(),
                          2, int64_t{1} << 30);
  };
  // k past the bound, and results past 32 bits whose true sum may pass 2^31.
  CHECK_FALSE(run(PT::kS8, PT::kS8, PT::kS32, gemm::kInt8MaxK + 1));
  CHECK_FALSE(run(PT::kU8, PT::kU8, PT::kS64, 33026));
  // Other types, and small products (oneDNN's first call costs more).
  CHECK_FALSE(run(PT::kS16, PT::kS8, PT::kS32, 100));
  CHECK_FALSE(run(PT::kS8, PT::kS8, PT::kF32, 100));
  CHECK_FALSE(gemm::Int8Gemm(PT::kS8, PT::kS8, PT::kS32, false, false, 2, 2, 100, a.data(), 100,
                             b.data(), 2, c.data(), 2));
  if (gemm::OnednnInt8Available()) CHECK(run(PT::kU8, PT::kU8, PT::kS64, 33025));
}

}  // namespace
}  // namespace hlo
