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

// A whole row-major array of dims `dims`; nullopt past 2^62 elements.
std::optional<StridedLayout> RowMajorLayout(absl::Span<const int64_t> dims);

// The slice of a view: per dim its start, stride (at least 1) and result
// size. nullopt where a slice reaches past the view.
std::optional<StridedLayout> SliceOf(const StridedLayout& v, absl::Span<const int64_t> starts,
                                     absl::Span<const int64_t> steps,
                                     absl::Span<const int64_t> dims);

// The transpose of a view: result dim j is dim perm[j] of `v`. nullopt
// where perm is not a permutation of v's dims.
std::optional<StridedLayout> TransposeOf(const StridedLayout& v, absl::Span<const int64_t> perm);

// The same elements in the row-major order of `dims` (a reshape): each
// group of old dims that multiplies out to a group of new ones must be one
// strided run. nullopt where the element counts differ or a copy is needed.
std::optional<StridedLayout> ReshapeLayout(const StridedLayout& v, absl::Span<const int64_t> dims);

// The largest storage element the layout reaches; -1 when it has none.
int64_t LastElement(const StridedLayout& v);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_STRIDED_LAYOUT_H_
