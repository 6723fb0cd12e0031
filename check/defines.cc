#include "check/defines.h"

#include "absl/strings/str_cat.h"
#include "check/check_status.h"
#include "ir/status_macros.h"

namespace hlo::check {

namespace {

constexpr std::string_view kLinePrefix = "Global define #";

// A malformed definition: reported (at `offset` of `source`, or without a
// place) and returned.
absl::Status Malformed(Diagnostics* diagnostics, const SourceText& source, size_t offset,
                       const std::string& message) {
  diagnostics->Error(&source, offset, message);
  return CheckError(CheckVerdict::kBadCheckFile, message);
}
absl::Status Malformed(Diagnostics* diagnostics, const std::string& message) {
  diagnostics->Plain(message);
  return CheckError(CheckVerdict::kBadCheckFile, message);
}

// The offset of the definition's text in line `index` (0-based) of `source`.
size_t TextOffset(const SourceText& source, size_t index) {
  std::string_view line = source.Line(static_cast<int>(index) + 1);
  return source.LineStart(static_cast<int>(index) + 1) + line.find(": ") + 2;
}

absl::Status DefineNumeric(std::string_view text, size_t at, const SourceText& source,
                           VariableTable* variables, VariableNames* names,
                           Diagnostics* diagnostics) {
  // #[%FMT,]NAME=EXPR
  size_t equal = text.find('=');
  std::string_view left = text.substr(1, equal - 1);
  std::string_view expression_text = text.substr(equal + 1);
  NumericFormat format;
  size_t comma = left.find(',');
  if (!left.empty() && left[0] == '%') {
    auto parsed = comma == std::string_view::npos
                      ? absl::StatusOr<NumericFormat>(absl::InvalidArgumentError(
                            "invalid matching format specification in expression"))
                      : ParseNumericFormat(left.substr(0, comma));
    if (!parsed.ok()) {
      return Malformed(diagnostics, source, at + 1, std::string(parsed.status().message()));
    }
    format = *parsed;
    left.remove_prefix(comma + 1);
  }
  std::string_view name = Trim(left);
  if (!IsVariableName(name)) {
    return Malformed(diagnostics, source, at + 1, "invalid variable name");
  }
  if (names->strings.contains(std::string(name))) {
    return Malformed(diagnostics, source, at + 1,
                     "string variable with name '" + std::string(name) + "' already exists");
  }
  if (Trim(expression_text).empty()) {
    return Malformed(diagnostics, source, at + equal + 1,
                     "missing expression in numeric definition");
  }
  auto expression = NumericExpression::Parse(expression_text);
  if (!expression.ok()) {
    return Malformed(diagnostics, source, at + equal + 1,
                     std::string(expression.status().message()));
  }
  auto value = expression->Evaluate(*variables, 0, format);
  if (!value.ok()) {
    return Malformed(diagnostics, source, at + equal + 1, std::string(value.status().message()));
  }
  if (value->format.kind != 'd' && value->value < 0) {
    return Malformed(diagnostics, source, at + equal + 1, "overflow error");
  }
  variables->SetNumeric(name, *value);
  names->numerics[std::string(name)] = {value->format, 0};
  return absl::OkStatus();
}

}  // namespace

std::string DefinesText(const std::vector<std::string>& defines) {
  std::string text;
  for (size_t i = 0; i < defines.size(); ++i) {
    absl::StrAppend(&text, std::string(kLinePrefix), i + 1, ": ", defines[i], "\n");
  }
  return text;
}

absl::Status DefineCommandLineVariables(const std::vector<std::string>& defines,
                                        const SourceText& source, VariableTable* variables,
                                        VariableNames* names, Diagnostics* diagnostics) {
  for (size_t i = 0; i < defines.size(); ++i) {
    std::string_view text = defines[i];
    size_t equal = text.find('=');
    if (equal == std::string_view::npos) {
      return Malformed(diagnostics,
                       absl::StrCat("Missing equal sign in command-line definition '-D",
                                    std::string(text), "'"));
    }
    if (equal == 0 || (text[0] == '#' && equal == 1)) {
      return Malformed(diagnostics,
                       absl::StrCat("Missing variable name in command-line definition '-D",
                                    std::string(text), "'"));
    }
    size_t at = TextOffset(source, i);
    if (text[0] == '#') {
      HLO_RETURN_IF_ERROR(DefineNumeric(text, at, source, variables, names, diagnostics));
      continue;
    }
    std::string_view name = text.substr(0, equal);
    if (!IsVariableName(name)) {
      return Malformed(diagnostics, source, at, "invalid variable name");
    }
    if (names->numerics.contains(std::string(name))) {
      return Malformed(diagnostics, source, at,
                       "numeric variable with name '" + std::string(name) + "' already exists");
    }
    names->strings.insert(std::string(name));
    variables->SetString(name, std::string(text.substr(equal + 1)));
  }
  return absl::OkStatus();
}

}  // namespace hlo::check
