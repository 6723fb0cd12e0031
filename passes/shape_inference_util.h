// Helpers shared by the shape_inference_*.cc files (internal to passes/).
#ifndef HLO_PASSES_SHAPE_INFERENCE_UTIL_H_
#define HLO_PASSES_SHAPE_INFERENCE_UTIL_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ir/shape.h"
#include "ir/strings.h"

namespace hlo {

// InvalidArgument with the concatenated message.
template <typename... Args>
absl::Status ShapeError(const Args&... args) {
  return absl::InvalidArgumentError(StrCat(args...));
}

// `f32[2,3]` (no layout), for messages.
inline std::string ShapeText(const Shape& s) { return s.ToString(false); }

// Error unless `s` is an array (not a tuple, token or opaque); `what` names
// the operand in the message ("operand 0", "lhs", …).
absl::Status ExpectArray(const Shape& s, std::string_view what);
// Error unless `s` is an array of rank 0.
absl::Status ExpectScalar(const Shape& s, std::string_view what);
// Error unless every value is in [0, rank) and none repeats; `what` names
// the attribute ("dimensions").
absl::Status ExpectDimensions(absl::Span<const int64_t> dims, int64_t rank, std::string_view what);
// Error unless a and b have the same dims (and dynamism); names them.
absl::Status ExpectSameDims(const Shape& a, std::string_view a_name, const Shape& b,
                            std::string_view b_name);
// Error unless the element types are equal.
absl::Status ExpectSameType(const Shape& a, std::string_view a_name, const Shape& b,
                            std::string_view b_name);
// An array shape with the same dims (and dynamism) as `like` and type `t`.
Shape WithType(const Shape& like, PrimitiveType t);
// `{1,2}` for messages.
std::string DimsText(absl::Span<const int64_t> dims);

}  // namespace hlo

#endif  // HLO_PASSES_SHAPE_INFERENCE_UTIL_H_
