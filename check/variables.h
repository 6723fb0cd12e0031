// FileCheck variables: string variables ([[NAME:regex]] defines, [[NAME]]
// substitutes) and numeric variables with their formats and expressions
// ([[#%x,NAME:]] defines, [[#NAME+1]] or [[#@LINE]] substitutes).
#ifndef HLO_CHECK_VARIABLES_H_
#define HLO_CHECK_VARIABLES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace hlo::check {

// FileCheck's numeric values: any integer in [INT64_MIN, UINT64_MAX]; the
// arithmetic is done wider and checked against that range.
__extension__ typedef __int128 NumericInt;
inline constexpr NumericInt kMinNumeric = -(NumericInt{1} << 63);
inline constexpr NumericInt kMaxNumeric = (NumericInt{1} << 64) - 1;
// The widest precision (%.N) a value may be written with; FileCheck's regex
// engine takes repetition counts up to 255, so wildcards stop there.
inline constexpr int kMaxPrecision = 4096;
inline constexpr int kMaxWildcardPrecision = 255;

// How a numeric value is written: %u (unsigned decimal), %d (signed), %x / %X
// (hex digits), with an optional minimum number of digits (%.4x).
struct NumericFormat {
  char kind = 'u';
  int precision = 0;
  bool explicit_kind = false;

  // The regex of any value, in RE2 syntax and as FileCheck writes it.
  std::string WildcardRegex() const;
  std::string FileCheckWildcard() const;
  // "overflow error" when the value cannot be written in this format (a
  // negative value unsigned, a value above INT64_MAX signed).
  absl::StatusOr<std::string> Format(NumericInt value) const;
  // "unable to represent numeric value" when out of the format's range.
  absl::StatusOr<NumericInt> Parse(std::string_view digits) const;
};

struct NumericValue {
  NumericInt value = 0;
  NumericFormat format;
};

// `%u`, `%d`, `%x`, `%X`, optionally with `.PRECISION` (at most kMaxPrecision).
absl::StatusOr<NumericFormat> ParseNumericFormat(std::string_view spec);

// True for a name FileCheck accepts: [$]?[A-Za-z_][A-Za-z0-9_]*.
bool IsVariableName(std::string_view name);

class VariableTable {
 public:
  const std::string* GetString(std::string_view name) const;
  const NumericValue* GetNumeric(std::string_view name) const;
  void SetString(std::string_view name, std::string value);
  void SetNumeric(std::string_view name, NumericValue value);
  // --enable-var-scope: forgets every variable whose name lacks a '$'.
  void ClearLocals();

 private:
  absl::flat_hash_map<std::string, std::string> strings_;
  absl::flat_hash_map<std::string, NumericValue> numerics_;
};

// operand (('+' | '-') operand)*, operand = NAME | @LINE | integer literal.
struct NumericExpression {
  struct Term {
    bool negate = false;
    enum class Kind { kVariable, kLine, kLiteral } kind = Kind::kLiteral;
    std::string name;
    NumericInt literal = 0;
  };
  std::vector<Term> terms;

  // Parses `text` (blanks allowed between tokens); an empty text is an empty
  // expression. Errors name what is wrong.
  static absl::StatusOr<NumericExpression> Parse(std::string_view text);
  // The names of the variables the expression uses.
  std::vector<std::string> VariableNames() const;
  // The value at check line `line`; the format is `format` when explicit, else
  // that of the first variable used (unsigned decimal without one).
  absl::StatusOr<NumericValue> Evaluate(const VariableTable& variables, int line,
                                        const NumericFormat& format) const;
};

}  // namespace hlo::check

#endif  // HLO_CHECK_VARIABLES_H_
