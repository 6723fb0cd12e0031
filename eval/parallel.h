// Splitting a loop across the machine's cores (two on the machines this is
// built for). Threads are started per call: the work handed here is large
// (a convolution's tiles, a fused loop over megabytes), so their start-up
// (tens of microseconds) does not show. New threads inherit the caller's
// MXCSR, so flush-to-zero holds on them too.
#ifndef HLO_EVAL_PARALLEL_H_
#define HLO_EVAL_PARALLEL_H_

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace hlo {

// Runs fn(begin, end) over [0, n) split across the cores when n is large
// (work between gemm calls, when OpenBLAS's workers are idle, and loops
// with no gemm to give the cores to).
template <typename F>
void ParallelRows(int64_t n, int64_t min_rows, F&& fn) {
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t parts = std::min<int64_t>(cores, n / std::max<int64_t>(1, min_rows));
  if (parts <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  std::vector<std::thread> threads;
  const int64_t step = (n + parts - 1) / parts;
  for (int64_t p = 1; p < parts; ++p) {
    const int64_t b = std::min(n, p * step), e = std::min(n, b + step);
    threads.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(int64_t{0}, std::min(n, step));
  for (std::thread& t : threads) t.join();
}

}  // namespace hlo

#endif  // HLO_EVAL_PARALLEL_H_
