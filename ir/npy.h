// NumPy .npy files (format versions 1, 2 and 3) to and from literals.
#ifndef HLO_IR_NPY_H_
#define HLO_IR_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace hlo {

// Reads an .npy image. `expected` (the parameter's shape) decides how
// ambiguous data types read: raw 2-byte data ('V2' or '<u2') as bf16 or f16
// when the parameter is, 1-byte data as f8 or sub-byte integers. The array
// must have the expected dims. `what` names the file in errors.
absl::StatusOr<Literal> ReadNpy(std::string_view bytes, const Shape& expected,
                                std::string_view what);
// ReadNpy of the file at `path`, its data read straight into the literal
// (no copy of the file beside it; a pipe is read whole first). Errors name
// the file.
absl::StatusOr<Literal> ReadNpyFile(const std::string& path, const Shape& expected);
// Writes an array literal. bf16 and f16 … f8 types with no NumPy dtype are
// written as their raw bits ('<u2' / '|u1'); sub-byte integers as '|i1'/'|u1'.
absl::StatusOr<std::string> WriteNpy(const Literal& literal);
// The same file as the header WriteNpy starts with, followed by the
// literal's own buffer (NpyData): written in two pieces, with no copy.
absl::StatusOr<std::string> NpyHeader(const Literal& literal);
std::string_view NpyData(const Literal& literal);

}  // namespace hlo

#endif  // HLO_IR_NPY_H_
