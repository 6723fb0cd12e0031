// Tests candidates with an Oracle on N workers: each worker writes its
// candidate into a folder of its own, results are cached by the text's
// hash (a candidate seen before is not run again), and on a terminal a
// progress line shows the size, the tests run and the time.
#ifndef HLO_REDUCE_TESTER_H_
#define HLO_REDUCE_TESTER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "reduce/candidate.h"
#include "reduce/oracle.h"

namespace hlo::reduce {

class Tester {
 public:
  // Makes the work folder (under $TMPDIR, else /tmp); removed by the
  // destructor (and on SIGINT, SIGTERM, SIGHUP).
  static absl::StatusOr<std::unique_ptr<Tester>> Create(Oracle& oracle, int jobs);
  ~Tester();

  // Tests one text (on the calling thread).
  bool Test(const std::string& text);
  // The oracle's account of why `text` is not interesting.
  std::string Explain(const std::string& text);

  // Makes candidates 0..count-1 (make(i): nullopt for none) and tests them
  // on the workers, in order of i; returns the first interesting one (every
  // candidate before it was tested and was not), or nullopt.
  std::optional<std::pair<int64_t, Candidate>> FirstInteresting(
      int64_t count, const std::function<std::optional<Candidate>(int64_t)>& make);

  int jobs() const { return jobs_; }
  int64_t tests_run() const { return tests_run_.load(); }
  // The progress line's figures; it is drawn only when stderr is a terminal.
  void Progress(const Size& size, std::string_view phase);
  void EndProgress();

 private:
  Tester(Oracle& oracle, int jobs, std::string dir)
      : oracle_(oracle), jobs_(jobs), dir_(std::move(dir)) {}
  // nullopt when the run was cancelled (not cached).
  std::optional<bool> TestIn(const std::string& text, int worker,
                             const std::atomic<bool>* cancel = nullptr);

  // Runs work(w) for w in 1..n-1 on the pool's threads and work(0) here,
  // and waits for all. The threads live as long as the tester: IR memory
  // is pooled per thread (ir/slab_pool.h), and a thread per call would
  // leave its pool behind each time.
  void RunOnWorkers(int n, const std::function<void(int)>& work);
  void WorkerLoop(int w);

  Oracle& oracle_;
  int jobs_;
  std::vector<std::thread> threads_;
  std::mutex pool_mu_;
  std::condition_variable pool_cv_;
  const std::function<void(int)>* pool_work_ = nullptr;
  int pool_n_ = 0;
  int64_t pool_generation_ = 0;
  int pool_pending_ = 0;
  bool pool_stop_ = false;
  std::string dir_;
  int handle_ = -1;
  std::mutex mu_;
  absl::flat_hash_map<size_t, bool> cache_;
  std::atomic<int64_t> tests_run_{0};
  bool tty_ = false;
  bool drawn_ = false;
  Size size_;
  std::string phase_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_TESTER_H_
