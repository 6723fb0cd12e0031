// The meeting point of the devices (replicas x partitions) that hlo-run
// evaluates on threads of one process: collectives exchange their operands
// here, and send/recv pass data through mailboxes.
//
// Nothing hangs: a device that fails or finishes releases the devices that
// wait for it with an error, a wait that no running device can satisfy any
// more (every device waiting or finished) is a deadlock error at once, and
// every wait has a timeout.
#ifndef HLO_EVAL_COLLECTIVES_REPLICA_RENDEZVOUS_H_
#define HLO_EVAL_COLLECTIVES_REPLICA_RENDEZVOUS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/collectives/spin_policy.h"
#include "eval/collectives/transport.h"
#include "eval/runtime/parallel.h"
#include "eval/value.h"

namespace hlo {

class Rendezvous {
 public:
  // `devices` = replicas * partitions; device d is replica d / partitions,
  // partition d % partitions.
  Rendezvous(int64_t replicas, int64_t partitions,
             std::chrono::milliseconds timeout = std::chrono::seconds(60));

  int64_t devices() const { return replicas_ * partitions_; }
  // More device threads than cores: waits give their core away (yield)
  // rather than pause.
  bool Yields() const { return devices() > CoreCount(); }

  // The devices here run as fibers on one thread (eval/runtime/fibers.h):
  // a wait hands the thread to the next device instead of blocking it.
  // Before any device arrives; not with a transport.
  void SetCooperative() { cooperative_ = true; }

  // Devices on other processes (eval/collectives/transport.h): only
  // [first, first + count) run here. Before any device arrives.
  void SetTransport(Transport* transport, int64_t first, int64_t count);
  // "replica 1", or "replica 1 partition 0" when there are partitions.
  std::string DeviceName(int64_t device) const;

  // One instance of a collective: every device of `group` (device numbers,
  // in the group's order) calls this with the same key and its own
  // `contribution`. Once all have arrived, `combine` runs on each caller's
  // thread with every contribution in group order, and its result is
  // returned. Contributions are only read while all callers are inside (no
  // caller returns before every `combine` has finished), so buffers are
  // never shared past the call. `where` names the op for error messages.
  // With few bytes in all, the last caller to arrive runs every caller's
  // `combine` (the others wait inside, so their combines stay valid) and
  // the others only pick up their results.
  using Combine = std::function<absl::StatusOr<Value>(absl::Span<const Value>)>;
  //
  // `wants(m, r)`: whether the combine of group member r reads member m's
  // contribution (null: every one). Only what some member of a process
  // reads crosses to that process (collective-permute, -broadcast); the
  // combines must not read the others. The same for every caller.
  using Wants = std::function<bool(int64_t member, int64_t reader)>;
  //
  // `cut(contribution, reader)`: the part of a contribution that member
  // `reader`'s combine reads (reduce-scatter's slice, all-to-all's chunk).
  // With one, only those parts cross processes, and every combine gets, for
  // each member, the part for its own caller, not the whole contribution.
  using Cut = std::function<absl::StatusOr<Value>(const Value& contribution, int64_t reader)>;
  absl::StatusOr<Value> Collective(const std::string& key, absl::Span<const int64_t> group,
                                   int64_t device, Value contribution, const Combine& combine,
                                   const std::string& where, const Wants* wants = nullptr,
                                   const Cut* cut = nullptr);

  // The same where the contribution is one array and the combine a fold
  // of the members' bytes (`fold`: every member's, in group order, where
  // they lie), for a group whose only member here is `device`: through
  // the transport's quick gather (Transport::QuickGather). Nullopt:
  // nothing happened (no such way now); the caller calls Collective with
  // the same key.
  std::optional<absl::Status> QuickCollective(const std::string& key,
                                              absl::Span<const int64_t> group, int64_t device,
                                              const Value& contribution, Transport::QuickFold fold,
                                              const std::string& where);

  // Whether `group` has devices on other processes (a transport's).
  bool SpansProcesses(absl::Span<const int64_t> group) const;

  // Contributions of at most this many bytes in all are small: among
  // threads the last caller combines for every caller, and across
  // processes they travel as one gather of the transport's
  // (Transport::StartGather) where it has one for the group.
  static constexpr int64_t kSmallBytes = 64 << 10;

  // An elementwise reduction of every member's contribution in group order
  // (all-reduce) whose group spans processes: each of the P processes of
  // the group reduces one slice of the elements over every member's slice,
  // in group order, then the reduced slices go to every process. A process
  // sends and receives about twice its contributions' bytes, not the whole
  // group's, and holds one contribution's worth of others' data; the result
  // is bit-identical to folding whole contributions, element by element.
  // (rendezvous_sliced.cc)
  struct Sliced {
    // Part `part` of `parts` of a contribution.
    std::function<absl::StatusOr<Value>(const Value&, int64_t part, int64_t parts)> slice;
    // Folds the members' slices, given in group order.
    std::function<absl::StatusOr<Value>(absl::Span<const Value>)> reduce;
    // The whole result from every part's reduced slice, in part order.
    std::function<absl::StatusOr<Value>(absl::Span<const Value>)> assemble;
  };
  absl::StatusOr<Value> ReduceSliced(const std::string& key, absl::Span<const int64_t> group,
                                     int64_t device, Value contribution, const Sliced& sliced,
                                     const std::string& where);

  // Point to point: Send never blocks (it deposits a deep copy); Receive
  // waits for the matching Send. Keys name channel, source, target and
  // sequence number.
  absl::Status Send(const std::string& key, int64_t target, const Value& data);
  absl::StatusOr<Value> Receive(const std::string& key, int64_t device, int64_t source,
                                const std::string& where);

  // Every device calls this once when it stops; an error releases every
  // waiting device.
  void Finish(int64_t device, const absl::Status& status);

  // From the transport: another process's contributions to `key`, the
  // data of a send to a device here, and the error that stopped the run
  // elsewhere (it releases every wait here).
  void DeliverContributions(const std::string& key, const std::vector<int64_t>& group,
                            std::vector<std::pair<int64_t, Value>> contributions);
  void DeliverMail(const std::string& key, Value data);
  void AbortFromPeer(const absl::Status& status);
  // A transport's gather is done (Transport::Gathered): its waiter looks
  // (one that polls sees `done` itself; one asleep is woken).
  void Wake();

  // What the transport's deadlock detection needs of this process.
  struct State {
    uint64_t version = 0;              // changes with every other field
    bool stuck = false;                // every device here waits or has finished
    bool finished = false;             // every device here finished without error
    int64_t sent = 0, received = 0;    // messages to and from other processes
    std::vector<std::string> waiting;  // "replica 1 waits at %x (all-reduce)"
    std::vector<std::string> finished_devices;
    std::string first_waiting;  // the lowest waiting device's name; empty: none
  };
  State GetState();

 private:
  struct Slot {
    std::vector<Value> contributions;
    std::vector<const Combine*> combines;  // each caller's, while it waits
    // Small contributions: the last caller combined for all (combined),
    // results in group order.
    std::vector<Value> results;
    std::vector<absl::Status> failures;
    bool combined = false;
    int64_t arrived = 0;
    int64_t departed = 0;
    int64_t waiting = 0;  // callers counted in blocked_ for this slot
    bool complete = false;
    std::vector<int64_t> group;
    int64_t local = 0;          // members on this process
    int64_t local_arrived = 0;  // of them
    bool reducing = false;      // ReduceSliced: a caller reduces this process's part
    int64_t expected = -1;      // contributions this process gets; -1: not known yet
    bool gathered = false;      // every member's whole contribution comes (StartGather)
  };
  struct Mail {
    Value data;
    bool delivered = false;
    bool waiting = false;
  };

  // Whether the last caller combines for every caller.
  static bool SmallContributions(const Slot& slot);
  // Fails every wait when every device that has not finished waits.
  void CheckDeadlockLocked();
  // The error of a wait that cannot complete (abort, or timeout).
  absl::Status WaitFailure(const std::string& where, bool timed_out);
  // Waits, under `lock`, until `done()` or an abort; false when the timeout
  // passed first. Across processes the waiting thread drives the transport
  // itself meanwhile (WaitDriving).
  bool WaitLocked(std::unique_lock<std::mutex>& lock, const std::function<bool()>& done);
  // Before a thread of this process sleeps on cv_ (a wake-up through the
  // futex costs tens of microseconds on these VMs): about a wake-up's time
  // (SpinOutcomes::spin_for) of checking
  // `ready` between yields (more device threads than cores: the one it
  // waits for needs the core) or pauses, while SpinPolicy allows. Whether
  // `ready` came true.
  bool SpinLocked(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready);
  // Cooperative devices: the other fibers run until `ready` (true), or
  // until `deadline` (false).
  bool YieldUntil(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready,
                  std::chrono::steady_clock::time_point deadline);
  // Wakes every waiter on cv_ and every spinner (changes_), after a change
  // that may end a wait.
  void NotifyAll() {
    changes_.fetch_add(1, std::memory_order_release);
    wake_timer_.Notified();
    cv_.notify_all();
  }
  bool Aborted() const { return !abort_.ok(); }
  bool IsLocal(int64_t device) const {
    return device >= first_local_ && device < first_local_ + local_count_;
  }
  std::shared_ptr<Slot> NewSlot(absl::Span<const int64_t> group);
  // Every contribution is in: wakes the waiting callers.
  void CompleteLocked(Slot& slot);
  // The last caller to arrive at a small local collective combines for
  // every caller, so the others wake once, with their result, and no
  // second meeting is needed.
  void CombineForAllLocked(Slot& slot);
  // A caller's result that the last caller combined for it; the slot goes
  // when every caller here has taken its own.
  absl::StatusOr<Value> TakeCombinedResult(const std::string& key,
                                           const std::shared_ptr<Slot>& slot, int64_t rank);
  // Every contribution is in: this caller combines on its own thread, then
  // waits until every caller here has combined (they read its
  // contribution), the last one dropping the slot.
  absl::StatusOr<Value> CombineAndDepart(const std::string& key, const std::shared_ptr<Slot>& slot,
                                         int64_t rank, const Combine& combine, const Cut* cut);
  // Sends this process's contributions to the other processes of the group.
  absl::Status PostLocalLocked(const std::string& key, const Slot& slot, const Wants* wants,
                               const Cut* cut);
  // Across processes, the last member here to arrive at a small
  // collective gathers every member's contribution with the transport's
  // gather (waiting for it as a device that waits at `where`); false: the
  // transport has none for the group. An error: the wait failed.
  absl::StatusOr<bool> GatherLocked(std::unique_lock<std::mutex>& lock, const std::string& key,
                                    Slot& slot, int64_t device, const std::string& where);
  // The transport's gather of this process's members' contributions when
  // they are small; null: none.
  std::shared_ptr<Transport::Gathered> StartGatherLocked(
      const std::string& key, absl::Span<const int64_t> group,
      absl::Span<const std::pair<int64_t, const Value*>> mine);
  // Waits for a gather as a blocked device at `where`.
  absl::Status WaitGatheredLocked(std::unique_lock<std::mutex>& lock,
                                  const Transport::Gathered& gathered, int64_t device,
                                  const std::string& where);
  // Waits for a gather, first with one drive of the transport (no
  // bookkeeping when that brings the peers' blocks), then as a blocked
  // device at `where`.
  absl::Status AwaitGathered(const Transport::Gathered& gathered, int64_t device,
                             const std::string& where);
  // A small collective whose group has this process's one member, the
  // device calling, and others elsewhere: the transport's gather is the
  // whole meeting, with no slot. Nullopt: no gather for it.
  std::optional<absl::StatusOr<Value>> CollectiveAlone(const std::string& key,
                                                       absl::Span<const int64_t> group,
                                                       int64_t rank, int64_t device,
                                                       Value& contribution, const Combine& combine,
                                                       const std::string& where, const Cut* cut);
  // With a Cut: each process gets, per member here, a tuple of the parts
  // its members read, in group order.
  absl::Status PostCutsLocked(const std::string& key, const Slot& slot, const Cut& cut);
  // The parts of every member's contribution that member `rank` reads.
  absl::StatusOr<std::vector<Value>> CutView(const Slot& slot, int64_t rank, const Cut& cut) const;
  // How many contributions this process gets (its own and those it wants).
  int64_t ExpectedLocked(const Slot& slot, const Wants* wants) const;
  // Waits (counted for the deadlock detection) until `slot` is complete.
  absl::Status WaitCompleteLocked(std::unique_lock<std::mutex>& lock, Slot& slot, int64_t device,
                                  const std::string& where);
  // ReduceSliced's steps: the processes of a group, each as its first
  // device, in group order; sending every other process its slices; this
  // process's part reduced and sent.
  std::vector<int64_t> ProcessesOf(absl::Span<const int64_t> group) const;
  absl::Status PostSlicesLocked(const std::string& key, Slot& slot, const Sliced& sliced,
                                const std::vector<int64_t>& processes);
  absl::Status ReducePartLocked(std::unique_lock<std::mutex>& lock, const std::string& key,
                                Slot& slices, Slot& parts, const Sliced& sliced);

  const int64_t replicas_;
  const int64_t partitions_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Bumped by every NotifyAll: a spinning waiter watches it without the lock.
  std::atomic<uint64_t> changes_{0};
  WakeTimer wake_timer_;
  // Waiters asleep on cv_ in WaitDriving: Wake takes the lock only for them.
  std::atomic<int> napping_{0};
  std::map<std::string, std::shared_ptr<Slot>> slots_;
  std::map<std::string, Mail> mail_;
  std::vector<bool> finished_;
  // Per device, while blocked: where it waits (the waiter's own string,
  // alive while it waits; a copy per wait cost an allocation for most
  // instruction names).
  std::vector<const std::string*> waiting_at_;
  int64_t finished_count_ = 0;
  int64_t blocked_ = 0;
  absl::Status abort_;
  Transport* transport_ = nullptr;
  bool cooperative_ = false;  // SetCooperative
  int64_t first_local_ = 0;
  int64_t local_count_;
  int64_t sent_ = 0, received_ = 0;
  uint64_t version_ = 0;
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_REPLICA_RENDEZVOUS_H_
