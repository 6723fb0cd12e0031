#include "eval/replica_runner.h"

#include <algorithm>
#include <thread>

#include "eval/denormals.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {

ReplicaRunner::ReplicaRunner(Module& module, const EvalOptions& options, int64_t replicas,
                             int64_t partitions, std::chrono::milliseconds timeout)
    : module_(module),
      replicas_(replicas < 1 ? 1 : replicas),
      partitions_(partitions < 1 ? 1 : partitions),
      timeout_(timeout) {
  for (int64_t d = 0; d < replicas_ * partitions_; ++d) {
    contexts_.push_back(std::make_unique<DeviceContext>(d / partitions_, d % partitions_,
                                                        replicas_, partitions_, nullptr));
    EvalOptions o = options;
    o.device = contexts_.back().get();
    if (d > 0) o.progress = nullptr;
    evaluators_.push_back(std::make_unique<Evaluator>(module_, std::move(o)));
  }
}

ReplicaRunner::~ReplicaRunner() = default;

std::string ReplicaRunner::DeviceName(int64_t d) const {
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
  if (n > 1) rendezvous = std::make_unique<Rendezvous>(replicas_, partitions_, timeout_);
  for (auto& c : contexts_) {
    c->ResetCounts();
    c->rendezvous = rendezvous.get();
  }
  auto run_one = [&](int64_t d) {
    if (computation == nullptr) {
      results[d] = evaluators_[d]->Run(arguments[d]);
    } else {
      // Run sets the thread's denormal mode itself; Call does not.
      ScopedFlushDenormals mode(evaluators_[d]->options().flush_denormals);
      std::vector<const Value*> ptrs;
      for (const Value& v : arguments[d]) ptrs.push_back(&v);
      results[d] = evaluators_[d]->Call(*computation, ptrs);
    }
    if (rendezvous) rendezvous->Finish(d, results[d].status());
  };
  if (n == 1) {
    run_one(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (int64_t d = 0; d < n; ++d) threads.emplace_back(run_one, d);
    for (std::thread& t : threads) t.join();
  }
  for (auto& c : contexts_) c->rendezvous = nullptr;
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
    if (n == 1) return st;
    return absl::Status(st.code(), StrCat(std::string(st.message()), " (", DeviceName(cause), ")"));
  }
  std::vector<Value> out;
  out.reserve(n);
  for (auto& r : results) out.push_back(*std::move(r));
  return out;
}

int64_t ReplicaRunner::PeakLiveBytes() const {
  int64_t peak = 0;
  for (const std::unique_ptr<Evaluator>& e : evaluators_) {
    peak = std::max(peak, e->peak_live_bytes());
  }
  return peak;
}

}  // namespace hlo
