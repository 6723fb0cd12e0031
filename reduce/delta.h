// A reduction of hlo-reduce (as llvm-reduce's deltas): it walks its targets
// in a fixed order, asking a TargetSelector about each, and changes those
// the selector picks. Counting the targets is a walk that picks none.
#ifndef HLO_REDUCE_DELTA_H_
#define HLO_REDUCE_DELTA_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace hlo::reduce {

// Numbers the targets in the order a delta asks about them and picks those
// in [begin, end).
class TargetSelector {
 public:
  TargetSelector(int64_t begin, int64_t end) : begin_(begin), end_(end) {}
  // Counts the target; true when this one is to be changed.
  bool Pick() {
    int64_t i = next_++;
    return i >= begin_ && i < end_;
  }
  int64_t count() const { return next_; }

 private:
  int64_t begin_, end_;
  int64_t next_ = 0;
};

// How the reducer drives a delta: ddmin over chunks of targets, or a search
// for the first target (in order) whose change alone keeps the test true,
// where a change of one target excludes the others (the entry's root).
enum class Strategy { kChunks, kSearch };

class Delta {
 public:
  virtual ~Delta() = default;
  virtual Strategy strategy() const { return Strategy::kChunks; }
  // Changes the picked targets of `module` (parsed from the current text;
  // the reducer cleans up, verifies and prints it after).
  virtual void Run(Module& module, TargetSelector& select) = 0;
};

struct DeltaInfo {
  std::string_view name;
  std::unique_ptr<Delta> (*create)();
  std::string_view description;
};

// Every reduction, in the order of reduce/deltas.def.
const std::vector<DeltaInfo>& AllDeltas();

#define HLO_DELTA(name, factory, description) std::unique_ptr<Delta> factory();
#include "reduce/deltas.def"
#undef HLO_DELTA

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_DELTA_H_
