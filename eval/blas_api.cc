#include "eval/blas_api.h"

#include <dlfcn.h>

#include <mutex>

#include "eval/shared_library.h"

// OpenBLAS's own shutdown of its worker threads (exported, not in cblas.h).
extern "C" int blas_thread_shutdown_(void);

namespace hlo {
namespace blas {
namespace {

using GetThreadsFn = decltype(&openblas_get_num_threads);
using SetThreadsFn = decltype(&openblas_set_num_threads);

// The thread count's state, shared by the opener and SetThreads.
struct ThreadState {
  std::mutex mutex;
  bool open = false;      // the functions below are set
  int requested = 0;      // before the open: the count to apply (0: default)
  int default_count = 1;  // OpenBLAS's own count as it opened
  GetThreadsFn get = nullptr;
  SetThreadsFn set = nullptr;
};

ThreadState& Threading() {
  static ThreadState state;
  return state;
}

// Runs once as the library opens, before any call into it from here.
void OnOpen(void* handle) {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.get = reinterpret_cast<GetThreadsFn>(dlsym(handle, "openblas_get_num_threads"));
  t.set = reinterpret_cast<SetThreadsFn>(dlsym(handle, "openblas_set_num_threads"));
  if (t.get == nullptr || t.set == nullptr) return;  // not OpenBLAS: counts stay unset
  t.default_count = t.get();
  if (t.requested > 0) t.set(t.requested);
  t.open = true;
}

LazyLibrary& Library() {
  static LazyLibrary library("OpenBLAS", HLO_BLAS_SONAME, RTLD_NOW | RTLD_LOCAL, OnOpen);
  return library;
}

}  // namespace

void* Symbol(const char* name) { return Library().Symbol(name); }

int Threads() {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.open ? t.get() : t.requested;
}

void SetThreads(int threads) {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.open) {
    t.set(threads > 0 ? threads : t.default_count);
  } else {
    t.requested = threads;
  }
}

void StopThreads() {
  if (!Library().IsOpen()) return;
  HLO_BLAS_FUNCTION(blas_thread_shutdown_)();
}

const char* CoreName() { return HLO_BLAS_FUNCTION(openblas_get_corename)(); }

}  // namespace blas
}  // namespace hlo

#ifdef HLO_HAVE_LIBXSMM
// libxsmm's fallback for products it makes no kernel for calls the Fortran
// BLAS, which it expects linked: these forward to OpenBLAS's.
extern "C" {
void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc) {
  HLO_BLAS_FUNCTION(sgemm_)(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc) {
  HLO_BLAS_FUNCTION(dgemm_)(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void sgemv_(const char* t, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy) {
  HLO_BLAS_FUNCTION(sgemv_)(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void dgemv_(const char* t, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy) {
  HLO_BLAS_FUNCTION(dgemv_)(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
}
#endif  // HLO_HAVE_LIBXSMM
