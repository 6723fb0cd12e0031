// The GEMM libraries Debian offers, on the products the models run: OpenBLAS
// (cblas_sgemm, what hlo-run calls), BLIS (bli_sgemm, loaded with dlopen so
// that its own cblas_* symbols stay out of the way), oneDNN (dnnl_sgemm) and
// libxsmm (its JIT kernels, where it makes one). One thread each, as hlo-run
// calls every gemm (it cuts a large product across the cores itself).
// Prints GFLOP/s per library and shape, each result's mean error against an
// f64 product relative to the sum of |products|, whether its bits are
// OpenBLAS's, and whether inf * 0 gives NaN. Three ways of keeping
// OpenBLAS's accuracy past k = 256 on the faster kernels are measured too:
// oneDNN's and libxsmm's products of 256-term blocks summed (dnnl-kb,
// xsmm-kb), and libxsmm's blocks over tiles of C (xsmm-tile; TILE_ROWS and
// TILE_COLS in the environment, 64 x 512 by default); and libxsmm's
// products of 128-term blocks summed (xsmm-128), the blocks hlo-run's
// LibxsmmBlockedGemm sums (it does so a panel of at most 256 columns at a
// time). The libraries are timed
// interleaved, a call of each per round, about --ms milliseconds of calls
// per library and shape, and each figure is the median call.
//   gemm_bench [--ms 300] [--only LABEL]
// Built and run by scripts/bench-gemm. A benchmark, not a test.
#include <cblas.h>
#include <dlfcn.h>
#include <dnnl.h>
#include <libxsmm.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "eval/blas_kernel_choice.h"
#include "scripts/gemm_bench_common.h"

namespace {

using gemm_bench::kShapes;
using gemm_bench::SecondsPerCall;
using gemm_bench::Shape;

using BliSgemm = void (*)(int, int, int64_t, int64_t, int64_t, const float*, const float*, int64_t,
                          int64_t, const float*, int64_t, int64_t, const float*, float*, int64_t,
                          int64_t);
using BliSetThreads = void (*)(int64_t);
using BliArchQuery = int (*)();
using BliArchString = const char* (*)(int);

struct Blis {
  BliSgemm sgemm = nullptr;
  std::string arch;
};

Blis LoadBlis() {
  Blis blis;
  for (const char* path : {"/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4",
                           "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4",
                           "/usr/lib/x86_64-linux-gnu/blis-serial/libblis.so.4"}) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (h == nullptr) continue;
    blis.sgemm = reinterpret_cast<BliSgemm>(dlsym(h, "bli_sgemm"));
    auto set_threads = reinterpret_cast<BliSetThreads>(dlsym(h, "bli_thread_set_num_threads"));
    auto query = reinterpret_cast<BliArchQuery>(dlsym(h, "bli_arch_query_id"));
    auto name = reinterpret_cast<BliArchString>(dlsym(h, "bli_arch_string"));
    if (set_threads != nullptr) set_threads(1);
    if (query != nullptr && name != nullptr) blis.arch = name(query());
    if (blis.sgemm != nullptr) break;
  }
  return blis;
}

// The mean over the elements of |c - exact| / sum_p |a_ip b_pj|: a steadier
// figure than the largest error, which one unlucky element decides.
double RelativeError(const std::vector<float>& c, const std::vector<double>& exact,
                     const std::vector<double>& magnitude) {
  double sum = 0;
  for (size_t i = 0; i < c.size(); ++i) sum += std::fabs(c[i] - exact[i]) / magnitude[i];
  return sum / static_cast<double>(c.size());
}

}  // namespace

// Products of a K-block of at most kBlockK terms are one fused multiply-add
// chain in k order in every library measured (the same bits from all four);
// "kb" variants sum longer products as such blocks, one block's product
// into C and each later one into a scratch added to C, which keeps
// OpenBLAS's accuracy (its own blocking sums blocks the same way).
constexpr int64_t kBlockK = 256;

template <typename BlockCall>
void SumOfBlocks(int64_t m, int64_t n, int64_t k, float* c, std::vector<float>& scratch,
                 const BlockCall& block, int64_t block_k = kBlockK) {
  const int64_t blocks = (k + block_k - 1) / block_k;
  for (int64_t bi = 0; bi < blocks; ++bi) {
    const int64_t lo = k * bi / blocks, hi = k * (bi + 1) / blocks;
    if (bi == 0) {
      block(lo, hi, c);
      continue;
    }
    scratch.resize(m * n);
    block(lo, hi, scratch.data());
    for (int64_t i = 0; i < m * n; ++i) c[i] += scratch[i];
  }
}

int main(int argc, char** argv) {
  const gemm_bench::Options options = gemm_bench::ParseOptions(argc, argv);
  const double budget_s = options.budget_s;
  const char* only = options.only;
  // OpenBLAS's kernels as hlo-run has them (its Prescott fallback replaced
  // on a CPU newer than the build, eval/blas_kernel_choice.h).
  const bool widened =
      hlo::blas::WidenFallbackKernels(dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD), true);
  openblas_set_num_threads(1);
  Blis blis = LoadBlis();
  libxsmm_init();
  constexpr int kLibs = 8;
  const char* names[kLibs] = {"openblas", "blis",    "onednn",    "libxsmm",
                              "dnnl-kb",  "xsmm-kb", "xsmm-tile", "xsmm-128"};
  const int64_t tile_rows = getenv("TILE_ROWS") ? atoll(getenv("TILE_ROWS")) : 64;
  const int64_t tile_cols = getenv("TILE_COLS") ? atoll(getenv("TILE_COLS")) : 512;
  printf(
      "one thread; OpenBLAS kernels: %s%s; BLIS kernels: %s; GFLOP/s (median call); mean "
      "relative error x 1e-9\n",
      openblas_get_corename(), widened ? " (forced over its Prescott fallback)" : "",
      blis.arch.empty() ? "(not loaded)" : blis.arch.c_str());
  printf("%-15s %5s %5s %5s |", "product", "m", "n", "k");
  for (const char* name : names) printf(" %8s", name);
  printf(" | best          |");
  for (const char* name : names) printf(" %8s", name);
  printf("\n");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  double first_ms[kLibs] = {};  // slowest first call (JIT, buffers)
  std::vector<float> scratch;
  for (const Shape& s : kShapes) {
    if (only != nullptr && !strstr(s.label, only)) continue;
    const int64_t m = s.m, n = s.n, k = s.k;
    std::vector<float> a(m * k), b(k * n), c(m * n);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    const int64_t ldb = s.trans_b ? k : n;
    // f64 reference and each element's sum of |products|.
    std::vector<double> exact(m * n, 0.0), magnitude(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          double bv = s.trans_b ? b[j * k + p] : b[p * n + j];
          sum += double(a[i * k + p]) * bv;
          mag += std::fabs(double(a[i * k + p]) * bv);
        }
        exact[i * n + j] = sum;
        magnitude[i * n + j] = std::max(mag, 1e-300);
      }
    }
    const double flops = 2.0 * m * n * k;
    double gflops[kLibs] = {}, err[kLibs];
    bool same_bits[kLibs] = {}, nonfinite_ok[kLibs] = {};
    std::fill(err, err + kLibs, -1.0);
    std::vector<float> openblas_c;
    std::vector<std::function<void()>> calls(kLibs);
    auto measure = [&](int lib, const std::function<void()>& call) {
      // C starts as NaN: beta = 0 must not read it.
      std::fill(c.begin(), c.end(), std::nanf(""));
      auto t0 = std::chrono::steady_clock::now();
      call();
      first_ms[lib] = std::max(
          first_ms[lib],
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      err[lib] = RelativeError(c, exact, magnitude);
      if (lib == 0) openblas_c = c;
      same_bits[lib] = std::memcmp(c.data(), openblas_c.data(), c.size() * sizeof(float)) == 0;
      // inf * 0 is NaN: a[0][0] = inf against a zero row 0 of B.
      const std::vector<float> a_kept = a, b_kept = b;
      for (int64_t j = 0; j < n; ++j) b[s.trans_b ? j * k : j] = 0;
      a[0] = INFINITY;
      call();
      nonfinite_ok[lib] = true;
      for (int64_t j = 0; j < n; ++j) nonfinite_ok[lib] = nonfinite_ok[lib] && std::isnan(c[j]);
      a = a_kept;
      b = b_kept;
      calls[lib] = call;  // timed below, with the others
    };
    const CBLAS_TRANSPOSE tb = s.trans_b ? CblasTrans : CblasNoTrans;
    measure(0, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, tb, m, n, k, 1.0f, a.data(), k, b.data(), ldb, 0.0f,
                  c.data(), n);
    });
    if (blis.sgemm != nullptr) {
      const float one = 1, zero = 0;
      // BLIS strides: row stride, column stride; B transposed via trans flag.
      measure(1, [&] {
        blis.sgemm(0, s.trans_b ? 8 : 0, m, n, k, &one, a.data(), k, 1, b.data(), ldb, 1, &zero,
                   c.data(), n, 1);
      });
    }
    // The K-block [lo, hi) of B: rows lo.. (or columns, transposed).
    auto b_block = [&](int64_t lo) { return b.data() + (s.trans_b ? lo : lo * n); };
    auto dnnl_block = [&](int64_t lo, int64_t hi, float* out) {
      dnnl_sgemm('N', s.trans_b ? 'T' : 'N', m, n, hi - lo, 1.0f, a.data() + lo, k, b_block(lo),
                 ldb, 0.0f, out, n);
    };
    measure(2, [&] { dnnl_block(0, k, c.data()); });
    // libxsmm is column-major: C^T[n,m] = B^T A^T, its m is our n.
    const float alpha = 1, beta = 0;
    const int flags = s.trans_b ? LIBXSMM_GEMM_FLAG_TRANS_A : LIBXSMM_GEMM_FLAG_NONE;
    auto xsmm_kernel = [&](int64_t kk) {
      const libxsmm_blasint xm = n, xn = m, xk = kk, lda = ldb, ldbx = k, ldc = n;
      return libxsmm_smmdispatch(xm, xn, xk, &lda, &ldbx, &ldc, &alpha, &beta, &flags, nullptr);
    };
    // Dispatched in each call, as hlo-run would (a lookup in libxsmm's registry).
    if (xsmm_kernel(k) != nullptr) {
      measure(3, [&] { xsmm_kernel(k)(b.data(), a.data(), c.data()); });
    }
    if (k > kBlockK) {
      measure(4, [&] { SumOfBlocks(m, n, k, c.data(), scratch, dnnl_block); });
      const int64_t short_k = k / ((k + kBlockK - 1) / kBlockK);
      libxsmm_smmfunction short_kernel = xsmm_kernel(short_k),
                          long_kernel = xsmm_kernel(short_k + 1);
      if (short_kernel != nullptr && long_kernel != nullptr) {
        // (Captured by value: the calls are timed after this block ends.)
        measure(5, [&, short_k, short_kernel, long_kernel] {
          SumOfBlocks(m, n, k, c.data(), scratch, [&](int64_t lo, int64_t hi, float* out) {
            (hi - lo == short_k ? short_kernel : long_kernel)(b_block(lo), a.data() + lo, out);
          });
        });
      }
      constexpr int64_t kShortBlockK = 128;
      const int64_t k128 = k / ((k + kShortBlockK - 1) / kShortBlockK);
      libxsmm_smmfunction short128 = xsmm_kernel(k128), long128 = xsmm_kernel(k128 + 1);
      if (short128 != nullptr && long128 != nullptr) {
        measure(7, [&, k128, short128, long128] {
          SumOfBlocks(
              m, n, k, c.data(), scratch,
              [&](int64_t lo, int64_t hi, float* out) {
                (hi - lo == k128 ? short128 : long128)(b_block(lo), a.data() + lo, out);
              },
              kShortBlockK);
        });
      }
    }
    if (!s.trans_b) {
      // C in tiles of tile_rows x tile_cols, each summed as K-blocks: the
      // first block's product into the tile, each later one into a scratch
      // tile added to it (kb's bits, with the tile in cache).
      const int64_t blocks = (k + kBlockK - 1) / kBlockK;
      std::vector<float> tile(tile_rows * tile_cols);
      measure(6, [&, blocks, tile]() mutable {
        for (int64_t j0 = 0; j0 < n; j0 += tile_cols) {
          const int64_t nt = std::min(tile_cols, n - j0);
          for (int64_t i0 = 0; i0 < m; i0 += tile_rows) {
            const int64_t mt = std::min(tile_rows, m - i0);
            float* ct = c.data() + i0 * n + j0;
            for (int64_t bi = 0; bi < blocks; ++bi) {
              const int64_t lo = k * bi / blocks, hi = k * (bi + 1) / blocks;
              const libxsmm_blasint xm = nt, xn = mt, xk = hi - lo, lda = n, ldbx = k,
                                    ldc = bi == 0 ? n : nt;
              libxsmm_smmfunction kernel = libxsmm_smmdispatch(xm, xn, xk, &lda, &ldbx, &ldc,
                                                               &alpha, &beta, &flags, nullptr);
              kernel(b.data() + lo * n + j0, a.data() + i0 * k + lo, bi == 0 ? ct : tile.data());
              if (bi == 0) continue;
              for (int64_t i = 0; i < mt; ++i) {
                for (int64_t j = 0; j < nt; ++j) ct[i * n + j] += tile[i * nt + j];
              }
            }
          }
        }
      });
    }
    const std::vector<double> seconds = SecondsPerCall(calls, budget_s);
    for (int l = 0; l < kLibs; ++l) gflops[l] = seconds[l] > 0 ? flops / seconds[l] / 1e9 : 0;
    int best = 0;
    for (int l = 1; l < kLibs; ++l) {
      if (gflops[l] > gflops[best]) best = l;
    }
    printf("%-15s %5lld %5lld %5lld |", s.label, (long long)m, (long long)n, (long long)k);
    for (double g : gflops) {
      if (g > 0) {
        printf(" %8.1f", g);
      } else {
        printf(" %8s", "-");
      }
    }
    printf(" | %-8s %4.2fx |", names[best], gflops[best] / gflops[0]);
    for (int l = 0; l < kLibs; ++l) {
      if (err[l] < 0) {
        printf(" %8s", "-");
      } else {
        printf(" %7.2f%c", err[l] * 1e9, !nonfinite_ok[l] ? '!' : same_bits[l] ? '=' : ' ');
      }
    }
    printf("\n");
    fflush(stdout);
  }
  printf("= same bits as OpenBLAS; ! inf * 0 gave no NaN\nslowest first call (ms):");
  for (double ms : first_ms) printf(" %.2f", ms);
  printf("\n");
  libxsmm_finalize();
  return 0;
}
