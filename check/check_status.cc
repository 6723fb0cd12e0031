#include "check/check_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hlo::check {

namespace {

// Payloads: "VERDICT EXIT_CODE" and "OFFSET", as decimal numbers.
constexpr absl::string_view kVerdictPayload = "type.hlo/check-verdict";
constexpr absl::string_view kOffsetPayload = "type.hlo/check-pattern-offset";

std::optional<std::pair<int, int>> VerdictPayload(const absl::Status& status) {
  auto payload = status.GetPayload(kVerdictPayload);
  if (!payload.has_value()) return std::nullopt;
  std::pair<std::string, std::string> parts = absl::StrSplit(std::string(*payload), ' ');
  int verdict = 0, exit_code = 0;
  if (!absl::SimpleAtoi(parts.first, &verdict) || !absl::SimpleAtoi(parts.second, &exit_code)) {
    return std::nullopt;
  }
  return std::make_pair(verdict, exit_code);
}

}  // namespace

absl::Status CheckError(CheckVerdict verdict, const std::string& message, int exit_code) {
  if (exit_code < 0) exit_code = verdict == CheckVerdict::kMatchFailed ? 1 : 2;
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kVerdictPayload,
                    absl::Cord(absl::StrCat(static_cast<int>(verdict), " ", exit_code)));
  return status;
}

std::optional<CheckVerdict> VerdictOf(const absl::Status& status) {
  std::optional<std::pair<int, int>> payload = VerdictPayload(status);
  if (!payload.has_value()) return std::nullopt;
  return static_cast<CheckVerdict>(payload->first);
}

int CheckExitCode(const absl::Status& status) {
  if (status.ok()) return 0;
  std::optional<std::pair<int, int>> payload = VerdictPayload(status);
  return payload.has_value() ? payload->second : 2;
}

absl::Status PatternError(size_t offset, const std::string& message, int exit_code) {
  absl::Status status = CheckError(CheckVerdict::kBadCheckFile, message, exit_code);
  status.SetPayload(kOffsetPayload, absl::Cord(absl::StrCat(offset)));
  return status;
}

size_t PatternErrorOffset(const absl::Status& status) {
  auto payload = status.GetPayload(kOffsetPayload);
  size_t offset = 0;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &offset)) return 0;
  return offset;
}

}  // namespace hlo::check
