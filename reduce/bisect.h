// Pass bisection (hlo-opt --bisect=PIPELINE, hlo-reduce --passes=PIPELINE):
// the pipeline runs one pass at a time (a fixed-point group's passes round
// by round), the module is kept after each pass that changed it, and the
// test finds the first pass after which it turns true. Then, where that
// pass counts its rewrites (passes/rewrite_limit.h), a binary search over
// how many it may make finds the first rewrite after which the test is true.
#ifndef HLO_REDUCE_BISECT_H_
#define HLO_REDUCE_BISECT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "reduce/tester.h"

namespace hlo::reduce {

struct PassStep {
  std::string name;  // the pass
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
  // The first rewrite within the pass (1-based; 0 when the pass does not
  // count its rewrites), of `rewrites`, at instruction `rewrite_at`; then
  // `before` and `after` are the module before and after that rewrite.
  int64_t rewrite = 0, rewrites = 0;
  std::string rewrite_at;
};

// The first step whose module is interesting, `input` (not interesting)
// being the module before the first; then the first rewrite within it.
BisectResult Bisect(const std::string& input, const std::vector<PassStep>& steps,
                    const PrintStyle& style, Tester& tester);

// The report: a comment naming the pass (and rewrite), and the module
// before and after it, split by `// -----` lines.
std::string BisectReport(const BisectResult& r, std::string_view tool);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_BISECT_H_
