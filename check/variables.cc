#include "check/variables.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "check/source_text.h"

namespace hlo::check {

std::string NumericFormat::WildcardRegex() const {
  std::string digits = kind == 'x' ? "[0-9a-f]" : kind == 'X' ? "[0-9A-F]" : "[0-9]";
  std::string leading = kind == 'x' ? "[1-9a-f]" : kind == 'X' ? "[1-9A-F]" : "[1-9]";
  std::string sign = kind == 'd' ? "-?" : "";
  if (precision == 0) return sign + digits + "+";
  // FileCheck's: at least `precision` digits, no leading zero beyond them.
  return absl::StrCat(sign, "(?:", leading, digits, "*)?", digits, "{", precision, "}");
}

std::string NumericFormat::FileCheckWildcard() const {
  std::string digits = kind == 'x' ? "[0-9a-f]" : kind == 'X' ? "[0-9A-F]" : "[0-9]";
  std::string leading = kind == 'x' ? "[1-9a-f]" : kind == 'X' ? "[1-9A-F]" : "[1-9]";
  std::string sign = kind == 'd' ? "-?" : "";
  if (precision == 0) return sign + digits + "+";
  return absl::StrCat(sign, "(", leading, digits, "*)?", digits, "{", precision, "}");
}

absl::StatusOr<std::string> NumericFormat::Format(NumericInt value) const {
  if ((kind == 'd' && value > INT64_MAX) || (kind != 'd' && value < 0)) {
    return absl::OutOfRangeError("overflow error");
  }
  bool negative = value < 0;
  unsigned __int128 magnitude = negative ? -value : value;
  int base = kind == 'x' || kind == 'X' ? 16 : 10;
  const char* symbols = kind == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string digits;
  do {
    digits.push_back(symbols[static_cast<int>(magnitude % base)]);
    magnitude /= base;
  } while (magnitude != 0);
  if (static_cast<int>(digits.size()) < precision) digits.append(precision - digits.size(), '0');
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

absl::StatusOr<NumericInt> NumericFormat::Parse(std::string_view digits) const {
  bool negative = false;
  if (kind == 'd' && !digits.empty() && digits[0] == '-') {
    negative = true;
    digits.remove_prefix(1);
  }
  int base = (kind == 'x' || kind == 'X') ? 16 : 10;
  NumericInt value = 0;
  for (char c : digits) {
    int d = std::isdigit(static_cast<unsigned char>(c))
                ? c - '0'
                : (base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                       ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                       : -1);
    if (d < 0) return absl::InvalidArgumentError("invalid digit");
    value = value * base + d;
    if (value > kMaxNumeric) break;
  }
  if (negative) value = -value;
  NumericInt high = kind == 'd' ? NumericInt{INT64_MAX} : kMaxNumeric;
  NumericInt low = kind == 'd' ? kMinNumeric : 0;
  if (digits.empty() || value > high || value < low) {
    return absl::OutOfRangeError("unable to represent numeric value");
  }
  return value;
}

absl::StatusOr<NumericFormat> ParseNumericFormat(std::string_view spec) {
  spec = Trim(spec);
  NumericFormat format;
  auto invalid = absl::InvalidArgumentError("invalid matching format specification in expression");
  if (spec.size() < 2 || spec[0] != '%') return invalid;
  spec.remove_prefix(1);
  if (spec[0] == '.') {
    size_t digits = 1;
    long long precision = 0;
    while (digits < spec.size() && absl::ascii_isdigit(spec[digits])) {
      precision = std::min<long long>(precision * 10 + (spec[digits] - '0'), 1LL << 40);
      ++digits;
    }
    if (digits == 1) return invalid;
    if (precision > kMaxPrecision) {
      return absl::InvalidArgumentError(
          absl::StrCat("precision ", std::string(spec.substr(1, digits - 1)),
                       " is larger than hlo-check's limit of ", kMaxPrecision, " digits"));
    }
    format.precision = static_cast<int>(precision);
    spec.remove_prefix(digits);
  }
  if (spec.size() != 1 || std::string_view("udxX").find(spec[0]) == std::string_view::npos) {
    return invalid;
  }
  format.kind = spec[0];
  format.explicit_kind = true;
  return format;
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
        return absl::InvalidArgumentError("unsupported operation '" +
                                          std::string(text.substr(0, 1)) + "'");
      }
      negate = text[0] == '-';
      text = TrimLeading(text.substr(1));
      expect_operand = true;
      continue;
    }
    Term term;
    // A literal may carry its own sign: [[#-5+N]].
    if (text.size() > 1 && text[0] == '-' && std::isdigit(static_cast<unsigned char>(text[1]))) {
      negate = !negate;
      text.remove_prefix(1);
    }
    term.negate = negate;
    size_t length = 0;
    if (text.substr(0, 5) == "@LINE") {
      term.kind = Term::Kind::kLine;
      length = 5;
    } else if (std::isdigit(static_cast<unsigned char>(text[0]))) {
      term.kind = Term::Kind::kLiteral;
      int base = text.substr(0, 2) == "0x" ? 16 : 10;
      length = base == 16 ? 2 : 0;
      NumericInt value = 0;
      while (length < text.size() && std::isxdigit(static_cast<unsigned char>(text[length])) &&
             (base == 16 || std::isdigit(static_cast<unsigned char>(text[length])))) {
        char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[length])));
        value =
            value * base + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10);
        if (value > kMaxNumeric) {
          return absl::OutOfRangeError("unable to represent numeric value");
        }
        ++length;
      }
      term.literal = value;
    } else {
      term.kind = Term::Kind::kVariable;
      while (length < text.size() && (std::isalnum(static_cast<unsigned char>(text[length])) ||
                                      text[length] == '_' || (length == 0 && text[0] == '$'))) {
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
    NumericInt value = term.literal;
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
    // Checked: each operand is in range, so the wide sum cannot wrap.
    result.value += term.negate ? -value : value;
    if (result.value < kMinNumeric || result.value > kMaxNumeric) {
      return absl::OutOfRangeError("overflow error");
    }
  }
  return result;
}

}  // namespace hlo::check
