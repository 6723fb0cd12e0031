// 8-bit integer and bf16 products on the shapes the models run (the
// f32 table's, scripts/gemm_bench_common.h), one thread each, where this
// CPU has instructions for them (AVX512-VNNI: vpdpbusd; AVX512-BF16:
// vdpbf16ps).
//
// int8 (s8 operands, s32 sums): sgemm on the operands widened to f32
// (dgemm past k = 1024, where f32 sums of 2^14-sized products stop being
// exact), the conversion counted: hlo-run's way before eval/kernels/
// gemm_int8.cc, which took a further pass widening to u64; and oneDNN's
// dnnl_gemm_s8s8s32 and dnnl_gemm_u8s8s32 (u8 A), which hlo-run now calls.
// Each result is checked against exact int64 sums on a sample of elements.
//
// bf16 (bf16 operands, f32 sums): oneDNN's sgemm on the operands widened
// to f32 (the conversion counted), and oneDNN's matmul primitive on bf16
// (its vdpbf16ps kernels where the CPU has them), with each one's mean
// error against f64 relative to the sum of |products| on a sample, and
// whether the bf16 kernel flushes a denormal operand to zero (vdpbf16ps
// treats denormal inputs and outputs as zero), which widening to f32
// does not.
//
// f32: oneDNN's sgemm, which hlo-run calls for long f32 products, against
// its matmul primitive on f32 (brgemm kernels), speed and error as for
// bf16: whether the primitive would be the better f32 product.
//   gemm_lowp_bench [--ms 300] [--only LABEL]
// Built and run by scripts/bench-gemm. A benchmark, not a test.
#include <cblas.h>
#include <dnnl.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "scripts/gemm_bench_common.h"

namespace {

using gemm_bench::kShapes;
using gemm_bench::SecondsPerCall;
using gemm_bench::Shape;

uint16_t ToBf16(float f) {  // round to nearest even (no NaNs here)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float FromBf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Sampled elements (i, j) of an m x n result: 97 spread over it.
std::vector<std::pair<int64_t, int64_t>> Sample(int64_t m, int64_t n) {
  std::vector<std::pair<int64_t, int64_t>> at;
  for (int64_t s = 0; s < 97; ++s) at.push_back({(s * 7919) % m, (s * 104729) % n});
  return at;
}

// op(B)[p][j] of a row-major B (k x n, or n x k where trans_b).
template <typename T>
T BAt(const std::vector<T>& b, const Shape& s, int64_t p, int64_t j) {
  return s.trans_b ? b[j * s.k + p] : b[p * s.n + j];
}

// oneDNN's matmul primitive, A and B of element type `in` (bf16, f32 or
// s8) and a result of type `out` (f32, or s32 for s8), made once per shape.
struct Matmul {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul prim;
  dnnl::memory a, b, c;
  std::string impl;
  Matmul(const Shape& s, dnnl::memory::data_type in, void* a_data, void* b_data,
         dnnl::memory::data_type out, void* c_data) {
    using tag = dnnl::memory::format_tag;
    const dnnl::memory::desc a_md({s.m, s.k}, in, tag::ab);
    const dnnl::memory::desc b_md({s.k, s.n}, in, s.trans_b ? tag::ba : tag::ab);
    const dnnl::memory::desc c_md({s.m, s.n}, out, tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
    impl = pd.impl_info_str();
    prim = dnnl::matmul(pd);
    a = dnnl::memory(a_md, engine, a_data);
    b = dnnl::memory(b_md, engine, b_data);
    c = dnnl::memory(c_md, engine, c_data);
  }
  void Run() {
    prim.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    stream.wait();
  }
};

void Int8Row(const Shape& s, double budget_s, std::string* impl) {
  const int64_t m = s.m, n = s.n, k = s.k;
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<int8_t> a(m * k), b(k * n);
  std::vector<uint8_t> ua(m * k);
  for (int64_t i = 0; i < m * k; ++i) {
    ua[i] = static_cast<uint8_t>(byte(rng));
    a[i] = static_cast<int8_t>(ua[i]);
  }
  for (int8_t& x : b) x = static_cast<int8_t>(byte(rng));
  std::vector<float> fa(m * k), fb(k * n), fc(m * n);
  std::vector<double> da, db, dc;
  std::vector<int32_t> c8(m * n), cu8(m * n), cmm(m * n);
  Matmul matmul(s, dnnl::memory::data_type::s8, a.data(), b.data(), dnnl::memory::data_type::s32,
                cmm.data());
  *impl = matmul.impl;
  const bool dgemm = k > 1024;
  const char tb = s.trans_b ? 'T' : 'N';
  const int64_t ldb = s.trans_b ? k : n;
  const CBLAS_TRANSPOSE ctb = s.trans_b ? CblasTrans : CblasNoTrans;
  const int32_t zero = 0;
  std::vector<std::function<void()>> calls = {
      [&] {
        if (dgemm) {
          da.assign(a.begin(), a.end());
          db.assign(b.begin(), b.end());
          dc.resize(m * n);
          cblas_dgemm(CblasRowMajor, CblasNoTrans, ctb, m, n, k, 1, da.data(), k, db.data(), ldb, 0,
                      dc.data(), n);
        } else {
          for (int64_t i = 0; i < m * k; ++i) fa[i] = a[i];
          for (int64_t i = 0; i < k * n; ++i) fb[i] = b[i];
          cblas_sgemm(CblasRowMajor, CblasNoTrans, ctb, m, n, k, 1, fa.data(), k, fb.data(), ldb, 0,
                      fc.data(), n);
        }
      },
      [&] {
        dnnl_gemm_s8s8s32('N', tb, 'F', m, n, k, 1, a.data(), k, 0, b.data(), ldb, 0, 0, c8.data(),
                          n, &zero);
      },
      [&] {
        dnnl_gemm_u8s8s32('N', tb, 'F', m, n, k, 1, ua.data(), k, 0, b.data(), ldb, 0, 0,
                          cu8.data(), n, &zero);
      },
      [&] { matmul.Run(); },
  };
  const std::vector<double> sec = SecondsPerCall(calls, budget_s);
  int wrong[4] = {0, 0, 0, 0};
  for (auto [i, j] : Sample(m, n)) {
    int64_t exact = 0, exact_u = 0;
    for (int64_t p = 0; p < k; ++p) {
      exact += int64_t{a[i * k + p]} * BAt(b, s, p, j);
      exact_u += int64_t{ua[i * k + p]} * BAt(b, s, p, j);
    }
    const double widened = dgemm ? dc[i * n + j] : fc[i * n + j];
    wrong[0] += widened != static_cast<double>(exact);
    wrong[1] += c8[i * n + j] != exact;
    wrong[2] += cu8[i * n + j] != exact_u;
    wrong[3] += cmm[i * n + j] != exact;
  }
  const double gops = 2.0 * m * n * k / 1e9;
  printf("%-15s %5lld %5lld %5lld | %9.1f %9.1f %9.1f %9.1f | %5.2fx %5.2fx | %d %d %d %d\n",
         s.label, (long long)m, (long long)n, (long long)k, gops / sec[0], gops / sec[1],
         gops / sec[2], gops / sec[3], sec[0] / sec[1], sec[1] / sec[3], wrong[0], wrong[1],
         wrong[2], wrong[3]);
}

// A row of the bf16 and f32 tables: two ways' GFLOP/s (from `sec`), the
// second's speed-up, and each result's mean error (x 1e9) against f64
// relative to the sum of |products| on Sample's elements; a_at(i, p) and
// b_at(p, j) give op(A) and op(B) exactly.
template <typename AAt, typename BAtFn>
void PrintFloatRow(const Shape& s, const std::vector<double>& sec, const float* c0, const float* c1,
                   AAt a_at, BAtFn b_at) {
  double err[2] = {0, 0};
  const auto at = Sample(s.m, s.n);
  for (auto [i, j] : at) {
    double exact = 0, magnitude = 0;
    for (int64_t p = 0; p < s.k; ++p) {
      const double t = a_at(i, p) * b_at(p, j);
      exact += t;
      magnitude += std::fabs(t);
    }
    err[0] += std::fabs(c0[i * s.n + j] - exact) / magnitude;
    err[1] += std::fabs(c1[i * s.n + j] - exact) / magnitude;
  }
  const double gflops = 2.0 * s.m * s.n * s.k / 1e9;
  printf("%-15s %5lld %5lld %5lld | %9.1f %9.1f | %5.2fx | %8.2f %8.2f\n", s.label, (long long)s.m,
         (long long)s.n, (long long)s.k, gflops / sec[0], gflops / sec[1], sec[0] / sec[1],
         err[0] / at.size() * 1e9, err[1] / at.size() * 1e9);
}

void Bf16Row(const Shape& s, double budget_s, std::string* impl) {
  const int64_t m = s.m, n = s.n, k = s.k;
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<uint16_t> a(m * k), b(k * n);
  for (uint16_t& x : a) x = ToBf16(d(rng));
  for (uint16_t& x : b) x = ToBf16(d(rng));
  std::vector<float> fa(m * k), fb(k * n), wide(m * n), c16(m * n);
  const int64_t ldb = s.trans_b ? k : n;
  Matmul matmul(s, dnnl::memory::data_type::bf16, a.data(), b.data(), dnnl::memory::data_type::f32,
                c16.data());
  *impl = matmul.impl;
  std::vector<std::function<void()>> calls = {
      [&] {
        for (int64_t i = 0; i < m * k; ++i) fa[i] = FromBf16(a[i]);
        for (int64_t i = 0; i < k * n; ++i) fb[i] = FromBf16(b[i]);
        dnnl_sgemm('N', s.trans_b ? 'T' : 'N', m, n, k, 1, fa.data(), k, fb.data(), ldb, 0,
                   wide.data(), n);
      },
      [&] { matmul.Run(); },
  };
  PrintFloatRow(
      s, SecondsPerCall(calls, budget_s), wide.data(), c16.data(),
      [&](int64_t i, int64_t p) { return double{FromBf16(a[i * k + p])}; },
      [&](int64_t p, int64_t j) { return double{FromBf16(BAt(b, s, p, j))}; });
}

// Whether the bf16 matmul keeps a denormal operand: 2^-130 (a bf16
// denormal) times 2^100 is 2^-30, or 0 where the kernel flushes it.
bool Bf16KeepsDenormals() {
  const Shape s{"denormal", 32, 32, 64, false};
  std::vector<uint16_t> a(s.m * s.k, 0), b(s.k * s.n, 0);
  a[0] = ToBf16(std::ldexp(1.0f, -130));
  b[0] = ToBf16(std::ldexp(1.0f, 100));
  std::vector<float> c(s.m * s.n, -1);
  Matmul matmul(s, dnnl::memory::data_type::bf16, a.data(), b.data(), dnnl::memory::data_type::f32,
                c.data());
  matmul.Run();
  return c[0] == std::ldexp(1.0f, -30);
}

// f32: oneDNN's sgemm (what hlo-run calls) against its matmul primitive on
// f32 (brgemm kernels), GFLOP/s and mean error against f64 relative to the
// sum of |products| on a sample.
void F32Row(const Shape& s, double budget_s, std::string* impl) {
  const int64_t m = s.m, n = s.n, k = s.k;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(m * k), b(k * n), c_sgemm(m * n), c_matmul(m * n);
  for (float& x : a) x = d(rng);
  for (float& x : b) x = d(rng);
  const int64_t ldb = s.trans_b ? k : n;
  Matmul matmul(s, dnnl::memory::data_type::f32, a.data(), b.data(), dnnl::memory::data_type::f32,
                c_matmul.data());
  *impl = matmul.impl;
  std::vector<std::function<void()>> calls = {
      [&] {
        dnnl_sgemm('N', s.trans_b ? 'T' : 'N', m, n, k, 1, a.data(), k, b.data(), ldb, 0,
                   c_sgemm.data(), n);
      },
      [&] { matmul.Run(); },
  };
  PrintFloatRow(
      s, SecondsPerCall(calls, budget_s), c_sgemm.data(), c_matmul.data(),
      [&](int64_t i, int64_t p) { return double{a[i * k + p]}; },
      [&](int64_t p, int64_t j) { return double{BAt(b, s, p, j)}; });
}

}  // namespace

int main(int argc, char** argv) {
  const gemm_bench::Options options = gemm_bench::ParseOptions(argc, argv);
  const double budget_s = options.budget_s;
  const char* only = options.only;
  openblas_set_num_threads(1);
  printf(
      "int8: s8 x s8 -> s32, GOPS per library (one thread): widened, oneDNN's s8 and u8\n"
      "gemms (hlo-run's) and its s8 matmul primitive; the s8 gemm's speed-up over widening,\n"
      "the primitive's over the s8 gemm, and sampled elements (of 97) that differ from the\n"
      "exact sums\n");
  printf("%-15s %5s %5s %5s | %9s %9s %9s %9s | %6s %6s | wrong\n", "product", "m", "n", "k",
         "widened", "dnnl-s8", "dnnl-u8", "mm-s8", "s8/wide", "mm/s8");
  std::string impl;
  for (const Shape& s : kShapes) {
    if (only == nullptr || strstr(s.label, only)) Int8Row(s, budget_s, &impl);
  }
  printf("oneDNN's s8 matmul: %s\n", impl.c_str());
  printf(
      "\nbf16: bf16 x bf16 -> f32, GFLOP/s (one thread), speed-up of the bf16 kernel, and\n"
      "mean error (1e-9) relative to the sum of |products| against f64\n");
  printf("%-15s %5s %5s %5s | %9s %9s | %6s | %8s %8s\n", "product", "m", "n", "k", "widened",
         "dnnl-bf16", "bf16/f32", "widened", "bf16");
  for (const Shape& s : kShapes) {
    if (only == nullptr || strstr(s.label, only)) Bf16Row(s, budget_s, &impl);
  }
  printf("oneDNN's bf16 matmul: %s; keeps a denormal operand: %s\n", impl.c_str(),
         Bf16KeepsDenormals() ? "yes" : "no (flushed to zero)");
  printf(
      "\nf32: oneDNN's sgemm (hlo-run's) against its f32 matmul primitive, GFLOP/s (one\n"
      "thread), the primitive's speed-up, and mean error (1e-9) as above\n");
  printf("%-15s %5s %5s %5s | %9s %9s | %6s | %8s %8s\n", "product", "m", "n", "k", "sgemm",
         "matmul", "mm/sgemm", "sgemm", "matmul");
  for (const Shape& s : kShapes) {
    if (only == nullptr || strstr(s.label, only)) F32Row(s, budget_s, &impl);
  }
  printf("oneDNN's f32 matmul: %s\n", impl.c_str());
  return 0;
}
