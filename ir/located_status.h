// A typed mark on an absl::Status saying its message already names its
// place (FILE:LINE:COL: error: %instruction: ...), so a caller further up
// adds no second place. Carried as a status payload (as XLA marks its
// statuses), never recognised by searching the message's wording.
#ifndef HLO_IR_LOCATED_STATUS_H_
#define HLO_IR_LOCATED_STATUS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace hlo {

inline constexpr absl::string_view kLocatedPayload = "type.hlo/located";

// `status` marked as located (an OK status stays OK).
inline absl::Status MarkLocated(absl::Status status) {
  if (!status.ok()) status.SetPayload(kLocatedPayload, absl::Cord());
  return status;
}

inline bool IsLocated(const absl::Status& status) {
  return status.GetPayload(kLocatedPayload).has_value();
}

// `status` with another message: the same code and payloads (so a located
// error stays marked when a caller adds to its text).
inline absl::Status WithMessage(const absl::Status& status, const std::string& message) {
  absl::Status out(status.code(), message);
  status.ForEachPayload(
      [&out](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

// `status` with `subject` ("parameter 1 'y' (f32[2]): ") in front of what it
// says: after the place of a located message ("PLACE: error: ", the form
// every located message has), else first.
inline absl::Status WithSubject(const absl::Status& status, const std::string& subject) {
  std::string message(status.message());
  constexpr std::string_view kError = ": error: ";
  const size_t at = IsLocated(status) ? message.find(kError) : std::string::npos;
  if (at == std::string::npos) return WithMessage(status, subject + message);
  message.insert(at + kError.size(), subject);
  return WithMessage(status, message);
}

}  // namespace hlo

#endif  // HLO_IR_LOCATED_STATUS_H_
