// Tests candidates with an Oracle on N workers: each worker writes its
// candidate into a folder of its own, results are cached by the text's
// hash (a candidate seen before is not run again), and on a terminal a
// progress line shows the size, the tests run and the time.
#ifndef HLO_REDUCE_TESTER_H_
#define HLO_REDUCE_TESTER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

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
  int64_t tests_run() const { return tests_run_; }
  // The progress line's figures; it is drawn only when stderr is a terminal.
  void Progress(const Size& size, std::string_view phase);
  void EndProgress();

 private:
  Tester(Oracle& oracle, int jobs, std::string dir)
      : oracle_(oracle), jobs_(jobs), dir_(std::move(dir)) {}
  // nullopt when the run was cancelled (not cached).
  std::optional<bool> TestIn(const std::string& text, int worker,
                             const std::atomic<bool>* cancel = nullptr);

  Oracle& oracle_;
  int jobs_;
  std::string dir_;
  int handle_ = -1;
  std::mutex mu_;
  absl::flat_hash_map<size_t, bool> cache_;
  int64_t tests_run_ = 0;
  bool tty_ = false;
  bool drawn_ = false;
  Size size_;
  std::string phase_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_TESTER_H_
