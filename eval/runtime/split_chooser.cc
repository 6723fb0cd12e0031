#include "eval/runtime/split_chooser.h"

#include <algorithm>
#include <chrono>

#include "eval/runtime/parallel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace hlo {
namespace {

// A cheap timestamp (only differences are compared).
uint64_t Ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// The other way is tried for kTry timed calls after kFirstPeriod calls,
// then after twice as many each time the faster way stays the faster, up
// to kLongestPeriod. The first call each way is not timed (it brings the
// operands back to one core's cache, or to both), nor a split while a
// worker sleeps (the call wakes it and runs every part itself); a try
// gives up after kMostTryCalls calls.
constexpr int64_t kFirstPeriod = 16;
constexpr int64_t kLongestPeriod = 4096;
constexpr int64_t kTry = 6;
constexpr int64_t kMostTryCalls = 32;
// Longer intervals are not a loop's (or the system interrupted it).
constexpr uint64_t kLongestInterval = uint64_t{1} << 24;

int SizeClass(int64_t work) {
  int c = 0;
  for (uint64_t w = static_cast<uint64_t>(std::max<int64_t>(work, 1)); w > 1; w >>= 1) ++c;
  return c;
}

// A quarter of the way to the new time, which counts at most twice the old
// (an interval the system interrupted says little about the next).
void Record(uint64_t& smoothed, uint64_t took) {
  smoothed = smoothed == 0 ? took : smoothed - smoothed / 4 + std::min(took, 2 * smoothed) / 4;
  smoothed = std::max<uint64_t>(smoothed, 1);
}

}  // namespace

bool SplitChooser::SplitNow(int64_t work) {
  Timings& t = classes_[std::min(SizeClass(work), kClasses - 1)];
  std::unique_lock<std::mutex> lock(t.mu, std::try_to_lock);
  if (!lock.owns_lock()) return t.split_faster.load(std::memory_order_relaxed);
  const uint64_t now = Ticks();
  if (t.last_way != kUntimed && now > t.last_start && now - t.last_start < kLongestInterval) {
    Record(t.ticks[t.last_way], now - t.last_start);
  }
  t.last_start = now;
  bool faster = t.split_faster.load(std::memory_order_relaxed);
  if (t.period == 0) t.period = kFirstPeriod;
  bool split, timed;
  if (t.try_left > 0 && t.try_calls < kMostTryCalls) {
    split = !faster;
    timed = t.try_calls++ > 0 && (!split || WorkersAwake());
    if (timed) --t.try_left;
  } else {
    if (t.try_calls > 0) {  // a try just ended
      const bool now_faster = t.ticks[0] != 0 && t.ticks[1] != 0 && t.ticks[1] < t.ticks[0];
      t.period = now_faster == faster ? std::min(2 * t.period, kLongestPeriod) : kFirstPeriod;
      faster = now_faster;
      t.split_faster.store(faster, std::memory_order_relaxed);
      t.try_calls = 0;
      t.try_left = 0;
      t.since_try = 0;
    }
    split = faster;
    timed = t.since_try++ > 0 && (!split || WorkersAwake());
    if (t.since_try >= t.period) t.try_left = kTry;
  }
  t.last_way = timed ? static_cast<int>(split) : kUntimed;
  return split;
}

}  // namespace hlo
