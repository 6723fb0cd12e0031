// Result arrays for the kernels: from this thread's bin of small arrays
// (array_recycler.h) or freshly allocated, glibc's malloc tuned at the first.
#ifndef HLO_EVAL_RUNTIME_NEW_ARRAY_H_
#define HLO_EVAL_RUNTIME_NEW_ARRAY_H_

#include "absl/status/statusor.h"
#include "eval/value.h"
#include "ir/shape.h"

namespace hlo {

// A zero-filled array value of the instruction's (array) result shape.
absl::StatusOr<Value> NewArray(const Shape& shape);
// The same without the zero-fill: only for kernels that write every element
// of the result on success (elementwise, copies, transposes, broadcasts).
absl::StatusOr<Value> NewArrayUninitialized(const Shape& shape);
// `x` itself when `reusable` (only the caller reads it) and no one else
// holds its buffer, else NewArrayUninitialized: for results that may take
// over an operand read element by element before each is written.
absl::StatusOr<Value> TakeOrNewArray(const Value& x, bool reusable, const Shape& shape);

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_NEW_ARRAY_H_
