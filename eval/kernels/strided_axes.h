// Axes of a strided walk over two buffers (a copy, a gather slice, a
// scatter window), and the normalisation every such walk starts with.
#ifndef HLO_EVAL_KERNELS_STRIDED_AXES_H_
#define HLO_EVAL_KERNELS_STRIDED_AXES_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"

namespace hlo {

// One axis; strides are in elements and may be negative (reverse) or zero
// (broadcast, on the source side).
struct StridedAxis {
  int64_t size;
  int64_t dst_stride;
  int64_t src_stride;
};
using StridedAxes = absl::InlinedVector<StridedAxis, 6>;

// Drops axes of size 1 and merges an axis into the one outside it when the
// pair is contiguous in both buffers. False when an axis is empty (nothing
// to visit).
inline bool MergeContiguousAxes(StridedAxes& axes) {
  size_t kept = 0;  // axes[0, kept) are the normalized outer axes so far
  for (size_t i = 0; i < axes.size(); ++i) {
    const StridedAxis a = axes[i];
    if (a.size <= 0) return false;
    if (a.size == 1) continue;
    if (kept > 0) {
      StridedAxis& outer = axes[kept - 1];
      if (outer.dst_stride == a.dst_stride * a.size && outer.src_stride == a.src_stride * a.size) {
        outer.size *= a.size;
        outer.dst_stride = a.dst_stride;
        outer.src_stride = a.src_stride;
        continue;
      }
    }
    axes[kept++] = a;
  }
  axes.resize(kept);
  return true;
}

namespace data_internal {
// Copies elements of `width` bytes (1, 2, 4, 8 or 16) from src to dst
// along `axes` (outermost first), dst and src pointing at the element of
// index 0: memcpy runs, fills, tiled transposes (eval/kernels/data_copy.cc).
void StridedCopy(int width, uint8_t* dst, const uint8_t* src, StridedAxes axes);
// Sets `count` elements of `width` bytes at dst to the element at `value`
// (typed stores for 1, 2, 4, 8 and 16 bytes, memset for zeros).
void FillElements(int width, uint8_t* dst, int64_t count, const uint8_t* value);
}  // namespace data_internal

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_STRIDED_AXES_H_
