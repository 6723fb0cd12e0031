// Shared by gather and scatter (eval/kernels/gather_scatter.cc,
// eval/kernels/scatter_update.cc): reading index vectors out of an index array of
// any integer type, walking the array's batch positions (every dimension but
// index_vector_dim), checking dimension-number lists, and moving elements
// along a set of strided axes.
#ifndef HLO_EVAL_KERNELS_GATHER_INDEX_H_
#define HLO_EVAL_KERNELS_GATHER_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels/strided_axes.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace hlo {
namespace gather_internal {

using Dims = absl::InlinedVector<int64_t, 6>;

inline absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}
std::string DimsText(absl::Span<const int64_t> dims);
Dims RowMajorStrides(absl::Span<const int64_t> dims);

// Element i of an integer array as int64; u64 values above INT64_MAX
// saturate (they are out of bounds either way).
using IndexReader = int64_t (*)(const uint8_t* data, int64_t i);
// Null for a type that is not an integer type.
IndexReader ReaderFor(PrimitiveType type);

// `name` of `op` lists dimension numbers in [0, bound), each once, and
// ascending when `sorted`.
absl::Status CheckDimList(std::string_view op, std::string_view name,
                          absl::Span<const int64_t> dims, int64_t bound, bool sorted);
// No value appears in both lists.
absl::Status CheckDisjoint(std::string_view op, std::string_view a_name,
                           absl::Span<const int64_t> a, std::string_view b_name,
                           absl::Span<const int64_t> b);
bool Contains(absl::Span<const int64_t> list, int64_t value);

// The batch positions of an index array: all its dimensions except
// index_vector_dim (which holds the index vectors), in row-major order.
struct IndexBatch {
  Dims dims;                  // sizes of the batch dimensions
  Dims array_dim;             // for each batch dimension, the index array's dimension
  Dims strides;               // element stride of each batch dimension in the array
  int64_t vector_size = 1;    // components of each index vector
  int64_t vector_stride = 0;  // element stride between components
  int64_t count = 1;          // number of batch positions
};
// Fails when index_vector_dim is outside [0, rank].
absl::StatusOr<IndexBatch> MakeIndexBatch(std::string_view op, const Shape& indices,
                                          int64_t index_vector_dim);

// Steps coords to the next row-major position in dims.
inline void NextPosition(Dims& coords, absl::Span<const int64_t> dims) {
  for (size_t d = coords.size(); d-- > 0;) {
    if (++coords[d] < dims[d]) return;
    coords[d] = 0;
  }
}

// One axis of an elementwise walk over two buffers (eval/kernels/strided_axes.h).
using Axis = StridedAxis;
using Axes = StridedAxes;
// Drops size-1 axes and merges an axis into the one outside it when both
// buffers are contiguous across them; leaves at least one axis. False when
// an axis is empty (nothing to visit).
bool NormalizeAxes(Axes& axes);

// Calls row(dst, src, n, dst_stride, src_stride) for each run of the
// innermost axis, the outer axes walked with counters (no div/mod).
template <typename Row>
void ForEachRow(const Axes& axes, int64_t dst, int64_t src, Row&& row) {
  const Axis& inner = axes.back();
  const size_t outer = axes.size() - 1;
  if (outer == 0) {
    row(dst, src, inner.size, inner.dst_stride, inner.src_stride);
    return;
  }
  Dims idx(outer, 0);
  while (true) {
    row(dst, src, inner.size, inner.dst_stride, inner.src_stride);
    size_t d = outer;
    while (d-- > 0) {
      dst += axes[d].dst_stride;
      src += axes[d].src_stride;
      if (++idx[d] < axes[d].size) break;
      dst -= axes[d].dst_stride * axes[d].size;
      src -= axes[d].src_stride * axes[d].size;
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

}  // namespace gather_internal
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GATHER_INDEX_H_
