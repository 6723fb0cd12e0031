// What hlo-check is asked to do: FileCheck's options.
#ifndef HLO_CHECK_CHECK_OPTIONS_H_
#define HLO_CHECK_CHECK_OPTIONS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace hlo::check {

enum class DumpInput { kNever, kFail, kAlways };

struct CheckOptions {
  std::vector<std::string> check_prefixes;  // empty: CHECK
  std::vector<std::string> comment_prefixes = {"COM", "RUN"};
  std::vector<std::string> implicit_check_not;
  bool match_full_lines = false;
  bool strict_whitespace = false;
  bool allow_unused_prefixes = false;
  bool allow_empty_input = false;
  bool enable_var_scope = false;
  bool ignore_case = false;
  int verbose = 0;                   // -v: remarks for matches; -vv: also for CHECK-NOT
  std::vector<std::string> defines;  // -D: NAME=VALUE or #[FMT,]NAME=EXPR
  DumpInput dump_input = DumpInput::kFail;
  int dump_input_context = 5;
  // Steps the "possible intended match" search may take per failure
  // (FindNearMiss's bound); the fuzz target lowers it to run faster.
  size_t near_miss_steps = 200'000'000;
};

}  // namespace hlo::check

#endif  // HLO_CHECK_CHECK_OPTIONS_H_
