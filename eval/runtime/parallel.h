// Splitting a loop across the machine's cores (two on the machines this is
// built for) with a pool of worker threads started once: starting threads
// per call costs tens of microseconds and fresh stack pages each time,
// which showed in fused loops of a few hundred microseconds. Workers copy
// the caller's MXCSR for each job, so flush-to-zero holds on them too.
// A call made while the pool is busy (from a worker, or from another
// device's thread) runs on the calling thread alone.
#ifndef HLO_EVAL_RUNTIME_PARALLEL_H_
#define HLO_EVAL_RUNTIME_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace hlo {

// Cores the pool uses (the hardware's count, at least 1).
int64_t CoreCount();

// Runs fn(begin, end) over consecutive parts of [0, n), each of at least
// min_rows rows, one part per core; returns when all are done. Without
// enough rows for two parts, fn(0, n) on the calling thread.
void ParallelRows(int64_t n, int64_t min_rows, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_PARALLEL_H_
