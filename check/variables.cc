#include "check/variables.h"

#include <cctype>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "check/source_text.h"
#include "absl/strings/str_cat.h"

namespace hlo::check {

std::string NumericFormat::WildcardRegex() const {
  std::string digits;
  switch (kind) {
    case 'x': digits = "[0-9a-f]"; break;
    case 'X': digits = "[0-9A-F]"; break;
    default: digits = "[0-9]"; break;
  }
  std::string count = precision > 0 ? absl::StrCat("{", precision, ",}") : "+";
  std::string sign = kind == 'd' ? "-?" : "";
  return sign + digits + count;
}

std::string NumericFormat::Format(int64_t value) const {
  bool negative = kind == 'd' && value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  char buffer[32];
  const char* spec = kind == 'x' ? "%llx" : kind == 'X' ? "%llX" : "%llu";
  std::snprintf(buffer, sizeof(buffer), spec, static_cast<unsigned long long>(magnitude));
  std::string digits = buffer;
  if (static_cast<int>(digits.size()) < precision) {
    digits.insert(0, precision - digits.size(), '0');
  }
  return negative ? "-" + digits : digits;
}

std::optional<int64_t> NumericFormat::Parse(std::string_view digits) const {
  bool negative = false;
  if (kind == 'd' && !digits.empty() && digits[0] == '-') {
    negative = true;
    digits.remove_prefix(1);
  }
  if (digits.empty()) return std::nullopt;
  int base = (kind == 'x' || kind == 'X') ? 16 : 10;
  uint64_t value = 0;
  for (char c : digits) {
    int d = std::isdigit(static_cast<unsigned char>(c))
                ? c - '0'
                : (base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                       ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                       : -1);
    if (d < 0) return std::nullopt;
    if (value > (UINT64_MAX - d) / base) return std::nullopt;
    value = value * base + d;
  }
  return negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
}

bool IsVariableName(std::string_view name) {
  if (!name.empty() && name[0] == '$') name.remove_prefix(1);
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

const std::string* VariableTable::GetString(std::string_view name) const {
  auto it = strings_.find(std::string(name));
  return it == strings_.end() ? nullptr : &it->second;
}

const NumericValue* VariableTable::GetNumeric(std::string_view name) const {
  auto it = numerics_.find(std::string(name));
  return it == numerics_.end() ? nullptr : &it->second;
}

void VariableTable::SetString(std::string_view name, std::string value) {
  strings_[std::string(name)] = std::move(value);
}

void VariableTable::SetNumeric(std::string_view name, NumericValue value) {
  numerics_[std::string(name)] = value;
}

void VariableTable::ClearLocals() {
  absl::erase_if(strings_, [](const auto& entry) { return entry.first[0] != '$'; });
  absl::erase_if(numerics_, [](const auto& entry) { return entry.first[0] != '$'; });
}

absl::StatusOr<NumericExpression> NumericExpression::Parse(std::string_view text) {
  NumericExpression expression;
  text = Trim(text);
  bool expect_operand = true;
  bool negate = false;
  while (!text.empty()) {
    if (!expect_operand) {
      if (text[0] != '+' && text[0] != '-') {
        return absl::InvalidArgumentError(
            "unsupported operation '" + std::string(text.substr(0, 1)) + "'");
      }
      negate = text[0] == '-';
      text = TrimLeading(text.substr(1));
      expect_operand = true;
      continue;
    }
    Term term;
    term.negate = negate;
    size_t length = 0;
    if (text.substr(0, 5) == "@LINE") {
      term.kind = Term::Kind::kLine;
      length = 5;
    } else if (std::isdigit(static_cast<unsigned char>(text[0]))) {
      term.kind = Term::Kind::kLiteral;
      int base = text.substr(0, 2) == "0x" ? 16 : 10;
      length = base == 16 ? 2 : 0;
      uint64_t value = 0;
      while (length < text.size() && std::isxdigit(static_cast<unsigned char>(text[length])) &&
             (base == 16 || std::isdigit(static_cast<unsigned char>(text[length])))) {
        char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[length])));
        value = value * base + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10);
        ++length;
      }
      term.literal = static_cast<int64_t>(value);
    } else {
      term.kind = Term::Kind::kVariable;
      while (length < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[length])) || text[length] == '_' ||
              (length == 0 && text[0] == '$'))) {
        ++length;
      }
      term.name = std::string(text.substr(0, length));
      if (!IsVariableName(term.name)) {
        return absl::InvalidArgumentError("invalid variable name");
      }
    }
    expression.terms.push_back(term);
    text = TrimLeading(text.substr(length));
    expect_operand = false;
  }
  if (expect_operand && !expression.terms.empty()) {
    return absl::InvalidArgumentError("missing operand in expression");
  }
  return expression;
}

std::vector<std::string> NumericExpression::VariableNames() const {
  std::vector<std::string> names;
  for (const Term& term : terms) {
    if (term.kind == Term::Kind::kVariable) names.push_back(term.name);
  }
  return names;
}

absl::StatusOr<NumericValue> NumericExpression::Evaluate(const VariableTable& variables, int line,
                                                         const NumericFormat& format) const {
  NumericValue result;
  result.format = format;
  bool format_from_variable = !format.explicit_kind;
  for (const Term& term : terms) {
    int64_t value = term.literal;
    if (term.kind == Term::Kind::kLine) {
      value = line;
    } else if (term.kind == Term::Kind::kVariable) {
      const NumericValue* variable = variables.GetNumeric(term.name);
      if (variable == nullptr) {
        return absl::NotFoundError(absl::StrCat("undefined variable: ", term.name));
      }
      value = variable->value;
      if (format_from_variable) {
        result.format = variable->format;
        format_from_variable = false;
      }
    }
    result.value += term.negate ? -value : value;
  }
  return result;
}

}  // namespace hlo::check
