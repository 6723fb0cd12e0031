// Runs a module's entry computation on replicas x partitions devices, each
// on its own thread with its own Evaluator and DeviceContext, sharing one
// Rendezvous for collectives and send/recv. One device runs on the calling
// thread with no rendezvous at all, so single-device runs cost nothing more.
// With several, device 0 runs on the calling thread and the others on
// threads started at the first run and kept for the next ones (a run of a
// small program took less time than starting its threads). With as many
// devices as cores or more (and none on other processes), the devices run
// as fibers on the calling thread instead (eval/runtime/fibers.h): threads
// would take turns on the cores, and each turn at a collective cost a
// kernel wake-up, a scheduler tick where the machine was busy; the kernels
// still split their large loops over the cores.
#ifndef HLO_EVAL_REPLICA_RUNNER_H_
#define HLO_EVAL_REPLICA_RUNNER_H_

#include <chrono>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/collectives/replica_context.h"
#include "eval/collectives/transport.h"
#include "eval/evaluator.h"
#include "eval/runtime/fibers.h"

namespace hlo {

class ReplicaRunner {
 public:
  // options.device is ignored (each device gets its own context); so is
  // options.device_scheduling = kFibers with a transport; progress
  // is reported by device 0 only. With a `transport`, only its devices run
  // here (first_device() on), the others in other processes: every index
  // below (arguments, results, SetInfeed, DeviceName, outfeed) counts this
  // process's devices from 0.
  ReplicaRunner(Module& module, const EvalOptions& options, int64_t replicas, int64_t partitions,
                std::chrono::milliseconds timeout = std::chrono::seconds(60),
                Transport* transport = nullptr);
  ~ReplicaRunner();

  // The devices run here.
  int64_t devices() const { return static_cast<int64_t>(contexts_.size()); }
  int64_t first_device() const { return first_; }
  // Every process's devices: replicas x partitions.
  int64_t total_devices() const { return replicas_ * partitions_; }
  // "replica 1", or "replica 1 partition 0" (of local device `device`).
  std::string DeviceName(int64_t device) const;

  // The values every run's infeed reads on `device`, in order.
  void SetInfeed(int64_t device, std::vector<FeedItem> values);

  // Runs every device on its arguments (one vector per device). Returns the
  // results in device order, or the error that stopped the run: the first
  // failure that was not just a device released because another failed,
  // naming its device when there are several. With `computation`, each
  // device runs that computation of the module instead of the entry (a
  // Shardy manual computation's body, eval/collectives/sdy_manual_computation.cc).
  absl::StatusOr<std::vector<Value>> Run(const std::vector<std::vector<Value>>& arguments,
                                         const Computation* computation = nullptr);

  // What each device's outfeed wrote in the last run.
  const std::vector<Literal>& outfeed(int64_t device) const { return contexts_[device]->outfeed; }
  // The live buffers of this process's devices (bytes): the sum of each
  // device's peak (they run the same program side by side, so their peaks
  // meet), the least any plan could hold for them.
  int64_t PeakLiveBytes() const;

 private:
  Module& module_;
  int64_t replicas_, partitions_;
  std::chrono::milliseconds timeout_;
  Transport* transport_;
  bool groups_prepared_ = false;  // Transport::PrepareGroups
  int64_t first_ = 0;
  std::vector<std::unique_ptr<DeviceContext>> contexts_;
  std::vector<std::unique_ptr<Evaluator>> evaluators_;
  EvalOptions::DeviceScheduling scheduling_;  // options.device_scheduling
  class DeviceThreads;
  std::unique_ptr<DeviceThreads> threads_;
  std::unique_ptr<Fibers> fibers_;
  // Whether these devices run as fibers.
  bool UsesFibers() const;
  // fn(d) for every device, each on its thread or fiber.
  absl::Status RunDevices(const std::function<void(int64_t)>& fn);
};

}  // namespace hlo

#endif  // HLO_EVAL_REPLICA_RUNNER_H_
