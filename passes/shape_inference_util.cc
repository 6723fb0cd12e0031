#include "passes/shape_inference_util.h"

#include <vector>

namespace hlo {

absl::Status ExpectArray(const Shape& s, std::string_view what) {
  if (s.IsArray()) return absl::OkStatus();
  return ShapeError(what, " must be an array, but has shape ", ShapeText(s));
}

absl::Status ExpectScalar(const Shape& s, std::string_view what) {
  if (s.IsArray() && s.rank() == 0) return absl::OkStatus();
  return ShapeError(what, " must be a scalar, but has shape ", ShapeText(s));
}

absl::Status ExpectDimensions(absl::Span<const int64_t> dims, int64_t rank, std::string_view what) {
  std::vector<bool> seen(rank > 0 ? rank : 0, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return ShapeError(what, " ", DimsText(dims), " has dimension ", d, " out of range for rank ",
                        rank);
    }
    if (seen[d]) return ShapeError(what, " ", DimsText(dims), " repeats dimension ", d);
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::Status ExpectSameDims(const Shape& a, std::string_view a_name, const Shape& b,
                            std::string_view b_name) {
  bool same = a.rank() == b.rank() && a.dims() == b.dims();
  for (int64_t i = 0; same && i < a.rank(); ++i) {
    same = a.is_dynamic_dim(i) == b.is_dynamic_dim(i);
  }
  if (same) return absl::OkStatus();
  return ShapeError(a_name, " ", ShapeText(a), " and ", b_name, " ", ShapeText(b),
                    " must have the same dimensions");
}

absl::Status ExpectSameType(const Shape& a, std::string_view a_name, const Shape& b,
                            std::string_view b_name) {
  if (a.element_type() == b.element_type()) return absl::OkStatus();
  return ShapeError(a_name, " has element type ", PrimitiveTypeName(a.element_type()), " but ",
                    b_name, " has ", PrimitiveTypeName(b.element_type()));
}

Shape WithType(const Shape& like, PrimitiveType t) {
  return like.WithoutLayout().WithElementType(t);
}

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

}  // namespace hlo
