// A shared object opened by its SONAME when a run first needs it, not linked:
// every linked library costs every process its loading and constructors at
// start-up, hlo-opt's and the shortest run's too (OpenBLAS, Open MPI and
// oneDNN each cost about 1.5 ms of an 8 ms start).
#ifndef HLO_EVAL_SHARED_LIBRARY_H_
#define HLO_EVAL_SHARED_LIBRARY_H_

#include <atomic>
#include <mutex>
#include <string>

#include "absl/status/status.h"

namespace hlo {

class LazyLibrary {
 public:
  // `what` names it in errors ("the MPI library"); `flags` are dlopen's (RTLD_GLOBAL where the
  // library's own plugins need its symbols); `on_open`, when given, runs once right after a
  // successful open, before any other thread sees the library open, with its handle.
  LazyLibrary(const char* what, const char* soname, int flags,
              void (*on_open)(void* handle) = nullptr)
      : what_(what), soname_(soname), flags_(flags), on_open_(on_open) {}
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  // Opens the library (the first call; later ones return its answer): an
  // error naming it when it cannot be opened.
  absl::Status Open();
  // Whether it has been opened, without opening it.
  bool IsOpen() const { return open_.load(std::memory_order_acquire); }
  // The address of `name` in the library, opened if need be. Where the
  // library or the symbol is missing the process ends with a message and
  // status 1, as the dynamic loader would have ended it at start-up.
  void* Symbol(const char* name);
  // The address of `name`, opening the library if need be, or null where
  // the library cannot be opened or lacks it: for a library the run can do
  // without (oneDNN).
  void* FindSymbol(const char* name);

 private:
  const char* what_;
  const char* soname_;
  int flags_;
  void (*on_open_)(void*);
  std::once_flag once_;
  std::atomic<bool> open_{false};
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace hlo

// A function of a lazily opened library as a pointer of its declared type,
// looked up once per call site by `lookup` (a Symbol function).
#define HLO_LAZY_FUNCTION(lookup, name)                                       \
  ([] {                                                                       \
    static const auto f = reinterpret_cast<decltype(&::name)>(lookup(#name)); \
    return f;                                                                 \
  }())

#endif  // HLO_EVAL_SHARED_LIBRARY_H_
