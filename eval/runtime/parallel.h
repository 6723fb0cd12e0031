// Splitting a loop across the machine's cores (two on the machines this is
// built for) with a pool of worker threads started once: starting threads
// per call costs tens of microseconds and fresh stack pages each time,
// which showed in fused loops of a few hundred microseconds. Workers copy
// the caller's MXCSR for each job, so flush-to-zero holds on them too.
// A call made while the pool is busy (from a worker, or from another
// device's thread) runs on the calling thread alone.
//
// Hand-off in well under a microsecond (eval/runtime/parallel.cc): while
// jobs come within ~80 us of each other an idle worker spins (with pause)
// for the next instead of sleeping, and the caller spins for the workers'
// parts. A worker asleep when a job starts (waking one costs 50 us to 1 ms
// on these VMs) may have its part taken back by the caller once the
// caller's own part is done. Part 0 runs on the caller and part w + 1 on
// worker w, so a loop that calls with the same split keeps each part on
// the same core.
#ifndef HLO_EVAL_RUNTIME_PARALLEL_H_
#define HLO_EVAL_RUNTIME_PARALLEL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace hlo {

// How many parts a parallel loop is cut into: the CPUs the machine has
// online (at least 1). Where the cut changes a result's bits (a product's
// parts on OpenBLAS), they then follow from the machine, not from the CPUs
// this process may use: an MPI rank bound to one core gives the bits of the
// threaded run beside it. The pool has threads for the CPUs this process may
// use (ir/cpu_count.h) and runs parts past them on the caller.
int64_t CoreCount();

// Runs fn(begin, end) over consecutive parts of [0, n), each of at least
// min_rows rows, one part per core; returns when all are done. Without
// enough rows for two parts, fn(0, n) on the calling thread.
void ParallelRows(int64_t n, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn);

// Runs fn(part, item) once for every item in [0, items), in `parts` parts
// across the cores (at most CoreCount() and items; all on the calling
// thread when the pool is busy): part q owns the items [q items / parts, (q + 1) items /
// parts) and runs them from the front, then runs the items of other parts
// that their own part has not reached (a core slower for a while is
// helped). Items stay with the part that owns them where the cores keep
// pace, so each core reads what a producer split the same way left in its
// cache (a shared counter dealt items alternately: half of each core's
// reads came from the other core's cache). `part` is the part running the
// item (for per-part scratch: no two threads run one part at once).
void ParallelItems(int64_t parts, int64_t items,
                   const std::function<void(int64_t part, int64_t item)>& fn);

// Runs Part(args, p) for p = 0..parts-1, part 0 on the calling thread and
// the others on the workers (part w + 1 on worker w, so that a loop calling
// with the same split keeps each part on the same core); returns when all
// are done. args is copied into the cache line that hands the job over, so
// that a worker reads the whole job with one miss (a line moving between
// cores costs ~0.25 us on the VMs this runs on, as much as the rest of a
// hand-off): a trivially copyable struct of at most 48 bytes. Part is a
// function void(const Args&, int64_t part).
template <auto Part, typename Args>
void ParallelParts(int64_t parts, const Args& args);

// Idle workers stop spinning and sleep until the next job: called before
// work that brings its own threads (a threaded OpenBLAS call), which need
// the cores the spinning workers hold.
void ParkWorkers();

// Whether every worker is awake (spinning for work or running a part), so
// that a job now starts on them at once.
bool WorkersAwake();

// ---- implementation

constexpr size_t kPartArgsBytes = 48;
using PartCall = void (*)(const void* args, int64_t part);

// The pool's entry: false (nothing run) when the pool is busy or this is
// one of its workers.
bool RunParts(int64_t parts, PartCall call, const void* args, size_t size);

template <auto Part, typename Args>
void ParallelParts(int64_t parts, const Args& args) {
  static_assert(std::is_trivially_copyable_v<Args> && alignof(Args) <= 8);
  static_assert(sizeof(Args) <= kPartArgsBytes, "at most 48 bytes of arguments");
  const PartCall call = [](const void* a, int64_t p) { Part(*static_cast<const Args*>(a), p); };
  if (parts <= 1 || !RunParts(parts, call, &args, sizeof(Args))) {
    for (int64_t p = 0; p < parts; ++p) Part(args, p);
  }
}

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_PARALLEL_H_
