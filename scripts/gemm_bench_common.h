// What scripts/gemm_bench.cc and scripts/gemm_lowp_bench.cc share: the
// products the models run, and interleaved timing. Benchmarks, not tests.
#ifndef HLO_SCRIPTS_GEMM_BENCH_COMMON_H_
#define HLO_SCRIPTS_GEMM_BENCH_COMMON_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace gemm_bench {

struct Shape {
  const char* label;  // where the product comes from
  int64_t m, n, k;    // row-major C[m,n] = A[m,k] B[k,n]
  bool trans_b;       // B stored [n,k]
};

// GPT-2 small's forward pass (batch 2 x 128 tokens; /2: a core's half
// split by columns, r/2 by rows), its attention per head, and ResNet-50's
// convolutions (batch 2) as the im2col blocks eval/kernels/
// convolution_gemm.cc hands to one gemm call.
inline const Shape kShapes[] = {
    {"gpt2 qkv", 256, 2304, 768, false},
    {"gpt2 proj", 256, 768, 768, false},
    {"gpt2 fc", 256, 3072, 768, false},
    {"gpt2 fc2", 256, 768, 3072, false},
    {"gpt2 qkv/2", 256, 1152, 768, false},
    {"gpt2 fc/2", 256, 1536, 768, false},
    {"gpt2 proj/2", 256, 384, 768, false},
    {"gpt2 fc2/2", 256, 384, 3072, false},
    // Each core's part where hlo-run splits these by rows (eval/kernels/gemm.cc).
    {"gpt2 qkv r/2", 128, 2304, 768, false},
    {"gpt2 proj r/2", 128, 768, 768, false},
    {"gpt2 fc r/2", 128, 3072, 768, false},
    {"gpt2 fc2 r/2", 128, 768, 3072, false},
    // The LM head (the tied embedding, f32[50257,768], read transposed),
    // a core's half: hlo-run splits it by columns (its B is 154 MB).
    {"gpt2 lm head/2", 256, 25152, 768, true},
    {"gpt2 scores", 128, 128, 64, true},
    {"gpt2 attn*v", 128, 64, 128, false},
    {"rn50 stem", 1783, 64, 147, false},
    {"rn50 1x1 64", 4096, 64, 64, false},
    {"rn50 1x1 256o", 4096, 256, 64, false},
    {"rn50 3x3 64", 455, 64, 576, false},
    {"rn50 1x1 64o", 1024, 64, 256, false},
    {"rn50 3x3 128", 227, 128, 1152, false},
    {"rn50 1x1 512o", 1568, 512, 128, false},
    {"rn50 3x3 256", 128, 256, 2304, false},
    {"rn50 1x1 1024o", 392, 1024, 256, false},
    {"rn50 3x3 512", 98, 512, 4608, false},
    {"rn50 1x1 2048o", 98, 2048, 512, false},
    {"square 1024", 1024, 1024, 1024, false},
    {"small 32", 32, 32, 32, false},
    {"small 64", 64, 64, 64, false},
    {"small 16x256x64", 16, 256, 64, false},
    {"small 8x512x512", 8, 512, 512, false},
    {"small 64 bT", 64, 64, 64, true},
    {"wide k64", 256, 8192, 64, false},
    {"wide k256", 64, 16384, 256, false},
    {"tall k256", 16384, 128, 256, false},
    {"k257", 256, 256, 257, false},
    {"k384", 256, 256, 384, false},
    {"k385", 256, 256, 385, false},
    {"k512", 256, 256, 512, false},
    {"k513", 256, 256, 513, false},
    {"k640", 256, 256, 640, false},
};

// Median seconds per call of each library, timed interleaved: every round
// calls each library once, so a slow stretch of a shared machine (these VMs
// lose whole time slices) falls on all of them alike instead of on whichever
// was being timed. Null entries are skipped (-1).
inline std::vector<double> SecondsPerCall(const std::vector<std::function<void()>>& calls,
                                          double budget_s) {
  std::vector<std::vector<double>> laps(calls.size());
  int active = 0;
  for (const auto& call : calls) {
    if (!call) continue;
    call();  // warm: packing buffers, JIT
    ++active;
  }
  double total = 0;
  for (int round = 0; total < budget_s * active || round < 5; ++round) {
    for (size_t l = 0; l < calls.size(); ++l) {
      if (!calls[l]) continue;
      auto t0 = std::chrono::steady_clock::now();
      calls[l]();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      laps[l].push_back(s);
      total += s;
    }
  }
  std::vector<double> median(calls.size(), -1);
  for (size_t l = 0; l < calls.size(); ++l) {
    if (laps[l].empty()) continue;
    std::sort(laps[l].begin(), laps[l].end());
    median[l] = laps[l][laps[l].size() / 2];
  }
  return median;
}

// [--ms 300] [--only LABEL]: milliseconds of calls per library and shape,
// and the products whose label holds LABEL.
struct Options {
  double budget_s = 0.3;
  const char* only = nullptr;
};

inline Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--ms")) o.budget_s = atof(argv[i + 1]) / 1000;
    if (!strcmp(argv[i], "--only")) o.only = argv[i + 1];
  }
  return o;
}

}  // namespace gemm_bench

#endif  // HLO_SCRIPTS_GEMM_BENCH_COMMON_H_
