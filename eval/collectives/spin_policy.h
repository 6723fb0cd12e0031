// Whether a thread that waits for another device should spin (yielding or
// pausing between looks) before it sleeps. Spinning saves the wake-up of a
// sleeper (tens of microseconds through the futex on these VMs) while the
// cores are this program's; once they are busy with other work, a yielding
// thread can wait a whole scheduler tick (4 ms, measured: a 4-device
// collective loop went from 0.08 to 1.8 ms a collective beside two busy
// processes) where a sleeper is woken at once. So a round of the spin that
// took long turns spinning off, process-wide, for a while.
#ifndef HLO_EVAL_COLLECTIVES_SPIN_POLICY_H_
#define HLO_EVAL_COLLECTIVES_SPIN_POLICY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace hlo {

// A spin-wait's pause (no syscall): frees the core's pipeline for its
// sibling thread.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// One round of a spin-wait: the core to another thread (`yield`: the one
// waited for may need it), or `pauses` pauses (a core of one's own).
inline void GiveWay(bool yield, int pauses) {
  if (yield) {
    std::this_thread::yield();
  } else {
    for (int i = 0; i < pauses; ++i) CpuRelax();
  }
}

class SpinPolicy {
 public:
  using Clock = std::chrono::steady_clock;
  // A spin round (a yield or a few pauses) longer than this: the core was
  // taken for other work.
  static constexpr auto kSlowRound = std::chrono::milliseconds(1);
  // How long spinning stays off after a slow round.
  static constexpr auto kQuiet = std::chrono::milliseconds(100);

  // Whether waiters may spin now.
  static bool Allowed(Clock::time_point now) {
    return now.time_since_epoch().count() >= quiet_until_.load(std::memory_order_relaxed);
  }
  // A spin round from `before` to `after`; false when it was slow (and
  // spinning is off for kQuiet).
  static bool Round(Clock::time_point before, Clock::time_point after,
                    Clock::duration slow = kSlowRound) {
    if (after - before <= slow) return true;
    quiet_until_.store((after + kQuiet).time_since_epoch().count(), std::memory_order_relaxed);
    return false;
  }

 private:
  static inline std::atomic<int64_t> quiet_until_{0};
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_SPIN_POLICY_H_
