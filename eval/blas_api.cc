#include "eval/blas_api.h"

#include <dlfcn.h>
#include <sched.h>

#include <mutex>

#include "eval/blas_kernel_choice.h"
#include "eval/shared_library.h"

// OpenBLAS's own start and shutdown of its worker threads (exported, not in
// cblas.h; its int blas_server_avail says whether they run). Looked up as
// it opens; declared for their type.
extern "C" int blas_thread_init(void);
extern "C" int blas_thread_shutdown_(void);

namespace hlo {
namespace blas {
namespace {

using GetThreadsFn = decltype(&openblas_get_num_threads);
using SetThreadsFn = decltype(&openblas_set_num_threads);
using WorkersFn = decltype(&blas_thread_init);

// The process's CPU mask as it started, before the thread pool pinned its
// creator, the main thread, to one CPU (eval/runtime/thread_pinning.h).
// OpenBLAS's constructor counts the CPUs of the thread that loads it, and
// its workers, started then or again after a stop, copy the mask of the
// thread that starts them: loaded from a pinned thread it ran one thread,
// and restarted from one its workers shared their caller's CPU.
struct StartMask {
  StartMask() {
    CPU_ZERO(&mask);
    known = sched_getaffinity(0, sizeof(mask), &mask) == 0;
  }
  cpu_set_t mask;
  bool known;
};
const StartMask start_mask;

// The calling thread on the start mask for the scope's life.
class OnStartMask {
 public:
  OnStartMask() {
    changed_ = start_mask.known && sched_getaffinity(0, sizeof(saved_), &saved_) == 0 &&
               !CPU_EQUAL(&saved_, &start_mask.mask) &&
               sched_setaffinity(0, sizeof(start_mask.mask), &start_mask.mask) == 0;
  }
  ~OnStartMask() {
    if (changed_) sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  OnStartMask(const OnStartMask&) = delete;
  OnStartMask& operator=(const OnStartMask&) = delete;

 private:
  cpu_set_t saved_;
  bool changed_ = false;
};

// OpenBLAS's threads as this file sees them, under one mutex.
struct ThreadState {
  std::mutex mutex;
  bool open = false;            // the functions below are set
  int requested = 0;            // before the open: the count to apply (0: default)
  bool stop_requested = false;  // before the open: stop its workers as it opens
  int default_count = 1;        // OpenBLAS's own count as it opened
  GetThreadsFn get = nullptr;
  SetThreadsFn set = nullptr;
  WorkersFn start = nullptr, stop = nullptr;
  const int* running = nullptr;  // blas_server_avail
  bool widened = false;          // WidenFallbackKernels forced a wider set
};

ThreadState& Threading() {
  static ThreadState state;
  return state;
}

// Runs `f`, which may start OpenBLAS's workers where they are stopped (its
// set_num_threads and blas_thread_init do), on the start mask if so.
template <typename F>
void MayStartWorkers(const ThreadState& t, F f) {
  if (__atomic_load_n(t.running, __ATOMIC_ACQUIRE) != 0) {
    f();
  } else {
    OnStartMask on_start_mask;
    f();
  }
}

// Runs once as the library opens (on the start mask), before any call into
// it from here.
void OnOpen(void* handle) {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.get = reinterpret_cast<GetThreadsFn>(dlsym(handle, "openblas_get_num_threads"));
  t.set = reinterpret_cast<SetThreadsFn>(dlsym(handle, "openblas_set_num_threads"));
  t.start = reinterpret_cast<WorkersFn>(dlsym(handle, "blas_thread_init"));
  t.stop = reinterpret_cast<WorkersFn>(dlsym(handle, "blas_thread_shutdown_"));
  t.running = static_cast<const int*>(dlsym(handle, "blas_server_avail"));
  if (!t.get || !t.set || !t.start || !t.stop || !t.running) return;  // not OpenBLAS
  t.widened = WidenFallbackKernels(handle, !t.stop_requested) != nullptr;
  t.default_count = t.get();
  if (t.requested > 0) t.set(t.requested);
  // Its constructor started its workers; a stop asked for before the open
  // (ParkBlasThreads, hlo-opt's StopBlasThreads) holds for them.
  if (t.stop_requested) t.stop();
  t.open = true;
}

LazyLibrary& Library() {
  static LazyLibrary library("OpenBLAS", HLO_BLAS_SONAME, RTLD_NOW | RTLD_LOCAL, OnOpen);
  return library;
}

// Matrices from this size up are worth OpenBLAS's threads (it threads its
// level-3 kernels from about 64^3 multiply-adds; LAPACK's blocked routines
// call them on panels of a large matrix).
constexpr int64_t kThreadedMatrix = int64_t{128} * 128;

}  // namespace

void* Symbol(const char* name) {
  LazyLibrary& library = Library();
  if (!library.IsOpen()) {
    OnStartMask on_start_mask;
    (void)library.Open();  // Symbol reports a failure
  }
  return library.Symbol(name);
}

int Threads() {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.open ? t.get() : t.requested;
}

void SetThreads(int threads) {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.open) {
    t.requested = threads;
    return;
  }
  MayStartWorkers(t, [&] { t.set(threads > 0 ? threads : t.default_count); });
}

void StopThreads() {
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.open) {
    t.stop_requested = true;
    return;
  }
  t.stop();
}

void PrepareWorkers(int64_t rows, int64_t cols) {
  if (rows * cols < kThreadedMatrix) return;
  (void)Symbol("openblas_get_num_threads");  // opens it
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.open && t.get() > 1) MayStartWorkers(t, t.start);
}

const char* CoreName() { return HLO_BLAS_FUNCTION(openblas_get_corename)(); }

bool KernelsWidened() {
  (void)Symbol("openblas_get_corename");  // opens it
  ThreadState& t = Threading();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.widened;
}

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
