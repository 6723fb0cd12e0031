// hlo-check's whole run: the check file and the input in, a verdict and the
// messages out. The verdict is a status with a typed payload
// (check/check_status.h); exit codes as FileCheck's: 0 every check passed, 1
// a check failed, 2 the check file or the options are wrong (or the input is
// empty).
#ifndef HLO_CHECK_FILECHECK_H_
#define HLO_CHECK_FILECHECK_H_

#include <string>

#include "absl/status/status.h"
#include "check/check_options.h"
#include "check/check_status.h"

namespace hlo::check {

struct CheckResult {
  absl::Status status;   // OK when every check passed, else the verdict
  std::string messages;  // for stderr
  int exit_code() const { return CheckExitCode(status); }
};

CheckResult RunFileCheck(const std::string& check_name, const std::string& check_text,
                         const std::string& input_name, const std::string& input_text,
                         const CheckOptions& options);

// The verdict on the check file alone, before any input is read: its
// prefixes, -D definitions and directives (OK when they are well formed).
absl::Status ReadCheckFile(const std::string& check_name, const std::string& check_text,
                           const CheckOptions& options);

}  // namespace hlo::check

#endif  // HLO_CHECK_FILECHECK_H_
