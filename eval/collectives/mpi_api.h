// MPI's C API from a library opened when a run first needs it, not linked:
// loading Open MPI's libraries (libmpi, libopen-pal, hwloc, libevent, …)
// cost every process about 1.5 ms of start-up, hlo-opt's and every run
// without mpirun too. Include this instead of <mpi.h>: each MPI function
// this project calls is a macro naming a pointer looked up once per call
// site, and Open MPI's predefined handles (MPI_COMM_WORLD, MPI_BYTE, …: the
// addresses of its globals, OMPI_PREDEFINED_GLOBAL) are looked up the same
// way. (MPICH's handles are integer constants and need nothing.) A function
// used here for the first time needs its line below.
#ifndef HLO_EVAL_COLLECTIVES_MPI_API_H_
#define HLO_EVAL_COLLECTIVES_MPI_API_H_

#include <mpi.h>

#include "absl/status/status.h"
#include "eval/shared_library.h"

namespace hlo {
namespace mpi {

// Opens the MPI library (HLO_MPI_SONAME, with its symbols global, as Open
// MPI's components need); an error naming it when it cannot. Later calls
// return the first one's answer.
absl::Status Open();
// The address of `name` in the library (opened if need be). Where it has
// none (another MPI than the one built against) the process ends with a
// message and status 1, as the dynamic loader would have ended it.
void* Symbol(const char* name);

}  // namespace mpi
}  // namespace hlo

#define HLO_MPI_FUNCTION(name) HLO_LAZY_FUNCTION(::hlo::mpi::Symbol, name)

#ifdef OMPI_PREDEFINED_GLOBAL
#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global)                                                       \
  ([] {                                                                                            \
    static const auto h = reinterpret_cast<type>(static_cast<void*>(::hlo::mpi::Symbol(#global))); \
    return h;                                                                                      \
  }())
#endif

#define MPI_Abort HLO_MPI_FUNCTION(MPI_Abort)
#define MPI_Allreduce HLO_MPI_FUNCTION(MPI_Allreduce)
#define MPI_Comm_create_group HLO_MPI_FUNCTION(MPI_Comm_create_group)
#define MPI_Comm_dup HLO_MPI_FUNCTION(MPI_Comm_dup)
#define MPI_Comm_free HLO_MPI_FUNCTION(MPI_Comm_free)
#define MPI_Comm_group HLO_MPI_FUNCTION(MPI_Comm_group)
#define MPI_Comm_rank HLO_MPI_FUNCTION(MPI_Comm_rank)
#define MPI_Comm_set_errhandler HLO_MPI_FUNCTION(MPI_Comm_set_errhandler)
#define MPI_Comm_size HLO_MPI_FUNCTION(MPI_Comm_size)
#define MPI_Comm_split_type HLO_MPI_FUNCTION(MPI_Comm_split_type)
#define MPI_Finalize HLO_MPI_FUNCTION(MPI_Finalize)
#define MPI_Get_count HLO_MPI_FUNCTION(MPI_Get_count)
#define MPI_Group_free HLO_MPI_FUNCTION(MPI_Group_free)
#define MPI_Group_incl HLO_MPI_FUNCTION(MPI_Group_incl)
#define MPI_Ibarrier HLO_MPI_FUNCTION(MPI_Ibarrier)
#define MPI_Init_thread HLO_MPI_FUNCTION(MPI_Init_thread)
#define MPI_Iprobe HLO_MPI_FUNCTION(MPI_Iprobe)
#define MPI_Irecv HLO_MPI_FUNCTION(MPI_Irecv)
#define MPI_Isend HLO_MPI_FUNCTION(MPI_Isend)
#define MPI_Probe HLO_MPI_FUNCTION(MPI_Probe)
#define MPI_Recv HLO_MPI_FUNCTION(MPI_Recv)
#define MPI_T_cvar_get_index HLO_MPI_FUNCTION(MPI_T_cvar_get_index)
#define MPI_T_cvar_handle_alloc HLO_MPI_FUNCTION(MPI_T_cvar_handle_alloc)
#define MPI_T_cvar_handle_free HLO_MPI_FUNCTION(MPI_T_cvar_handle_free)
#define MPI_T_cvar_read HLO_MPI_FUNCTION(MPI_T_cvar_read)
#define MPI_T_finalize HLO_MPI_FUNCTION(MPI_T_finalize)
#define MPI_T_init_thread HLO_MPI_FUNCTION(MPI_T_init_thread)
#define MPI_Test HLO_MPI_FUNCTION(MPI_Test)
#define MPI_Testall HLO_MPI_FUNCTION(MPI_Testall)
#define MPI_Win_allocate_shared HLO_MPI_FUNCTION(MPI_Win_allocate_shared)
#define MPI_Win_fence HLO_MPI_FUNCTION(MPI_Win_fence)
#define MPI_Win_free HLO_MPI_FUNCTION(MPI_Win_free)
#define MPI_Win_shared_query HLO_MPI_FUNCTION(MPI_Win_shared_query)

#endif  // HLO_EVAL_COLLECTIVES_MPI_API_H_
