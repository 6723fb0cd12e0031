// Waiting for another device's thread by yielding the core first.
//
// hlo-run runs one thread per device, often more devices than cores (four
// partitions on two cores). A device that sleeps on a condition variable is
// woken by a futex call and, on a virtual machine, an inter-processor
// interrupt: for small collectives that was most of the time. Yielding the
// core instead lets the thread being waited for run on it at once; after a
// short budget the waiter goes back to sleeping, so an idle device costs
// nothing for long.
#ifndef HLO_EVAL_COLLECTIVES_YIELD_WAIT_H_
#define HLO_EVAL_COLLECTIVES_YIELD_WAIT_H_

#include <chrono>
#include <thread>

namespace hlo {

// A small collective's other devices arrive within tens of microseconds.
inline constexpr std::chrono::microseconds kYieldBudget{200};

// Yields until ready() (a lock-free check) holds or the budget is spent;
// returns ready().
template <typename Ready>
bool YieldUntil(Ready ready, std::chrono::microseconds budget = kYieldBudget) {
  const auto until = std::chrono::steady_clock::now() + budget;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_YIELD_WAIT_H_
