// The yardstick of scripts/bench-collectives-load: N threads meeting TRIPS
// times at a condition-variable rendezvous, nothing else, so each meeting
// costs the futex wake-ups alone. Prints the fastest of 5 runs.
//   g++ -O2 -pthread scripts/rendezvous_bench.cc -o rendezvous
//   ./rendezvous THREADS TRIPS
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int trips = argc > 2 ? std::atoi(argv[2]) : 2000;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 20;
  if (threads < 1 || trips < 1 || runs < 1) {
    std::fprintf(stderr, "usage: rendezvous THREADS TRIPS [RUNS]\n");
    return 2;
  }
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  long generation = 0;
  auto meet = [&] {
    std::unique_lock<std::mutex> lock(mu);
    const long g = generation;
    if (++arrived == threads) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return generation != g; });
  };
  std::vector<double> times;
  for (int run = 0; run < runs; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
      pool.emplace_back([&] {
        for (int t = 0; t < trips; ++t) meet();
      });
    }
    for (std::thread& t : pool) t.join();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("rendezvous_min_ms=%.3f rendezvous_median_ms=%.3f\n", times[0],
              times[times.size() / 2]);
  return 0;
}
