#include "eval/collectives/replica_rendezvous.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "eval/collectives/wire_format.h"
#include "eval/runtime/fibers.h"
#include "eval/runtime/parallel.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {

Rendezvous::Rendezvous(int64_t replicas, int64_t partitions, std::chrono::milliseconds timeout)
    : replicas_(replicas < 1 ? 1 : replicas),
      partitions_(partitions < 1 ? 1 : partitions),
      timeout_(timeout),
      finished_(static_cast<size_t>(replicas_ * partitions_), false),
      waiting_at_(static_cast<size_t>(replicas_ * partitions_)),
      local_count_(replicas_ * partitions_) {}

void Rendezvous::SetTransport(Transport* transport, int64_t first, int64_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  transport_ = transport;
  first_local_ = first;
  local_count_ = count;
}

std::string Rendezvous::DeviceName(int64_t device) const {
  if (partitions_ == 1) return StrCat("replica ", device);
  return StrCat("replica ", device / partitions_, " partition ", device % partitions_);
}

void Rendezvous::CheckDeadlockLocked() {
  ++version_;
  if (transport_ != nullptr) {
    // Devices elsewhere may still come: the transport decides, from every
    // process's State.
    transport_->StateChanged();
    return;
  }
  if (Aborted() || blocked_ == 0 || blocked_ + finished_count_ < devices()) return;
  std::vector<std::string> parts;
  for (int64_t d = 0; d < devices(); ++d) {
    if (waiting_at_[d] != nullptr)
      parts.push_back(StrCat(DeviceName(d), " waits at ", *waiting_at_[d]));
  }
  std::vector<std::string> done;
  for (int64_t d = 0; d < devices(); ++d) {
    if (finished_[d]) done.push_back(DeviceName(d));
  }
  std::string msg = StrCat("deadlock: ", StrJoin(parts, "; "));
  if (!done.empty()) StrAppend(&msg, "; finished: ", StrJoin(done, ", "));
  abort_ = absl::FailedPreconditionError(msg);
  NotifyAll();
}

bool Rendezvous::WaitLocked(std::unique_lock<std::mutex>& lock, const std::function<bool()>& done) {
  auto ready = [&] { return done() || Aborted(); };
  if (transport_ != nullptr) {
    const bool ok = WaitDriving(*transport_, lock, cv_, ready, timeout_, &napping_);
    transport_->LeftWait();
    return ok;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  if (cooperative_) return YieldUntil(lock, ready, deadline);
  if (SpinLocked(lock, ready)) return true;
  const bool ok = cv_.wait_until(lock, deadline, ready);
  wake_timer_.Woke();
  return ok;
}

bool Rendezvous::YieldUntil(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready,
                            std::chrono::steady_clock::time_point deadline) {
  // (The clock is read every 64 turns: a read cost 4% of a loop of
  // all-reduces.)
  for (int64_t turn = 0; !ready(); ++turn) {
    if (turn % 64 == 63 && std::chrono::steady_clock::now() >= deadline) return false;
    lock.unlock();
    Fibers::Yield();
    lock.lock();
  }
  return true;
}

bool Rendezvous::SpinLocked(std::unique_lock<std::mutex>& lock,
                            const std::function<bool()>& ready) {
  // About a wake-up: a longer wait (a device still computing) sleeps.
  const auto spin_for = SpinOutcomes::Process().spin_for();
  const bool yield = Yields();
  if (ready()) return true;
  const auto now = SpinPolicy::Clock::now();
  if (!SpinPolicy::Allowed(now)) return false;
  // A spin that pauses holds its core; one that yields (more devices than
  // cores) hands it to the peers it waits for, and is kept.
  SpinOutcomes* outcomes = yield ? nullptr : &SpinOutcomes::Process();
  if (outcomes != nullptr && !outcomes->ShouldSpin()) return false;
  auto record = [&](bool ended_wait) {
    if (outcomes != nullptr) outcomes->Record(ended_wait);
  };
  const auto until = now + spin_for;
  while (!ready()) {
    // Looks without the lock until a NotifyAll: a spinner that took the
    // lock every round made the peer it waits for sleep on the mutex, and
    // those futex wake-ups were most of a small collective's time (two
    // devices, 30 f32[2,4] all-reduces: about 40 us each).
    const uint64_t seen = changes_.load(std::memory_order_acquire);
    lock.unlock();
    const bool changed = SpinUntil(
        [&] { return changes_.load(std::memory_order_acquire) != seen; },
        std::chrono::duration_cast<std::chrono::microseconds>(until - SpinPolicy::Clock::now()),
        yield);
    LockSpinning(lock, yield);
    if (!changed) {  // ran out, or a slow round
      record(false);
      return ready();
    }
  }
  record(true);
  return true;
}

absl::Status Rendezvous::WaitFailure(const std::string& where, bool timed_out) {
  if (timed_out && !Aborted()) {
    abort_ = absl::DeadlineExceededError(StrCat("timed out after ", timeout_.count() / 1000.0,
                                                " s waiting for the other devices at ", where));
    NotifyAll();
  }
  return abort_;
}

// Among threads, the last caller combines for every caller when the
// contributions are small: then waking the callers costs more than the
// combines.
bool Rendezvous::SmallContributions(const Slot& slot) {
  int64_t bytes = 0;
  for (const Value& v : slot.contributions) {
    bytes += WireBytes(v);
    if (bytes > kSmallBytes) return false;
  }
  return true;
}

std::shared_ptr<Rendezvous::Slot> Rendezvous::NewSlot(absl::Span<const int64_t> group) {
  auto s = std::make_shared<Slot>();
  s->contributions.resize(group.size());
  s->combines.resize(group.size(), nullptr);
  s->group.assign(group.begin(), group.end());
  for (int64_t d : group) s->local += IsLocal(d) ? 1 : 0;
  return s;
}

void Rendezvous::CompleteLocked(Slot& slot) {
  slot.complete = true;
  blocked_ -= slot.waiting;
  slot.waiting = 0;
  ++version_;
  NotifyAll();
}

int64_t Rendezvous::ExpectedLocked(const Slot& slot, const Wants* wants) const {
  const auto n = static_cast<int64_t>(slot.group.size());
  if (wants == nullptr) return n;
  int64_t expected = slot.local;
  for (int64_t m = 0; m < n; ++m) {
    if (IsLocal(slot.group[m])) continue;
    for (int64_t r = 0; r < n; ++r) {
      if (IsLocal(slot.group[r]) && (*wants)(m, r)) {
        ++expected;
        break;
      }
    }
  }
  return expected;
}

absl::Status Rendezvous::PostCutsLocked(const std::string& key, const Slot& slot, const Cut& cut) {
  const auto n = static_cast<int64_t>(slot.group.size());
  std::vector<int> ranks;
  for (int64_t d : slot.group) {
    int r = transport_->RankOf(d);
    if (!IsLocal(d) && std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
  }
  for (int r : ranks) {
    std::vector<Value> tuples;
    tuples.reserve(static_cast<size_t>(n));
    std::vector<std::pair<int64_t, const Value*>> entries;
    for (int64_t m = 0; m < n; ++m) {
      if (!IsLocal(slot.group[m])) continue;
      std::vector<Value> parts;
      for (int64_t j = 0; j < n; ++j) {
        if (transport_->RankOf(slot.group[j]) != r) continue;
        auto part = cut(slot.contributions[m], j);
        if (!part.ok()) return part.status();
        parts.push_back(*std::move(part));
      }
      tuples.push_back(Value::Tuple(std::move(parts)));
      entries.emplace_back(m, &tuples.back());
    }
    ++sent_;
    HLO_RETURN_IF_ERROR(transport_->SendContributions({r}, key, slot.group, entries, false));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Value>> Rendezvous::CutView(const Slot& slot, int64_t rank,
                                                       const Cut& cut) const {
  // This caller's place among the members here: its element of each
  // tuple that came from another process.
  int64_t at = 0;
  for (int64_t j = 0; j < rank; ++j) at += IsLocal(slot.group[j]) ? 1 : 0;
  std::vector<Value> view;
  view.reserve(slot.group.size());
  for (size_t m = 0; m < slot.group.size(); ++m) {
    if (IsLocal(slot.group[m]) || slot.gathered) {
      auto part = cut(slot.contributions[m], rank);
      if (!part.ok()) return part.status();
      view.push_back(*std::move(part));
      continue;
    }
    const Value& t = slot.contributions[m];
    if (!t.is_tuple() || at >= static_cast<int64_t>(t.elements().size())) {
      return absl::DataLossError("a message from another rank has the wrong parts");
    }
    view.push_back(t.element(at));
  }
  return view;
}

std::shared_ptr<Transport::Gathered> Rendezvous::StartGatherLocked(
    const std::string& key, absl::Span<const int64_t> group,
    absl::Span<const std::pair<int64_t, const Value*>> mine) {
  // Every member's contribution has this process's members' size (one
  // instruction); a process that disagrees is caught by the transport.
  const int64_t each = WireBytes(*mine.front().second);
  if (each > kSmallBytes / static_cast<int64_t>(group.size())) return nullptr;
  return transport_->StartGather(key, group, mine);
}

absl::Status Rendezvous::WaitGatheredLocked(std::unique_lock<std::mutex>& lock,
                                            const Transport::Gathered& gathered, int64_t device,
                                            const std::string& where) {
  ++blocked_;
  waiting_at_[device] = &where;
  CheckDeadlockLocked();
  const bool ok = WaitLocked(lock, [&] { return gathered.done.load(std::memory_order_acquire); });
  waiting_at_[device] = nullptr;
  --blocked_;
  ++version_;
  if (!gathered.done.load(std::memory_order_acquire)) return WaitFailure(where, !ok);
  return absl::OkStatus();
}

absl::StatusOr<bool> Rendezvous::GatherLocked(std::unique_lock<std::mutex>& lock,
                                              const std::string& key, Slot& slot, int64_t device,
                                              const std::string& where) {
  std::vector<std::pair<int64_t, const Value*>> mine;
  for (size_t i = 0; i < slot.group.size(); ++i) {
    if (IsLocal(slot.group[i])) mine.emplace_back(static_cast<int64_t>(i), &slot.contributions[i]);
  }
  std::shared_ptr<Transport::Gathered> gathered = StartGatherLocked(key, slot.group, mine);
  if (!gathered) return false;
  HLO_RETURN_IF_ERROR(WaitGatheredLocked(lock, *gathered, device, where));
  // Every member's whole contribution is here now.
  for (auto& [m, v] : gathered->parts) slot.contributions[m] = std::move(v);
  slot.gathered = true;
  slot.arrived = slot.expected = static_cast<int64_t>(slot.group.size());
  return true;
}

absl::Status Rendezvous::AwaitGathered(const Transport::Gathered& gathered, int64_t device,
                                       const std::string& where) {
  // The peers' blocks are often in by now (the last to come finds them):
  // one drive takes them in without the waiter's bookkeeping.
  if (!gathered.done.load(std::memory_order_acquire)) transport_->DriveProgress();
  if (gathered.done.load(std::memory_order_acquire)) return absl::OkStatus();
  std::unique_lock<std::mutex> lock(mu_);
  return WaitGatheredLocked(lock, gathered, device, where);
}

std::optional<absl::StatusOr<Value>> Rendezvous::CollectiveAlone(
    const std::string& key, absl::Span<const int64_t> group, int64_t rank, int64_t device,
    Value& contribution, const Combine& combine, const std::string& where, const Cut* cut) {
  const std::pair<int64_t, const Value*> mine(rank, &contribution);
  std::shared_ptr<Transport::Gathered> gathered;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (Aborted()) return abort_;
    gathered = StartGatherLocked(key, group, absl::MakeConstSpan(&mine, 1));
    if (!gathered) return std::nullopt;
  }
  if (absl::Status st = AwaitGathered(*gathered, device, where); !st.ok()) return st;
  absl::InlinedVector<Value, 8> all(group.size());
  all[rank] = std::move(contribution);
  for (auto& [m, v] : gathered->parts) all[m] = std::move(v);
  if (cut == nullptr) return combine(all);
  std::vector<Value> view;
  view.reserve(all.size());
  for (const Value& v : all) {
    absl::StatusOr<Value> part = (*cut)(v, rank);
    if (!part.ok()) return part.status();
    view.push_back(*std::move(part));
  }
  return combine(view);
}

std::optional<absl::Status> Rendezvous::QuickCollective(const std::string& key,
                                                        absl::Span<const int64_t> group,
                                                        int64_t device, const Value& contribution,
                                                        Transport::QuickFold fold,
                                                        const std::string& where) {
  if (transport_ == nullptr || group.size() < 2 ||
      std::count_if(group.begin(), group.end(), [&](int64_t d) { return IsLocal(d); }) != 1) {
    return std::nullopt;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Aborted()) return abort_;
  }
  Transport::Quick quick = transport_->QuickGather(key, group, contribution, fold);
  if (quick.kind == Transport::Quick::Kind::kNotTaken) return std::nullopt;
  if (quick.kind == Transport::Quick::Kind::kDone) return absl::OkStatus();
  // Handed over: waited for as CollectiveAlone waits.
  const Transport::Gathered& gathered = *quick.gathered;
  HLO_RETURN_IF_ERROR(AwaitGathered(gathered, device, where));
  absl::InlinedVector<const char*, 8> blocks(group.size());
  for (size_t m = 0; m < group.size(); ++m) {
    if (group[m] == device) blocks[m] = reinterpret_cast<const char*>(contribution.array().data());
  }
  for (const auto& [m, v] : gathered.parts) {
    if (!v.is_array() || v.array().size_bytes() != contribution.array().size_bytes()) {
      return absl::DataLossError("a block from another rank has the wrong size");
    }
    blocks[m] = reinterpret_cast<const char*>(v.array().data());
  }
  if (std::count(blocks.begin(), blocks.end(), nullptr) != 0) {
    return absl::DataLossError("a gather between ranks came without every member's block");
  }
  fold(blocks);
  return absl::OkStatus();
}

absl::Status Rendezvous::PostLocalLocked(const std::string& key, const Slot& slot,
                                         const Wants* wants, const Cut* cut) {
  if (cut != nullptr) return PostCutsLocked(key, slot, *cut);
  std::vector<std::pair<int64_t, const Value*>> mine;
  std::vector<int> ranks;
  for (size_t i = 0; i < slot.group.size(); ++i) {
    if (IsLocal(slot.group[i])) {
      mine.emplace_back(static_cast<int64_t>(i), &slot.contributions[i]);
    } else {
      int r = transport_->RankOf(slot.group[i]);
      if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
    }
  }
  if (wants == nullptr) {
    sent_ += static_cast<int64_t>(ranks.size());
    return transport_->SendContributions(ranks, key, slot.group, mine, false);
  }
  // Each process gets only what its members read.
  for (int r : ranks) {
    std::vector<std::pair<int64_t, const Value*>> theirs;
    for (const auto& entry : mine) {
      for (size_t j = 0; j < slot.group.size(); ++j) {
        if (transport_->RankOf(slot.group[j]) == r && (*wants)(entry.first, j)) {
          theirs.push_back(entry);
          break;
        }
      }
    }
    if (theirs.empty()) continue;
    ++sent_;
    HLO_RETURN_IF_ERROR(transport_->SendContributions({r}, key, slot.group, theirs, false));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Rendezvous::Collective(const std::string& key,
                                             absl::Span<const int64_t> group, int64_t device,
                                             Value contribution, const Combine& combine,
                                             const std::string& where, const Wants* wants,
                                             const Cut* cut) {
  int64_t rank = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == device) rank = static_cast<int64_t>(i);
  }
  if (rank < 0) return absl::InternalError("device not in its own group");
  if (transport_ != nullptr && group.size() > 1 &&
      std::count_if(group.begin(), group.end(), [&](int64_t d) { return IsLocal(d); }) == 1) {
    std::optional<absl::StatusOr<Value>> alone =
        CollectiveAlone(key, group, rank, device, contribution, combine, where, cut);
    if (alone) return *std::move(alone);
  }
  std::shared_ptr<Slot> slot;
  {
    std::unique_lock<std::mutex> lock = LockSpinning(mu_, Yields());
    if (Aborted()) return abort_;
    std::shared_ptr<Slot>& s = slots_[key];
    if (!s) {
      s = NewSlot(group);
    } else if (s->group != std::vector<int64_t>(group.begin(), group.end())) {
      return absl::InvalidArgumentError(
          StrCat(where, ": the devices disagree on the group: ", DeviceName(device), " has {",
                 StrJoin(group, ","), "}, another {", StrJoin(s->group, ","), "}"));
    }
    slot = s;
    slot->contributions[rank] = std::move(contribution);
    slot->combines[rank] = &combine;
    ++slot->arrived;
    if (slot->expected < 0) slot->expected = ExpectedLocked(*slot, wants);
    const bool remote = slot->local < static_cast<int64_t>(group.size());
    if (remote && ++slot->local_arrived == slot->local) {
      absl::StatusOr<bool> gathered = GatherLocked(lock, key, *slot, device, where);
      if (!gathered.ok()) {
        slot->combines[rank] = nullptr;  // gone with its caller
        return gathered.status();
      }
      if (!*gathered) {
        if (absl::Status st = PostLocalLocked(key, *slot, wants, cut); !st.ok()) {
          abort_ = st;
          NotifyAll();
          return st;
        }
      }
    }
    if (slot->arrived == slot->expected) {
      if (!remote && SmallContributions(*slot) &&
          std::find(slot->combines.begin(), slot->combines.end(), nullptr) ==
              slot->combines.end()) {
        CombineForAllLocked(*slot);
      }
      CompleteLocked(*slot);
    } else {
      ++blocked_;
      ++slot->waiting;
      waiting_at_[device] = &where;
      CheckDeadlockLocked();
      bool ok = WaitLocked(lock, [&] { return slot->complete; });
      waiting_at_[device] = nullptr;
      if (!slot->complete) {
        slot->combines[rank] = nullptr;  // gone with its caller
        --blocked_;
        --slot->waiting;
        return WaitFailure(where, !ok);
      }
    }
  }
  if (slot->combined) return TakeCombinedResult(key, slot, rank);
  return CombineAndDepart(key, slot, rank, combine, cut);
}

void Rendezvous::CombineForAllLocked(Slot& slot) {
  // Under the lock: each combine is its caller's, valid while that caller
  // waits, and no caller leaves its wait (abort, timeout) meanwhile.
  const size_t members = slot.group.size();
  slot.results.resize(members);
  slot.failures.resize(members);
  for (size_t r = 0; r < members; ++r) {
    absl::StatusOr<Value> v = (*slot.combines[r])(slot.contributions);
    if (v.ok()) {
      slot.results[r] = *std::move(v);
    } else {
      slot.failures[r] = v.status();
    }
  }
  slot.contributions.clear();
  slot.combined = true;
}

absl::StatusOr<Value> Rendezvous::TakeCombinedResult(const std::string& key,
                                                     const std::shared_ptr<Slot>& slot,
                                                     int64_t rank) {
  std::unique_lock<std::mutex> lock = LockSpinning(mu_, Yields());
  Value mine = std::move(slot->results[rank]);
  absl::Status failure = slot->failures[rank];
  if (++slot->departed == slot->local) {
    auto it = slots_.find(key);
    if (it != slots_.end() && it->second == slot) slots_.erase(it);
  }
  if (!failure.ok()) return failure;
  return mine;
}

absl::StatusOr<Value> Rendezvous::CombineAndDepart(const std::string& key,
                                                   const std::shared_ptr<Slot>& slot, int64_t rank,
                                                   const Combine& combine, const Cut* cut) {
  const size_t members = slot->group.size();
  absl::StatusOr<Value> result;
  if (cut != nullptr && slot->local < static_cast<int64_t>(members)) {
    absl::StatusOr<std::vector<Value>> view = CutView(*slot, rank, *cut);
    result = view.ok() ? combine(*view) : view.status();
  } else {
    result = combine(slot->contributions);
  }
  std::unique_lock<std::mutex> lock = LockSpinning(mu_, Yields());
  if (++slot->departed == slot->local) {
    // Drop the references to every device's buffers here, under the lock
    // the owners wait on, so that no owner sees its buffer shared (or
    // unshared) by another thread afterwards.
    slot->contributions.clear();
    auto it = slots_.find(key);
    if (it != slots_.end() && it->second == slot) slots_.erase(it);
    NotifyAll();
  } else {
    // The others still read this caller's contribution; they always get
    // here, since every one of them has arrived.
    auto departed = [&] { return slot->departed == slot->local; };
    if (cooperative_) {
      YieldUntil(lock, departed, std::chrono::steady_clock::time_point::max());
    } else if (!SpinLocked(lock, departed)) {
      cv_.wait(lock, departed);
      wake_timer_.Woke();
    }
  }
  return result;
}

void Rendezvous::DeliverContributions(const std::string& key, const std::vector<int64_t>& group,
                                      std::vector<std::pair<int64_t, Value>> contributions) {
  std::lock_guard<std::mutex> lock(mu_);
  ++received_;
  ++version_;
  if (Aborted()) return;
  std::shared_ptr<Slot>& s = slots_[key];
  if (!s) {
    s = NewSlot(group);
  } else if (s->group != group) {
    abort_ = absl::InvalidArgumentError(StrCat("the processes disagree on the group of ", key,
                                               ": {", StrJoin(group, ","), "} and {",
                                               StrJoin(s->group, ","), "}"));
    NotifyAll();
    return;
  }
  for (auto& [index, value] : contributions) {
    if (index < 0 || index >= static_cast<int64_t>(group.size()) || IsLocal(group[index])) {
      abort_ = absl::DataLossError(
          StrCat("a message from another rank names member ", index, " of the group of ", key));
      NotifyAll();
      return;
    }
    s->contributions[index] = std::move(value);
    ++s->arrived;
  }
  if (s->arrived == s->expected) CompleteLocked(*s);
}

void Rendezvous::DeliverMail(const std::string& key, Value data) {
  std::lock_guard<std::mutex> lock(mu_);
  ++received_;
  ++version_;
  Mail& m = mail_[key];
  m.data = std::move(data);
  m.delivered = true;
  if (m.waiting) {
    m.waiting = false;
    --blocked_;
  }
  NotifyAll();
}

void Rendezvous::Wake() {
  // The fence orders the caller's `done` before this look at the count, as
  // the napper's count (a seq-cst add) comes before its look at `done`:
  // either it sees `done`, or this sees it counted and wakes it under the
  // lock (a missed wake would cost a nap, not a hang).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (napping_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  ++version_;
  NotifyAll();
}

void Rendezvous::AbortFromPeer(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Aborted()) return;
  abort_ = status;
  ++version_;
  NotifyAll();
}

Rendezvous::State Rendezvous::GetState() {
  std::lock_guard<std::mutex> lock(mu_);
  State st;
  st.version = version_;
  st.stuck = blocked_ + finished_count_ >= local_count_;
  st.finished = finished_count_ == local_count_ && !Aborted();
  st.sent = sent_;
  st.received = received_;
  for (int64_t d = first_local_; d < first_local_ + local_count_; ++d) {
    if (waiting_at_[d] != nullptr) {
      st.waiting.push_back(StrCat(DeviceName(d), " waits at ", *waiting_at_[d]));
      if (st.first_waiting.empty()) st.first_waiting = DeviceName(d);
    }
    if (finished_[d]) st.finished_devices.push_back(DeviceName(d));
  }
  return st;
}

absl::Status Rendezvous::Send(const std::string& key, int64_t target, const Value& data) {
  if (transport_ != nullptr && !IsLocal(target)) {
    std::lock_guard<std::mutex> lock(mu_);
    ++sent_;
    ++version_;
    return transport_->SendMail(transport_->RankOf(target), key, data);
  }
  Value copy = Value::FromLiteral(data.ToLiteral());  // the receiver owns it
  std::lock_guard<std::mutex> lock(mu_);
  Mail& m = mail_[key];
  m.data = std::move(copy);
  m.delivered = true;
  if (m.waiting) {
    m.waiting = false;
    --blocked_;
  }
  NotifyAll();
  return absl::OkStatus();
}

absl::StatusOr<Value> Rendezvous::Receive(const std::string& key, int64_t device, int64_t source,
                                          const std::string& where) {
  std::unique_lock<std::mutex> lock(mu_);
  if (Aborted()) return abort_;
  Mail& m = mail_[key];
  if (!m.delivered) {
    if (source >= 0 && source < devices() && finished_[source]) {
      return absl::FailedPreconditionError(StrCat(
          where, ": ", DeviceName(source), " finished without sending to ", DeviceName(device)));
    }
    m.waiting = true;
    ++blocked_;
    waiting_at_[device] = &where;
    CheckDeadlockLocked();
    bool ok = WaitLocked(lock, [&] { return m.delivered; });
    waiting_at_[device] = nullptr;
    if (!m.delivered) {
      m.waiting = false;
      --blocked_;
      return WaitFailure(where, !ok);
    }
  }
  Value data = std::move(m.data);
  mail_.erase(key);
  return data;
}

void Rendezvous::Finish(int64_t device, const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (device < 0 || device >= devices() || finished_[device]) return;
  finished_[device] = true;
  ++finished_count_;
  ++version_;
  if (!status.ok() && !Aborted()) {
    abort_ = absl::AbortedError(StrCat("stopped because ", DeviceName(device), " failed"));
    NotifyAll();
    return;
  }
  CheckDeadlockLocked();
}

}  // namespace hlo
