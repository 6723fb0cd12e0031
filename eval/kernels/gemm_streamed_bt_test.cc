// The streamed-B^T kernel against the definition of its sums (k in blocks
// of nearly equal length, at most 256 terms, each element of a block one
// fused multiply-add chain in k order from +0, the block sums added in
// order): every element's bits, on tile edges in m, n and k, with padded
// leading dimensions and non-finite operands; oneDNN's k-blocked sgemm
// against the same definition where it runs (so either gives one product
// the same bits); Gemm's parts of a long product, which take the kernel;
// and the shapes the gate declines.
#include "eval/kernels/gemm_streamed_bt.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "absl/types/span.h"
#include "eval/kernels/avx512_lanes.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/gemm_onednn.h"
#include "eval/runtime/parallel.h"

namespace hlo {
namespace gemm {
namespace {

struct Case {
  int64_t m, n, k;
};

struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, bt;
};

Operands MakeOperands(const Case& s, std::mt19937& rng) {
  Operands o{s.k + 3, s.k + 5, s.n + 2, {}, {}};
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  o.a.resize(static_cast<size_t>(s.m * o.lda));
  o.bt.resize(static_cast<size_t>(s.n * o.ldb));
  for (float& x : o.a) x = d(rng);
  for (float& x : o.bt) x = d(rng);
  // inf * 0 in element (0, 0) (NaN there), a NaN in B^T's last row.
  o.a[0] = std::numeric_limits<float>::infinity();
  o.bt[0] = 0.0f;
  o.bt[static_cast<size_t>((s.n - 1) * o.ldb + s.k - 1)] = std::nanf("");
  return o;
}

// C = A B^T by the definition, ldc columns a row.
std::vector<float> Reference(const Case& s, const Operands& o) {
  std::vector<float> c(static_cast<size_t>(s.m * o.ldc), 0.0f);
  const int64_t blocks = (s.k + kOnednnBlockK - 1) / kOnednnBlockK;
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      float sum = 0.0f;
      for (int64_t b = 0; b < blocks; ++b) {
        float chain = 0.0f;
        for (int64_t p = s.k * b / blocks; p < s.k * (b + 1) / blocks; ++p) {
          chain = std::fma(o.a[static_cast<size_t>(i * o.lda + p)],
                           o.bt[static_cast<size_t>(j * o.ldb + p)], chain);
        }
        sum = b == 0 ? chain : sum + chain;
      }
      c[static_cast<size_t>(i * o.ldc + j)] = sum;
    }
  }
  return c;
}

// Every element as the reference has it (NaN where it has NaN), and the
// padding past n in each row of C untouched.
void CheckSame(const Case& s, const Operands& o, const std::vector<float>& want,
               const std::vector<float>& got, float pad) {
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < o.ldc; ++j) {
      const size_t at = static_cast<size_t>(i * o.ldc + j);
      INFO("m " << s.m << " n " << s.n << " k " << s.k << " at (" << i << ", " << j << ")");
      if (j >= s.n) {
        REQUIRE(std::memcmp(&got[at], &pad, sizeof(float)) == 0);
      } else if (std::isnan(want[at])) {
        REQUIRE(std::isnan(got[at]));
      } else {
        REQUIRE(std::memcmp(&got[at], &want[at], sizeof(float)) == 0);
      }
    }
  }
}

// The kernel runs any shape; oneDNN sums so from 16 rows up, the least
// the gate lets through.
const Case kCases[] = {{1, 1, 1},     {5, 50, 513},  {31, 13, 255}, {32, 12, 256},
                       {33, 25, 257}, {64, 37, 768}, {96, 24, 1000}};
const Case kOnednnCases[] = {{kStreamedBtLeastRows, 50, 513},
                             {31, 13, 255},
                             {32, 12, 256},
                             {33, 25, 257},
                             {64, 37, 768},
                             {96, 24, 1000}};

// run(case, operands, C) computes the product into C (padded with `pad`),
// true where it ran; every case must run and match the definition.
template <typename Run>
void CheckCases(absl::Span<const Case> cases, uint32_t seed, const Run& run) {
  std::mt19937 rng(seed);
  const float pad = -12345.0f;
  for (const Case& s : cases) {
    const Operands o = MakeOperands(s, rng);
    std::vector<float> c(static_cast<size_t>(s.m * o.ldc), pad);
    REQUIRE(run(s, o, c.data()));
    CheckSame(s, o, Reference(s, o), c, pad);
  }
}

TEST_CASE("StreamedBtKernel sums as its definition", "[dot][streamed_bt]") {
  if (!avx512::Available()) {
    WARN("no AVX-512: the kernel declines, nothing to check");
    return;
  }
  CheckCases(kCases, 7, [](const Case& s, const Operands& o, float* c) {
    return StreamedBtKernel(s.m, s.n, s.k, o.a.data(), o.lda, o.bt.data(), o.ldb, c, o.ldc);
  });
}

// oneDNN's sum order is its own: the same chains as the kernel's on the
// machine this was built on (oneDNN 2.6, a Sapphire Rapids Xeon), so that
// a product gets one answer whichever runs it. Elsewhere its blocking may
// differ, which is no error: then this warns, and each element need only
// be within 2 k eps sum |a b| of the chains' (NaN where they give NaN).
TEST_CASE("oneDNN's k-blocked sgemm sums as the streamed kernel does", "[dot][streamed_bt]") {
  // (calls: as if part of an instruction past oneDNN's threshold.)
  const int64_t calls = int64_t{1} << 30;
  if (!OnednnSgemmRuns(1, 1, 1, calls)) {
    WARN("oneDNN's sgemm does not run here");
    return;
  }
  std::mt19937 rng(11);
  for (const Case& s : kOnednnCases) {
    const Operands o = MakeOperands(s, rng);
    std::vector<float> c(static_cast<size_t>(s.m * o.ldc), std::nanf(""));
    REQUIRE(OnednnGemm(false, true, s.m, s.n, s.k, o.a.data(), o.lda, o.bt.data(), o.ldb, c.data(),
                       o.ldc, calls));
    const std::vector<float> want = Reference(s, o);
    int64_t other_bits = 0;
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        const size_t at = static_cast<size_t>(i * o.ldc + j);
        INFO("m " << s.m << " n " << s.n << " k " << s.k << " at (" << i << ", " << j << ")");
        if (std::isnan(want[at])) {
          REQUIRE(std::isnan(c[at]));
          continue;
        }
        if (std::memcmp(&c[at], &want[at], sizeof(float)) == 0) continue;
        ++other_bits;
        double magnitude = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          magnitude += std::fabs(double{o.a[static_cast<size_t>(i * o.lda + p)]} *
                                 o.bt[static_cast<size_t>(j * o.ldb + p)]);
        }
        REQUIRE(std::fabs(double{c[at]} - want[at]) <=
                2.0 * s.k * std::numeric_limits<float>::epsilon() * magnitude);
      }
    }
    if (other_bits > 0) {
      WARN("oneDNN sums otherwise here (m " << s.m << " n " << s.n << " k " << s.k << ": "
                                            << other_bits << " elements): the kernel's bits "
                                            << "differ from oneDNN's on this machine");
    }
  }
}

TEST_CASE("Gemm's parts of a long A B^T sum as the definition", "[dot][streamed_bt]") {
  // B^T of 16 MB a core, two k blocks: Gemm splits its columns across the
  // cores, each part's B^T past the kernel's gate (and a split unit more,
  // since parts are whole units; a block order changed for n > 5000 only
  // fails here). Past 4 cores the B^T would take too much memory.
  const int64_t parts = CoreCount();
  if (parts > 4) {
    WARN("more than 4 cores: not run (" << parts << " parts of 16 MB)");
    return;
  }
  const int64_t part_cols = kStreamedBtLeastBytes / 4 / 512 + 64;
  const Case s{kStreamedBtLeastRows, parts * part_cols + 7, 512};
  if (!OnednnSgemmRuns(s.m, s.n, s.k)) {
    WARN("oneDNN's sgemm does not run here: Gemm sums otherwise");
    return;
  }
  std::mt19937 rng(5);
  const Operands o = MakeOperands(s, rng);
  const float pad = -12345.0f;
  std::vector<float> c(static_cast<size_t>(s.m * o.ldc), pad);
  Gemm<float>(false, true, s.m, s.n, s.k, o.a.data(), o.lda, o.bt.data(), o.ldb, c.data(), o.ldc);
  // The definition on every 61st column and the last (the reference in
  // full would take 134M scalar multiply-adds), every element written.
  Operands sampled = o;
  std::vector<int64_t> columns;
  for (int64_t j = 0; j < s.n; j += 61) columns.push_back(j);
  columns.push_back(s.n - 1);
  sampled.bt.clear();
  sampled.ldb = s.k;
  sampled.ldc = static_cast<int64_t>(columns.size());
  for (int64_t j : columns) {
    const float* row = o.bt.data() + j * o.ldb;
    sampled.bt.insert(sampled.bt.end(), row, row + s.k);
  }
  const Case sub{s.m, sampled.ldc, s.k};
  const std::vector<float> want = Reference(sub, sampled);
  for (int64_t i = 0; i < s.m; ++i) {
    for (size_t q = 0; q < columns.size(); ++q) {
      const float got = c[static_cast<size_t>(i * o.ldc + columns[q])];
      const float expected = want[static_cast<size_t>(i * sampled.ldc) + q];
      INFO("at (" << i << ", " << columns[q] << ")");
      if (std::isnan(expected)) {
        REQUIRE(std::isnan(got));
      } else {
        REQUIRE(std::memcmp(&got, &expected, sizeof(float)) == 0);
      }
    }
    for (int64_t j = 0; j < o.ldc; ++j) {
      const float x = c[static_cast<size_t>(i * o.ldc + j)];
      REQUIRE((j < s.n) != (std::memcmp(&x, &pad, sizeof(float)) == 0));
    }
  }
}

TEST_CASE("StreamedBtGemm declines what it is not for", "[dot][streamed_bt]") {
  std::vector<float> a(300 * 4, 1.0f), bt(4, 1.0f), c(300, 7.0f);
  // B^T far under kStreamedBtLeastBytes.
  CHECK_FALSE(StreamedBtGemm(4, 1, 4, a.data(), 4, bt.data(), 4, c.data(), 1));
  // More rows than kStreamedBtMostRows (B^T of the least size, never read).
  const int64_t n = kStreamedBtLeastBytes / 4 / 4;
  CHECK_FALSE(
      StreamedBtGemm(kStreamedBtMostRows + 1, n, 4, a.data(), 4, bt.data(), 4, c.data(), n));
  // Fewer rows than kStreamedBtLeastRows, where oneDNN sums otherwise.
  CHECK_FALSE(
      StreamedBtGemm(kStreamedBtLeastRows - 1, n, 4, a.data(), 4, bt.data(), 4, c.data(), n));
  // k past kStreamedBtMostK (rows and B^T's size it would take).
  const int64_t long_k = kStreamedBtMostK + 1;
  CHECK_FALSE(StreamedBtGemm(kStreamedBtLeastRows, kStreamedBtLeastBytes / 4 / long_k + 1, long_k,
                             a.data(), long_k, bt.data(), long_k, c.data(), n));
  for (float x : c) CHECK(x == 7.0f);
}

}  // namespace
}  // namespace gemm
}  // namespace hlo
