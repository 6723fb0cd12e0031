#include "eval/replica_runner.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "eval/collectives/collective_groups.h"
#include "eval/collectives/spin_policy.h"
#include "eval/denormals.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/thread_pinning.h"
#include "ir/computation.h"
#include "ir/located_status.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {

// Threads for devices 1..n-1, each waiting for the next run. A run's start
// and end spin about a wake-up's time before they sleep (as the rendezvous
// does): a futex wake-up costs 40-50 us on this VM, and three of them per
// run were most of a small 4-device program's time (a module that only
// returns its parameter took 0.07-0.18 ms a run on 4 partitions, 0.005
// with the spin).
class ReplicaRunner::DeviceThreads {
 public:
  // An error when the system cannot give that many threads (a process or
  // memory limit): the ones started are stopped again.
  static absl::StatusOr<std::unique_ptr<DeviceThreads>> Start(int64_t devices) {
    auto threads = std::make_unique<DeviceThreads>();
    threads->yield_ = devices > CoreCount();
    try {
      for (int64_t d = 1; d < devices; ++d) {
        threads->threads_.emplace_back([t = threads.get(), d] { t->Work(d); });
      }
    } catch (const std::system_error& e) {
      const size_t started = threads->threads_.size();
      threads.reset();
      return absl::ResourceExhaustedError(StrCat("cannot start a thread for each of the ", devices,
                                                 " devices (", started + 1,
                                                 " running): ", e.what()));
    }
    return threads;
  }
  ~DeviceThreads() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // fn(d) for every device, device 0 on the calling thread; returns when
  // all have returned.
  void Run(const std::function<void(int64_t)>& fn) {
    job_ = &fn;
    pending_.store(static_cast<int64_t>(threads_.size()), std::memory_order_relaxed);
    {
      // Under the lock: a worker about to sleep is counted or sees it.
      std::lock_guard<std::mutex> lock(mu_);
      generation_.fetch_add(1, std::memory_order_release);
      if (sleepers_ > 0) {
        wake_timer_.Notified();
        wake_.notify_all();
      }
    }
    fn(0);
    auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!SpinUntil(all_done, SpinOutcomes::Process().spin_for(), yield_)) {
      std::unique_lock<std::mutex> lock(mu_);
      main_sleeps_ = true;
      done_.wait(lock, all_done);
      main_sleeps_ = false;
      wake_timer_.Woke();
    }
    job_ = nullptr;
  }

 private:
  void Work(int64_t d) {
    UnpinThisThread();  // started by a pinned main thread: its one CPU
    uint64_t seen = 0;
    for (;;) {
      auto woken = [&] {
        return stop_.load(std::memory_order_acquire) ||
               generation_.load(std::memory_order_acquire) != seen;
      };
      if (!SpinUntil(woken, SpinOutcomes::Process().spin_for(), yield_)) {
        std::unique_lock<std::mutex> lock(mu_);
        ++sleepers_;
        wake_.wait(lock, woken);
        --sleepers_;
        wake_timer_.Woke();
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      (*job_)(d);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu_);
        if (main_sleeps_) {
          wake_timer_.Notified();
          done_.notify_one();
        }
      }
    }
  }

  std::vector<std::thread> threads_;
  bool yield_ = false;  // more devices than cores: spins yield, not pause
  std::mutex mu_;
  std::condition_variable wake_, done_;
  WakeTimer wake_timer_;
  const std::function<void(int64_t)>* job_ = nullptr;  // published by generation_
  std::atomic<int64_t> pending_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  int64_t sleepers_ = 0;      // under mu_
  bool main_sleeps_ = false;  // under mu_
};

ReplicaRunner::ReplicaRunner(Module& module, const EvalOptions& options, int64_t replicas,
                             int64_t partitions, std::chrono::milliseconds timeout,
                             Transport* transport)
    : module_(module),
      replicas_(replicas < 1 ? 1 : replicas),
      partitions_(partitions < 1 ? 1 : partitions),
      timeout_(timeout),
      transport_(transport),
      scheduling_(options.device_scheduling) {
  int64_t count = replicas_ * partitions_;
  if (transport_ != nullptr) {
    first_ = transport_->first_device();
    count = transport_->local_devices();
  }
  for (int64_t d = first_; d < first_ + count; ++d) {
    contexts_.push_back(std::make_unique<DeviceContext>(d / partitions_, d % partitions_, replicas_,
                                                        partitions_, nullptr));
    EvalOptions o = options;
    o.device = contexts_.back().get();
    if (d > first_) o.progress = nullptr;
    evaluators_.push_back(std::make_unique<Evaluator>(module_, std::move(o)));
  }
}

ReplicaRunner::~ReplicaRunner() = default;

std::string ReplicaRunner::DeviceName(int64_t local) const {
  const int64_t d = first_ + local;
  if (partitions_ == 1) return StrCat("replica ", d);
  return StrCat("replica ", d / partitions_, " partition ", d % partitions_);
}

void ReplicaRunner::SetInfeed(int64_t device, std::vector<FeedItem> values) {
  contexts_[device]->has_infeed = true;
  contexts_[device]->infeed = std::move(values);
}

absl::StatusOr<std::vector<Value>> ReplicaRunner::Run(
    const std::vector<std::vector<Value>>& arguments, const Computation* computation) {
  const int64_t n = devices();
  if (static_cast<int64_t>(arguments.size()) != n) {
    return absl::InvalidArgumentError(
        StrCat("the run has ", n, " devices but ", arguments.size(), " argument lists"));
  }
  std::vector<absl::StatusOr<Value>> results(n, absl::UnknownError("not run"));
  std::unique_ptr<Rendezvous> rendezvous;
  if (replicas_ * partitions_ > 1) {
    rendezvous = std::make_unique<Rendezvous>(replicas_, partitions_, timeout_);
    if (transport_ != nullptr) rendezvous->SetTransport(transport_, first_, n);
    if (UsesFibers()) rendezvous->SetCooperative();
  }
  if (rendezvous && transport_ != nullptr && !groups_prepared_) {
    // Once, before the first run, on every process alike.
    groups_prepared_ = true;
    HLO_RETURN_IF_ERROR(transport_->PrepareGroups(
        SmallCollectiveGroups(module_, replicas_, partitions_, Rendezvous::kSmallBytes)));
  }
  for (auto& c : contexts_) {
    c->ResetCounts();
    c->rendezvous = rendezvous.get();
  }
  // Lets the transport go of this run's Rendezvous however the run ends.
  struct Detach {
    Transport* t;
    ~Detach() {
      if (t != nullptr) t->DetachRun();
    }
  } detach{rendezvous ? transport_ : nullptr};
  if (detach.t != nullptr) detach.t->BeginRun(rendezvous.get());
  const std::function<void(int64_t)> run_one = [&](int64_t d) {
    if (computation == nullptr) {
      results[d] = evaluators_[d]->Run(arguments[d]);
    } else {
      // Run sets the thread's denormal mode itself; Call does not.
      ScopedFlushDenormals mode(evaluators_[d]->options().flush_denormals);
      std::vector<const Value*> ptrs;
      for (const Value& v : arguments[d]) ptrs.push_back(&v);
      results[d] = evaluators_[d]->Call(*computation, ptrs);
    }
    if (rendezvous) rendezvous->Finish(first_ + d, results[d].status());
  };
  const absl::Status ran = RunDevices(run_one);
  for (auto& c : contexts_) c->rendezvous = nullptr;
  HLO_RETURN_IF_ERROR(ran);
  // The cause: the first error that is not a release by another's failure.
  int64_t cause = -1;
  for (int64_t d = 0; d < n; ++d) {
    if (results[d].ok()) continue;
    if (cause < 0 || (results[cause].status().code() == absl::StatusCode::kAborted &&
                      results[d].status().code() != absl::StatusCode::kAborted)) {
      cause = d;
    }
  }
  if (cause >= 0) {
    const absl::Status& st = results[cause].status();
    if (replicas_ * partitions_ == 1) return st;
    return WithMessage(st, StrCat(std::string(st.message()), " (", DeviceName(cause), ")"));
  }
  // Every device here finished: wait for the other processes' devices.
  if (detach.t != nullptr) {
    if (absl::Status st = detach.t->EndRun(); !st.ok()) return st;
  }
  std::vector<Value> out;
  out.reserve(n);
  for (auto& r : results) out.push_back(*std::move(r));
  return out;
}

bool ReplicaRunner::UsesFibers() const {
  if (devices() < 2 || transport_ != nullptr) return false;
  switch (scheduling_) {
    case EvalOptions::DeviceScheduling::kThreads:
      return false;
    case EvalOptions::DeviceScheduling::kFibers:
      return true;
    case EvalOptions::DeviceScheduling::kAuto:
      break;
  }
  // As many devices as cores or more: a core each is not to be had (a
  // busy machine), or not at all. Measured on 2 cores: f32[4] all-reduces
  // between 2 devices took 4.4 us on threads and 3.6 as fibers idle, 24
  // and 3.5 beside two busy processes; a 2-way SPMD GPT-2 (2 layers,
  // S=128) 53-54 ms on threads, 40-44 as fibers, its big products split
  // over the cores by the kernels either way.
  return devices() >= CoreCount();
}

absl::Status ReplicaRunner::RunDevices(const std::function<void(int64_t)>& fn) {
  const int64_t n = devices();
  if (n == 1) {
    fn(0);
  } else if (UsesFibers()) {
    if (fibers_ == nullptr) {
      HLO_ASSIGN_OR_RETURN(fibers_, Fibers::Create(n));
    }
    fibers_->Run(fn);
  } else {
    if (threads_ == nullptr) {
      HLO_ASSIGN_OR_RETURN(threads_, DeviceThreads::Start(n));
    }
    threads_->Run(fn);
  }
  return absl::OkStatus();
}

int64_t ReplicaRunner::PeakLiveBytes() const {
  int64_t peak = 0;
  for (const std::unique_ptr<Evaluator>& e : evaluators_) {
    if (e) peak += e->peak_live_bytes();
  }
  return peak;
}

}  // namespace hlo
