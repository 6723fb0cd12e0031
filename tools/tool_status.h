// How a tool's library function tells its main what to exit with: a usage
// error (status 2) is an error status carrying kUsagePayload; an error whose
// message was already printed (hlo-opt's per-module errors) carries
// kReportedPayload, so the main prints nothing more. Every other error is
// status 1. Typed payloads, never the message's wording.
#ifndef HLO_TOOLS_TOOL_STATUS_H_
#define HLO_TOOLS_TOOL_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace hlo {

inline constexpr absl::string_view kUsagePayload = "type.hlo/usage";
inline constexpr absl::string_view kReportedPayload = "type.hlo/reported";
inline constexpr absl::string_view kFindingPayload = "type.hlo/finding";

// A bad command line: exit status 2.
inline absl::Status UsageError(const std::string& message) {
  absl::Status st = absl::InvalidArgumentError(message);
  st.SetPayload(kUsagePayload, absl::Cord());
  return st;
}
// `status` (an error or OK) as a usage error.
inline absl::Status AsUsage(absl::Status status) {
  if (!status.ok()) status.SetPayload(kUsagePayload, absl::Cord());
  return status;
}
// Errors were printed as they came (several modules): exit status 1, no
// further message.
inline absl::Status AlreadyReported(const std::string& summary) {
  absl::Status st = absl::UnknownError(summary);
  st.SetPayload(kReportedPayload, absl::Cord());
  return st;
}
inline bool IsReported(const absl::Status& status) {
  return status.GetPayload(kReportedPayload).has_value();
}
// What the tool looked for was found and printed (hlo-run
// --find-nonfinite): exit status 3, distinct from errors.
inline absl::Status Finding(const std::string& summary) {
  absl::Status st = AlreadyReported(summary);
  st.SetPayload(kFindingPayload, absl::Cord());
  return st;
}
inline int ExitCode(const absl::Status& status) {
  if (status.ok()) return 0;
  if (status.GetPayload(kFindingPayload).has_value()) return 3;
  return status.GetPayload(kUsagePayload).has_value() ? 2 : 1;
}

}  // namespace hlo

#endif  // HLO_TOOLS_TOOL_STATUS_H_
