#include "reduce/tester.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "absl/hash/hash.h"
#include "ir/interrupt.h"
#include "ir/output_file.h"
#include "reduce/subprocess.h"

namespace hlo::reduce {

absl::StatusOr<std::unique_ptr<Tester>> Tester::Create(Oracle& oracle, int jobs) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/hlo-reduce.XXXXXX";
  std::string dir;
  int handle = -1;
  {
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    interrupt::Critical critical;
    if (mkdtemp(buf.data()) == nullptr) {
      return absl::FailedPreconditionError(pattern + ": cannot create: " + std::strerror(errno));
    }
    dir = buf.data();
    handle = interrupt::Remember(interrupt::Kind::kTree, dir, "");
  }
  for (int w = 0; w < jobs; ++w) {
    std::string sub = dir + "/w" + std::to_string(w);
    if (mkdir(sub.c_str(), 0700) != 0) {
      interrupt::RemoveTree(dir.c_str());
      return absl::FailedPreconditionError(sub + ": cannot create: " + std::strerror(errno));
    }
  }
  auto tester = std::unique_ptr<Tester>(new Tester(oracle, jobs, dir));
  tester->handle_ = handle;
  tester->tty_ = isatty(2) != 0;
  return tester;
}

Tester::~Tester() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pool_stop_ = true;
  }
  pool_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  EndProgress();
  interrupt::Critical critical;
  interrupt::RemoveTree(dir_.c_str());
  interrupt::Forget(handle_);
}

std::optional<bool> Tester::TestIn(const std::string& text, int worker,
                                   const std::atomic<bool>* cancel) {
  const size_t hash = absl::HashOf(text);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(hash);
    if (it != cache_.end()) return it->second;
  }
  const std::string scratch = dir_ + "/w" + std::to_string(worker);
  const std::string path = scratch + "/candidate.hlo";
  bool interesting = false;
  if (WriteFileAtomically(path, text, /*sync=*/false).ok()) {
    SetThreadCancelFlag(cancel);
    interesting = oracle_.Interesting(path, scratch);
    SetThreadCancelFlag(nullptr);
  }
  if (cancel != nullptr && cancel->load()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  cache_[hash] = interesting;
  ++tests_run_;
  return interesting;
}

bool Tester::Test(const std::string& text) { return TestIn(text, 0).value_or(false); }

std::string Tester::Explain(const std::string& text) {
  const std::string scratch = dir_ + "/w0";
  const std::string path = scratch + "/candidate.hlo";
  if (auto st = WriteFileAtomically(path, text, false); !st.ok()) return std::string(st.message());
  return oracle_.Explain(path, scratch);
}

std::optional<std::pair<int64_t, Candidate>> Tester::FirstInteresting(
    int64_t count, const std::function<std::optional<Candidate>(int64_t)>& make) {
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> best{count};  // the least interesting index so far
  std::mutex found_mu;
  std::optional<Candidate> found;
  const int n = static_cast<int>(std::min<int64_t>(jobs_, count));
  // What each worker tests, and its flag: a worker testing a candidate
  // after one found interesting is told to stop.
  std::vector<std::atomic<int64_t>> running(std::max(n, 1));
  std::vector<std::atomic<bool>> cancel(std::max(n, 1));
  auto work = [&](int worker) {
    for (;;) {
      int64_t i = next.fetch_add(1);
      if (i >= count || i >= best.load()) return;
      std::optional<Candidate> c = make(i);
      if (!c) continue;
      {
        std::lock_guard<std::mutex> lock(found_mu);
        if (i >= best.load()) return;
        running[worker] = i;
        cancel[worker] = false;
      }
      std::optional<bool> yes = TestIn(c->text, worker, &cancel[worker]);
      if (!yes || !*yes) continue;
      std::lock_guard<std::mutex> lock(found_mu);
      if (i < best.load()) {
        best = i;
        found = std::move(c);
        for (int w = 0; w < n; ++w) {
          if (w != worker && running[w].load() > i) cancel[w] = true;
        }
      }
    }
  };
  if (n <= 1) {
    work(0);
  } else {
    std::vector<std::thread> threads;
    for (int w = 0; w < n; ++w) threads.emplace_back(work, w);
    for (std::thread& t : threads) t.join();
  }
  if (!found) return std::nullopt;
  return std::make_pair(best.load(), *std::move(found));
}

void Tester::RunOnWorkers(int n, const std::function<void(int)>& work) {
  if (n <= 1) {
    work(0);
    return;
  }
  while (static_cast<int>(threads_.size()) < jobs_ - 1) {
    const int w = static_cast<int>(threads_.size()) + 1;
    threads_.emplace_back([this, w] { WorkerLoop(w); });
  }
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pool_work_ = &work;
    pool_n_ = n;
    pool_pending_ = n - 1;
    ++pool_generation_;
  }
  pool_cv_.notify_all();
  work(0);
  std::unique_lock<std::mutex> lock(pool_mu_);
  pool_cv_.wait(lock, [&] { return pool_pending_ == 0; });
  pool_work_ = nullptr;
}

void Tester::WorkerLoop(int w) {
  int64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* work = nullptr;
    {
      std::unique_lock<std::mutex> lock(pool_mu_);
      pool_cv_.wait(lock, [&] { return pool_stop_ || pool_generation_ != seen; });
      if (pool_stop_) return;
      seen = pool_generation_;
      if (w < pool_n_) work = pool_work_;
    }
    if (work == nullptr) continue;
    (*work)(w);
    {
      std::lock_guard<std::mutex> lock(pool_mu_);
      --pool_pending_;
    }
    pool_cv_.notify_all();
  }
}

void Tester::Progress(const Size& size, std::string_view phase) {
  size_ = size;
  phase_ = phase;
  if (!tty_) return;
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "\r\033[Khlo-reduce: %lld instructions, %lld bytes, %lld tests, %.1f s: %s",
               static_cast<long long>(size.instructions), static_cast<long long>(size.bytes),
               static_cast<long long>(tests_run_), s, phase_.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Tester::EndProgress() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace hlo::reduce
