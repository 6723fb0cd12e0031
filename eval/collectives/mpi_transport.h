// The Transport over MPI (eval/collectives/transport.h): `mpirun -n R
// hlo-run ...` runs the N devices as R processes of N/R devices each (a
// contiguous block per rank). Messages are point to point on one duplicated
// communicator; a small collective's gather (Transport::StartGather) is
// one send and receive between each two ranks of its group, on a
// communicator made for the group once, before the first run. One thread
// at a time drives MPI (sends, receives, delivery to the run's Rendezvous):
// a device thread that waits for a message drives it itself, so the message
// reaches the thread that needs it with no hand-off between threads; a
// progress thread drives it only while no device waits.
//
// Rank 0 also coordinates: each process reports its state (its devices
// waiting or finished, messages sent and received); when every process's
// devices finished it ends the run everywhere, and when every device waits
// or has finished with no message in flight it reports the deadlock as the
// threaded run does. A device's error ends the job from its own process
// (AbortJob: MPI_Abort), so no process is left waiting.
#ifndef HLO_EVAL_COLLECTIVES_MPI_TRANSPORT_H_
#define HLO_EVAL_COLLECTIVES_MPI_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "eval/collectives/transport.h"

namespace hlo {

// Whether this binary was built with MPI (CMake option HLO_MPI).
bool MpiBuilt();
// Whether the process was started by mpirun (Open MPI's, MPICH's or a
// PMI launcher's environment).
bool LaunchedByMpirun();
// The rank mpirun gave this process (its environment), 0 when none: for
// errors before MPI starts, which only rank 0 prints.
int MpirunRank();

class MpiTransport : public Transport {
 public:
  // Initialises MPI and starts the progress thread; `devices` are spread
  // over the ranks. Errors: built without MPI, not started by mpirun, or
  // a rank count that does not divide the devices.
  static absl::StatusOr<std::unique_ptr<MpiTransport>> Start(int64_t devices);
  // Stops the progress thread (after every rank stopped sending) and
  // finalises MPI.
  ~MpiTransport() override;

  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // The error another rank reported for this run (a deadlock), if any.
  virtual std::optional<absl::Status> PeerError() = 0;
  // Ends every rank of the job with `code` (MPI_Abort).
  [[noreturn]] virtual void AbortJob(int code) = 0;

 protected:
  MpiTransport() = default;
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_MPI_TRANSPORT_H_
