// hlo-check's errors as absl::Status with typed payloads, never recognised
// by their wording (as ir/located_status.h marks located errors):
//   * a verdict: which failure it is (a check did not hold, the check file is
//     malformed, it has no directives, a file could not be read, ...) and the
//     exit status FileCheck gives it;
//   * for an error in a pattern's text, the offset into that text.
#ifndef HLO_CHECK_CHECK_STATUS_H_
#define HLO_CHECK_CHECK_STATUS_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/status.h"

namespace hlo::check {

enum class CheckVerdict {
  kMatchFailed,     // exit 1: a check did not hold on the input
  kBadCheckFile,    // exit 2 (1 on the errors where FileCheck stops at once): the
                    // check file, -D or --implicit-check-not is malformed
  kNoCheckStrings,  // exit 2: no directive with the prefixes in the check file
  kBadPrefix,       // exit 2: a prefix is invalid or repeated
  kEmptyInput,      // exit 2: the input is empty (without --allow-empty)
  kCannotRead,      // exit 2: the check file or the input cannot be read
  kUsage,           // exit 2: a bad command line
};

// An error carrying `verdict`; `exit_code` < 0 means the verdict's own (1
// for kMatchFailed, else 2).
absl::Status CheckError(CheckVerdict verdict, const std::string& message, int exit_code = -1);
// The verdict an error carries (none for OK or an unmarked error).
std::optional<CheckVerdict> VerdictOf(const absl::Status& status);
// hlo-check's exit status for `status`: 0 for OK, the payload's, else 2.
int CheckExitCode(const absl::Status& status);

// A malformed pattern (kBadCheckFile): `offset` into the pattern's text.
absl::Status PatternError(size_t offset, const std::string& message, int exit_code = 2);
// The offset of a PatternError (0 for any other status).
size_t PatternErrorOffset(const absl::Status& status);
}  // namespace hlo::check

#endif  // HLO_CHECK_CHECK_STATUS_H_
