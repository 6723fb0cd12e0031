#include "eval/shared_library.h"

#include <dlfcn.h>
#include <errno.h>

#include <cstdio>
#include <cstdlib>

namespace hlo {

absl::Status LazyLibrary::Open() {
  std::call_once(once_, [this] {
    handle_ = dlopen(soname_, flags_);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = std::string("cannot open ") + what_ + " " + soname_ + ": " +
               (why != nullptr ? why : "dlopen failed");
      return;
    }
    if (on_open_ != nullptr) on_open_(handle_);
    open_.store(true, std::memory_order_release);
  });
  if (handle_ == nullptr) return absl::FailedPreconditionError(error_);
  return absl::OkStatus();
}

void* LazyLibrary::FindSymbol(const char* name) {
  return Open().ok() ? dlsym(handle_, name) : nullptr;
}

void* LazyLibrary::Symbol(const char* name) {
  void* p = FindSymbol(name);
  if (p == nullptr) {
    const std::string why = IsOpen() ? std::string(soname_) + " has no symbol " + name : error_;
    std::fprintf(stderr, "%s: error: %s\n", program_invocation_short_name, why.c_str());
    std::_Exit(1);
  }
  return p;
}

}  // namespace hlo
