// The seam between the Rendezvous (where the devices of this process meet)
// and the devices of other processes. A run without a Transport keeps every
// device a thread of this process: the Rendezvous alone is the exchange, as
// before, and pays nothing for the seam. With one (eval/collectives/
// mpi_transport.h), each process runs a contiguous block of the devices; a
// collective whose group spans processes sends this process's contributions
// to every other process in the group, and each process combines the
// contributions of the whole group in group order itself, exactly as a
// thread does: results are bit-identical whatever the split.
#ifndef HLO_EVAL_COLLECTIVES_TRANSPORT_H_
#define HLO_EVAL_COLLECTIVES_TRANSPORT_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eval/collectives/spin_policy.h"
#include "eval/value.h"

namespace hlo {

class Rendezvous;

class Transport {
 public:
  virtual ~Transport() = default;

  // This process's devices: [first_device(), first_device() + local_devices()).
  virtual int64_t first_device() const = 0;
  virtual int64_t local_devices() const = 0;
  // The process (rank) that runs `device`.
  virtual int RankOf(int64_t device) const = 0;

  // One run: BeginRun attaches the run's Rendezvous (messages that came
  // before it are delivered then); EndRun, after this process's devices
  // all finished without error, waits until every process's have, or
  // returns the error that stopped the run elsewhere (a deadlock across
  // processes); DetachRun lets the Rendezvous go (always, error or not).
  virtual void BeginRun(Rendezvous* rendezvous) = 0;
  virtual absl::Status EndRun() = 0;
  virtual void DetachRun() = 0;

  // Called by the Rendezvous, under its lock, so they never block on a
  // peer: this process's contributions (group index, value) to the
  // collective `key` of `group`, for the processes `to` (encoded once);
  // one send/recv message. `own`: the arrays are the Rendezvous' own
  // (slices it cut, parts it reduced), never written again, so the
  // transport may keep them and send large ones from where they are;
  // otherwise they are a device's, copied before this returns.
  virtual absl::Status SendContributions(const std::vector<int>& to, const std::string& key,
                                         const std::vector<int64_t>& group,
                                         const std::vector<std::pair<int64_t, const Value*>>& mine,
                                         bool own) = 0;
  virtual absl::Status SendMail(int to, const std::string& key, const Value& data) = 0;

  // Small collectives as one collective of the transport's own: before
  // the first run, every process passes the same list of groups (device
  // numbers, in group order) that collectives of the module meet in, and
  // the transport makes what it needs for those it runs (an MPI
  // communicator per group). Then StartGather, under the Rendezvous' lock
  // and never blocking, starts the exchange of this process's members'
  // contributions (group index, value; arrays of one shape per member)
  // with every other process of `group`; once `done`, `parts` holds the
  // other members' contributions, and the Rendezvous was woken. Null: not
  // for this group (the caller sends them). A process's gathers of one
  // group start in the order its members meet, so every process starts
  // them in the same order. A gather that another process answers with
  // another collective's never ends: its devices wait until the deadlock
  // is seen, as for a device that never comes.
  virtual absl::Status PrepareGroups(const std::vector<std::vector<int64_t>>& groups) {
    (void)groups;
    return absl::OkStatus();
  }
  struct Gathered {
    std::atomic<bool> done{false};
    std::vector<std::pair<int64_t, Value>> parts;
  };
  virtual std::shared_ptr<Gathered> StartGather(
      const std::string& key, absl::Span<const int64_t> group,
      absl::Span<const std::pair<int64_t, const Value*>> mine) {
    (void)key, (void)group, (void)mine;
    return nullptr;
  }
  // A small gather whose group has one member on each process, none of
  // its gathers in flight here, as StartGather's but for less: `mine`
  // (this process's member's array) goes out written in place, and the
  // peers' blocks are looked for a moment (about a round trip between
  // cores). Where they all came, `fold` gets every member's bytes in group
  // order, where they lie (kDone); where not (a peer still computes), the
  // gather goes on as StartGather's (kHandedOver, with its Gathered).
  // kNotTaken: nothing happened (no such way for this group now); the
  // caller takes the general path. Called without the Rendezvous' lock,
  // by the member's own device thread.
  struct Quick {
    enum class Kind { kNotTaken, kDone, kHandedOver };
    Kind kind = Kind::kNotTaken;
    std::shared_ptr<Gathered> gathered;
  };
  using QuickFold = absl::FunctionRef<void(absl::Span<const char* const>)>;
  virtual Quick QuickGather(const std::string& key, absl::Span<const int64_t> group,
                            const Value& mine, QuickFold fold) {
    (void)key, (void)group, (void)mine, (void)fold;
    return {};
  }
  // The Rendezvous' state changed (a device waits, or finished): the
  // transport may look at Rendezvous::State for its deadlock detection.
  virtual void StateChanged() = 0;
  // A device here stopped waiting (called under the Rendezvous' lock, so
  // it must not block): a process whose last report said it is stuck may
  // need to say that it no longer is.
  virtual void LeftWait() {}

  // Called by a device thread that waits for other processes, without the
  // Rendezvous' lock: one round of what the transport's own progress thread
  // does (send what is queued, deliver what came in), unless another thread
  // is at it. The message a device waits for is then taken in by the
  // thread that needs it, with no hand-off between threads (each a wake-up
  // through the scheduler).
  enum class Drive {
    kIdle,      // nothing moved
    kYielded,   // nothing moved, and the transport's progress gave the core away
    kInFlight,  // a large message is still moving: drive again soon
    kMoved,     // a message went or came: drive again now
  };
  virtual Drive DriveProgress() { return Drive::kIdle; }
  // Whether a waiting thread should give up its core between rounds: the
  // processes here have more threads that wait than the machine has cores.
  virtual bool YieldWhenIdle() const { return true; }
};

// Waits under `lock` until `ready()` or `timeout` passed (max: no end; the
// clock is read once to start, not again for the deadline), driving `transport`
// meanwhile: polling for the first millisecond (a small collective's round
// trip between processes that share cores; the core given away once in
// kPollsPerYield polls), then
// between naps on `cv` (woken early by this process's own events) that
// double up to 200 us, while a peer still computes (with a core of its
// own it pauses rather than yields: YieldWhenIdle; while SpinPolicy says
// the cores are busy with other work, it naps from the start). The waiter
// never stops driving: a waiter asleep until another thread took its
// message in would make its peers' waits long too, and each would then
// wait as long for the next. The spin takes neither the lock nor the clock
// each round (a round should cost little more than the yield): it looks at
// `ready` when a message came in and every kLookEvery rounds. `napping`,
// where given, counts the waiter while it sleeps on `cv`: a notifier may
// skip the lock and the notify when none sleeps. Returns ready().
template <typename Ready>
bool WaitDriving(Transport& transport, std::unique_lock<std::mutex>& lock,
                 std::condition_variable& cv, const Ready& ready,
                 std::chrono::steady_clock::duration timeout, std::atomic<int>* napping = nullptr) {
  using std::chrono::microseconds;
  using Drive = Transport::Drive;
  using Clock = std::chrono::steady_clock;
  constexpr auto kSpinFor = std::chrono::milliseconds(1);
  constexpr microseconds kFirstNap(50), kLongestNap(200);
  constexpr int kLookEvery = 16;
  constexpr int kPollsPerYield = 3;
  int polls = 0;
  constexpr auto kTick = std::chrono::milliseconds(4);
  int slow_batches = 0;
  int moved = 0;
  // A small collective's answer mostly comes within one drive (a ring
  // gather's polls span a round trip): that wait reads no clock.
  if (ready()) return true;
  lock.unlock();
  const bool first_moved = transport.DriveProgress() == Drive::kMoved;
  lock.lock();
  if (first_moved && ready()) return true;
  const auto start = Clock::now();
  const auto deadline =
      timeout == Clock::duration::max() ? Clock::time_point::max() : start + timeout;
  const bool yield = transport.YieldWhenIdle();
  bool spin = !yield || SpinPolicy::Allowed(start);
  auto now = start;
  microseconds nap(0);
  while (!ready()) {
    if (now >= deadline) return false;
    lock.unlock();
    Drive drive = Drive::kIdle;
    for (int round = 0; round < (spin ? kLookEvery : 1); ++round) {
      drive = transport.DriveProgress();
      if (drive == Drive::kMoved || !spin) break;
      // Open MPI's mpi_yield_when_idle: yield where a peer shares the core,
      // but once in kPollsPerYield polls (not after a poll where MPI's own
      // progress yielded). A yield after every poll switched ranks about
      // three times an iteration where one is needed, and a switch costs
      // microseconds on these VMs (f32[4] all-reduce in a loop, 4 ranks
      // on 2 cores: 10.7 -> 7.3 us, median of 5).
      GiveWay(yield && drive != Drive::kYielded && ++polls % kPollsPerYield == 0, 1);
    }
    // A batch that took a message in is looked at before the clock is read
    // (it usually ends the wait); the clock still moves every 64 of them.
    if (drive == Drive::kMoved && ++moved % 64 != 0) {
      lock.lock();
      continue;
    }
    const auto after = Clock::now();
    // A batch of rounds that lost the core for a scheduler tick, twice in
    // one wait: the cores are busy with other work (once can be noise).
    if (spin && yield && after - now > kTick && ++slow_batches == 2) {
      spin = SpinPolicy::Round(now, after, kTick);
    }
    now = after;
    lock.lock();
    if (drive == Drive::kMoved) continue;
    if (spin && (drive == Drive::kInFlight || now - start < kSpinFor)) continue;
    nap = std::clamp(nap * 2, kFirstNap, kLongestNap);
    if (napping != nullptr) ++*napping;
    cv.wait_until(lock, std::min(now + nap, deadline), ready);
    if (napping != nullptr) --*napping;
    now = Clock::now();
  }
  return true;
}

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_TRANSPORT_H_
