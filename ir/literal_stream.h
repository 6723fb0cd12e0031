// Literal text written piece by piece: a result of hundreds of megabytes
// goes to its file without its whole text in memory (ir/literal_text.cc).
#ifndef HLO_IR_LITERAL_STREAM_H_
#define HLO_IR_LITERAL_STREAM_H_

#include <cstddef>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "ir/literal.h"

namespace hlo {

// The text LiteralToString(literal, LiteralStyle::kCompact) gives, handed to
// `sink` in pieces of about `chunk` bytes (each complete rows, in order; a
// row of more than 512 elements may also end a piece every 512, so that a
// large vector is not held whole); the first error of `sink` stops it and
// is returned.
absl::Status StreamLiteralText(const Literal& literal,
                               absl::FunctionRef<absl::Status(std::string_view)> sink,
                               size_t chunk = size_t{1} << 20);

}  // namespace hlo

#endif  // HLO_IR_LITERAL_STREAM_H_
