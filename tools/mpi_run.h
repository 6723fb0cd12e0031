// hlo-run under mpirun (README "MPI ranks"): starting the transport with the
// flags' checks, the line each rank says, and how an error ends the job.
#ifndef HLO_TOOLS_MPI_RUN_H_
#define HLO_TOOLS_MPI_RUN_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "eval/collectives/mpi_transport.h"
#include "tools/run_tool.h"

namespace hlo {

// Under mpirun, before anything runs: no thread pinning
// (eval/runtime/thread_pinning.h assumes the process has the machine's CPUs
// to itself; ranks on one host share them, and would pile onto the same).
void PrepareMpiProcess();

// Whether this run spreads its devices over MPI ranks: --mpi, or started by
// mpirun in a build with MPI. Usage error: --mpi in a build without MPI.
absl::StatusOr<bool> WantMpi(const RunFlags& flags);

// Checks the flags that cannot work per rank, starts MPI, makes the npy
// output folder (rank 0, before any rank writes into it) and says on stderr
// `hlo-run: MPI rank R of N: devices A-B`.
absl::StatusOr<std::unique_ptr<MpiTransport>> StartMpi(const RunFlags& flags, int64_t devices);

// An error on this rank: prints it (rank named), or stays silent when it
// is one rank 0 reports (a deadlock), and ends every rank (exit status 1).
[[noreturn]] void EndMpiJob(MpiTransport& mpi, const absl::Status& error);

}  // namespace hlo

#endif  // HLO_TOOLS_MPI_RUN_H_
