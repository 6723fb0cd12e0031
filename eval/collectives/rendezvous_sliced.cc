// Rendezvous::ReduceSliced (eval/collectives/replica_rendezvous.h): an
// all-reduce whose group spans processes, as a reduce-scatter of element
// slices over the processes followed by an all-gather of the reduced
// slices. Two slots: KEY/s holds the members' slices of this process's part
// (its own members' cut here, the others' as they come), KEY/r the reduced
// parts of every process, indexed by part (the "group" of that slot is each
// process's first device, so the delivery checks stay the same).
#include <algorithm>

#include "eval/collectives/replica_rendezvous.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {

bool Rendezvous::SpansProcesses(absl::Span<const int64_t> group) const {
  if (transport_ == nullptr) return false;
  for (int64_t d : group) {
    if (!IsLocal(d)) return true;
  }
  return false;
}

std::vector<int64_t> Rendezvous::ProcessesOf(absl::Span<const int64_t> group) const {
  std::vector<int64_t> firsts;
  std::vector<int> ranks;
  for (int64_t d : group) {
    int r = transport_->RankOf(d);
    if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) {
      ranks.push_back(r);
      firsts.push_back(d);
    }
  }
  return firsts;
}

absl::Status Rendezvous::WaitCompleteLocked(std::unique_lock<std::mutex>& lock, Slot& slot,
                                            int64_t device, const std::string& where) {
  if (slot.complete) return absl::OkStatus();
  ++blocked_;
  ++slot.waiting;
  waiting_at_[device] = &where;
  CheckDeadlockLocked();
  bool ok = WaitLocked(lock, [&] { return slot.complete; });
  waiting_at_[device] = nullptr;
  if (slot.complete) return absl::OkStatus();
  --blocked_;
  --slot.waiting;
  return WaitFailure(where, !ok);
}

absl::Status Rendezvous::PostSlicesLocked(const std::string& key, Slot& slot, const Sliced& sliced,
                                          const std::vector<int64_t>& processes) {
  const auto parts = static_cast<int64_t>(processes.size());
  int64_t mine = -1;
  for (int64_t p = 0; p < parts; ++p) {
    if (IsLocal(processes[p])) {
      mine = p;
      continue;
    }
    std::vector<Value> cut;
    std::vector<std::pair<int64_t, const Value*>> entries;
    cut.reserve(slot.group.size());
    for (size_t i = 0; i < slot.group.size(); ++i) {
      if (!IsLocal(slot.group[i])) continue;
      auto s = sliced.slice(slot.contributions[i], p, parts);
      if (!s.ok()) return s.status();
      cut.push_back(*std::move(s));
      entries.emplace_back(static_cast<int64_t>(i), &cut.back());
    }
    ++sent_;
    HLO_RETURN_IF_ERROR(transport_->SendContributions(
        {transport_->RankOf(processes[p])}, StrCat(key, "/s"), slot.group, entries, /*own=*/true));
  }
  // This process's own part of its members' contributions: the whole
  // contributions are no longer needed.
  for (size_t i = 0; i < slot.group.size(); ++i) {
    if (!IsLocal(slot.group[i])) continue;
    auto s = sliced.slice(slot.contributions[i], mine, parts);
    if (!s.ok()) return s.status();
    slot.contributions[i] = *std::move(s);
  }
  return absl::OkStatus();
}

absl::Status Rendezvous::ReducePartLocked(std::unique_lock<std::mutex>& lock,
                                          const std::string& key, Slot& slices, Slot& parts,
                                          const Sliced& sliced) {
  slices.reducing = true;
  // The slices are this slot's alone now (every member's is in): reduce
  // them without the lock.
  lock.unlock();
  absl::StatusOr<Value> reduced = sliced.reduce(slices.contributions);
  lock.lock();
  if (!reduced.ok()) return reduced.status();
  int64_t mine = -1;
  std::vector<int> others;
  for (size_t p = 0; p < parts.group.size(); ++p) {
    if (IsLocal(parts.group[p])) {
      mine = static_cast<int64_t>(p);
    } else {
      others.push_back(transport_->RankOf(parts.group[p]));
    }
  }
  parts.contributions[mine] = *std::move(reduced);
  std::vector<std::pair<int64_t, const Value*>> entry = {{mine, &parts.contributions[mine]}};
  sent_ += static_cast<int64_t>(others.size());
  absl::Status st =
      transport_->SendContributions(others, StrCat(key, "/r"), parts.group, entry, /*own=*/true);
  if (!st.ok()) return st;
  if (++parts.arrived == static_cast<int64_t>(parts.group.size())) CompleteLocked(parts);
  return absl::OkStatus();
}

absl::StatusOr<Value> Rendezvous::ReduceSliced(const std::string& key,
                                               absl::Span<const int64_t> group, int64_t device,
                                               Value contribution, const Sliced& sliced,
                                               const std::string& where) {
  int64_t rank = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == device) rank = static_cast<int64_t>(i);
  }
  if (rank < 0) return absl::InternalError("device not in its own group");
  const std::string skey = StrCat(key, "/s"), rkey = StrCat(key, "/r");
  std::unique_lock<std::mutex> lock(mu_);
  if (Aborted()) return abort_;
  // Fails the run here (every device of this process stops) and returns.
  auto fail = [&](const absl::Status& st) {
    if (!Aborted()) abort_ = st;
    NotifyAll();
    return st;
  };
  std::shared_ptr<Slot>& s = slots_[skey];
  if (!s) {
    s = NewSlot(group);
  } else if (s->group != std::vector<int64_t>(group.begin(), group.end())) {
    return absl::InvalidArgumentError(
        StrCat(where, ": the devices disagree on the group: ", DeviceName(device), " has {",
               StrJoin(group, ","), "}, another {", StrJoin(s->group, ","), "}"));
  }
  std::shared_ptr<Slot> slices = s;
  slices->expected = static_cast<int64_t>(group.size());  // every member's slice
  const std::vector<int64_t> processes = ProcessesOf(group);
  slices->contributions[rank] = std::move(contribution);
  ++slices->arrived;
  if (++slices->local_arrived == slices->local) {
    if (absl::Status st = PostSlicesLocked(key, *slices, sliced, processes); !st.ok()) {
      return fail(st);
    }
  }
  if (slices->arrived == static_cast<int64_t>(group.size())) CompleteLocked(*slices);
  HLO_RETURN_IF_ERROR(WaitCompleteLocked(lock, *slices, device, where));
  std::shared_ptr<Slot>& r = slots_[rkey];
  if (!r) r = NewSlot(processes);
  std::shared_ptr<Slot> parts = r;
  parts->local = slices->local;  // every caller here departs from it
  parts->expected = static_cast<int64_t>(processes.size());
  if (!slices->reducing) {
    if (absl::Status st = ReducePartLocked(lock, key, *slices, *parts, sliced); !st.ok()) {
      return fail(st);
    }
  }
  HLO_RETURN_IF_ERROR(WaitCompleteLocked(lock, *parts, device, where));
  lock.unlock();
  absl::StatusOr<Value> result = sliced.assemble(parts->contributions);
  lock.lock();
  if (++parts->departed == parts->local) {
    // The last caller out: no one reads either slot any more.
    for (const std::string* k : {&skey, &rkey}) {
      auto it = slots_.find(*k);
      if (it != slots_.end() && (it->second == slices || it->second == parts)) slots_.erase(it);
    }
  }
  return result;
}

}  // namespace hlo
