// The pool's CPUs (eval/runtime/thread_pinning.h): distinct CPUs the
// process may use, one per pool thread, or none when HLO_PIN=0 or the
// counts differ.
#include "eval/runtime/thread_pinning.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace hlo {
namespace {

TEST_CASE("thread pinning: one allowed CPU per pool thread, or none", "[parallel]") {
#if defined(__linux__)
  cpu_set_t mask;
  REQUIRE(sched_getaffinity(0, sizeof(mask), &mask) == 0);
  const int allowed = CPU_COUNT(&mask);
  const char* before = std::getenv("HLO_PIN");
  setenv("HLO_PIN", "1", 1);
  if (allowed >= 2) {
    std::vector<int> cpus = PoolCpus(allowed);
    REQUIRE(static_cast<int>(cpus.size()) == allowed);
    CHECK(std::set<int>(cpus.begin(), cpus.end()).size() == cpus.size());
    for (int c : cpus) CHECK(CPU_ISSET(c, &mask));
    CHECK(PoolCpus(allowed + 1).empty());  // more threads than CPUs: free
  }
  CHECK(PoolCpus(1).empty());
  setenv("HLO_PIN", "0", 1);
  CHECK(PoolCpus(allowed).empty());
  // A thread pinned and then unpinned has the process's mask again.
  int first = 0;
  while (!CPU_ISSET(first, &mask)) ++first;
  std::thread t([&] {
    PinThisThread(first, /*creator=*/false);
    cpu_set_t one;
    REQUIRE(sched_getaffinity(0, sizeof(one), &one) == 0);
    CHECK(CPU_COUNT(&one) == 1);
    UnpinThisThread();
    cpu_set_t now;
    REQUIRE(sched_getaffinity(0, sizeof(now), &now) == 0);
    CHECK((allowed < 2 || CPU_EQUAL(&now, &mask)));
  });
  t.join();
  if (before != nullptr) {
    setenv("HLO_PIN", before, 1);
  } else {
    unsetenv("HLO_PIN");
  }
#endif
}

}  // namespace
}  // namespace hlo
