// The bound a code generator for fused loops could reach on the shared
// eltwise benchmark (../shared/bench/eltwise.hlo): its chain
//   e = exp(x); m = e*y; a = m + x; t = tanh(a); s = select(t > 0, t, a);
//   out = s / e
// as one hand-written AVX-512 loop over f32[4096,4096] on every core, each
// value kept in registers: hlo-run's own exp
// (eval/interp/vector_math_avx512.h, for |x| within its range, which the
// uniform [-1, 1) inputs are) and libmvec's tanh, as hlo-run calls them.
// Writes its inputs and result as .npy into DIR so that scripts/
// bench-fused-bound can check hlo-run gives the same bits. Prints the
// fastest of --runs. A benchmark, not a test.
//   fused_bound_bench DIR [--runs 30]
#include <immintrin.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "eval/interp/vector_math_avx512.h"
#include "scripts/fused_bench_runs.h"

extern "C" __m512 _ZGVeN16v_tanhf(__m512);

namespace {

constexpr long kRows = 4096, kCols = 4096;

__attribute__((target("avx512f"))) void Chain(const float* x, const float* y, float* out, long n) {
  for (long i = 0; i < n; i += 16) {
    const __m512 vx = _mm512_loadu_ps(x + i), vy = _mm512_loadu_ps(y + i);
    const __m512 e = hlo::elementwise::ExpAvx512(vx);
    const __m512 a = _mm512_add_ps(_mm512_mul_ps(e, vy), vx);
    const __m512 t = _ZGVeN16v_tanhf(a);
    const __mmask16 positive = _mm512_cmp_ps_mask(t, _mm512_setzero_ps(), _CMP_GT_OQ);
    _mm512_storeu_ps(out + i, _mm512_div_ps(_mm512_mask_blend_ps(positive, a, t), e));
  }
}

bool WriteNpy(const std::string& path, const std::vector<float>& v) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(kRows) + ", " + std::to_string(kCols) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const unsigned short length = static_cast<unsigned short>(header.size());
  bool ok = std::fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && std::fwrite(&length, 2, 1, f) == 1 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(v.data(), sizeof(float), v.size(), f) == v.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int runs = 0;
  if (!fused_bench::ParseArgs("fused_bound_bench", argc, argv, dir, runs)) return argc < 2 ? 2 : 1;
  const long n = kRows * kCols;
  std::vector<float> x(n), y(n), out(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (long i = 0; i < n; ++i) x[i] = uniform(rng), y[i] = uniform(rng);
  const double best = fused_bench::FastestMs(n, runs, [&](long lo, long hi) {
    Chain(x.data() + lo, y.data() + lo, out.data() + lo, hi - lo);
  });
  if (!WriteNpy(dir + "/x.npy", x) || !WriteNpy(dir + "/y.npy", y) ||
      !WriteNpy(dir + "/fused.npy", out)) {
    std::fprintf(stderr, "fused_bound_bench: cannot write into %s\n", dir.c_str());
    return 1;
  }
  std::printf("fused_bound: eltwise runs=%d min_ms=%.3f\n", runs, best);
  return 0;
}
