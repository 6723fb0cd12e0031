// Cooperative tasks (fibers) on one thread: each has a stack of its own and
// runs until it yields or returns, then the next one in turn runs. A
// multi-device run with as many devices as cores or more runs them this way
// (eval/replica_runner.cc): a device that waits at a collective hands the
// thread to the next device with a user-level switch, where device threads
// had to be woken by the kernel, and a busy machine made a wake-up wait
// for a scheduler tick (4 ms).
#ifndef HLO_EVAL_RUNTIME_FIBERS_H_
#define HLO_EVAL_RUNTIME_FIBERS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"

namespace hlo {

class Fibers {
 public:
  // Bytes of each fiber's stack: a thread's default (pages are only taken
  // as they are touched).
  static constexpr size_t kStackBytes = size_t{8} << 20;

  // Stacks for `count` fibers, kept for every Run. An error when they
  // cannot be mapped.
  static absl::StatusOr<std::unique_ptr<Fibers>> Create(int64_t count);
  ~Fibers();
  Fibers(const Fibers&) = delete;
  Fibers& operator=(const Fibers&) = delete;

  int64_t count() const { return static_cast<int64_t>(stacks_.size()); }

  // fn(i) for every i in [0, count()), each in a fiber of its own on the
  // calling thread, in turn from fiber 0 whenever one yields; returns when
  // every one has returned. fn must not throw.
  void Run(const std::function<void(int64_t)>& fn);

  // Whether the caller runs in a fiber of Run.
  static bool InFiber();
  // In a fiber: lets the others run, and returns when this one's turn comes
  // again (at once where it is the only one left). Elsewhere: nothing.
  static void Yield();

  // A counter each fiber has its own copy of (outside fibers, the thread's
  // own), for per-task bookkeeping that a thread_local would mix up.
  enum class Local { kProfilerChildNs, kCount };
  static int64_t& LocalCounter(Local which);

 private:
  Fibers() = default;
  struct Stack {
    void* base = nullptr;  // the mapping, its lowest page a guard
    size_t bytes = 0;
  };
  std::vector<Stack> stacks_;
};

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_FIBERS_H_
