// The interestingness test's options, shared by hlo-reduce and hlo-opt
// --bisect: --test=CMD or one built-in test, with -j and --timeout.
#ifndef HLO_REDUCE_TEST_OPTIONS_H_
#define HLO_REDUCE_TEST_OPTIONS_H_

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "reduce/oracle.h"

namespace hlo::reduce {

struct TestOptions {
  std::string test;  // --test=CMD
  bool crash = false;
  bool nonfinite = false;
  std::string error_matches, mismatch;
  double slower_than = -1;
  BuiltinTest builtin;
  int jobs = 0;  // 0: one per core
  double timeout = 60;
};

void AddTestOptions(CLI::App& app, TestOptions& t);

// Exactly one test, and the options of a test only with it.
absl::Status CheckTestOptions(const CLI::App& app, const TestOptions& t);

// The oracle. `reference`: in bisection, --mismatch compares with this
// module's results (the input's) instead of running its pipeline.
absl::StatusOr<std::unique_ptr<Oracle>> MakeOracle(TestOptions& t, const std::string& reference);

// -j, or one per core.
int JobCount(const TestOptions& t);

}  // namespace hlo::reduce

#endif  // HLO_REDUCE_TEST_OPTIONS_H_
