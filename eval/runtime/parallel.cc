#include "eval/runtime/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HLO_PARALLEL_MXCSR 1
#endif

namespace hlo {
namespace {

class Pool {
 public:
  explicit Pool(int64_t workers) {
    for (int64_t w = 0; w < workers; ++w) threads_.emplace_back([this, w] { Work(w); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  int64_t workers() const { return static_cast<int64_t>(threads_.size()); }

  // Runs parts 1..parts-1 on workers and part 0 here; false (nothing run)
  // when the pool is busy with another caller's job.
  bool Run(int64_t parts, const std::function<void(int64_t)>& part) {
    std::unique_lock<std::mutex> caller(busy_, std::try_to_lock);
    if (!caller.owns_lock() || in_worker_) return false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &part;
      parts_ = parts;
      pending_ = parts - 1;
#ifdef HLO_PARALLEL_MXCSR
      csr_ = _mm_getcsr();
#endif
      ++generation_;
    }
    wake_.notify_all();
    part(0);
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
    return true;
  }

 private:
  void Work(int64_t w) {
    in_worker_ = true;
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int64_t)>* job;
      unsigned csr = 0;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (w + 1 >= parts_) continue;  // no part for this worker
        job = job_;
        csr = csr_;
      }
#ifdef HLO_PARALLEL_MXCSR
      const unsigned saved = _mm_getcsr();
      _mm_setcsr(csr);
#else
      (void)csr;
#endif
      (*job)(w + 1);
#ifdef HLO_PARALLEL_MXCSR
      _mm_setcsr(saved);
#endif
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex busy_;  // one job at a time
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t parts_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  unsigned csr_ = 0;
  bool stop_ = false;
  static thread_local bool in_worker_;
};

thread_local bool Pool::in_worker_ = false;

Pool& ThePool() {
  // Never destroyed: workers may be mid-job at exit of a failing run.
  static Pool* pool = new Pool(CoreCount() - 1);
  return *pool;
}

}  // namespace

int64_t CoreCount() {
  static const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  return cores;
}

void ParallelRows(int64_t n, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t parts = std::min<int64_t>(CoreCount(), n / std::max<int64_t>(1, min_rows));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  const int64_t step = (n + parts - 1) / parts;
  std::function<void(int64_t)> part = [&](int64_t p) {
    const int64_t b = std::min(n, p * step), e = std::min(n, b + step);
    if (b < e) fn(b, e);
  };
  if (!ThePool().Run(parts, part)) fn(0, n);
}

}  // namespace hlo
