// --dump-input: the input with line numbers and, under each line, what the
// checks matched there (^~~ a match, X~~ an error, !~~ an excluded string
// found), as FileCheck's input dump shows it.
#ifndef HLO_CHECK_INPUT_DUMP_H_
#define HLO_CHECK_INPUT_DUMP_H_

#include <string>
#include <vector>

#include "check/matcher.h"
#include "check/source_text.h"

namespace hlo::check {

// `context`: lines shown around each error (-1: the whole input).
std::string RenderInputDump(const SourceText& input, const std::string& check_name,
                            const std::vector<Annotation>& annotations, int context);

}  // namespace hlo::check

#endif  // HLO_CHECK_INPUT_DUMP_H_
