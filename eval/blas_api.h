// BLAS and LAPACK from OpenBLAS opened when a run first needs them, not
// linked: loading OpenBLAS (with gfortran's and quadmath's runtimes) and its
// constructor, which starts its worker threads, cost every process about
// 1.5 ms of start-up, hlo-opt's and every run without a product too.
// Include this instead of <cblas.h>: each CBLAS function this project calls
// is a macro naming a pointer looked up once per call site (LAPACK's
// Fortran routines go through HLO_BLAS_FUNCTION in eval/linalg/
// lapack_fortran.h). A function used here for the first time needs its line
// below.
//
// OpenBLAS's thread count is set through this file only: before the
// library is open a count is remembered and applied as it opens, so that
// asking for one thread does not load it.
#ifndef HLO_EVAL_BLAS_API_H_
#define HLO_EVAL_BLAS_API_H_

#include <cblas.h>

#include <cstdint>

#include "eval/shared_library.h"

namespace hlo {
namespace blas {

// The address of `name` in OpenBLAS (opened if need be); a missing library
// or symbol ends the process with a message and status 1.
void* Symbol(const char* name);
// OpenBLAS's worker thread count; 0 stands for its own default (the cores,
// or OPENBLAS_NUM_THREADS), which it has until told otherwise.
int Threads();
void SetThreads(int threads);
// Ends OpenBLAS's worker threads, keeping their count: its next threaded
// call starts them again, from the calling thread (whose MXCSR and CPU mask
// they copy). Before the library is open, the workers its constructor
// starts are ended as it opens.
void StopThreads();
// Before a LAPACK routine (or a triangular solve) on a rows x cols matrix.
// OpenBLAS starts the workers StopThreads ended at its next threaded call,
// from the calling thread, whose one-CPU mask (the pool's pinning,
// eval/runtime/thread_pinning.h) they would copy: they and their caller
// then shared one CPU (a f32[2048,2048] cholesky: 31 ms, 18-21 unpinned).
// For a matrix large enough to be threaded they are started here, on the
// process's start mask, with the caller's MXCSR.
void PrepareWorkers(int64_t rows, int64_t cols);
// The name of the kernel set OpenBLAS runs on this CPU ("Haswell", …).
const char* CoreName();
// Whether that set was forced as OpenBLAS opened, over its Prescott
// fallback for a CPU it did not know (eval/blas_kernel_choice.h).
bool KernelsWidened();

}  // namespace blas
}  // namespace hlo

#define HLO_BLAS_FUNCTION(name) HLO_LAZY_FUNCTION(::hlo::blas::Symbol, name)

#define cblas_cgemm HLO_BLAS_FUNCTION(cblas_cgemm)
#define cblas_ctrsm HLO_BLAS_FUNCTION(cblas_ctrsm)
#define cblas_dgemm HLO_BLAS_FUNCTION(cblas_dgemm)
#define cblas_dgemv HLO_BLAS_FUNCTION(cblas_dgemv)
#define cblas_dtrsm HLO_BLAS_FUNCTION(cblas_dtrsm)
#define cblas_sgemm HLO_BLAS_FUNCTION(cblas_sgemm)
#define cblas_sgemv HLO_BLAS_FUNCTION(cblas_sgemv)
#define cblas_strsm HLO_BLAS_FUNCTION(cblas_strsm)
#define cblas_zgemm HLO_BLAS_FUNCTION(cblas_zgemm)
#define cblas_ztrsm HLO_BLAS_FUNCTION(cblas_ztrsm)

#endif  // HLO_EVAL_BLAS_API_H_
