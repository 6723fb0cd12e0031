#include "check/defines.h"

#include "absl/strings/str_cat.h"

namespace hlo::check {

namespace {

constexpr std::string_view kLinePrefix = "Global define #";

// The offset of the definition's text in line `index` (0-based) of `source`.
size_t TextOffset(const SourceText& source, size_t index) {
  std::string_view line = source.Line(static_cast<int>(index) + 1);
  return source.LineStart(static_cast<int>(index) + 1) + line.find(": ") + 2;
}

bool DefineNumeric(std::string_view text, size_t at, const SourceText& source,
                   VariableTable* variables, VariableNames* names, Diagnostics* diagnostics) {
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
      diagnostics->Error(&source, at + 1, std::string(parsed.status().message()));
      return false;
    }
    format = *parsed;
    left.remove_prefix(comma + 1);
  }
  std::string_view name = Trim(left);
  if (!IsVariableName(name)) {
    diagnostics->Error(&source, at + 1, "invalid variable name");
    return false;
  }
  if (names->strings.contains(std::string(name))) {
    diagnostics->Error(&source, at + 1,
                       "string variable with name '" + std::string(name) + "' already exists");
    return false;
  }
  if (Trim(expression_text).empty()) {
    diagnostics->Error(&source, at + equal + 1, "missing expression in numeric definition");
    return false;
  }
  auto expression = NumericExpression::Parse(expression_text);
  if (!expression.ok()) {
    diagnostics->Error(&source, at + equal + 1, std::string(expression.status().message()));
    return false;
  }
  auto value = expression->Evaluate(*variables, 0, format);
  if (!value.ok()) {
    diagnostics->Error(&source, at + equal + 1, std::string(value.status().message()));
    return false;
  }
  if (value->format.kind != 'd' && value->value < 0) {
    diagnostics->Error(&source, at + equal + 1, "overflow error");
    return false;
  }
  variables->SetNumeric(name, *value);
  names->numerics[std::string(name)] = {value->format, 0};
  return true;
}

}  // namespace

std::string DefinesText(const std::vector<std::string>& defines) {
  std::string text;
  for (size_t i = 0; i < defines.size(); ++i) {
    absl::StrAppend(&text, std::string(kLinePrefix), i + 1, ": ", defines[i], "\n");
  }
  return text;
}

bool DefineCommandLineVariables(const std::vector<std::string>& defines, const SourceText& source,
                                VariableTable* variables, VariableNames* names,
                                Diagnostics* diagnostics) {
  for (size_t i = 0; i < defines.size(); ++i) {
    std::string_view text = defines[i];
    size_t equal = text.find('=');
    if (equal == std::string_view::npos) {
      diagnostics->Plain(absl::StrCat("Missing equal sign in command-line definition '-D",
                                      std::string(text), "'"));
      return false;
    }
    if (equal == 0 || (text[0] == '#' && equal == 1)) {
      diagnostics->Plain(absl::StrCat("Missing variable name in command-line definition '-D",
                                      std::string(text), "'"));
      return false;
    }
    size_t at = TextOffset(source, i);
    if (text[0] == '#') {
      if (!DefineNumeric(text, at, source, variables, names, diagnostics)) return false;
      continue;
    }
    std::string_view name = text.substr(0, equal);
    if (!IsVariableName(name)) {
      diagnostics->Error(&source, at, "invalid variable name");
      return false;
    }
    if (names->numerics.contains(std::string(name))) {
      diagnostics->Error(&source, at,
                         "numeric variable with name '" + std::string(name) + "' already exists");
      return false;
    }
    names->strings.insert(std::string(name));
    variables->SetString(name, std::string(text.substr(equal + 1)));
  }
  return true;
}

}  // namespace hlo::check
