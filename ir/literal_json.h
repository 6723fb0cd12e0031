// Literals as JSON, in design.md's result format:
//   {"shape": "f32[2,3]{1,0}", "dtype": "f32", "dims": [2, 3], "data": [...]}
// a tuple as {"shape": "(...)", "elements": [...]}. Non-finite floats are
// "nan"/"inf"/"-inf", complex elements [re, im], pred true/false, integers
// exact; floats are the shortest text that reads back to the same value.
#ifndef HLO_IR_LITERAL_JSON_H_
#define HLO_IR_LITERAL_JSON_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace hlo {

// `shape` gives the printed "shape" (with its layout); the literal's own
// (row-major) shape when null.
std::string LiteralToJson(const Literal& literal, const Shape* shape = nullptr);
// The same text handed to `sink` in pieces of about `chunk` bytes (a large
// array's "data" every 512 elements or so), so that a result of hundreds of
// megabytes goes to its file without its whole text in memory; the first
// error of `sink` stops it and is returned.
absl::Status StreamLiteralJson(const Literal& literal, const Shape* shape,
                               absl::FunctionRef<absl::Status(std::string_view)> sink,
                               size_t chunk = size_t{1} << 20);
// Reads the format back; `what` names the source in errors.
absl::StatusOr<Literal> LiteralFromJson(std::string_view json, std::string_view what);

}  // namespace hlo

#endif  // HLO_IR_LITERAL_JSON_H_
