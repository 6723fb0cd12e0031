// What one device (a replica of a partition) of a multi-device run knows
// about itself: its ids, the rendezvous it shares with the other devices,
// its infeed and outfeed, and how often it has run each collective (the
// instance number that tells loop iterations apart). One per Evaluator,
// never shared between threads except through the Rendezvous.
#ifndef HLO_EVAL_COLLECTIVES_REPLICA_CONTEXT_H_
#define HLO_EVAL_COLLECTIVES_REPLICA_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "eval/collectives/replica_rendezvous.h"
#include "eval/io/feed_io.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace hlo {

class DeviceContext {
 public:
  DeviceContext() = default;
  DeviceContext(int64_t replica, int64_t partition, int64_t replicas, int64_t partitions,
                Rendezvous* rendezvous)
      : replica_id(replica),
        partition_id(partition),
        replica_count(replicas),
        partition_count(partitions),
        rendezvous(rendezvous) {}

  int64_t replica_id = 0;
  int64_t partition_id = 0;
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  // Shared by every device of the run; null when there is one device.
  Rendezvous* rendezvous = nullptr;

  // The values infeed reads in order (has_infeed: a feed was given).
  bool has_infeed = false;
  std::vector<FeedItem> infeed;
  size_t infeed_next = 0;
  // What outfeed wrote, in order.
  std::vector<Literal> outfeed;

  // The flattened device id (XLA's replica_id * partitions + partition_id).
  int64_t device() const { return replica_id * partition_count + partition_id; }
  int64_t devices() const { return replica_count * partition_count; }
  int64_t NextChannelUse(int64_t channel, bool send) { return (send ? sends_ : recvs_)[channel]++; }
  // A recv waiting for its recv-done: where its data comes from.
  struct PendingRecv {
    const Shape* shape = nullptr;  // the data's shape
    std::string key;               // the mailbox; empty: no pair targets us
    int64_t source = -1;           // the sending device
    bool host = false;             // is_host_transfer: read from the infeed
    std::string where;
  };
  int64_t AddPendingRecv(PendingRecv p) {
    int64_t ticket = next_ticket_++;
    pending_[ticket] = std::move(p);
    return ticket;
  }
  std::optional<PendingRecv> TakePendingRecv(int64_t ticket) {
    auto it = pending_.find(ticket);
    if (it == pending_.end()) return std::nullopt;
    PendingRecv p = std::move(it->second);
    pending_.erase(it);
    return p;
  }
  // What a collective instruction needs each time it runs here, made the
  // first time (an instruction's group on a device never changes): its
  // group (GroupDevices), the parts of its instances' keys around the
  // instance number, and its name in errors. Kept across runs; `instances`
  // (how often it ran here this run) is reset by ResetCounts, and `key`
  // holds the last instance's key (built in place: no allocation per run
  // of the instruction).
  struct CollectiveSite {
    std::optional<absl::StatusOr<std::vector<int64_t>>> group;
    std::string key_head, key_tail, where;  // empty: not made yet
    int64_t instances = 0;
    std::string key;
  };
  CollectiveSite& Site(const void* inst) { return sites_[inst]; }
  // Sends to this device itself when there is no rendezvous.
  absl::flat_hash_map<std::string, Value> local_mail;
  // What StableHLO's interpreter.probe recorded, by probe id, in the order
  // the probe ran (eval/collectives/probe_kernels.cc).
  absl::flat_hash_map<std::string, std::vector<Literal>> probes;

  // Forgets the counts, mail and feeds' positions (a new run).
  void ResetCounts() {
    for (auto& [inst, site] : sites_) site.instances = 0;
    sends_.clear();
    recvs_.clear();
    pending_.clear();
    local_mail.clear();
    infeed_next = 0;
    outfeed.clear();
    probes.clear();
  }

 private:
  absl::flat_hash_map<int64_t, PendingRecv> pending_;
  int64_t next_ticket_ = 0;
  // Node-based: a collective in progress holds its site's group by
  // reference while other sites may be made.
  absl::node_hash_map<const void*, CollectiveSite> sites_;
  absl::flat_hash_map<int64_t, int64_t> sends_, recvs_;
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_REPLICA_CONTEXT_H_
