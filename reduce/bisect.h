// Pass bisection (hlo-reduce --passes=PIPELINE): the pipeline runs one pass
// at a time (a fixed-point group's passes round by round), the module is
// kept after each pass that changed it, and the test finds the first pass
// after which it turns true.
#ifndef HLO_REDUCE_BISECT_H_
#define HLO_REDUCE_BISECT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "reduce/tester.h"

namespace hlo::reduce {

struct PassStep {
  std::string pass;  // its name, with the round for a fixed-point group
  std::string text;  // the module after it
};

// The module after each pass of `spec` that changed it, in order.
absl::StatusOr<std::vector<PassStep>> RunPassSteps(Module& module, std::string_view spec,
                                                   const PrintStyle& style);

struct BisectResult {
  bool found = false;
  int64_t step = 0;  // index into steps
  std::string pass, before, after;
  int64_t steps = 0;  // passes that changed the module
};

// The first step whose module is interesting, `input` (not interesting)
// being the module before the first.
BisectResult Bisect(const std::string& input, const std::vector<PassStep>& steps, Tester& tester);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_BISECT_H_
