// Whether a piece of work called again and again (a while loop's gemv)
// runs faster split across the cores or on the calling thread alone: the
// faster way so far is used, and the other is tried now and then (less
// often each time it loses again). A split costs the hand-off and the
// operands' cache lines moving between cores, 0.1 to 0.5 us on the VMs
// this runs on, varying over minutes as the host moves them, so no fixed
// size threshold suits both (a while loop of f32[256,256] gemvs, split:
// 3.1 us a trip where the cores were close, 4.8 us where they were far;
// one core: 4.6 us either way).
//
// What is timed is the interval from one call to the next of a size, not
// the call: a split's cost shows partly after it (the next instruction
// reads the result the other core wrote). The choice changes only the
// speed: the parts must compute the same values either way.
#ifndef HLO_EVAL_RUNTIME_SPLIT_CHOOSER_H_
#define HLO_EVAL_RUNTIME_SPLIT_CHOOSER_H_

#include <atomic>
#include <cstdint>
#include <mutex>

namespace hlo {

class SplitChooser {
 public:
  // Whether to split this call of `work` (bytes, or any measure of its
  // size: sizes within a factor of two share their timings).
  bool SplitNow(int64_t work);

 private:
  static constexpr int kUntimed = 2;
  struct Timings {
    std::mutex mu;  // tried, never waited for: a busy one means "as before"
    std::atomic<bool> split_faster{false};
    // Smoothed ticks from a call to the next, on one core [0] and split
    // [1]; 0: none yet.
    uint64_t ticks[2] = {0, 0};
    uint64_t last_start = 0;
    int last_way = kUntimed;  // 0, 1, or kUntimed
    int64_t period = 0;       // calls between tries of the other way
    int64_t since_try = 0;
    int64_t try_left = 0;  // timed calls still wanted of the other way
    int64_t try_calls = 0;
  };
  static constexpr int kClasses = 64;
  Timings classes_[kClasses];
};

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_SPLIT_CHOOSER_H_
