// What the numerics options of hlo-run (--find-nonfinite, --error-report,
// --dump-values) share: an observer base that knows where the evaluator is
// (the instructions running, each while loop's trip), where an instruction
// comes from in the user's source (metadata's op_name, source_file and
// source_line, or the module's stack-frame index), and a summary of an
// array's values.
#ifndef HLO_TOOLS_NUMERICS_TRACE_H_
#define HLO_TOOLS_NUMERICS_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "eval/runtime/eval_observer.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

// An observer that keeps the stack of instructions running (Before without
// After) and each one's while trip; subclasses see each finished one.
class TracingObserver : public EvalObserver {
 public:
  struct Running {
    const Instruction* inst;
    int64_t trip;  // a while loop's trip or a scan's step (0 first); -1 before the first
  };
  void Before(const Instruction& inst) final { running_.push_back({&inst, -1}); }
  absl::Status After(const Instruction& inst, absl::Span<const Value* const> operands,
                     const Value* result) final;
  void LoopTrip(int64_t trip) final {
    if (!running_.empty()) running_.back().trip = trip;
  }

 protected:
  // `inst` finished (running() holds the instructions around it, outermost
  // first, not `inst` itself).
  virtual absl::Status Finished(const Instruction& inst, absl::Span<const Value* const> operands,
                                const Value& result) = 0;
  const std::vector<Running>& running() const { return running_; }
  // The trips of the enclosing while loops and scans, outermost first.
  std::vector<int64_t> Trips() const;

 private:
  std::vector<Running> running_;
};

// A while loop or a scan: what LoopTrip numbers (a scan's steps from 0, in
// the order they run).
bool IsLoop(const Instruction& inst);

// "%while.3 iteration 2 > %call.1 > %fusion.4", outermost first; empty at
// the entry computation's top level.
std::string DescribeRunning(const std::vector<TracingObserver::Running>& running);

// Metadata's op_name, or empty.
std::string OpNameOf(const Instruction& inst);
// Where the instruction comes from in the user's program: the stack-frame
// index's frames of metadata's stack_frame_id, innermost first
// ("programs.py:12 (loss) <- programs.py:30 (main)"), else metadata's
// source_file:source_line; empty when the metadata has neither.
std::string SourceOf(const Module& module, const Instruction& inst);
// The instruction's line in the module text ("m.hlo:12:3"), or empty.
std::string TextLocationOf(const Module& module, const Instruction& inst);

// Min, max and non-finite counts of an array's elements (complex: both
// parts counted, min/max of the real parts).
struct ArrayStats {
  int64_t count = 0;
  int64_t nan = 0, pos_inf = 0, neg_inf = 0;
  int64_t first_nonfinite = -1;  // the row-major index of the first, -1: none
  double min = 0, max = 0;       // of the finite elements (0 when none)
  bool has_finite = false;
  int64_t nonfinite() const { return nan + pos_inf + neg_inf; }
};
ArrayStats StatsOf(const Literal& array);
// "f32[8]: min -0.5 max 1.25, 0 NaN, 0 Inf of 8" (integers: min and max).
std::string DescribeArray(const Literal& array);
// The multi-index of row-major element `i` of `shape`: "{1,3}".
std::string IndexText(const Shape& shape, int64_t i);

}  // namespace hlo

#endif  // HLO_TOOLS_NUMERICS_TRACE_H_
