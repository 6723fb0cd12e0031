// Where a view's elements lie in another array's row-major storage, for
// values a dot reads without their being made: a slice of an array, and a
// reshape of that where the strides allow one without a copy (numpy's
// rule). The dot core takes any strides (eval/kernels/gemm.h).
#ifndef HLO_EVAL_KERNELS_STRIDED_LAYOUT_H_
#define HLO_EVAL_KERNELS_STRIDED_LAYOUT_H_

#include <cstdint>
#include <optional>

#include "absl/types/span.h"
#include "eval/kernels/gemm.h"

namespace hlo {
namespace gemm {

// Element (i_0, ..., i_r) of `dims` is storage element
// offset + sum_d i_d * strides[d] of an array of dims `source`.
struct StridedLayout {
  int64_t offset = 0;
  Dims dims, strides;
  Dims source;
};

// The slice of a row-major array of dims `in`: per dim its start, stride
// (at least 1) and result size. nullopt where a slice reaches past `in`.
std::optional<StridedLayout> SliceLayout(absl::Span<const int64_t> in,
                                         absl::Span<const int64_t> starts,
                                         absl::Span<const int64_t> steps,
                                         absl::Span<const int64_t> dims);

// The same elements in the row-major order of `dims` (a reshape): each
// group of old dims that multiplies out to a group of new ones must be one
// strided run. nullopt where the element counts differ or a copy is needed.
std::optional<StridedLayout> ReshapeLayout(const StridedLayout& v, absl::Span<const int64_t> dims);

// The largest storage element the layout reaches; -1 when it has none.
int64_t LastElement(const StridedLayout& v);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_STRIDED_LAYOUT_H_
