// The test that decides whether a candidate is still interesting: a user's
// command (script_oracle.cc) or one of the built-in tests (builtin_oracle.cc).
// Both run subprocesses: a candidate may crash the tools or loop forever
// (a while condition reduced to `true`), and only a process can be killed
// at a deadline and survive that.
#ifndef HLO_REDUCE_ORACLE_H_
#define HLO_REDUCE_ORACLE_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace hlo::reduce {

class Oracle {
 public:
  virtual ~Oracle() = default;
  // Whether the module in `path` is interesting. `scratch` is a folder of
  // the calling worker's own for temporaries. Never fails: a test that
  // crashes, hangs or cannot start is "not interesting".
  virtual bool Interesting(const std::string& path, const std::string& scratch) = 0;
  // Why the last call on the input said no, for the message when the input
  // itself is not interesting (empty when there is nothing to add).
  virtual std::string Explain(const std::string& path, const std::string& scratch) {
    (void)path;
    (void)scratch;
    return "";
  }
};

// `--test=CMD`: CMD run by /bin/sh with the candidate's path in place of
// `{}`, or after it; exit status 0 means interesting.
std::unique_ptr<Oracle> MakeScriptOracle(const std::string& command, double timeout_seconds);

// The built-in tests, with the tools they run.
struct BuiltinTest {
  enum class Kind { kCrash, kErrorMatches, kNonfinite, kMismatch, kSlowerThan };
  Kind kind = Kind::kCrash;
  std::string crash_tool = "hlo-run";  // --crash-tool: hlo-run or hlo-opt
  std::string pattern;                 // --error-matches (RE2)
  std::string pipeline;                // --mismatch
  double slower_ms = 0;                // --slower-than
  std::string run_args = "--random-inputs --seed 1";
  std::string opt_args = "-O";       // hlo-opt's arguments for --crash-tool=hlo-opt
  std::optional<double> rtol, atol;  // --mismatch's tolerances
  std::string bin_dir;               // where hlo-run and hlo-opt are
  // Bisection: --mismatch compares each step's results with those of this
  // module (the input) instead of running the pipeline.
  std::string reference;
};

// A usage error for a bad pattern or arguments.
absl::StatusOr<std::unique_ptr<Oracle>> MakeBuiltinOracle(const BuiltinTest& test,
                                                          double timeout_seconds);

// Splits an argument string as sh does for plain words and quotes ('...',
// "...", backslash); no expansions.
absl::StatusOr<std::vector<std::string>> SplitArgs(const std::string& text);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_ORACLE_H_
