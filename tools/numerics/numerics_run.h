// hlo-run's numerics options glued to its run (tools/run_tool.cc): the
// observers of --find-nonfinite and --dump-values, what each run leaves
// behind, --error-report's two runs and --compare-values.
#ifndef HLO_TOOLS_NUMERICS_NUMERICS_RUN_H_
#define HLO_TOOLS_NUMERICS_NUMERICS_RUN_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/evaluator.h"
#include "ir/module.h"

namespace hlo {

class NonFiniteFinder;
class ValueDumper;

// The observers of one run.
class NumericsSession {
 public:
  // `dump_values` is empty or {RE2, DIR}.
  static absl::StatusOr<std::unique_ptr<NumericsSession>> Start(
      const Module& module, bool find_nonfinite, const std::vector<std::string>& dump_values);
  ~NumericsSession();
  EvalObserver* observer() { return observer_; }
  // After the run that ended with `run`: publishes the dump, prints a
  // finding on stdout and returns it as a status of exit code 3
  // (tools/tool_status.h), or says that none was found (stderr).
  absl::Status Finish(const absl::Status& run);

 private:
  NumericsSession() = default;
  std::unique_ptr<NonFiniteFinder> finder_;
  std::unique_ptr<ValueDumper> dumper_;
  std::unique_ptr<EvalObserver> both_;
  EvalObserver* observer_ = nullptr;
};

// --error-report: runs `native` and its f64 widening `wide` on `arguments`
// and prints the `top` instructions that add the most error (JSON with
// `json`) on stdout.
absl::Status RunErrorReport(Module& native, Module& wide, const std::vector<Value>& arguments,
                            const EvalOptions& options, int top, bool json);

// --compare-values: prints the comparison on stdout; false when they differ.
absl::StatusOr<bool> RunCompareValues(const std::string& dir1, const std::string& dir2, bool json);

}  // namespace hlo

#endif  // HLO_TOOLS_NUMERICS_NUMERICS_RUN_H_
