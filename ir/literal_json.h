// Literals as JSON, in design.md's result format:
//   {"shape": "f32[2,3]{1,0}", "dtype": "f32", "dims": [2, 3], "data": [...]}
// a tuple as {"shape": "(...)", "elements": [...]}. Non-finite floats are
// "nan"/"inf"/"-inf", complex elements [re, im], pred true/false, integers
// exact; floats are the shortest text that reads back to the same value.
#ifndef HLO_IR_LITERAL_JSON_H_
#define HLO_IR_LITERAL_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace hlo {

// `shape` gives the printed "shape" (with its layout); the literal's own
// (row-major) shape when null.
std::string LiteralToJson(const Literal& literal, const Shape* shape = nullptr);
// Reads the format back; `what` names the source in errors.
absl::StatusOr<Literal> LiteralFromJson(std::string_view json, std::string_view what);

}  // namespace hlo

#endif  // HLO_IR_LITERAL_JSON_H_
