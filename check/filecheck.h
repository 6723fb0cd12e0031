// hlo-check's whole run: the check file and the input in, a verdict and the
// messages out. Exit codes as FileCheck's: 0 every check passed, 1 a check
// failed, 2 the check file or the options are wrong (or the input is empty).
#ifndef HLO_CHECK_FILECHECK_H_
#define HLO_CHECK_FILECHECK_H_

#include <string>

#include "check/check_options.h"

namespace hlo::check {

struct CheckResult {
  int exit_code = 0;
  std::string messages;  // for stderr
};

CheckResult RunFileCheck(const std::string& check_name, const std::string& check_text,
                         const std::string& input_name, const std::string& input_text,
                         const CheckOptions& options);

}  // namespace hlo::check

#endif  // HLO_CHECK_FILECHECK_H_
