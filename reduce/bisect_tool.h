// Pass bisection as a tool: `hlo-opt --bisect=PIPELINE IN --test=CMD` (or a
// built-in test; cmd/hlo_opt.cc hands such a command line here) and
// `hlo-reduce --passes=PIPELINE` both end in RunBisection.
#ifndef HLO_REDUCE_BISECT_TOOL_H_
#define HLO_REDUCE_BISECT_TOOL_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ir/module.h"
#include "reduce/candidate.h"
#include "reduce/tester.h"

namespace hlo::reduce {

// Whether hlo-opt's command line asks for --bisect (before a bare `--`).
bool WantsBisect(int argc, char** argv);

// hlo-opt --bisect: parses the flags, bisects, returns the exit status.
int HloOptBisectMain(int argc, char** argv);

// Bisects `pipeline` on `module` (printed canonically as `start`, on which
// the test is false) and writes the report to `output`.
absl::Status RunBisection(std::string_view tool, Module& module, const Candidate& start,
                          const std::string& pipeline, double timeout, Tester& tester,
                          const std::string& output);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_BISECT_TOOL_H_
