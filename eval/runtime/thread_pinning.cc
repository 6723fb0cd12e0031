#include "eval/runtime/thread_pinning.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace hlo {

#if defined(__linux__)

namespace {

cpu_set_t saved_mask;
std::atomic<bool> pinned{false};

}  // namespace

std::vector<int> PoolCpus(int64_t threads) {
  const char* env = std::getenv("HLO_PIN");
  if (threads < 2 || (env != nullptr && std::strcmp(env, "0") == 0)) return {};
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0 || CPU_COUNT(&mask) != threads) return {};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && static_cast<int64_t>(cpus.size()) < threads; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  saved_mask = mask;
  pinned.store(true, std::memory_order_release);
  return cpus;
}

void PinThisThread(int cpu, bool creator) {
  if (creator && gettid() != getpid()) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

void UnpinThisThread() {
  if (!pinned.load(std::memory_order_acquire)) return;
  pthread_setaffinity_np(pthread_self(), sizeof(saved_mask), &saved_mask);
}

#else

std::vector<int> PoolCpus(int64_t) { return {}; }
void PinThisThread(int, bool) {}
void UnpinThisThread() {}

#endif

}  // namespace hlo
