#include "eval/collectives/mpi_transport.h"

#include <cstdlib>

#include "ir/strings.h"

namespace hlo {

bool LaunchedByMpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

int MpirunRank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* s = std::getenv(v)) return std::atoi(s);
  }
  return 0;
}

MpiTransport::~MpiTransport() = default;

}  // namespace hlo

#ifndef HLO_HAVE_MPI

namespace hlo {

bool MpiBuilt() { return false; }

absl::StatusOr<std::unique_ptr<MpiTransport>> MpiTransport::Start(int64_t) {
  return absl::FailedPreconditionError(
      "this hlo-run was built without MPI (CMake found none: install libopenmpi-dev, or "
      "scripts/setup, and build again)");
}

}  // namespace hlo

#else  // HLO_HAVE_MPI

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include "absl/container/inlined_vector.h"
#include "eval/collectives/mpi_api.h"
#include "eval/collectives/replica_rendezvous.h"
#include "eval/collectives/shm_ring.h"
#include "eval/collectives/wire_format.h"
#include "eval/runtime/parallel.h"
#include "ir/status_macros.h"

namespace hlo {
namespace {

enum MessageType : int64_t { kContributions = 1, kMail, kState, kDone, kAbort };
constexpr int kTag = 17;
// The bytes of an array that travels apart from its message (WireWriter::Val).
constexpr int kApartTag = 18;
// How long every process must stay stuck, with no message in flight and
// no report changing, before rank 0 calls it a deadlock.
constexpr auto kDeadlockSettle = std::chrono::milliseconds(200);

// One process's Rendezvous::State as rank 0 keeps it.
struct Report {
  bool stuck = false, finished = false;
  int64_t sent = 0, received = 0;
  std::vector<std::string> waiting, finished_devices;
  std::string first_waiting;
};

void WriteReport(WireWriter& w, const Rendezvous::State& s) {
  w.Int(s.stuck ? 1 : 0);
  w.Int(s.finished ? 1 : 0);
  w.Int(s.sent);
  w.Int(s.received);
  w.Str(s.first_waiting);
  w.Int(static_cast<int64_t>(s.waiting.size()));
  for (const std::string& x : s.waiting) w.Str(x);
  w.Int(static_cast<int64_t>(s.finished_devices.size()));
  for (const std::string& x : s.finished_devices) w.Str(x);
}

absl::StatusOr<std::vector<std::string>> ReadStrings(WireReader& r) {
  HLO_ASSIGN_OR_RETURN(int64_t n, r.Int());
  if (n < 0 || n > (1 << 20)) return absl::DataLossError("a report's length");
  std::vector<std::string> v;
  for (int64_t i = 0; i < n; ++i) {
    HLO_ASSIGN_OR_RETURN(std::string s, r.Str());
    v.push_back(std::move(s));
  }
  return v;
}

absl::StatusOr<Report> ReadReport(WireReader& r) {
  Report rep;
  HLO_ASSIGN_OR_RETURN(int64_t stuck, r.Int());
  HLO_ASSIGN_OR_RETURN(int64_t finished, r.Int());
  rep.stuck = stuck != 0;
  rep.finished = finished != 0;
  HLO_ASSIGN_OR_RETURN(rep.sent, r.Int());
  HLO_ASSIGN_OR_RETURN(rep.received, r.Int());
  HLO_ASSIGN_OR_RETURN(rep.first_waiting, r.Str());
  HLO_ASSIGN_OR_RETURN(rep.waiting, ReadStrings(r));
  HLO_ASSIGN_OR_RETURN(rep.finished_devices, ReadStrings(r));
  return rep;
}

Report FromState(const Rendezvous::State& s) {
  return Report{s.stuck,   s.finished,         s.sent,         s.received,
                s.waiting, s.finished_devices, s.first_waiting};
}

class MpiImpl final : public MpiTransport {
 public:
  MpiImpl(MPI_Comm comm, int rank, int ranks, int64_t devices, bool yield_when_idle,
          bool progress_yields)
      : comm_(comm),
        rank_(rank),
        ranks_(ranks),
        per_rank_(devices / ranks),
        yield_when_idle_(yield_when_idle),
        progress_yields_(progress_yields) {
    // Open MPI's switch (libopen-pal exports it; other MPIs have none).
    if (progress_yields_) {
      set_progress_yields_ = reinterpret_cast<void (*)(bool)>(
          dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle"));
    }
    thread_ = std::thread([this] { Loop(); });
  }
  ~MpiImpl() override {
    stopping_ = true;
    wake_.notify_all();
    thread_.join();
    // Freeing a ring is collective over its ranks: every rank frees its
    // groups' in the map's order, after the barrier that ended Loop.
    for (auto& [group, g] : groups_) {
      g.ring.reset();
      MPI_Comm_free(&g.comm);
    }
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  int64_t first_device() const override { return rank_ * per_rank_; }
  bool YieldWhenIdle() const override { return yield_when_idle_; }
  int64_t local_devices() const override { return per_rank_; }
  int RankOf(int64_t device) const override { return static_cast<int>(device / per_rank_); }

  void BeginRun(Rendezvous* rendezvous) override {
    // During a run the waiters yield as WaitDriving says (every few polls),
    // not MPI's progress on every poll; MPI's own blocking calls between
    // runs (communicators, the end) keep its yields.
    if (set_progress_yields_ != nullptr) {
      set_progress_yields_(false);
      run_yields_ = false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++epoch_;
    stuck_reported_ = false;  // the last run's reports are done with
    rendezvous_ = rendezvous;
    gather_waker_.store(rendezvous, std::memory_order_release);
    peer_error_.reset();
    std::vector<Data> early = std::move(early_);
    early_.clear();
    for (Data& d : early) HandleDataLocked(std::move(d));
    MarkDirty(false);
  }

  absl::Status EndRun() override {
    MarkDirty(true);  // every device here finished: rank 0 needs to know now
    std::unique_lock<std::mutex> lock(mu_);
    auto over = [&] { return done_epoch_ >= epoch_ || peer_error_.has_value(); };
    // Rank 0's word comes soon after the last rank finishes: taken in here.
    WaitDriving(*this, lock, done_, over, std::chrono::steady_clock::duration::max());
    if (!peer_error_) return absl::OkStatus();
    // Named as the threaded run names it: by the first waiting device.
    if (peer_device_.empty()) return *peer_error_;
    return absl::FailedPreconditionError(
        StrCat(std::string(peer_error_->message()), " (", peer_device_, ")"));
  }

  void DetachRun() override {
    if (set_progress_yields_ != nullptr) {
      run_yields_ = progress_yields_;
      set_progress_yields_(true);
    }
    {
      // The run's receive buffer goes with it (progress_mu_ before mu_, as
      // a round takes them).
      std::lock_guard<std::mutex> progress(progress_mu_);
      receive_buffer_.reset();
      receive_capacity_ = 0;
      gather_waker_.store(nullptr, std::memory_order_relaxed);
    }
    std::lock_guard<std::mutex> lock(mu_);
    rendezvous_ = nullptr;
  }

  absl::Status SendContributions(const std::vector<int>& to, const std::string& key,
                                 const std::vector<int64_t>& group,
                                 const std::vector<std::pair<int64_t, const Value*>>& mine,
                                 bool own) override {
    // Large arrays go apart: the Rendezvous' own from where they are, a
    // device's as a copy made now (the device may write its buffer once
    // this returns), which the receiver takes straight into its place.
    Message message;
    WireWriter w;
    w.Reserve(256 + key.size() + 8 * group.size());
    w.Int(kContributions);
    w.Int(epoch_);
    w.Str(key);
    w.Ints(group);
    w.Int(static_cast<int64_t>(mine.size()));
    for (const auto& [index, value] : mine) {
      w.Int(index);
      w.Val(*value, &message.apart);
    }
    message.fields = w.Take();
    if (!own) CopyApart(message);
    auto shared = std::make_shared<const Message>(std::move(message));
    for (int r : to) HLO_RETURN_IF_ERROR(Post(r, shared));
    return absl::OkStatus();
  }

  absl::Status SendMail(int to, const std::string& key, const Value& data) override {
    Message message;
    WireWriter w;
    w.Reserve(256 + key.size());
    w.Int(kMail);
    w.Int(epoch_);
    w.Str(key);
    w.Val(data, &message.apart);
    message.fields = w.Take();
    CopyApart(message);  // a device's data
    return Post(to, std::make_shared<const Message>(std::move(message)));
  }

  absl::Status PrepareGroups(const std::vector<std::vector<int64_t>>& groups) override;
  std::shared_ptr<Gathered> StartGather(
      const std::string& key, absl::Span<const int64_t> group,
      absl::Span<const std::pair<int64_t, const Value*>> mine) override;
  Quick QuickGather(const std::string& key, absl::Span<const int64_t> group, const Value& mine,
                    QuickFold fold) override;

  void StateChanged() override { MarkDirty(false); }
  void LeftWait() override {
    // Rare (a wait that stood long enough to be reported); within a
    // millisecond is soon enough for rank 0's 200 ms settle.
    if (stuck_reported_.load(std::memory_order_relaxed)) MarkDirty(false);
  }

  std::optional<absl::Status> PeerError() override {
    std::lock_guard<std::mutex> lock(mu_);
    return peer_error_;
  }

  [[noreturn]] void AbortJob(int code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  // One message: its encoded fields, then the arrays whose bytes travel
  // apart (WireWriter::Val), each as a message of its own sent from where
  // it is. One message may go to several ranks: shared, never copied.
  struct Message {
    std::string fields;
    std::vector<Value> apart;
  };
  using Bytes = std::shared_ptr<const Message>;
  struct Outgoing {
    int to;
    Bytes bytes;
  };
  struct InFlight {
    std::vector<MPI_Request> requests;
    Bytes bytes;  // alive until MPI has sent it
  };
  // The arrays apart of a message made from a device's values: copies,
  // so that the device may write its own buffers once the send returns.
  static void CopyApart(Message& message) {
    for (Value& a : message.apart) a = Value::Array(std::make_shared<Literal>(a.array()));
  }
  static Bytes Fields(std::string fields) {
    return std::make_shared<const Message>(Message{std::move(fields), {}});
  }

  // From a device thread (a collective's contributions, a send's data):
  // sent at once when no other thread drives MPI, after what is queued, so
  // that the messages to a rank keep their order; else queued, and the
  // progress thread woken, since the driver may be a device thread about to
  // stop. No hand-off, and no wake-up, in the common case.
  absl::Status Post(int to, Bytes bytes) {
    size_t largest = bytes->fields.size();
    for (const Value& v : bytes->apart) largest = std::max(largest, v.array().size_bytes());
    if (largest > static_cast<size_t>(INT_MAX)) {
      return absl::ResourceExhaustedError(
          StrCat("a message of ", largest, " bytes between MPI ranks is over MPI's 2 GiB"));
    }
    std::unique_lock<std::mutex> drive(progress_mu_, std::try_to_lock);
    if (drive.owns_lock()) {
      SendQueued();
      SendNow(Outgoing{to, std::move(bytes)});
      return absl::OkStatus();
    }
    Queue(to, std::move(bytes));
    wake_.notify_all();
    return absl::OkStatus();
  }

  // From the progress round itself (reports, rank 0's decisions): sent by
  // the next round.
  void Queue(int to, Bytes bytes) {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.push_back(Outgoing{to, std::move(bytes)});
    queued_.store(true, std::memory_order_relaxed);
  }

  Drive DriveProgress() override {
    drives_.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(progress_mu_, std::try_to_lock);
    if (!lock.owns_lock()) return Drive::kIdle;
    if (Step()) return Drive::kMoved;
    if (!yield_when_idle_ && !gathers_.empty()) {
      for (int i = 0; i < 16; ++i) {
        if (TestGathers()) return Drive::kMoved;
      }
    }
    if (!inflight_.empty()) return Drive::kInFlight;
    return run_yields_ ? Drive::kYielded : Drive::kIdle;
  }

  // Whether a waiting device thread drove MPI since the progress thread
  // last looked (a nap ago).
  bool DrivenLately() {
    const uint64_t drives = drives_.load(std::memory_order_relaxed);
    const bool driven = drives != drives_seen_;
    drives_seen_ = drives;
    return driven;
  }

  // One round of progress, under progress_mu_: sends, receives, this
  // process's report, rank 0's decisions. Returns whether anything moved.
  bool Step() {
    // While a gather is out, most rounds only look at it: each MPI call
    // drives MPI's progress, which yields the core where ranks share
    // cores (Open MPI's yield_when_idle), so a round of four calls gave
    // the core away four times.
    if (!gathers_.empty() && (++gather_rounds_ & 15) != 0) {
      if (TestGathers()) return true;
      if (!queued_.load(std::memory_order_relaxed)) return false;
    }
    bool busy = TestGathers();
    busy |= SendQueued();
    busy |= Receive();
    ReportState();
    if (rank_ == 0) Coordinate();
    // What this round queued (a report, rank 0's word) goes now: the
    // thread that drives may stop driving once this round returns.
    return SendQueued() || busy;
  }

  // The progress thread: sends what a device posts without waiting after
  // it (send), takes in what comes while every device here computes, and
  // alone stops MPI at the end. It spins only while its own large send is
  // in flight: the threads that wait for a message drive MPI themselves
  // (DriveProgress, EndRun), and a spinning progress thread would take
  // their cores when ranks share them.
  void Loop() {
    bool barrier_started = false;
    MPI_Request barrier = MPI_REQUEST_NULL;
    auto nap = kNap;
    for (;;) {
      bool busy = false, in_flight = false;
      // Beside a device thread that drives, the progress thread would only
      // take the lock it needs (and its core, where ranks share cores).
      const bool driven = !stopping_ && DrivenLately();
      if (!driven || !QueueEmpty()) {
        std::unique_lock<std::mutex> lock(progress_mu_, std::try_to_lock);
        if (lock.owns_lock()) {
          busy = Step();
          in_flight = !inflight_.empty();
          if (stopping_) {
            // Every rank stops sending, then meets the others; until then it
            // keeps receiving, so no rank's send waits for a reader gone.
            if (!barrier_started && inflight_.empty() && QueueEmpty()) {
              MPI_Ibarrier(comm_, &barrier);
              barrier_started = true;
            }
            if (barrier_started) {
              int done = 0;
              MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
              if (done) return;
            }
          }
        }
      }
      if (busy) continue;
      if (in_flight) {  // a large send moves only as MPI is driven
        std::this_thread::yield();
        continue;
      }
      // While device threads drive MPI, a wake-up here only takes a core
      // from one of them, whose peers then wait too: the nap doubles up to
      // kDrivenNap, and is kNap again once none drives (1 ms naps cost a
      // 2-rank loop of small all-reduces 4% of its time, 20 ms ones none).
      nap = driven ? std::min(nap * 2, kDrivenNap) : kNap;
      std::unique_lock<std::mutex> lock(queue_mu_);
      wake_.wait_for(lock, stopping_ ? kNap / 20 : nap,
                     [&] { return !queue_.empty() || urgent_ || stopping_; });
    }
  }

  bool QueueEmpty() {
    std::lock_guard<std::mutex> lock(queue_mu_);
    return queue_.empty();
  }

  // Under progress_mu_. Whether anything was sent.
  bool SendQueued() {
    std::vector<Outgoing> out;
    std::vector<std::unique_ptr<Gather>> gathers;
    // A spinning driver calls this every round: the lock only when there
    // is something (a message queued meanwhile goes next round).
    if (queued_.load(std::memory_order_relaxed)) {
      std::lock_guard<std::mutex> lock(queue_mu_);
      out.swap(queue_);
      gathers.swap(gather_queue_);
      queued_.store(false, std::memory_order_relaxed);
    }
    for (std::unique_ptr<Gather>& g : gathers) BeginGather(std::move(g));
    for (Outgoing& o : out) SendNow(std::move(o));
    for (auto it = inflight_.begin(); it != inflight_.end();) {
      int done = 0;
      MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done,
                  MPI_STATUSES_IGNORE);
      it = done ? inflight_.erase(it) : std::next(it);
    }
    return !out.empty() || !gathers.empty();
  }

  // The message's fields, then each array apart, in order (a receiver
  // takes the arrays from this rank in the order their fields named them).
  void SendNow(Outgoing o) {
    inflight_.push_back(InFlight{{}, std::move(o.bytes)});
    InFlight& f = inflight_.back();
    const Message& m = *f.bytes;
    f.requests.resize(1 + m.apart.size(), MPI_REQUEST_NULL);
    MPI_Isend(m.fields.data(), static_cast<int>(m.fields.size()), MPI_BYTE, o.to, kTag, comm_,
              &f.requests[0]);
    for (size_t i = 0; i < m.apart.size(); ++i) {
      const Literal& a = m.apart[i].array();
      MPI_Isend(a.data(), static_cast<int>(a.size_bytes()), MPI_BYTE, o.to, kApartTag, comm_,
                &f.requests[i + 1]);
    }
  }

  bool Receive() {
    bool any = false;
    for (int k = 0; k < 64; ++k) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &flag, &status);
      if (!flag) break;
      int n = 0;
      MPI_Get_count(&status, MPI_BYTE, &n);
      // One buffer for the run's messages (each is read out as it is
      // handled): fresh pages once, not per message, and never zero-filled.
      if (static_cast<size_t>(n) > receive_capacity_) {
        receive_buffer_.reset();
        receive_buffer_ = std::make_unique_for_overwrite<char[]>(static_cast<size_t>(n));
        receive_capacity_ = static_cast<size_t>(n);
      }
      MPI_Recv(receive_buffer_.get(), n, MPI_BYTE, status.MPI_SOURCE, kTag, comm_,
               MPI_STATUS_IGNORE);
      const std::string_view buf(receive_buffer_.get(), static_cast<size_t>(n));
      if (absl::Status st = Handle(status.MPI_SOURCE, buf); !st.ok()) {
        std::fprintf(stderr, "hlo-run: error: MPI rank %d: %s\n", rank_,
                     std::string(st.message()).c_str());
        AbortJob(1);
      }
      any = true;
    }
    return any;
  }

  absl::Status Handle(int source, std::string_view buf) {
    WireReader r(buf);
    HLO_ASSIGN_OR_RETURN(int64_t type, r.Int());
    HLO_ASSIGN_OR_RETURN(int64_t epoch, r.Int());
    switch (type) {
      case kContributions:
      case kMail: {
        HLO_ASSIGN_OR_RETURN(Data data, ReadData(source, type, epoch, r));
        std::lock_guard<std::mutex> lock(mu_);
        HandleDataLocked(std::move(data));
        MarkDirty(false);  // the received count changed
        return absl::OkStatus();
      }
      case kState: {
        if (rank_ != 0 || source < 0 || source >= ranks_) break;
        HLO_ASSIGN_OR_RETURN(Report rep, ReadReport(r));
        Store(epoch, source, std::move(rep));
        return absl::OkStatus();
      }
      case kDone: {
        std::lock_guard<std::mutex> lock(mu_);
        done_epoch_ = std::max(done_epoch_, epoch);
        done_.notify_all();
        return absl::OkStatus();
      }
      case kAbort: {
        HLO_ASSIGN_OR_RETURN(std::string msg, r.Str());
        HLO_ASSIGN_OR_RETURN(std::string device, r.Str());
        PeerAbort(epoch, msg, device);
        return absl::OkStatus();
      }
    }
    return absl::DataLossError(StrCat("a message of unknown kind from rank ", source));
  }

  // A collective's contributions or a send's data, read whole: its arrays
  // that travel apart are taken in now, whatever run it belongs to, since
  // they come next from its rank.
  struct Data {
    int64_t type = 0, epoch = 0;
    std::string key;
    std::vector<int64_t> group;                    // kContributions
    std::vector<std::pair<int64_t, Value>> parts;  // kContributions
    Value mail;                                    // kMail
  };

  absl::StatusOr<Data> ReadData(int source, int64_t type, int64_t epoch, WireReader& r) {
    Data d;
    d.type = type;
    d.epoch = epoch;
    HLO_ASSIGN_OR_RETURN(d.key, r.Str());
    if (type == kMail) {
      HLO_ASSIGN_OR_RETURN(d.mail, r.Val());
    } else {
      HLO_ASSIGN_OR_RETURN(d.group, r.Ints());
      HLO_ASSIGN_OR_RETURN(int64_t n, r.Int());
      if (n < 0 || n > static_cast<int64_t>(d.group.size())) {
        return absl::DataLossError("a message's contribution count");
      }
      for (int64_t i = 0; i < n; ++i) {
        HLO_ASSIGN_OR_RETURN(int64_t index, r.Int());
        HLO_ASSIGN_OR_RETURN(Value v, r.Val());
        d.parts.emplace_back(index, std::move(v));
      }
    }
    // Each array apart straight into its place: MPI's one copy.
    for (const WireReader::Apart& a : r.apart()) {
      MPI_Status status;
      MPI_Probe(source, kApartTag, comm_, &status);
      int n = 0;
      MPI_Get_count(&status, MPI_BYTE, &n);
      if (n < 0 || static_cast<size_t>(n) != a.bytes) {
        return absl::DataLossError("an array sent apart has the wrong size");
      }
      MPI_Recv(a.data, n, MPI_BYTE, source, kApartTag, comm_, MPI_STATUS_IGNORE);
    }
    return d;
  }

  // Delivered now, kept for the run it belongs to when that has not begun
  // here, or dropped when its run is over.
  void HandleDataLocked(Data d) {
    if (d.epoch > epoch_) {
      early_.push_back(std::move(d));
      return;
    }
    if (d.epoch < epoch_ || rendezvous_ == nullptr) return;
    if (d.type == kMail) {
      rendezvous_->DeliverMail(d.key, std::move(d.mail));
    } else {
      rendezvous_->DeliverContributions(d.key, d.group, std::move(d.parts));
    }
  }

  void PeerAbort(int64_t epoch, const std::string& msg, const std::string& device) {
    std::lock_guard<std::mutex> lock(mu_);
    if (epoch != epoch_) return;
    peer_error_ = absl::FailedPreconditionError(msg);
    peer_device_ = device;
    if (rendezvous_ != nullptr) rendezvous_->AbortFromPeer(*peer_error_);
    done_.notify_all();
  }

  // The state changed since the last report. A device is stuck at most
  // collectives for microseconds (until the next message), so a state is
  // reported only once it has stood kReportAfter, and small collectives
  // send no reports (rank 0 needs 200 ms of agreement for a deadlock
  // anyway); `urgent` (this process finished) is reported at once.
  void MarkDirty(bool urgent) {
    if (!dirty_.exchange(true)) dirty_since_ = std::chrono::steady_clock::now().time_since_epoch();
    if (urgent) {
      urgent_ = true;
      wake_.notify_all();
    }
  }

  // Tells rank 0 this process's state when it changed.
  void ReportState() {
    if (!dirty_) return;
    // A spinning driver calls this every round: the clock every 64th.
    if (!urgent_ && ((++report_rounds_ & 63) != 0 ||
                     std::chrono::steady_clock::now().time_since_epoch() - dirty_since_.load() <
                         kReportAfter)) {
      return;
    }
    urgent_ = false;
    if (!dirty_.exchange(false)) return;
    Rendezvous::State st;
    int64_t epoch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (rendezvous_ == nullptr) return;
      st = rendezvous_->GetState();
      epoch = epoch_;
    }
    // A stuck state is told once it has stood kReportAfter unchanged (its
    // version): a stream of small collectives keeps the process dirty, and
    // stuck at most instants, without any wait standing; told each time,
    // each report was then taken back (LeftWait) a moment later.
    if (st.stuck && !st.finished) {
      const auto now = std::chrono::steady_clock::now().time_since_epoch();
      if (st.version != stuck_version_) {
        stuck_version_ = st.version;
        stuck_version_since_ = now;
      }
      if (now - stuck_version_since_ < kReportAfter) {
        dirty_ = true;  // looked at again later
        return;
      }
    }
    // Only a stuck process's state matters to rank 0 (finished is stuck
    // too). A process leaves that state through a message counted as
    // received (then a stale report cannot make the counts agree) or
    // through a gather, which no count shows: a process that told rank 0
    // it is stuck says when it no longer is (LeftWait), else a long
    // computation after a gather looked like a deadlock to rank 0.
    if (!st.stuck) {
      if (!stuck_reported_.exchange(false)) return;
    } else {
      stuck_reported_ = true;
    }
    if (rank_ == 0) {
      Store(epoch, 0, FromState(st));
      return;
    }
    WireWriter w;
    w.Int(kState);
    w.Int(epoch);
    WriteReport(w, st);
    Queue(0, Fields(w.Take()));
  }

  void Store(int64_t epoch, int source, Report rep) {
    std::vector<std::optional<Report>>& reps = reports_[epoch];
    reps.resize(static_cast<size_t>(ranks_));
    reps[source] = std::move(rep);
    ++report_changes_;
  }

  void Broadcast(MessageType type, int64_t epoch, const std::string* msg,
                 const std::string* device) {
    for (int r = 1; r < ranks_; ++r) {
      WireWriter w;
      w.Int(type);
      w.Int(epoch);
      if (msg != nullptr) w.Str(*msg);
      if (device != nullptr) w.Str(*device);
      Queue(r, Fields(w.Take()));
    }
  }

  // Rank 0: ends the run when every process finished; reports a deadlock
  // when every process has been stuck a while with nothing in flight.
  void Coordinate() {
    auto it = reports_.find(epoch_done_next_);
    if (it == reports_.end()) return;
    bool all = true, finished = true, stuck = true;
    int64_t sent = 0, received = 0;
    for (const std::optional<Report>& r : it->second) {
      if (!r) {
        all = false;
        break;
      }
      finished &= r->finished;
      stuck &= r->stuck;
      sent += r->sent;
      received += r->received;
    }
    if (!all) return;
    const int64_t epoch = epoch_done_next_;
    if (finished) {
      Broadcast(kDone, epoch, nullptr, nullptr);
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_epoch_ = std::max(done_epoch_, epoch);
        done_.notify_all();
      }
      reports_.erase(it);
      ++epoch_done_next_;
      suspect_ = false;
      return;
    }
    if (!stuck || sent != received || aborted_epoch_ == epoch) {
      suspect_ = false;
      return;
    }
    auto now = std::chrono::steady_clock::now();
    if (!suspect_ || suspect_changes_ != report_changes_) {
      suspect_ = true;
      suspect_since_ = now;
      suspect_changes_ = report_changes_;
      return;
    }
    if (now - suspect_since_ < kDeadlockSettle) return;
    std::vector<std::string> waiting, done;
    std::string first;
    for (const std::optional<Report>& r : it->second) {
      waiting.insert(waiting.end(), r->waiting.begin(), r->waiting.end());
      done.insert(done.end(), r->finished_devices.begin(), r->finished_devices.end());
      if (first.empty()) first = r->first_waiting;
    }
    // The threaded run's message (Rendezvous::CheckDeadlockLocked), with
    // the device ReplicaRunner names.
    std::string msg = StrCat("deadlock: ", StrJoin(waiting, "; "));
    if (!done.empty()) StrAppend(&msg, "; finished: ", StrJoin(done, ", "));
    aborted_epoch_ = epoch;
    Broadcast(kAbort, epoch, &msg, &first);
    PeerAbort(epoch, msg, first);
  }

  MPI_Comm comm_;
  const int rank_, ranks_;
  const int64_t per_rank_;
  const bool yield_when_idle_;
  const bool progress_yields_;  // MpiProgressYields()
  // Open MPI's opal_progress_set_yield_when_idle, when MPI's progress
  // yields and it has one; whether MPI's progress yields now.
  void (*set_progress_yields_)(bool) = nullptr;
  std::atomic<bool> run_yields_{progress_yields_};
  std::thread thread_;
  // Held by whoever drives MPI: the progress thread or a waiting device.
  // Every MPI call of a run is made under it (before the progress thread
  // starts and after it stopped, one thread calls), so MPI is asked for
  // MPI_THREAD_SERIALIZED only: with MPI_THREAD_MULTIPLE Open MPI locks
  // inside every call as well.
  std::mutex progress_mu_;
  std::atomic<uint64_t> drives_{0};
  uint64_t drives_seen_ = 0;  // the progress thread's
  static constexpr auto kNap = std::chrono::milliseconds(1);
  static constexpr auto kDrivenNap = std::chrono::milliseconds(8);
  std::atomic<bool> stopping_{false};
  std::atomic<bool> dirty_{false}, urgent_{false};
  // Rank 0's last report of this process says it is stuck.
  std::atomic<bool> stuck_reported_{false};
  std::atomic<std::chrono::steady_clock::duration> dirty_since_{};
  static constexpr auto kReportAfter = std::chrono::milliseconds(1);
  uint64_t report_rounds_ = 0;  // under progress_mu_
  // The stuck state last seen by ReportState and since when (progress_mu_'s).
  uint64_t stuck_version_ = 0;
  std::chrono::steady_clock::duration stuck_version_since_{};

  // A group's communicator (PrepareGroups): its rank i is ranks[i], which
  // runs the group's members members[i] (group indices, in group order).
  struct Gather;
  struct GroupComm {
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<int> ranks;
    std::vector<std::vector<int64_t>> members;
    int me = 0;
    // Gathers done with, their buffers kept for the next (spare_mu_'s).
    std::vector<std::unique_ptr<Gather>> spare;
    // Where every rank of the group shares this machine: its gathers of
    // at most ring->slot_bytes() per block go through shared memory,
    // numbered as they start (under the Rendezvous' lock, or by the
    // group's one member here in QuickGather under progress_mu_), published
    // and delivered in that order (under progress_mu_).
    std::unique_ptr<ShmRing> ring;
    uint64_t ring_started = 0, ring_published = 0, ring_delivered = 0;
    // Where every rank has one member: the rank (index into `ranks`) of
    // each member, in group order (QuickGather's); empty otherwise.
    std::vector<int> rank_of_member;
  };
  // Made before the first run, then only read; found by a span.
  struct GroupLess {
    using is_transparent = void;
    bool operator()(absl::Span<const int64_t> a, absl::Span<const int64_t> b) const {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }
  };
  std::map<std::vector<int64_t>, GroupComm, GroupLess> groups_;
  // One small collective's gather (StartGather): every process's block
  // (GatherBlocks), alive until MPI is done with its buffers.
  struct Gather {
    std::shared_ptr<Gathered> result;
    GroupComm* comm = nullptr;
    GatherBlocks blocks;
    std::string send;
    std::unique_ptr<char[]> receive;
    std::vector<int> counts, displacements;
    // One send to and one receive from each other rank of the group:
    // for a few small blocks MPI's own allgather (a schedule built per
    // call) costs more.
    std::vector<MPI_Request> requests;
    std::vector<MPI_Status> statuses;
    bool failed = false;  // MPI said no: its devices wait until rank 0 sees a deadlock
    // Per rank of the group, the arrays its last block was read into, for
    // the next read once their waiter let them go (GatherBlocks::ReadEach).
    std::vector<std::vector<std::shared_ptr<Literal>>> kept;
    // Through the group's ring (no requests): its number there, and
    // whether its block is published yet.
    bool ring = false;
    uint64_t seq = 0;
    bool published = false;
  };
  // A ring's block: a small all-reduce's of up to 1K f32 per member on 2
  // ranks, or 512 on 4; larger gathers go by message.
  static constexpr size_t kRingSlotBytes = 8 << 10;
  // Rings for the first groups only (each rank maps kSlots slots of every
  // rank of each of its groups' rings).
  static constexpr size_t kMostRings = 64;
  // How many times QuickGather looks for its peers' blocks (a pause
  // between looks) before it hands the gather over.
  static constexpr int kQuickPolls = 64;
  std::unique_ptr<Gather> MakeGather(GroupComm& gc, const std::string& key, const Value& like);
  void BeginGather(std::unique_ptr<Gather> g);
  bool TestRingGather(Gather& g);
  static void TryPublish(Gather& g);
  bool TestGathers();
  void DeliverGather(Gather& g);
  std::vector<std::unique_ptr<Gather>> gathers_;  // begun; progress_mu_'s
  std::mutex spare_mu_;
  uint64_t gather_rounds_ = 0;  // progress_mu_'s

  // The outgoing queue (device threads post, the progress thread sends).
  std::mutex queue_mu_;
  std::condition_variable wake_;
  std::vector<Outgoing> queue_;
  std::vector<std::unique_ptr<Gather>> gather_queue_;  // not begun yet
  std::atomic<bool> queued_{false};                    // queue_ or gather_queue_ may be non-empty
  std::list<InFlight> inflight_;                       // the progress thread's

  // The run: taken by the progress thread before the Rendezvous' lock,
  // never the other way round (the Rendezvous calls in only Send*, which
  // take queue_mu_).
  std::mutex mu_;
  std::condition_variable done_;
  std::atomic<int64_t> epoch_{0};
  Rendezvous* rendezvous_ = nullptr;
  // The run's Rendezvous for DeliverGather, read under progress_mu_ alone
  // (no lock of mu_ per gather): cleared under progress_mu_ by DetachRun,
  // so no delivery uses it after the run.
  std::atomic<Rendezvous*> gather_waker_{nullptr};
  std::vector<Data> early_;
  // The run's receive buffer (progress_mu_'s).
  std::unique_ptr<char[]> receive_buffer_;
  size_t receive_capacity_ = 0;
  int64_t done_epoch_ = 0;
  std::optional<absl::Status> peer_error_;
  std::string peer_device_;  // the first device that waits, for the message

  // Rank 0's view (the progress thread's alone).
  std::map<int64_t, std::vector<std::optional<Report>>> reports_;
  int64_t epoch_done_next_ = 1;
  int64_t aborted_epoch_ = 0;
  int64_t report_changes_ = 0;
  bool suspect_ = false;
  int64_t suspect_changes_ = 0;
  std::chrono::steady_clock::time_point suspect_since_;
};

// Every rank passes the same groups (one all-reduce of their hash makes
// sure: a rank with another list is an error everywhere, not a hang), in
// the same order, so the communicators are made in one order everywhere:
// each by the ranks of its group only (MPI_Comm_create_group), one after
// another.
absl::Status MpiImpl::PrepareGroups(const std::vector<std::vector<int64_t>>& groups) {
  std::lock_guard<std::mutex> drive(progress_mu_);
  uint64_t hash = kFnvOffset;
  for (const std::vector<int64_t>& g : groups) {
    const int64_t size = static_cast<int64_t>(g.size());
    hash = Fnv1a(std::string_view(reinterpret_cast<const char*>(&size), sizeof(size)), hash);
    hash = Fnv1a(std::string_view(reinterpret_cast<const char*>(g.data()), size * sizeof(int64_t)),
                 hash);
  }
  uint64_t mine[2] = {hash, ~hash}, most[2] = {0, 0};
  MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, comm_);
  if (most[0] != mine[0] || most[1] != mine[1]) {
    return absl::FailedPreconditionError(
        "the MPI ranks disagree on the module's collectives (each rank must run the same module "
        "with the same flags)");
  }
  MPI_Group all;
  MPI_Comm_group(comm_, &all);
  // Few enough that no MPI runs out of communicators; the rest exchange
  // by messages.
  constexpr size_t kMostGroups = 1024;
  size_t made = 0;
  for (const std::vector<int64_t>& g : groups) {
    if (made == kMostGroups) break;
    std::vector<int> ranks;
    for (int64_t d : g) ranks.push_back(RankOf(d));
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    if (ranks.size() < 2) continue;
    ++made;
    const auto at = std::find(ranks.begin(), ranks.end(), rank_);
    if (at == ranks.end() || groups_.count(g) != 0) continue;
    GroupComm gc;
    gc.ranks = ranks;
    gc.me = static_cast<int>(at - ranks.begin());
    gc.members.resize(ranks.size());
    for (size_t m = 0; m < g.size(); ++m) {
      const size_t i = std::lower_bound(ranks.begin(), ranks.end(), RankOf(g[m])) - ranks.begin();
      gc.members[i].push_back(static_cast<int64_t>(m));
    }
    if (std::all_of(gc.members.begin(), gc.members.end(),
                    [](const std::vector<int64_t>& m) { return m.size() == 1; })) {
      gc.rank_of_member.resize(g.size());
      for (size_t i = 0; i < gc.members.size(); ++i)
        gc.rank_of_member[gc.members[i][0]] = static_cast<int>(i);
    }
    MPI_Group group;
    MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &group);
    MPI_Comm_create_group(comm_, group, kTag, &gc.comm);
    MPI_Group_free(&group);
    // A mismatch (another collective's gather) fails the request, not the job.
    MPI_Comm_set_errhandler(gc.comm, MPI_ERRORS_RETURN);
    // `made` counts the same groups on every rank: the group's ranks agree.
    if (made <= kMostRings) gc.ring = ShmRing::Create(gc.comm, kRingSlotBytes);
    groups_.emplace(g, std::move(gc));
  }
  MPI_Group_free(&all);
  return absl::OkStatus();
}

// A gather of `gc` for contributions shaped like `like`: the buffers of
// the group's last one of those shapes where there is one, and its result
// (reset) once its waiter let it go. Null where `like` has no blocks.
std::unique_ptr<MpiImpl::Gather> MpiImpl::MakeGather(GroupComm& gc, const std::string& key,
                                                     const Value& like) {
  std::unique_ptr<Gather> g;
  {
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (!gc.spare.empty()) {
      g = std::move(gc.spare.back());
      gc.spare.pop_back();
    }
  }
  if (g != nullptr && g->blocks.Fits(like)) {
    g->blocks.Rekey(key);
  } else {
    std::optional<GatherBlocks> blocks = GatherBlocks::For(key, like);
    if (!blocks) return nullptr;
    if (g == nullptr) g = std::make_unique<Gather>();
    g->comm = &gc;
    g->blocks = *std::move(blocks);
    size_t total = 0;
    g->counts.clear();
    g->displacements.clear();
    for (const std::vector<int64_t>& members : gc.members) {
      g->displacements.push_back(static_cast<int>(total));
      g->counts.push_back(static_cast<int>(g->blocks.BlockBytes(members.size())));
      total += g->blocks.BlockBytes(members.size());
    }
    g->receive = std::make_unique_for_overwrite<char[]>(total);
    g->kept.assign(gc.ranks.size(), {});
  }
  g->failed = false;
  g->published = false;
  // The last gather's result is reused once its waiter let it go (the
  // fence pairs with the waiter's release of its reference).
  if (g->result != nullptr && g->result.use_count() == 1) {
    std::atomic_thread_fence(std::memory_order_acquire);
    g->result->done.store(false, std::memory_order_relaxed);
    g->result->parts.clear();
  } else {
    g->result = std::make_shared<Gathered>();
  }
  return g;
}

std::shared_ptr<Transport::Gathered> MpiImpl::StartGather(
    const std::string& key, absl::Span<const int64_t> group,
    absl::Span<const std::pair<int64_t, const Value*>> mine) {
  auto it = groups_.find(group);
  if (it == groups_.end() || mine.empty()) return nullptr;
  GroupComm& gc = it->second;
  std::unique_ptr<Gather> g = MakeGather(gc, key, *mine.front().second);
  if (g == nullptr) return nullptr;
  absl::InlinedVector<const Value*, 8> values;
  for (const auto& m : mine) values.push_back(m.second);
  g->send.clear();
  if (!g->blocks.Write(values, &g->send)) return nullptr;
  // Every rank of the group computes the same choice (the same counts).
  g->ring = gc.ring != nullptr && std::all_of(g->counts.begin(), g->counts.end(), [&](int c) {
              return static_cast<size_t>(c) <= gc.ring->slot_bytes();
            });
  if (g->ring) g->seq = gc.ring_started++;
  std::shared_ptr<Gathered> result = g->result;
  // Begun now unless another thread drives MPI (then by the next round,
  // after those queued before it).
  std::unique_lock<std::mutex> drive(progress_mu_, std::try_to_lock);
  if (drive.owns_lock()) {
    SendQueued();
    BeginGather(std::move(g));
    return result;
  }
  std::lock_guard<std::mutex> lock(queue_mu_);
  gather_queue_.push_back(std::move(g));
  queued_.store(true, std::memory_order_relaxed);
  wake_.notify_all();
  return result;
}

// The whole of a small all-reduce's exchange between ranks that keep pace
// is then two cache-line transfers each way; the general path's
// bookkeeping around them (a gather, its blocks read into new arrays,
// delivery, the combine over values) cost twice that again.
Transport::Quick MpiImpl::QuickGather(const std::string& key, absl::Span<const int64_t> group,
                                      const Value& mine, QuickFold fold) {
  if (!mine.is_array()) return {};
  auto it = groups_.find(group);
  if (it == groups_.end()) return {};
  GroupComm& gc = it->second;
  const Literal& array = mine.array();
  const size_t block = GatherBlocks::kHeaderBytes + array.size_bytes();
  if (gc.ring == nullptr || gc.rank_of_member.empty() || block > gc.ring->slot_bytes()) return {};
  std::unique_lock<std::mutex> drive(progress_mu_, std::try_to_lock);
  if (!drive.owns_lock()) return {};
  // In order after the group's gathers begun here (none in flight), into
  // a slot every peer is done reading.
  const uint64_t seq = gc.ring_started;
  if (gc.ring_published != seq || gc.ring_delivered != seq || !gc.ring->CanPublish(seq)) return {};
  ++gc.ring_started;
  char* slot = gc.ring->SlotOf(seq);
  GatherBlocks::Header(key, static_cast<int64_t>(array.size_bytes()), slot);
  std::memcpy(slot + GatherBlocks::kHeaderBytes, array.data(), array.size_bytes());
  gc.ring->Published(seq);
  ++gc.ring_published;
  // About a round trip between cores that run both ranks; where ranks
  // share cores a spin only keeps the peer from its own.
  const int polls = yield_when_idle_ ? 1 : kQuickPolls;
  bool arrived = false;
  for (int i = 0; i < polls && !(arrived = gc.ring->Arrived(seq)); ++i) CpuRelax();
  const int members = static_cast<int>(gc.rank_of_member.size());
  absl::InlinedVector<const char*, 8> blocks(members);
  for (int m = 0; arrived && m < members; ++m) {
    const int r = gc.rank_of_member[m];
    if (r == gc.me) {
      blocks[m] = reinterpret_cast<const char*>(array.data());
      continue;
    }
    const char* at = gc.ring->Block(r, seq, block).data();
    // Another collective's block: its gather waits as the general one does.
    arrived = std::memcmp(at, slot, GatherBlocks::kHeaderBytes) == 0;
    blocks[m] = at + GatherBlocks::kHeaderBytes;
  }
  if (arrived) {
    fold(blocks);
    gc.ring->Consumed(seq);
    ++gc.ring_delivered;
    return {Quick::Kind::kDone, nullptr};
  }
  // Published: the gather goes on as one StartGather began.
  std::unique_ptr<Gather> g = MakeGather(gc, key, mine);
  g->ring = true;
  g->seq = seq;
  g->published = true;
  std::shared_ptr<Gathered> result = g->result;
  gathers_.push_back(std::move(g));
  return {Quick::Kind::kHandedOver, std::move(result)};
}

// The gathers of one group are begun in one order on every rank, and
// MPI keeps the order of messages between two ranks on one communicator
// and tag: each receive matches its own gather's block. The receives go
// first: a block that comes before its receive is posted takes MPI's
// unexpected-message path (a buffer and a copy, then a search when the
// receive comes), which made a 2-rank exchange of 40 bytes 0.5 us instead
// of 0.28 (Open MPI 4.1, shared memory).
void MpiImpl::BeginGather(std::unique_ptr<Gather> g) {
  const GroupComm& gc = *g->comm;
  const int peers = static_cast<int>(gc.ranks.size());
  g->requests.clear();
  if (g->ring) {
    TryPublish(*g);
    gathers_.push_back(std::move(g));
    return;
  }
  for (int i = 0; i < peers; ++i) {
    if (i == gc.me) continue;
    g->requests.emplace_back();
    if (MPI_Irecv(g->receive.get() + g->displacements[i], g->counts[i], MPI_BYTE, i, kTag, gc.comm,
                  &g->requests.back()) != MPI_SUCCESS) {
      g->failed = true;
    }
  }
  for (int i = 0; i < peers; ++i) {
    if (i == gc.me) continue;
    g->requests.emplace_back();
    if (MPI_Isend(g->send.data(), static_cast<int>(g->send.size()), MPI_BYTE, i, kTag, gc.comm,
                  &g->requests.back()) != MPI_SUCCESS) {
      g->failed = true;
    }
  }
  g->statuses.resize(g->requests.size());
  gathers_.push_back(std::move(g));
}

// Under progress_mu_: delivers the gathers MPI finished. Whether any did.
bool MpiImpl::TestGathers() {
  bool any = false;
  for (auto it = gathers_.begin(); it != gathers_.end();) {
    Gather& g = **it;
    int done = 0;
    if (g.ring) {
      done = TestRingGather(g) ? 1 : 0;
    } else if (!g.failed && MPI_Testall(static_cast<int>(g.requests.size()), g.requests.data(),
                                        &done, g.statuses.data()) != MPI_SUCCESS) {
      g.failed = true;
      done = 0;
    }
    if (!done) {
      ++it;
      continue;
    }
    DeliverGather(g);
    if (g.ring) {  // read (or found another collective's): the slot is free
      g.comm->ring->Consumed(g.seq);
      ++g.comm->ring_delivered;
    }
    std::unique_ptr<Gather> done_with = std::move(*it);
    it = gathers_.erase(it);
    std::lock_guard<std::mutex> lock(spare_mu_);
    done_with->comm->spare.push_back(std::move(done_with));
    any = true;
  }
  return any;
}

// Publishes a ring gather's block once the gathers before it are and its
// slot is free (the peers read what it held).
void MpiImpl::TryPublish(Gather& g) {
  GroupComm& gc = *g.comm;
  if (g.published || gc.ring_published != g.seq || !gc.ring->CanPublish(g.seq)) return;
  gc.ring->Publish(g.seq, g.send);
  ++gc.ring_published;
  g.published = true;
}

// Whether a ring gather's blocks are all there to read, in order.
bool MpiImpl::TestRingGather(Gather& g) {
  TryPublish(g);
  return g.published && g.comm->ring_delivered == g.seq && g.comm->ring->Arrived(g.seq);
}

void MpiImpl::DeliverGather(Gather& g) {
  std::vector<std::pair<int64_t, Value>>& parts = g.result->parts;
  // The receives come first among the requests, one per other rank.
  size_t receive = 0;
  for (size_t i = 0; i < g.comm->ranks.size(); ++i) {
    if (static_cast<int>(i) == g.comm->me) continue;
    std::string_view block;
    if (g.ring) {
      block = g.comm->ring->Block(static_cast<int>(i), g.seq, g.counts[i]);
    } else {
      int bytes = 0;
      MPI_Get_count(&g.statuses[receive++], MPI_BYTE, &bytes);
      if (bytes != g.counts[i]) return;  // short: another collective's
      block = std::string_view(g.receive.get() + g.displacements[i], g.counts[i]);
    }
    const std::vector<int64_t>& members = g.comm->members[i];
    absl::Status read = g.blocks.ReadEach(
        block, members.size(),
        [&](size_t k, Value v) { parts.emplace_back(members[k], std::move(v)); }, &g.kept[i]);
    // Another collective's (the devices disagree on the program): its
    // devices wait on, as they would for a device that never came, until
    // rank 0 sees the deadlock.
    if (!read.ok()) return;
  }
  g.result->done.store(true, std::memory_order_release);
  // Its waiter may nap (a thread other than it drove MPI).
  if (Rendezvous* r = gather_waker_.load(std::memory_order_acquire)) r->Wake();
}

// Whether MPI's own progress gives the core away when nothing moved (Open
// MPI's mpi_yield_when_idle, on where mpirun oversubscribed the cores),
// read through MPI's tool interface; false where the MPI has no such
// variable.
bool MpiProgressYields() {
  int provided = 0, index = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return false;
  uint64_t value = 0;  // a bool or an int, whatever the MPI stores
  if (MPI_T_cvar_get_index("mpi_yield_when_idle", &index) == MPI_SUCCESS) {
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      if (count != 1 || MPI_T_cvar_read(handle, &value) != MPI_SUCCESS) value = 0;
      MPI_T_cvar_handle_free(&handle);
    }
  }
  MPI_T_finalize();
  return value != 0;
}

}  // namespace

bool MpiBuilt() { return true; }

absl::StatusOr<std::unique_ptr<MpiTransport>> MpiTransport::Start(int64_t devices) {
  if (!LaunchedByMpirun()) {
    return absl::FailedPreconditionError(
        "--mpi needs the processes mpirun starts: mpirun -n R hlo-run ...");
  }
  if (absl::Status opened = mpi::Open(); !opened.ok()) return opened;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  absl::Status error;
  if (provided < MPI_THREAD_SERIALIZED) {
    error = absl::FailedPreconditionError(
        "this MPI library gives no thread support (MPI_THREAD_SERIALIZED is needed)");
  } else if (devices % ranks != 0) {
    error = absl::InvalidArgumentError(
        StrCat("mpirun started ", ranks, " ranks for ", devices,
               " devices (replicas x partitions): the rank count must divide the device count"));
  }
  if (!error.ok()) {
    MPI_Finalize();
    return error;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  // Device threads that may wait on this machine, against its cores: more
  // threads than cores, and a waiter must yield to the peer it waits for.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local_ranks = 1;
  MPI_Comm_size(node, &local_ranks);
  MPI_Comm_free(&node);
  const int64_t waiters = static_cast<int64_t>(local_ranks) * (devices / ranks);
  const bool yield = waiters > CoreCount();
  return std::unique_ptr<MpiTransport>(
      new MpiImpl(comm, rank, ranks, devices, yield, MpiProgressYields()));
}

}  // namespace hlo

#endif  // HLO_HAVE_MPI
