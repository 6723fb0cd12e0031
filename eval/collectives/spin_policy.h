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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
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

// Whether spinning pays, and for how long. A spin that runs out before the
// wait ends costs its whole length and the sleep after it; one that ends
// the wait saves a wake-up. The wake-up's cost is measured (notify to
// running again, a moving average over about 16): 10-15 us through the
// futex on the earlier VMs, 40-50 us on this Emerald Rapids VM (a
// condition-variable ping-pong between two threads: 77-99 us a round trip,
// against 0.5-1 us spinning). A spin lasts about one wake-up (the
// ski-rental rule: a spin that runs out then costs at most twice the best
// choice), within [kMinSpin, kMaxSpin]. With the cores shared with other
// work, a peer is often off its core for a time slice, and spins ran out
// on 1 wait in 2 to 3 (f32[4] all-reduces on 2 threads beside 2 busy
// processes: a median of 33-58 us per all-reduce against 8-12 us for a bare
// condition-variable rendezvous). So the share of recent spins that ran out
// is kept (a moving average over about 16), and past the share where a
// spin stops paying (max_fail_share: spin * share = wake * (1 - share))
// only every kProbeEvery-th wait spins, to notice when the peers have
// their cores again. Approximate under races, by design: the counts are
// relaxed atomics.
class SpinOutcomes {
 public:
  static constexpr uint32_t kProbeEvery = 16;
  static constexpr auto kMinSpin = std::chrono::microseconds(50);
  static constexpr auto kMaxSpin = std::chrono::microseconds(250);
  // Until a wake-up is measured.
  static constexpr auto kDefaultWake = std::chrono::microseconds(15);

  // The process's record, shared by its waiters.
  static SpinOutcomes& Process() {
    static SpinOutcomes outcomes;
    return outcomes;
  }
  // Whether the wait now starting should spin before it sleeps.
  bool ShouldSpin() {
    if (fail_share_.load(std::memory_order_relaxed) < max_fail_share()) return true;
    return probes_.fetch_add(1, std::memory_order_relaxed) % kProbeEvery == kProbeEvery - 1;
  }
  // A spin ended: `ended_wait` when the wait was over before it ran out.
  void Record(bool ended_wait) {
    int32_t f = fail_share_.load(std::memory_order_relaxed);
    f += ended_wait ? -(f >> 4) : (1024 - f) >> 4;
    fail_share_.store(f, std::memory_order_relaxed);
  }
  // A sleeper took `wake` from its notification to running again.
  void RecordWake(std::chrono::nanoseconds wake) {
    int64_t w = wake_ns_.load(std::memory_order_relaxed);
    w += (std::min<int64_t>(wake.count(), 10'000'000) - w) / 16;
    wake_ns_.store(w, std::memory_order_relaxed);
  }
  std::chrono::nanoseconds wake() const {
    return std::chrono::nanoseconds(wake_ns_.load(std::memory_order_relaxed));
  }
  // How long a wait spins before it sleeps.
  std::chrono::microseconds spin_for() const {
    return std::clamp(std::chrono::duration_cast<std::chrono::microseconds>(wake()), kMinSpin,
                      kMaxSpin);
  }
  // In 1/1024: the share of spins running out past which spinning costs
  // more than it saves.
  int32_t max_fail_share() const {
    const int64_t w = wake().count(), s = std::chrono::nanoseconds(spin_for()).count();
    return static_cast<int32_t>(1024 * w / (w + s));
  }
  int32_t fail_share() const { return fail_share_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int32_t> fail_share_{0};
  std::atomic<uint32_t> probes_{0};
  std::atomic<int64_t> wake_ns_{std::chrono::nanoseconds(kDefaultWake).count()};
};

// When sleepers were last notified, so that a woken one can measure its
// wake-up into SpinOutcomes.
class WakeTimer {
 public:
  void Notified() {
    at_.store(SpinPolicy::Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }
  // A sleeper is running again after a notification.
  void Woke() const {
    const int64_t at = at_.load(std::memory_order_relaxed);
    const int64_t now = SpinPolicy::Clock::now().time_since_epoch().count();
    if (at == 0 || now < at) return;
    SpinOutcomes::Process().RecordWake(std::chrono::duration_cast<std::chrono::nanoseconds>(
        SpinPolicy::Clock::duration(now - at)));
  }

 private:
  std::atomic<int64_t> at_{0};
};

// Spins until ready() or `spin_for` has passed, giving way between looks
// (GiveWay); false when the wait should go on asleep. Spins only while
// SpinPolicy allows it, and stops at the first slow round.
template <typename Ready>
bool SpinUntil(const Ready& ready, std::chrono::microseconds spin_for, bool yield) {
  if (ready()) return true;
  auto now = SpinPolicy::Clock::now();
  if (!SpinPolicy::Allowed(now)) return false;
  const auto until = now + spin_for;
  while (!ready()) {
    if (now >= until) return false;
    GiveWay(yield, 32);
    const auto after = SpinPolicy::Clock::now();
    if (!SpinPolicy::Round(now, after)) return ready();
    now = after;
  }
  return true;
}

// Takes `lock`'s mutex, trying again while it spins as a waiter does
// (SpinUntil, for a wake-up's time) before it blocks: a contended
// std::mutex sleeps in the futex at once, and waking a sleeper costs 40-50
// us on these VMs, far more than the collectives' critical sections (with
// more device threads than cores, a holder that lost its core was most of
// a 4-device program's collective time: 0.09 ms a run, 0.05 with the spin).
inline void LockSpinning(std::unique_lock<std::mutex>& lock, bool yield) {
  if (!SpinUntil([&] { return lock.try_lock(); }, SpinOutcomes::Process().spin_for(), yield)) {
    lock.lock();
  }
}

inline std::unique_lock<std::mutex> LockSpinning(std::mutex& mu, bool yield) {
  std::unique_lock<std::mutex> lock(mu, std::defer_lock);
  LockSpinning(lock, yield);
  return lock;
}

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_SPIN_POLICY_H_
