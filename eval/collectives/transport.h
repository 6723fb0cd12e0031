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

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
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
  // one send/recv message.
  virtual absl::Status SendContributions(
      const std::vector<int>& to, const std::string& key, const std::vector<int64_t>& group,
      const std::vector<std::pair<int64_t, const Value*>>& mine) = 0;
  virtual absl::Status SendMail(int to, const std::string& key, const Value& data) = 0;
  // The Rendezvous' state changed (a device waits, or finished): the
  // transport may look at Rendezvous::State for its deadlock detection.
  virtual void StateChanged() = 0;
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_TRANSPORT_H_
