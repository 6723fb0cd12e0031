// The evaluator's one hook for numerics tools (hlo-run --find-nonfinite,
// --error-report, --dump-values): an observer told about each instruction it
// evaluates, inside called computations and loops too. EvalOptions::observer
// is null unless a tool asks; the evaluator checks the pointer once per
// instruction, never per element, so a run without one pays nothing more.
//
// With an observer the evaluator runs unfused (no fused loops, no folded
// transposes: every instruction's value is made, with the same bits as the
// fused run) and holds each observed instruction's operands until it is
// done, so that After sees them as they were read (no kernel writes into an
// operand's buffer then). Scalar computations applied per element
// (reducers, comparators) are not observed: they are their caller's.
#ifndef HLO_EVAL_RUNTIME_EVAL_OBSERVER_H_
#define HLO_EVAL_RUNTIME_EVAL_OBSERVER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"

namespace hlo {

class EvalObserver {
 public:
  virtual ~EvalObserver() = default;
  // `inst` starts; the instructions of computations it calls (a while's
  // body, a call's or fusion's computation) are observed before its After.
  virtual void Before(const Instruction& inst) = 0;
  // `inst` ended with `result` (null when it failed) from `operands` (for
  // an entry parameter: none). An error stops the run with that status.
  virtual absl::Status After(const Instruction& inst, absl::Span<const Value* const> operands,
                             const Value* result) = 0;
  // The innermost while loop that has started (Before without After)
  // begins trip `trip` (0 first): its condition, then its body; or the
  // innermost scan begins step `trip` (0 first, in the order it runs).
  virtual void LoopTrip(int64_t trip) = 0;
};

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_EVAL_OBSERVER_H_
