#include "tools/mpi_run.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "ir/located_status.h"
#include "ir/strings.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

namespace hlo {

void PrepareMpiProcess() {
  if (LaunchedByMpirun() && MpiBuilt()) setenv("HLO_PIN", "0", 1);
}

absl::StatusOr<bool> WantMpi(const RunFlags& f) {
  if (f.mpi && !MpiBuilt()) {
    return UsageError(
        "--mpi: this hlo-run was built without MPI (install libopenmpi-dev, or scripts/setup, "
        "and build again)");
  }
  if (f.mpi && !LaunchedByMpirun()) {
    return UsageError("--mpi needs the processes mpirun starts: mpirun -n R hlo-run ...");
  }
  if (!f.mpi && LaunchedByMpirun() && !MpiBuilt() && MpirunRank() == 0) {
    std::cerr << "hlo-run: note: started by mpirun, but this hlo-run was built without MPI: "
                 "every rank runs every device\n";
  }
  return f.mpi || (LaunchedByMpirun() && MpiBuilt());
}

absl::StatusOr<std::unique_ptr<MpiTransport>> StartMpi(const RunFlags& f, int64_t devices) {
  if (!f.outfeed_file.empty()) return UsageError("--outfeed is not supported under MPI");
  if (!f.profile_json.empty()) {
    return UsageError("--profile=FILE is not supported under MPI (--profile prints per rank)");
  }
  if (f.output_given && f.output != "-" && f.output_format != "npy") {
    return UsageError(StrCat("-o ", f.output,
                             ": under MPI each rank writes only its own devices' results: "
                             "give --output-format=npy -o DIR"));
  }
  auto mpi = MpiTransport::Start(devices);
  if (!mpi.ok()) return mpi.status();
  MpiTransport& t = **mpi;
  if (t.rank() == 0 && f.output_format == "npy" && !f.npy_file) {
    if (mkdir(f.output.c_str(), 0777) != 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(
          StrCat(f.output, ": error: cannot create: ", std::strerror(errno)));
    }
  }
  std::fprintf(stderr, "hlo-run: MPI rank %d of %d: devices %lld-%lld\n", t.rank(), t.ranks(),
               static_cast<long long>(t.first_device()),
               static_cast<long long>(t.first_device() + t.local_devices() - 1));
  return mpi;
}

void EndMpiJob(MpiTransport& mpi, const absl::Status& error) {
  if (mpi.PeerError().has_value()) {
    // Every rank has it: rank 0 says it (its devices' own message, located
    // as in the threaded run, or the run's), the others leave the ending
    // to it.
    if (mpi.rank() == 0) {
      ReportError("hlo-run", error);
      mpi.AbortJob(1);
    }
    std::this_thread::sleep_for(std::chrono::seconds(5));
    mpi.AbortJob(1);
  }
  if (IsLocated(error)) {
    ReportError("hlo-run", error);
    std::fprintf(stderr, "hlo-run: note: on MPI rank %d\n", mpi.rank());
  } else {
    ReportError("hlo-run", WithMessage(error, StrCat("MPI rank ", mpi.rank(), ": ",
                                                     std::string(error.message()))));
  }
  mpi.AbortJob(1);
  std::_Exit(1);  // AbortJob does not return; the compiler cannot see that
}

}  // namespace hlo
