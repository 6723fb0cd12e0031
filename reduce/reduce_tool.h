// hlo-reduce's logic (cmd/hlo_reduce.cc is its thin main): the flags, the
// start (the input must be interesting), the reduction or the pass
// bisection, and the output.
#ifndef HLO_REDUCE_REDUCE_TOOL_H_
#define HLO_REDUCE_REDUCE_TOOL_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "reduce/test_options.h"

namespace hlo::reduce {

struct ReduceFlags {
  std::string input;
  std::string output = "-";
  TestOptions tests;
  std::string reductions, skip;
  bool list_reductions = false;
  std::string passes;  // bisection
  bool check_minimal = false;
};

// Returns the exit status when the tool should stop there (--help: 0, a
// usage error, already reported: 2).
std::optional<int> ParseReduceFlags(int argc, char** argv, ReduceFlags& flags);

absl::Status RunHloReduce(ReduceFlags& flags);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_REDUCE_TOOL_H_
