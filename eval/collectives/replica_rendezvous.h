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

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"

namespace hlo {

class Rendezvous {
 public:
  // `devices` = replicas * partitions; device d is replica d / partitions,
  // partition d % partitions.
  Rendezvous(int64_t replicas, int64_t partitions,
             std::chrono::milliseconds timeout = std::chrono::seconds(60));

  int64_t devices() const { return replicas_ * partitions_; }
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
  absl::StatusOr<Value> Collective(const std::string& key, absl::Span<const int64_t> group,
                                   int64_t device, Value contribution, const Combine& combine,
                                   const std::string& where);

  // Point to point: Send never blocks (it deposits a deep copy); Receive
  // waits for the matching Send. Keys name channel, source, target and
  // sequence number.
  void Send(const std::string& key, const Value& data);
  absl::StatusOr<Value> Receive(const std::string& key, int64_t device, int64_t source,
                                const std::string& where);

  // Every device calls this once when it stops; an error releases every
  // waiting device.
  void Finish(int64_t device, const absl::Status& status);

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
  bool Aborted() const { return !abort_.ok(); }

  const int64_t replicas_;
  const int64_t partitions_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Slot>> slots_;
  std::map<std::string, Mail> mail_;
  std::vector<bool> finished_;
  std::vector<std::string> waiting_at_;  // per device, while blocked
  int64_t finished_count_ = 0;
  int64_t blocked_ = 0;
  absl::Status abort_;
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_REPLICA_RENDEZVOUS_H_
