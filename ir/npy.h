// NumPy .npy files (format versions 1, 2 and 3) to and from literals.
#ifndef HLO_IR_NPY_H_
#define HLO_IR_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/output_file.h"

namespace hlo {

// Reads an .npy image. `expected` (the parameter's shape) decides how
// ambiguous data types read: raw 2-byte data ('V2' or '<u2') as bf16 or f16
// when the parameter is, 1-byte data as f8 or sub-byte integers. The array
// must have the expected dims (any size where a dimension is unbounded,
// `?`). `what` names the file in errors.
absl::StatusOr<Literal> ReadNpy(std::string_view bytes, const Shape& expected,
                                std::string_view what);
// ReadNpy of the file at `path`, its data read straight into the literal
// (no copy of the file beside it; a pipe is read whole first). Errors name
// the file.
absl::StatusOr<Literal> ReadNpyFile(const std::string& path, const Shape& expected);
// Writes an array literal. bf16 and f16 … f8 types with no NumPy dtype are
// written as their raw bits ('<u2' / '|u1'); sub-byte integers as '|i1'/'|u1'.
absl::StatusOr<std::string> WriteNpy(const Literal& literal);
// The same file handed to `sink` as its header and then the literal's own
// buffer: no copy of the array.
absl::Status StreamNpy(const Literal& literal, ByteSink sink);

}  // namespace hlo

#endif  // HLO_IR_NPY_H_
