// The parts of a parsed Pattern (check/pattern.cc builds them, and
// check/backreference.cc matches with them).
#ifndef HLO_CHECK_PATTERN_PIECES_H_
#define HLO_CHECK_PATTERN_PIECES_H_

#include <string>
#include <vector>

#include "check/pattern.h"
#include "check/variables.h"

namespace hlo::check {

struct Pattern::Piece {
  enum class Kind { kLiteral, kRegex, kStringDef, kStringUse, kBackref, kNumericDef, kNumericUse };
  Kind kind = Kind::kLiteral;
  std::string text;       // literal text, or a regex in RE2 syntax
  int groups = 0;         // capturing groups inside a regex
  std::string name;       // the variable of a definition or use
  size_t definition = 0;  // kBackref: index of the defining piece
  NumericFormat format;
  NumericExpression expression;
  bool has_expression = false;
  std::string shown;  // a numeric use as written, for the failure notes
  int paren = 0;      // a definition's capture number in FileCheck's regex
};

// A regex built for RE2, with the capture group of each piece (0: none).
struct Pattern::Built {
  std::string regex;
  std::vector<int> group_of;
  int groups = 0;
};

}  // namespace hlo::check

#endif  // HLO_CHECK_PATTERN_PIECES_H_
