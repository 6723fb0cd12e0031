// dot and convolution kernels: the strided dot core against a plain triple
// loop (every transpose/pack/scatter path, BLAS-sized), and bad operands or
// attributes giving messages (the kernels run on operands that need not
// match the instruction, as when a pass evaluates an unverified module).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "eval/evaluator.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using gemm::Dims;
using gemm::View;

// lhs [A][B] and rhs [C][D] over every choice of which dim contracts, with
// out written through a transposed view: each combination exercises one of
// gemm's transpose flags, packing, or the scattered output.
TEST_CASE("DotCore matches a triple loop for every operand orientation", "[dot]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> val(-3, 3);
  const int64_t m = 37, k = 45, n = 29;  // m*n*k well above the small-product path
  for (int lhs_t = 0; lhs_t < 2; ++lhs_t) {
    for (int rhs_t = 0; rhs_t < 2; ++rhs_t) {
      for (int out_t = 0; out_t < 2; ++out_t) {
        std::vector<float> a(m * k), b(k * n), c(m * n, -1);
        for (float& x : a) x = static_cast<float>(val(rng));
        for (float& x : b) x = static_cast<float>(val(rng));
        // lhs is [m][k] or [k][m]; rhs is [k][n] or [n][k].
        View<const float> lv = gemm::RowMajorView<const float>(
            a.data(), lhs_t ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
        View<const float> rv = gemm::RowMajorView<const float>(
            b.data(), rhs_t ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
        // out is [m][n], stored row-major or column-major.
        View<float> ov{c.data(), Dims{m, n}, out_t ? Dims{1, m} : Dims{n, 1}};
        gemm::DotDimNumbers d;
        d.lhs_contracting = {lhs_t ? 0 : 1};
        d.rhs_contracting = {rhs_t ? 1 : 0};
        REQUIRE(gemm::DotCore<float>(lv, rv, ov, d).ok());
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (int64_t p = 0; p < k; ++p) {
              const float x = lhs_t ? a[p * m + i] : a[i * k + p];
              const float y = rhs_t ? b[j * k + p] : b[p * n + j];
              want += static_cast<double>(x) * y;
            }
            const float got = out_t ? c[j * m + i] : c[i * n + j];
            INFO("lhs_t " << lhs_t << " rhs_t " << rhs_t << " out_t " << out_t << " at " << i << ","
                          << j);
            REQUIRE(got == static_cast<float>(want));  // small integers: exact
          }
        }
      }
    }
  }
}

// A batched product whose batches go to the cores (each core its own run
// of batches first, then the others' left): every batch is written, from
// its own operands (within a sum's rounding of an f64 product), and with
// the same bits whatever core ran it (batches of equal operands give equal
// bits). Batch counts that split unevenly over the cores, and products of
// both sizes the per-core split takes (many batches; small ones).
TEST_CASE("DotCore's batches across the cores: each once, from its operands, one bits", "[dot]") {
  std::mt19937 rng(11);
  std::normal_distribution<float> val(0, 1);
  const int64_t shapes[][4] = {{9, 16, 24, 40}, {25, 8, 8, 300}, {24, 64, 64, 32}, {3, 40, 40, 40}};
  for (const auto& [batches, m, n, k] : shapes) {
    for (const bool equal : {false, true}) {
      std::vector<float> a(batches * m * k), b(batches * k * n);
      for (float& x : a) x = val(rng);
      for (float& x : b) x = val(rng);
      if (equal) {  // every batch batch 0's operands
        for (int64_t bi = 1; bi < batches; ++bi) {
          std::copy(a.begin(), a.begin() + m * k, a.begin() + bi * m * k);
          std::copy(b.begin(), b.begin() + k * n, b.begin() + bi * k * n);
        }
      }
      std::vector<float> c(batches * m * n, std::nanf(""));
      gemm::DotDimNumbers d;
      d.lhs_batch = {0};
      d.rhs_batch = {0};
      d.lhs_contracting = {2};
      d.rhs_contracting = {1};
      REQUIRE(gemm::DotCore<float>(gemm::RowMajorView<const float>(a.data(), {batches, m, k}),
                                   gemm::RowMajorView<const float>(b.data(), {batches, k, n}),
                                   gemm::RowMajorView<float>(c.data(), {batches, m, n}), d)
                  .ok());
      for (int64_t bi = 0; bi < batches; ++bi) {
        INFO(batches << " batches of " << m << "x" << n << "x" << k << ", equal " << equal
                     << ": batch " << bi);
        if (equal) {
          REQUIRE(std::memcmp(c.data() + bi * m * n, c.data(), m * n * sizeof(float)) == 0);
          continue;
        }
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double want = 0, magnitude = 0;
            for (int64_t p = 0; p < k; ++p) {
              const double x = a[(bi * m + i) * k + p], y = b[(bi * k + p) * n + j];
              want += x * y;
              magnitude += std::fabs(x * y);
            }
            const float got = c[(bi * m + i) * n + j];
            REQUIRE(std::fabs(got - want) <= 1e-5 * magnitude);  // k * 2^-24 and more
          }
        }
      }
    }
  }
}

TEST_CASE("DotCore packs interleaved batch and contracting dims", "[dot]") {
  // lhs [k1, b, m, k2], rhs [k2, n, b, k1]: nothing is contiguous.
  const int64_t b = 3, m = 4, n = 5, k1 = 2, k2 = 6;
  std::vector<uint64_t> a(k1 * b * m * k2), r(k2 * n * b * k1), o(b * m * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = i * 7 + 1;
  for (size_t i = 0; i < r.size(); ++i) r[i] = (i * 13) % 11;
  auto lv = gemm::RowMajorView<const uint64_t>(a.data(), {k1, b, m, k2});
  auto rv = gemm::RowMajorView<const uint64_t>(r.data(), {k2, n, b, k1});
  auto ov = gemm::RowMajorView<uint64_t>(o.data(), {b, m, n});
  gemm::DotDimNumbers d;
  d.lhs_batch = {1};
  d.rhs_batch = {2};
  d.lhs_contracting = {0, 3};
  d.rhs_contracting = {3, 0};
  REQUIRE(gemm::DotCore<uint64_t>(lv, rv, ov, d).ok());
  for (int64_t x = 0; x < b; ++x) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        uint64_t want = 0;
        for (int64_t p = 0; p < k1; ++p) {
          for (int64_t q = 0; q < k2; ++q) {
            want += a[((p * b + x) * m + i) * k2 + q] * r[((q * n + j) * b + x) * k1 + p];
          }
        }
        REQUIRE(o[(x * m + i) * n + j] == want);
      }
    }
  }
}

// Evaluates the module's root with the given operands (any shapes).
absl::StatusOr<Value> EvalRoot(std::string_view text, const std::vector<std::string>& operands) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(StrCat("HloModule test\n\n", text));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  Evaluator evaluator(**m, {});
  std::vector<Value> values;
  for (const std::string& s : operands) {
    absl::StatusOr<Literal> lit = ParseLiteral(s);
    REQUIRE(lit.ok());
    values.push_back(Value::FromLiteral(*std::move(lit)));
  }
  std::vector<const Value*> ptrs;
  for (const Value& v : values) ptrs.push_back(&v);
  const Instruction& root = *(*m)->entry()->root();
  if (root.opcode() == Opcode::kConvolution) return EvalConvolution(root, ptrs, evaluator);
  return EvalDot(root, ptrs, evaluator);
}

void ExpectError(const absl::StatusOr<Value>& r, std::string_view part) {
  REQUIRE_FALSE(r.ok());
  INFO(r.status().message());
  CHECK(std::string(r.status().message()).find(part) != std::string::npos);
}

constexpr std::string_view kDot = R"(ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

TEST_CASE("dot reports operands that do not fit its attributes", "[dot]") {
  ExpectError(EvalRoot(kDot, {"f32[2,3] {{1,2,3},{4,5,6}}", "f32[2,4] {{1,2,3,4},{5,6,7,8}}"}),
              "contracting dimension 1 has size 3 but rhs contracting dimension 0 has size 2");
  ExpectError(EvalRoot(kDot, {"f32[6] {1,2,3,4,5,6}", "f32[3,4] {{1,2,3,4},{5,6,7,8},{1,1,1,1}}"}),
              "name dimension 1 of a rank-1 operand");
  ExpectError(EvalRoot(kDot, {"f32[2,3] {{1,2,3},{4,5,6}}"}), "takes 2 operands");
  ExpectError(EvalRoot(kDot, {"f32[2,3] {{1,2,3},{4,5,6}}",
                              "f32[3,5] {{1,2,3,4,5},{5,6,7,8,9},{1,1,1,1,1}}"}),
              "has dims {2,5}");  // consistent operands, but not the declared result
  // The fitting operands work.
  auto ok =
      EvalRoot(kDot, {"f32[2,3] {{1,2,3},{4,5,6}}", "f32[3,4] {{1,0,0,0},{0,1,0,0},{0,0,1,1}}"});
  REQUIRE(ok.ok());
  CHECK(LiteralToString(ok->ToLiteral(), LiteralStyle::kCompact) ==
        "f32[2,4] {{1, 2, 3, 3}, {4, 5, 6, 6}}");
}

TEST_CASE("dot reports contracting dims out of range before reading by them", "[dot]") {
  // What the verifier rejects, reaching the kernel under --no-verify: the
  // direct product paths (f32, and s8 on the int8 gemm) must not index by
  // a negative dim.
  for (std::string_view type : {"f32", "s8"}) {
    for (std::string_view dims : {"lhs_contracting_dims={-1}, rhs_contracting_dims={0}",
                                  "lhs_contracting_dims={1}, rhs_contracting_dims={-2}"}) {
      const std::string text =
          StrCat("ENTRY main {\n  a = ", type, "[2,3] parameter(0)\n  b = ", type,
                 "[3,4] parameter(1)\n  ROOT d = ", type == "s8" ? "s32" : "f32",
                 "[2,4] dot(a, b), ", dims, "\n}");
      INFO(text);
      ExpectError(EvalRoot(text, {StrCat(type, "[2,3] {{1,2,3},{4,5,6}}"),
                                  StrCat(type, "[3,4] {{1,2,3,4},{5,6,7,8},{1,1,1,1}}")}),
                  "of a rank-2 operand");
    }
  }
}

// A random array literal of `type` (f32 or f64) with values in (-1, 1).
Value RandomArray(PrimitiveType type, std::vector<int64_t> dims, std::mt19937& rng) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  std::uniform_real_distribution<double> d(-1, 1);
  for (int64_t i = 0; i < lit->element_count(); ++i) lit->SetDouble(i, d(rng));
  return Value::FromLiteral(*std::move(lit));
}

// A dot of rank-1 or rank-2 operands with one contracting dim each.
struct ProductForm {
  std::vector<int64_t> lhs, rhs;
  int64_t lc, rc;
  std::vector<int64_t> out;
};

// The dot instruction's result for `f` on random operands is bit for bit
// the dot core's, planned from views.
template <typename T>
void CheckDirectGemm(PrimitiveType type, std::string_view name, const ProductForm& f,
                     std::mt19937& rng) {
  auto dims = [](const std::vector<int64_t>& d) { return StrJoin(d, ","); };
  const std::string text = StrCat(
      "ENTRY main {\n  a = ", name, "[", dims(f.lhs), "] parameter(0)\n  b = ", name, "[",
      dims(f.rhs), "] parameter(1)\n  ROOT d = ", name, "[", dims(f.out),
      "] dot(a, b), lhs_contracting_dims={", f.lc, "}, rhs_contracting_dims={", f.rc, "}\n}");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(StrCat("HloModule test\n\n", text));
  REQUIRE(m.ok());
  Evaluator evaluator(**m, {});
  const Value a = RandomArray(type, f.lhs, rng), b = RandomArray(type, f.rhs, rng);
  const std::vector<const Value*> ops = {&a, &b};
  absl::StatusOr<Value> got = EvalDot(*(*m)->entry()->root(), ops, evaluator);
  REQUIRE(got.ok());
  int64_t count = 1;
  for (int64_t d : f.out) count *= d;
  std::vector<T> want(count, T(-7));
  gemm::DotDimNumbers d;
  d.lhs_contracting = {f.lc};
  d.rhs_contracting = {f.rc};
  REQUIRE(gemm::DotCore<T>(gemm::RowMajorView<const T>(a.array().template typed<T>(), f.lhs),
                           gemm::RowMajorView<const T>(b.array().template typed<T>(), f.rhs),
                           gemm::RowMajorView<T>(want.data(), f.out), d)
              .ok());
  INFO(text);
  REQUIRE(std::memcmp(got->array().template typed<T>(), want.data(), count * sizeof(T)) == 0);
}

// A matrix times a vector (either side, either orientation) and a matrix
// times a matrix (either operand transposed) take a short way to gemm: the
// same bits as the dot core planning it from views, for sizes through the
// small-product loop, the lane sums of few results, the row-dot gemv and its
// split, and OpenBLAS.
template <typename T>
void CheckDirectGemms(PrimitiveType type, std::string_view name) {
  std::mt19937 rng(17);
  const int64_t sizes[][2] = {{2, 2}, {7, 33}, {300, 2}, {256, 256}, {129, 517}};
  for (const auto& [rows, cols] : sizes) {
    const ProductForm forms[] = {{{rows, cols}, {cols}, 1, 0, {rows}},
                                 {{cols, rows}, {cols}, 0, 0, {rows}},
                                 {{cols}, {cols, rows}, 0, 0, {rows}},
                                 {{cols}, {rows, cols}, 0, 1, {rows}}};
    for (const ProductForm& f : forms) CheckDirectGemm<T>(type, name, f, rng);
  }
  const int64_t products[][3] = {
      {2, 2, 2}, {4, 32, 32}, {8, 10, 512}, {64, 64, 64}, {300, 130, 40}};
  for (const auto& [m, n, k] : products) {
    const ProductForm forms[] = {{{m, k}, {k, n}, 1, 0, {m, n}},
                                 {{k, m}, {k, n}, 0, 0, {m, n}},
                                 {{m, k}, {n, k}, 1, 1, {m, n}},
                                 {{k, m}, {n, k}, 0, 1, {m, n}}};
    for (const ProductForm& f : forms) CheckDirectGemm<T>(type, name, f, rng);
  }
}

TEST_CASE("A matrix-vector or matrix-matrix dot gives the dot core's bits (f32, f64)", "[dot]") {
  CheckDirectGemms<float>(PrimitiveType::kF32, "f32");
  CheckDirectGemms<double>(PrimitiveType::kF64, "f64");
}

TEST_CASE("A matrix-vector dot of mismatched operands is reported", "[dot]") {
  constexpr std::string_view mv = R"(ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3] parameter(1)
  ROOT d = f32[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  ExpectError(EvalRoot(mv, {"f32[2,3] {{1,2,3},{4,5,6}}", "f32[2] {1,2}"}),
              "contracting dimension 1 has size 3 but rhs contracting dimension 0 has size 2");
  ExpectError(EvalRoot(mv, {"f32[3,3] {{1,2,3},{4,5,6},{7,8,9}}", "f32[3] {1,2,3}"}),
              "has dims {3}");
  auto ok = EvalRoot(mv, {"f32[2,3] {{1,2,3},{4,5,6}}", "f32[3] {1,0,2}"});
  REQUIRE(ok.ok());
  CHECK(LiteralToString(ok->ToLiteral(), LiteralStyle::kCompact) == "f32[2] {7, 16}");
}

TEST_CASE("ragged-dot and scaled-dot report bad operands", "[dot]") {
  constexpr std::string_view ragged = R"(ENTRY main {
  a = f32[4,2] parameter(0)
  b = f32[2,2,3] parameter(1)
  g = s32[2] parameter(2)
  ROOT d = f32[4,3] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})";
  const std::string a = "f32[4,2] {{1,2},{3,4},{5,6},{7,8}}";
  const std::string b = "f32[2,2,3] {{{1,0,0},{0,1,0}},{{2,0,0},{0,0,2}}}";
  ExpectError(EvalRoot(ragged, {a, b, "s32[3] {1,1,2}"}), "counts 3 groups");
  ExpectError(EvalRoot(ragged, {a, b, "f32[2] {1,1}"}), "group_sizes must be an integer");
  auto ok = EvalRoot(ragged, {a, b, "s32[2] {1,5}"});  // sizes past the end are clipped
  REQUIRE(ok.ok());
  CHECK(LiteralToString(ok->ToLiteral(), LiteralStyle::kCompact) ==
        "f32[4,3] {{1, 2, 0}, {6, 0, 8}, {10, 0, 12}, {14, 0, 16}}");
  constexpr std::string_view scaled = R"(ENTRY main {
  a = f32[2,4] parameter(0)
  b = f32[3,4] parameter(1)
  sa = f32[2,2] parameter(2)
  sb = f32[3,2] parameter(3)
  ROOT d = f32[2,3] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  ExpectError(EvalRoot(scaled, {"f32[2,4] {{1,1,1,1},{1,1,1,1}}",
                                "f32[3,4] {{1,1,1,1},{1,1,1,1},{1,1,1,1}}",
                                "f32[2,3] {{1,1,1},{1,1,1}}", "f32[3,2] {{1,1},{1,1},{1,1}}"}),
              "does not split evenly");
  ExpectError(EvalRoot(scaled, {"f32[2,4] {{1,1,1,1},{1,1,1,1}}",
                                "f32[3,4] {{1,1,1,1},{1,1,1,1},{1,1,1,1}}", "f32[2] {1,1}",
                                "f32[3,2] {{1,1},{1,1},{1,1}}"}),
              "must have the rank of lhs");
}

TEST_CASE("convolution reports operands that do not fit its attributes", "[dot]") {
  constexpr std::string_view conv = R"(ENTRY main {
  x = f32[1,4,2] parameter(0)
  k = f32[2,2,3] parameter(1)
  ROOT c = f32[1,3,3] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f
})";
  const std::string k = "f32[2,2,3] {{{1,0,0},{0,1,0}},{{0,0,1},{1,1,1}}}";
  ExpectError(EvalRoot(conv, {"f32[1,4,3] {{{1,1,1},{1,1,1},{1,1,1},{1,1,1}}}", k}),
              "does not give the kernel's 2 input features");
  ExpectError(EvalRoot(conv, {"f32[1,5,2] {{{1,1},{1,1},{1,1},{1,1},{1,1}}}", k}),
              "has dims {1,4,3}");
  ExpectError(EvalRoot(conv, {"f32[4,2] {{1,1},{1,1},{1,1},{1,1}}", k}), "rank-3");
  ExpectError(
      EvalRoot(conv, {"f32[1,4,2] {{{1,1},{1,1},{1,1},{1,1}}}",
                      "f32[3,2,3] {{{1,0,0},{0,1,0}},{{0,0,1},{1,1,1}},{{0,0,1},{1,1,1}}}"}),
      "window dimension 0 has size 2");
  auto ok = EvalRoot(conv, {"f32[1,4,2] {{{1,2},{3,4},{5,6},{7,8}}}", k});
  REQUIRE(ok.ok());
  // out[p][o] = sum_w sum_i x[p+w][i] k[w][i][o]; p = 0: o0 = 1*1 + 4*1 = 5,
  // o1 = 2*1 + 4*1 = 6, o2 = 3*1 + 4*1 = 7 (k[1][0] = {0,0,1}, k[1][1] = {1,1,1}).
  CHECK(LiteralToString(ok->ToLiteral(), LiteralStyle::kCompact) ==
        "f32[1,3,3] {{{5, 6, 7}, {9, 10, 11}, {13, 14, 15}}}");
}

TEST_CASE("convolution rejects bad group counts and negative padding past the input", "[dot]") {
  const std::string x = "f32[1,4,2] {{{1,2},{3,4},{5,6},{7,8}}}";
  const std::string k = "f32[2,1,2] {{{1,1}},{{1,1}}}";
  constexpr std::string_view grouped = R"(ENTRY main {
  x = f32[1,4,2] parameter(0)
  k = f32[2,1,2] parameter(1)
  ROOT c = f32[1,3,2] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f, feature_group_count=2
})";
  auto ok = EvalRoot(grouped, {x, k});
  REQUIRE(ok.ok());
  CHECK(LiteralToString(ok->ToLiteral(), LiteralStyle::kCompact) ==
        "f32[1,3,2] {{{4, 6}, {8, 10}, {12, 14}}}");
  constexpr std::string_view negative = R"(ENTRY main {
  x = f32[1,4,2] parameter(0)
  k = f32[2,2,3] parameter(1)
  ROOT c = f32[1,0,3] convolution(x, k), window={size=2 pad=-3_-2}, dim_labels=b0f_0io->b0f
})";
  ExpectError(EvalRoot(negative, {x, "f32[2,2,3] {{{1,0,0},{0,1,0}},{{0,0,1},{1,1,1}}}"}),
              "negative size");
}

// A depthwise 3x3 convolution (one feature per group) sums its taps in
// window order, each product and each sum rounded: the same bits on every
// ISA. (With GCC's default contraction the AVX-512 build fused them into
// FMAs, and most of these outputs came out 1 ulp off.)
TEST_CASE("depthwise convolution rounds every product and sum, taps in order", "[dot]") {
  constexpr int64_t kSize = 5, kFeatures = 64;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(kSize * kSize * kFeatures), k(9 * kFeatures);
  for (float& v : x) v = uniform(rng);
  for (float& v : k) v = uniform(rng);
  // The literal's text, nested by its dimensions, every float exact (%.9g).
  auto text = [](const std::vector<float>& v, const std::vector<int64_t>& dims) {
    std::string out = "f32[" + StrJoin(dims, ",") + "] ";
    // blocks[d]: the elements inside one brace of depth d.
    std::vector<size_t> blocks(dims.size(), v.size());
    for (size_t d = 1; d < dims.size(); ++d) blocks[d] = blocks[d - 1] / dims[d - 1];
    for (size_t i = 0; i < v.size(); ++i) {
      for (size_t d = 0; d < dims.size(); ++d) {
        if (i % blocks[d] == 0) out += "{";
      }
      out += absl::StrFormat("%.9g", v[i]);
      for (size_t d = dims.size(); d-- > 0;) {
        if ((i + 1) % blocks[d] != 0) break;
        out += "}";
      }
      if (i + 1 < v.size()) out += ", ";
    }
    return out;
  };
  constexpr std::string_view depthwise = R"(ENTRY main {
  x = f32[1,5,5,64] parameter(0)
  k = f32[3,3,1,64] parameter(1)
  ROOT c = f32[1,3,3,64] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=64
})";
  auto got = EvalRoot(depthwise, {text(x, {1, 5, 5, 64}), text(k, {3, 3, 1, 64})});
  REQUIRE(got.ok());
  const Literal out = got->ToLiteral();
  int64_t differ = 0;
  for (int64_t oy = 0; oy < 3; ++oy) {
    for (int64_t ox = 0; ox < 3; ++ox) {
      for (int64_t f = 0; f < kFeatures; ++f) {
        float want = 0;
        for (int64_t t = 0; t < 9; ++t) {
          const float product =
              x[((oy + t / 3) * kSize + ox + t % 3) * kFeatures + f] * k[t * kFeatures + f];
          want = want + product;
        }
        const float have = out.typed<float>()[(oy * 3 + ox) * kFeatures + f];
        differ += std::memcmp(&have, &want, sizeof(float)) != 0;
      }
    }
  }
  CHECK(differ == 0);
}

// The depthwise sum above on lines of many points and with padding, where
// 3-wide windows run eight points at a time (and the rest one at a time),
// whole 16-feature vectors, the window's rows five or three: each output
// is still +0 plus each in-bounds tap's product in window order, rounded
// at every step. The large case (input and output 32 MiB together) writes
// its results by streaming stores.
TEST_CASE("depthwise convolution in blocks of points keeps each point's sum", "[dot]") {
  struct Case {
    int64_t batch, height, width, features, rows, pad_y;
  };
  for (const Case c :
       {Case{2, 9, 37, 48, 5, 2}, Case{1, 5, 11, 16, 3, 1}, Case{1, 64, 1024, 64, 3, 1}}) {
    INFO("x f32[" << c.batch << "," << c.height << "," << c.width << "," << c.features
                  << "], window " << c.rows << "x3");
    const std::string module = StrCat(
        "HloModule test\n\nENTRY main {\n  x = f32[", c.batch, ",", c.height, ",", c.width, ",",
        c.features, "] parameter(0)\n  k = f32[", c.rows, ",3,1,", c.features,
        "] parameter(1)\n  ROOT c = f32[", c.batch, ",", c.height, ",", c.width, ",", c.features,
        "] convolution(x, k), window={size=", c.rows, "x3 pad=", c.pad_y, "_", c.pad_y,
        "x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=", c.features, "\n}\n");
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(module);
    REQUIRE(m.ok());
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto random = [&](std::vector<int64_t> dims) {
      absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(PrimitiveType::kF32, dims));
      REQUIRE(lit.ok());
      float* v = lit->typed<float>();
      for (int64_t i = 0; i < lit->element_count(); ++i) v[i] = uniform(rng);
      return Value::FromLiteral(*std::move(lit));
    };
    const Value x = random({c.batch, c.height, c.width, c.features});
    const Value k = random({c.rows, 3, 1, c.features});
    Evaluator evaluator(**m, {});
    auto got = EvalConvolution(*(*m)->entry()->root(), {&x, &k}, evaluator);
    REQUIRE(got.ok());
    const float* xv = x.array().typed<float>();
    const float* kv = k.array().typed<float>();
    const float* out = got->array().typed<float>();
    int64_t differ = 0;
    for (int64_t b = 0; b < c.batch; ++b) {
      for (int64_t oy = 0; oy < c.height; ++oy) {
        for (int64_t ox = 0; ox < c.width; ++ox) {
          for (int64_t f = 0; f < c.features; ++f) {
            float want = 0;
            for (int64_t t = 0; t < c.rows * 3; ++t) {
              const int64_t iy = oy + t / 3 - c.pad_y, ix = ox + t % 3 - 1;
              if (iy < 0 || iy >= c.height || ix < 0 || ix >= c.width) continue;
              const float product = xv[((b * c.height + iy) * c.width + ix) * c.features + f] *
                                    kv[t * c.features + f];
              want = want + product;
            }
            const float have = out[((b * c.height + oy) * c.width + ox) * c.features + f];
            differ += std::memcmp(&have, &want, sizeof(float)) != 0;
          }
        }
      }
    }
    CHECK(differ == 0);
  }
}

}  // namespace
}  // namespace hlo
