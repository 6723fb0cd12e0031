#include "eval/runtime/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "eval/runtime/thread_pinning.h"
#include "ir/cpu_count.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HLO_PARALLEL_X86 1
#endif

namespace hlo {
namespace {

void CpuRelax() {
#ifdef HLO_PARALLEL_X86
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// MXCSR's defined bits are its low 16 (the rest must be zero).
unsigned ReadCsr() {
#ifdef HLO_PARALLEL_X86
  return _mm_getcsr() & 0xffffu;
#else
  return 0;
#endif
}

void WriteCsr(unsigned csr) {
#ifdef HLO_PARALLEL_X86
  if (_mm_getcsr() != csr) _mm_setcsr(csr);
#else
  (void)csr;
#endif
}

using Clock = std::chrono::steady_clock;

// How long an idle worker spins for the next job before it sleeps, and how
// long a caller spins for its workers' parts before it sleeps. Waking a
// thread from a condition variable costs 5-20 us on some of the machines
// this runs on, 40-50 us on others, more than a whole part of the loops
// that call again and again (a while loop's gemv: ~2 us a half, a call
// every ~5 us). A worker's spin covers the gaps between a model's parallel
// instructions: at 80 us, gpt_fwd's worker slept between most of its dots
// and its caller took their parts back (15 context switches a run; 2-core
// Xeon, median 2.46 ms a run against 1.96 ms with 250 us).
constexpr auto kWorkerSpin = std::chrono::microseconds(250);
constexpr auto kCallerSpin = std::chrono::microseconds(50);
// How often a caller that sleeps for its workers looks at their parts.
constexpr auto kCallerRecheck = std::chrono::microseconds(200);

// Spins until done() or the time is up (reading the clock every few dozen
// pauses); true when done().
template <typename Done>
bool SpinUntil(Clock::duration limit, Done done) {
  const Clock::time_point deadline = Clock::now() + limit;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (Clock::now() >= deadline) return done();
  }
}

// A job as one word, so that a worker reads it with one load: the job's
// generation (never 0) in the high 32 bits, then whether parts may be
// taken back by the caller (bit 31), whether jobs come often (bit 30), the
// parts handed out (bits 16-29: worker w runs part w + 1 if there is one),
// the caller's MXCSR (bits 0-15).
struct Ticket {
  uint64_t generation;
  bool stealable;
  bool frequent;
  int64_t handed;
  unsigned csr;

  uint64_t Pack() const {
    return generation << 32 | uint64_t{stealable} << 31 | uint64_t{frequent} << 30 |
           static_cast<uint64_t>(handed) << 16 | csr;
  }
  static Ticket Unpack(uint64_t t) {
    return {t >> 32, ((t >> 31) & 1) != 0, ((t >> 30) & 1) != 0,
            static_cast<int64_t>((t >> 16) & 0x3fff), static_cast<unsigned>(t & 0xffff)};
  }
};
constexpr int64_t kMaxHanded = 0x3fff;

// Cross-core traffic is what a hand-off costs (a cache line moving between
// cores: ~0.25 us on the 2-core VMs this runs on), so each line below is
// written by one side and read by the other: the job line by the caller,
// a worker's line by that worker (and by the caller only when it takes a
// part back), the sleep line rarely.
struct alignas(64) JobLine {
  std::atomic<uint64_t> ticket{0};
  // The part function and its arguments: written before the ticket,
  // read by a worker only for a part it runs (the caller waits for that
  // part, so they stay this job's meanwhile).
  PartCall call = nullptr;
  alignas(8) unsigned char args[kPartArgsBytes];
};
static_assert(sizeof(JobLine) == 64);
struct alignas(64) WorkerLine {
  std::atomic<uint64_t> done{0};     // generation of the last part finished
  std::atomic<uint64_t> claimed{0};  // generation of the last part claimed (stealable jobs)

  // Claims this worker's part of job `generation` for the caller or the
  // worker: false when it was claimed already. A worker that read the
  // ticket before a later job began must fail too, so claims only move
  // forward (generations wrap at 2^32: compared as serial numbers).
  bool Claim(uint64_t generation) {
    uint64_t c = claimed.load(std::memory_order_acquire);
    do {
      if (static_cast<int32_t>(static_cast<uint32_t>(generation - c)) <= 0) return false;
    } while (!claimed.compare_exchange_weak(c, generation, std::memory_order_acq_rel));
    return true;
  }
};
struct alignas(64) SleepLine {
  std::atomic<int> sleepers{0};
  std::atomic<bool> caller_waiting{false};
  std::atomic<bool> stop{false};
};
// Set by ParkWorkers, cleared by the next job: spinning workers sleep.
struct alignas(64) ParkedLine {
  std::atomic<bool> parked{false};
} parked_line;  // alone on its line: spinning workers read it
std::atomic<bool>& parked = parked_line.parked;

class Pool {
 public:
  // Created on the first job's thread (see eval/runtime/thread_pinning.h).
  // When the system gives fewer threads (a process or memory limit), the
  // pool runs with those it got: parts beyond its workers run on the caller.
  explicit Pool(int64_t workers) : lines_(new WorkerLine[workers]) {
    const std::vector<int> cpus = PoolCpus(workers + 1);
    try {
      for (int64_t w = 0; w < workers; ++w) {
        const int cpu = cpus.empty() ? -1 : cpus[w + 1];
        threads_.emplace_back([this, w, cpu] {
          if (cpu >= 0) PinThisThread(cpu, /*creator=*/false);
          Work(w);
        });
      }
    } catch (const std::system_error&) {
    }
    if (!cpus.empty()) PinThisThread(cpus[0], /*creator=*/true);
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      sleep_.stop.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // Runs call(args, p) for parts p = 0..parts-1 (part 0 here, part w + 1
  // on worker w, those beyond the workers here); false (nothing run) when
  // the pool is busy with another caller's job or this is one of its
  // workers. args: `size` bytes, at most kPartArgsBytes.
  bool Run(int64_t parts, PartCall call, const void* args, size_t size) {
    if (in_job_) return false;  // (try_lock of a mutex this thread holds is undefined)
    std::unique_lock<std::mutex> caller(busy_, std::try_to_lock);
    if (!caller.owns_lock()) return false;
    in_job_ = true;
    if (parked.load(std::memory_order_relaxed)) parked.store(false, std::memory_order_relaxed);
    const int64_t workers = static_cast<int64_t>(threads_.size());
    const int64_t handed = std::min({parts, workers + 1, kMaxHanded});
    generation_ = generation_ % 0xffffffffu + 1;
    // A sleeping worker takes 5-20 us to wake: its part may then be taken
    // back by this thread if it has not started it by the time this one's
    // part is done.
    const bool stealable = sleep_.sleepers.load(std::memory_order_relaxed) > 0;
    // Workers spin after a job only while jobs come within their spin of
    // each other. Otherwise the spin would only hold a core: on the VMs
    // this runs on, a woken worker often lands on the caller's core, and
    // spinning there it stalls the caller (cnn_fwd, three jobs a run: 10%
    // slower with spins after every job).
    const Clock::time_point now = Clock::now();
    const bool frequent = now - last_run_ < kWorkerSpin;
    last_run_ = now;
    job_.call = call;
    std::memcpy(job_.args, args, size);
    // A release store, not a sequentially consistent one: that would stall
    // this thread until the line reached the workers (~0.25 us, as much
    // as the rest of a hand-off). So the check of sleepers below can miss
    // a worker that is just falling asleep; the slow wait below wakes it.
    job_.ticket.store(Ticket{generation_, stealable, frequent, handed, ReadCsr()}.Pack(),
                      std::memory_order_release);
    if (sleep_.sleepers.load(std::memory_order_relaxed) > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      wake_.notify_all();
    }
    call(args, 0);
    for (int64_t p = handed; p < parts; ++p) call(args, p);
    if (stealable) {
      for (int64_t w = 0; w + 1 < handed; ++w) {
        if (lines_[w].Claim(generation_)) {
          call(args, w + 1);
          lines_[w].done.store(generation_, std::memory_order_relaxed);
        }
      }
    }
    int64_t waiting_from = 0;
    auto finished = [&] {
      for (; waiting_from + 1 < handed; ++waiting_from) {
        if (lines_[waiting_from].done.load(std::memory_order_acquire) != generation_) return false;
      }
      return true;
    };
    if (!SpinUntil(kCallerSpin, finished)) {
      // Slow: a worker asleep (its wake-up missed, see above) or not
      // scheduled. Wake them again and sleep, checking now and then (a
      // worker's done and its check of caller_waiting are unordered too).
      std::unique_lock<std::mutex> lock(mu_);
      sleep_.caller_waiting.store(true, std::memory_order_relaxed);
      wake_.notify_all();
      while (!finished()) done_.wait_for(lock, kCallerRecheck);
      sleep_.caller_waiting.store(false, std::memory_order_relaxed);
    }
    in_job_ = false;
    return true;
  }

  bool Awake() const { return sleep_.sleepers.load(std::memory_order_relaxed) == 0; }

 private:
  // The ticket of a job newer than generation `seen`, spinning first when
  // `spin`; 0 once the pool stops.
  uint64_t WaitForJob(uint64_t seen, bool spin) {
    auto fresh = [&] { return (job_.ticket.load(std::memory_order_acquire) >> 32) != seen; };
    if (spin &&
        SpinUntil(kWorkerSpin, [&] { return fresh() || parked.load(std::memory_order_relaxed); }) &&
        fresh()) {
      return job_.ticket.load(std::memory_order_acquire);
    }
    std::unique_lock<std::mutex> lock(mu_);
    sleep_.sleepers.fetch_add(1, std::memory_order_relaxed);
    wake_.wait(lock, [&] { return sleep_.stop.load() || fresh(); });
    sleep_.sleepers.fetch_sub(1, std::memory_order_relaxed);
    return sleep_.stop.load() ? 0 : job_.ticket.load(std::memory_order_acquire);
  }

  void Work(int64_t w) {
    in_job_ = true;
    WorkerLine& line = lines_[w];
    uint64_t seen = 0;
    bool spin = false;
    for (;;) {
      const uint64_t packed = WaitForJob(seen, spin);
      if (packed == 0) return;
      const Ticket t = Ticket::Unpack(packed);
      seen = t.generation;
      spin = t.frequent;
      if (w + 1 >= t.handed) continue;                         // no part for this worker
      if (t.stealable && !line.Claim(t.generation)) continue;  // the caller took it back
      WriteCsr(t.csr);
      job_.call(job_.args, w + 1);
      line.done.store(t.generation, std::memory_order_release);
      if (sleep_.caller_waiting.load(std::memory_order_relaxed)) {
        std::lock_guard<std::mutex> lock(mu_);
        done_.notify_all();
      }
    }
  }

  JobLine job_;
  SleepLine sleep_;
  std::unique_ptr<WorkerLine[]> lines_;
  std::vector<std::thread> threads_;
  uint64_t generation_ = 0;  // the caller's (under busy_), as is:
  Clock::time_point last_run_;
  std::mutex busy_;  // one job at a time
  std::mutex mu_;    // for the sleeps
  std::condition_variable wake_, done_;
  static thread_local bool in_job_;  // a worker, or a caller inside Run
};

thread_local bool Pool::in_job_ = false;

Pool& ThePool() {
  // Never destroyed: workers may be mid-job at exit of a failing run.
  // Threads only for the CPUs this process may use (ir/cpu_count.h): a
  // loop cut into more parts than that runs the rest on the caller, with
  // the same bits.
  static Pool* pool = new Pool(std::min(CoreCount(), UsableCpuCount()) - 1);
  return *pool;
}

}  // namespace

int64_t CoreCount() {
  static const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  return cores;
}

bool RunParts(int64_t parts, PartCall call, const void* args, size_t size) {
  return size <= kPartArgsBytes && ThePool().Run(parts, call, args, size);
}

namespace {

struct Rows {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t n, step;
};

void RowsPart(const Rows& r, int64_t p) {
  const int64_t b = std::min(r.n, p * r.step), e = std::min(r.n, b + r.step);
  if (b < e) (*r.fn)(b, e);
}

}  // namespace

void ParallelRows(int64_t n, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t parts = std::min<int64_t>(CoreCount(), n / std::max<int64_t>(1, min_rows));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  const Rows rows{&fn, n, (n + parts - 1) / parts};
  const PartCall call = [](const void* r, int64_t p) { RowsPart(*static_cast<const Rows*>(r), p); };
  if (!RunParts(parts, call, &rows, sizeof(rows))) fn(0, n);
}

void ParallelItems(int64_t parts, int64_t items, const std::function<void(int64_t, int64_t)>& fn) {
  parts = std::min(parts, std::min(items, CoreCount()));
  if (parts <= 1) {  // (the small loops' common case: no cursors, no hand-off)
    for (int64_t i = 0; i < items; ++i) fn(0, i);
    return;
  }
  // Each part's next item, a cache line each (the parts' cursors would
  // otherwise share one line that every take moved between the cores); on
  // the stack for the machines this is built for.
  struct alignas(64) Cursor {
    std::atomic<int64_t> next{0};
  };
  constexpr int64_t kStackParts = 8;
  Cursor stack_cursors[kStackParts];
  std::unique_ptr<Cursor[]> heap_cursors;
  Cursor* cursor = stack_cursors;
  if (parts > kStackParts) {
    heap_cursors.reset(new Cursor[parts]);
    cursor = heap_cursors.get();
  }
  for (int64_t q = 0; q < parts; ++q) cursor[q].next = items * q / parts;
  ParallelRows(parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      for (int64_t k = 0; k < parts; ++k) {
        const int64_t owner = (q + k) % parts;
        const int64_t stop = items * (owner + 1) / parts;
        for (int64_t i = cursor[owner].next++; i < stop; i = cursor[owner].next++) fn(q, i);
      }
    }
  });
}

bool WorkersAwake() { return ThePool().Awake(); }

void ParkWorkers() { parked.store(true, std::memory_order_relaxed); }

}  // namespace hlo
