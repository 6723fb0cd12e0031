// Pinning the thread pool (eval/runtime/parallel.h) to CPUs. On the VMs this
// runs on, a worker woken for a job often lands on the caller's CPU, which
// then runs both parts one after the other while the other CPU idles: a
// softmax of one large job took 1.6 ms instead of 0.8 in about half of the
// processes, and batched_gemm, reduce and conv showed the same two speeds
// from run to run. With the pool's creator (the process's main thread) on
// the first CPU the process may use and worker w on the (w + 2)-th, every
// process gets the fast one.
//
// Only when the process may use exactly as many CPUs as the pool has
// threads (all of a machine's, or of a taskset), and HLO_PIN is not 0.
#ifndef HLO_EVAL_RUNTIME_THREAD_PINNING_H_
#define HLO_EVAL_RUNTIME_THREAD_PINNING_H_

#include <cstdint>
#include <vector>

namespace hlo {

// The CPUs for a pool of `threads` (its creator's first, then one per
// worker), or empty when it is not to be pinned. Called on the thread that
// creates the pool, before pinning it: it saves that thread's mask for
// UnpinThisThread.
std::vector<int> PoolCpus(int64_t threads);

// Pins the calling thread to `cpu`; the pool's creator only when it is the
// process's main thread (another thread creating the pool stays free).
void PinThisThread(int cpu, bool creator);

// Gives the calling thread the mask saved by PoolCpus back: for threads
// started by a pinned thread (the device threads of a multi-device run),
// which would otherwise inherit its single CPU. Nothing when no pool is
// pinned.
void UnpinThisThread();

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_THREAD_PINNING_H_
