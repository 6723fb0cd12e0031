#include "eval/blas_kernel_choice.h"

#include <dlfcn.h>
#include <strings.h>

#include <cstdlib>

namespace hlo {
namespace blas {

const char* WidestKernelSet() {
#if defined(__x86_64__) || defined(__i386__)
  // (__builtin_cpu_supports also asks whether the OS saves the registers.)
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  if (avx512 && __builtin_cpu_supports("avx512bf16")) return "Cooperlake";
  if (avx512) return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
#endif
  return nullptr;
}

const char* WidenFallbackKernels(void* handle, bool restart_workers) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return nullptr;  // the user's choice
  using NameFn = char* (*)();
  using VoidFn = void (*)();
  using WorkersFn = int (*)();
  const auto name = reinterpret_cast<NameFn>(dlsym(handle, "openblas_get_corename"));
  const auto quit = reinterpret_cast<VoidFn>(dlsym(handle, "gotoblas_dynamic_quit"));
  const auto init = reinterpret_cast<VoidFn>(dlsym(handle, "gotoblas_dynamic_init"));
  const auto stop = reinterpret_cast<WorkersFn>(dlsym(handle, "blas_thread_shutdown_"));
  const auto start = reinterpret_cast<WorkersFn>(dlsym(handle, "blas_thread_init"));
  // (A build for one CPU, without DYNAMIC_ARCH, has no dynamic_init.)
  if (!name || !quit || !init || !stop || !start) return nullptr;
  if (strcasecmp(name(), "Prescott") != 0) return nullptr;
  const char* wider = WidestKernelSet();
  if (wider == nullptr) return nullptr;
  // The workers OpenBLAS's constructor started read the kernel table as
  // they start (their buffers): they end before it is chosen again (a
  // worker that read it while it was unset crashed 2 runs in 48).
  // OpenBLAS reads the variable only in dynamic_init; it is unset again
  // so that the processes this one starts choose for themselves. (No
  // thread of this program reads the environment while it opens OpenBLAS.)
  stop();
  quit();
  setenv("OPENBLAS_CORETYPE", wider, 1);
  init();
  unsetenv("OPENBLAS_CORETYPE");
  if (restart_workers) start();
  return strcasecmp(name(), wider) == 0 ? wider : nullptr;
}

}  // namespace blas
}  // namespace hlo
