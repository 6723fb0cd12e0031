#ifdef HLO_HAVE_MPI

#include "eval/collectives/mpi_api.h"

#include <dlfcn.h>

#include "eval/shared_library.h"

namespace hlo {
namespace mpi {
namespace {

// RTLD_GLOBAL: Open MPI opens its components (mca_*.so) later, and they
// resolve libmpi's symbols from the global scope.
LazyLibrary& Library() {
  static LazyLibrary library("the MPI library", HLO_MPI_SONAME, RTLD_NOW | RTLD_GLOBAL);
  return library;
}

}  // namespace

absl::Status Open() { return Library().Open(); }

void* Symbol(const char* name) { return Library().Symbol(name); }

}  // namespace mpi
}  // namespace hlo

#endif  // HLO_HAVE_MPI
