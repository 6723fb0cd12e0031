// FileCheck's -D options: -DNAME=VALUE defines a string variable and
// -D#[FMT,]NAME=EXPR a numeric one, before the check file is read.
#ifndef HLO_CHECK_DEFINES_H_
#define HLO_CHECK_DEFINES_H_

#include <string>
#include <vector>

#include "check/diagnostics.h"
#include "check/pattern.h"
#include "check/source_text.h"
#include "check/variables.h"

namespace hlo::check {

// The text the definitions' diagnostics point into: one line per definition,
// "Global define #N: TEXT", as FileCheck shows them.
std::string DefinesText(const std::vector<std::string>& defines);

// Defines each of `defines` in `variables` (and its name in `names`); when
// one is malformed or names a variable of the other kind, a kBadCheckFile
// error (check/check_status.h), reported to `diagnostics` against `source`
// (= DefinesText).
absl::Status DefineCommandLineVariables(const std::vector<std::string>& defines,
                                        const SourceText& source, VariableTable* variables,
                                        VariableNames* names, Diagnostics* diagnostics);

}  // namespace hlo::check

#endif  // HLO_CHECK_DEFINES_H_
