#ifdef HLO_HAVE_MPI

#include "eval/collectives/mpi_api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace hlo {
namespace mpi {
namespace {

struct Library {
  void* handle = nullptr;
  std::string error;
};

const Library& Opened() {
  static const Library library = [] {
    Library l;
    // RTLD_GLOBAL: Open MPI opens its components (mca_*.so) later, and they
    // resolve libmpi's symbols from the global scope.
    l.handle = dlopen(HLO_MPI_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (l.handle == nullptr) {
      const char* why = dlerror();
      l.error = std::string("cannot open the MPI library ") + HLO_MPI_SONAME + ": " +
                (why != nullptr ? why : "dlopen failed");
    }
    return l;
  }();
  return library;
}

}  // namespace

absl::Status Open() {
  const Library& l = Opened();
  if (l.handle == nullptr) return absl::FailedPreconditionError(l.error);
  return absl::OkStatus();
}

void* Symbol(const char* name) {
  const Library& l = Opened();
  void* p = l.handle != nullptr ? dlsym(l.handle, name) : nullptr;
  if (p == nullptr) {
    std::fprintf(stderr, "hlo-run: error: %s\n",
                 l.handle == nullptr
                     ? l.error.c_str()
                     : (std::string(HLO_MPI_SONAME) + " has no symbol " + name).c_str());
    std::_Exit(1);
  }
  return p;
}

}  // namespace mpi
}  // namespace hlo

#endif  // HLO_HAVE_MPI
