// What scripts/fused_bound_bench.cc and scripts/jit_fused_bench.cc share:
// their arguments (DIR [--runs N]) and the timing of a chain over n floats,
// one part per core as hlo-run's pool splits a loop (parts of whole
// 16-float vectors), the threads started inside the timing as a pool's are
// woken.
#ifndef HLO_SCRIPTS_FUSED_BENCH_RUNS_H_
#define HLO_SCRIPTS_FUSED_BENCH_RUNS_H_

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace fused_bench {

// DIR and --runs (default 30) from argv; false, with the usage or the
// reason printed, when the program cannot run here.
inline bool ParseArgs(const char* name, int argc, char** argv, std::string& dir, int& runs) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--runs N]\n", name);
    return false;
  }
  if (!__builtin_cpu_supports("avx512f")) {
    std::fprintf(stderr, "%s: needs AVX-512\n", name);
    return false;
  }
  dir = argv[1];
  runs = argc > 3 && std::strcmp(argv[2], "--runs") == 0 ? std::atoi(argv[3]) : 30;
  return true;
}

// The fastest of `runs` runs, in ms, of chain(lo, hi) over [0, n) cut
// into one part per core.
template <typename Chain>
double FastestMs(long n, int runs, Chain chain) {
  const long parts = std::max(1u, std::thread::hardware_concurrency());
  auto part = [&](long p) { chain(n / 16 * p / parts * 16, n / 16 * (p + 1) / parts * 16); };
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> others;
    for (long p = 1; p < parts; ++p) others.emplace_back(part, p);
    part(0);
    for (std::thread& t : others) t.join();
    best = std::min(
        best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count());
  }
  return best;
}

}  // namespace fused_bench

#endif  // HLO_SCRIPTS_FUSED_BENCH_RUNS_H_
