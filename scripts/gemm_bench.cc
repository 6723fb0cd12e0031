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
// hlo-run's way: oneDNN adding each block to C; xsmm-kb), and libxsmm's blocks over tiles of C
// (xsmm-tile; TILE_ROWS and TILE_COLS in the environment, 64 x 512 by default); and libxsmm's
// products of 128-term blocks summed (xsmm-128), the blocks hlo-run's
// LibxsmmBlockedGemm sums (it does so a panel of at most 256 columns at a
// time); and, for a transposed B, hlo-run's own kernel with dnnl-kb's sums
// (hlo-bt, eval/kernels/gemm_streamed_bt.h, which hlo-run runs where B^T
// streams from memory). The libraries are timed
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
#include "eval/kernels/gemm_streamed_bt.h"
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

namespace {

constexpr int kLibs = 9;
const char* const kNames[kLibs] = {"openblas", "blis",      "onednn",   "libxsmm", "dnnl-kb",
                                   "xsmm-kb",  "xsmm-tile", "xsmm-128", "hlo-bt"};

// One shape: its operands, the f64 product, and each library's call and
// figures. The calls refer to its members: it outlives their timing.
struct ShapeRun {
  ShapeRun(const Shape& shape, std::mt19937& rng)
      : s(shape),
        m(shape.m),
        n(shape.n),
        k(shape.k),
        ldb(shape.trans_b ? shape.k : shape.n),
        a(m * k),
        b(k * n),
        c(m * n),
        calls(kLibs) {
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    std::fill(err, err + kLibs, -1.0);
    Exact();
  }

  // B's element (p, j) whichever way it is stored, and the K-block of B
  // from p = lo on: rows lo.. (or columns, transposed).
  float B(int64_t p, int64_t j) const { return s.trans_b ? b[j * k + p] : b[p * n + j]; }
  const float* BBlock(int64_t lo) const { return b.data() + (s.trans_b ? lo : lo * n); }

  // oneDNN's product of the K-block [lo, hi) into out (n wide).
  void DnnlBlock(int64_t lo, int64_t hi, float* out) const {
    dnnl_sgemm('N', s.trans_b ? 'T' : 'N', m, n, hi - lo, 1.0f, a.data() + lo, k, BBlock(lo), ldb,
               0.0f, out, n);
  }

  // C as hlo-run's OnednnGemm sums it (eval/kernels/gemm_onednn.cc): blocks
  // of nearly equal length, at most kBlockK, the first written to C and
  // each later one added to it by oneDNN itself (beta = 1), which gives
  // SumOfBlocks' bits without its scratch pass over C.
  void DnnlBlocks(int64_t block_k) {
    const int64_t blocks = (k + block_k - 1) / block_k;
    for (int64_t bi = 0; bi < blocks; ++bi) {
      const int64_t lo = k * bi / blocks, hi = k * (bi + 1) / blocks;
      dnnl_sgemm('N', s.trans_b ? 'T' : 'N', m, n, hi - lo, 1.0f, a.data() + lo, k, BBlock(lo), ldb,
                 bi == 0 ? 0.0f : 1.0f, c.data(), n);
    }
  }

  // libxsmm's kernel for kk terms (column-major: C^T[n,m] = B^T A^T, its m
  // is our n), dispatched in each call as hlo-run does (a registry lookup).
  libxsmm_smmfunction XsmmKernel(int64_t kk) const {
    const libxsmm_blasint xm = n, xn = m, xk = kk, lda = ldb, ldbx = k, ldc = n;
    const float alpha = 1, beta = 0;
    const int flags = s.trans_b ? LIBXSMM_GEMM_FLAG_TRANS_A : LIBXSMM_GEMM_FLAG_NONE;
    return libxsmm_smmdispatch(xm, xn, xk, &lda, &ldbx, &ldc, &alpha, &beta, &flags, nullptr);
  }

  // Runs `call` once for its error, bits and first-call time, once more
  // with inf * 0 in it, and keeps it for the timed rounds.
  void Measure(int lib, const std::function<void()>& call, double* first_ms);

  const Shape& s;
  const int64_t m, n, k, ldb;
  std::vector<float> a, b, c;
  std::vector<double> exact, magnitude;  // f64 product, each element's sum of |products|
  double err[kLibs];
  bool same_bits[kLibs] = {}, nonfinite_ok[kLibs] = {};
  std::vector<float> openblas_c;
  std::vector<std::function<void()>> calls;

 private:
  void Exact() {
    exact.assign(m * n, 0.0);
    magnitude.assign(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double product = double(a[i * k + p]) * B(p, j);
          sum += product;
          mag += std::fabs(product);
        }
        exact[i * n + j] = sum;
        magnitude[i * n + j] = std::max(mag, 1e-300);
      }
    }
  }
};

void ShapeRun::Measure(int lib, const std::function<void()>& call, double* first_ms) {
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
  calls[lib] = call;  // timed later, with the others
}

// The whole products: OpenBLAS, BLIS, oneDNN and libxsmm (where it makes
// a kernel for all of k).
void MeasureWhole(ShapeRun& r, const Blis& blis, double* first_ms) {
  const CBLAS_TRANSPOSE tb = r.s.trans_b ? CblasTrans : CblasNoTrans;
  r.Measure(
      0,
      [&r, tb] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, tb, r.m, r.n, r.k, 1.0f, r.a.data(), r.k,
                    r.b.data(), r.ldb, 0.0f, r.c.data(), r.n);
      },
      first_ms);
  if (blis.sgemm != nullptr) {
    // BLIS strides: row stride, column stride; B transposed via trans flag.
    r.Measure(
        1,
        [&r, &blis] {
          const float one = 1, zero = 0;
          blis.sgemm(0, r.s.trans_b ? 8 : 0, r.m, r.n, r.k, &one, r.a.data(), r.k, 1, r.b.data(),
                     r.ldb, 1, &zero, r.c.data(), r.n, 1);
        },
        first_ms);
  }
  r.Measure(
      2, [&r] { r.DnnlBlock(0, r.k, r.c.data()); }, first_ms);
  if (r.XsmmKernel(r.k) != nullptr) {
    r.Measure(
        3, [&r] { r.XsmmKernel(r.k)(r.b.data(), r.a.data(), r.c.data()); }, first_ms);
  }
}

// libxsmm's kernels of a product in blocks of nearly equal length, at most
// block_k terms each (null where libxsmm makes none).
struct BlockKernels {
  int64_t short_k;
  libxsmm_smmfunction short_kernel, long_kernel;
};
BlockKernels XsmmBlockKernels(const ShapeRun& r, int64_t block_k) {
  const int64_t short_k = r.k / ((r.k + block_k - 1) / block_k);
  return {short_k, r.XsmmKernel(short_k), r.XsmmKernel(short_k + 1)};
}

// Products past kBlockK terms as sums of blocks: oneDNN's and libxsmm's
// 256-term blocks, and libxsmm's 128-term ones.
void MeasureBlocks(ShapeRun& r, std::vector<float>& scratch, double* first_ms) {
  if (r.k <= kBlockK) return;
  r.Measure(
      4, [&r] { r.DnnlBlocks(kBlockK); }, first_ms);
  constexpr int64_t kShortBlockK = 128;
  const std::pair<int, int64_t> variants[] = {{5, kBlockK}, {7, kShortBlockK}};
  for (const auto& [lib, block_k] : variants) {
    const BlockKernels kernels = XsmmBlockKernels(r, block_k);
    if (kernels.short_kernel == nullptr || kernels.long_kernel == nullptr) continue;
    r.Measure(
        lib,
        [&r, &scratch, kernels, block_k = block_k] {
          SumOfBlocks(
              r.m, r.n, r.k, r.c.data(), scratch,
              [&](int64_t lo, int64_t hi, float* out) {
                (hi - lo == kernels.short_k ? kernels.short_kernel : kernels.long_kernel)(
                    r.BBlock(lo), r.a.data() + lo, out);
              },
              block_k);
        },
        first_ms);
  }
}

// hlo-run's kernel for A B^T (dnnl-kb's sums), the gate's shape test left
// out so that every transposed shape has a figure.
void MeasureStreamedBt(ShapeRun& r, double* first_ms) {
  if (!r.s.trans_b) return;
  r.Measure(
      8,
      [&r] {
        hlo::gemm::StreamedBtKernel(r.m, r.n, r.k, r.a.data(), r.k, r.b.data(), r.ldb, r.c.data(),
                                    r.n);
      },
      first_ms);
}

// C in tiles of tile_rows x tile_cols, each summed as K-blocks: the first
// block's product into the tile, each later one into a scratch tile added
// to it (kb's bits, with the tile in cache). Untransposed B only.
void MeasureTiles(ShapeRun& r, int64_t tile_rows, int64_t tile_cols, double* first_ms) {
  if (r.s.trans_b) return;
  const int64_t blocks = (r.k + kBlockK - 1) / kBlockK;
  std::vector<float> tile(tile_rows * tile_cols);
  r.Measure(
      6,
      [&r, blocks, tile, tile_rows, tile_cols]() mutable {
        const float alpha = 1, beta = 0;
        const int flags = LIBXSMM_GEMM_FLAG_NONE;
        const int64_t m = r.m, n = r.n, k = r.k;
        for (int64_t j0 = 0; j0 < n; j0 += tile_cols) {
          const int64_t nt = std::min(tile_cols, n - j0);
          for (int64_t i0 = 0; i0 < m; i0 += tile_rows) {
            const int64_t mt = std::min(tile_rows, m - i0);
            float* ct = r.c.data() + i0 * n + j0;
            for (int64_t bi = 0; bi < blocks; ++bi) {
              const int64_t lo = k * bi / blocks, hi = k * (bi + 1) / blocks;
              const libxsmm_blasint xm = nt, xn = mt, xk = hi - lo, lda = n, ldbx = k,
                                    ldc = bi == 0 ? n : nt;
              libxsmm_smmfunction kernel = libxsmm_smmdispatch(xm, xn, xk, &lda, &ldbx, &ldc,
                                                               &alpha, &beta, &flags, nullptr);
              kernel(r.b.data() + lo * n + j0, r.a.data() + i0 * k + lo,
                     bi == 0 ? ct : tile.data());
              if (bi == 0) continue;
              for (int64_t i = 0; i < mt; ++i) {
                for (int64_t j = 0; j < nt; ++j) ct[i * n + j] += tile[i * nt + j];
              }
            }
          }
        }
      },
      first_ms);
}

void PrintHeader(const char* corename, bool widened, const Blis& blis) {
  printf(
      "one thread; OpenBLAS kernels: %s%s; BLIS kernels: %s; GFLOP/s (median call); mean "
      "relative error x 1e-9\n",
      corename, widened ? " (forced over its Prescott fallback)" : "",
      blis.arch.empty() ? "(not loaded)" : blis.arch.c_str());
  printf("%-15s %5s %5s %5s |", "product", "m", "n", "k");
  for (const char* name : kNames) printf(" %8s", name);
  printf(" | best          |");
  for (const char* name : kNames) printf(" %8s", name);
  printf("\n");
}

// The shape's row: GFLOP/s per library, the fastest against OpenBLAS, and
// each library's error (= OpenBLAS's bits, ! no NaN from inf * 0).
void PrintRow(const ShapeRun& r, const double* gflops) {
  int best = 0;
  for (int l = 1; l < kLibs; ++l) {
    if (gflops[l] > gflops[best]) best = l;
  }
  printf("%-15s %5lld %5lld %5lld |", r.s.label, (long long)r.m, (long long)r.n, (long long)r.k);
  for (int l = 0; l < kLibs; ++l) {
    if (gflops[l] > 0) {
      printf(" %8.1f", gflops[l]);
    } else {
      printf(" %8s", "-");
    }
  }
  printf(" | %-8s %4.2fx |", kNames[best], gflops[best] / gflops[0]);
  for (int l = 0; l < kLibs; ++l) {
    if (r.err[l] < 0) {
      printf(" %8s", "-");
    } else {
      printf(" %7.2f%c", r.err[l] * 1e9, !r.nonfinite_ok[l] ? '!' : r.same_bits[l] ? '=' : ' ');
    }
  }
  printf("\n");
  fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const gemm_bench::Options options = gemm_bench::ParseOptions(argc, argv);
  // OpenBLAS's kernels as hlo-run has them (its Prescott fallback replaced
  // on a CPU newer than the build, eval/blas_kernel_choice.h).
  const bool widened =
      hlo::blas::WidenFallbackKernels(dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD), true);
  openblas_set_num_threads(1);
  const Blis blis = LoadBlis();
  libxsmm_init();
  const int64_t tile_rows = getenv("TILE_ROWS") ? atoll(getenv("TILE_ROWS")) : 64;
  const int64_t tile_cols = getenv("TILE_COLS") ? atoll(getenv("TILE_COLS")) : 512;
  PrintHeader(openblas_get_corename(), widened, blis);
  std::mt19937 rng(7);
  double first_ms[kLibs] = {};  // slowest first call (JIT, buffers)
  std::vector<float> scratch;
  for (const Shape& s : kShapes) {
    if (options.only != nullptr && !strstr(s.label, options.only)) continue;
    ShapeRun run(s, rng);
    MeasureWhole(run, blis, first_ms);
    MeasureBlocks(run, scratch, first_ms);
    MeasureTiles(run, tile_rows, tile_cols, first_ms);
    MeasureStreamedBt(run, first_ms);
    const std::vector<double> seconds = SecondsPerCall(run.calls, options.budget_s);
    double gflops[kLibs] = {};
    for (int l = 0; l < kLibs; ++l) {
      gflops[l] = seconds[l] > 0 ? 2.0 * s.m * s.n * s.k / seconds[l] / 1e9 : 0;
    }
    PrintRow(run, gflops);
  }
  printf("= same bits as OpenBLAS; ! inf * 0 gave no NaN\nslowest first call (ms):");
  for (double ms : first_ms) printf(" %.2f", ms);
  printf("\n");
  libxsmm_finalize();
  return 0;
}
