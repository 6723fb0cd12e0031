#include "eval/kernels/strided_layout.h"

#include <vector>

namespace hlo {
namespace gemm {
namespace {

// The product of `dims`, or nullopt past 2^62 (a shape the verifier
// rejects, reaching here under --no-verify).
std::optional<int64_t> Count(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 62) / d)) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace

std::optional<StridedLayout> RowMajorLayout(absl::Span<const int64_t> dims) {
  if (!Count(dims)) return std::nullopt;
  StridedLayout v;
  v.source.assign(dims.begin(), dims.end());
  v.dims = v.source;
  v.strides.assign(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) v.strides[d - 1] = v.strides[d] * dims[d];
  return v;
}

std::optional<StridedLayout> SliceOf(const StridedLayout& v, absl::Span<const int64_t> starts,
                                     absl::Span<const int64_t> steps,
                                     absl::Span<const int64_t> dims) {
  const size_t rank = v.dims.size();
  if (starts.size() != rank || steps.size() != rank || dims.size() != rank) return std::nullopt;
  StridedLayout out = v;
  out.dims.assign(dims.begin(), dims.end());
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = v.dims[d];
    if (starts[d] < 0 || steps[d] < 1 || dims[d] < 0 ||
        (dims[d] > 0 && (starts[d] >= in || (in - 1 - starts[d]) / steps[d] < dims[d] - 1))) {
      return std::nullopt;
    }
    out.offset += starts[d] * v.strides[d];
    out.strides[d] = v.strides[d] * steps[d];
  }
  return out;
}

std::optional<StridedLayout> TransposeOf(const StridedLayout& v, absl::Span<const int64_t> perm) {
  const size_t rank = v.dims.size();
  if (perm.size() != rank) return std::nullopt;
  StridedLayout out = v;
  std::vector<bool> seen(rank, false);
  for (size_t j = 0; j < rank; ++j) {
    const int64_t d = perm[j];
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen[d]) return std::nullopt;
    seen[d] = true;
    out.dims[j] = v.dims[d];
    out.strides[j] = v.strides[d];
  }
  return out;
}

std::optional<StridedLayout> ReshapeLayout(const StridedLayout& v, absl::Span<const int64_t> dims) {
  const std::optional<int64_t> old_count = Count(v.dims), new_count = Count(dims);
  if (!old_count || !new_count || *old_count != *new_count) return std::nullopt;
  StridedLayout out{v.offset, Dims(dims.begin(), dims.end()), Dims(dims.size(), 0), v.source};
  if (*new_count == 0) return out;  // no element to place
  Dims od, os;                      // the old dims of more than one element
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (v.dims[d] == 1) continue;
    od.push_back(v.dims[d]);
    os.push_back(v.strides[d]);
  }
  size_t oi = 0, ni = 0;
  while (oi < od.size()) {
    while (dims[ni] == 1) ++ni;  // (stride 0: its index is always 0)
    // The smallest groups [oi, oj) and [ni, nj) of equal element counts.
    size_t oj = oi + 1, nj = ni + 1;
    int64_t op = od[oi], np = dims[ni];
    while (op != np) {
      if (np < op) {
        np *= dims[nj++];
      } else {
        op *= od[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k) {
      if (os[k] != os[k + 1] * od[k + 1]) return std::nullopt;
    }
    int64_t stride = os[oj - 1];
    for (size_t k = nj; k-- > ni;) {
      out.strides[k] = stride;
      stride *= dims[k];
    }
    oi = oj;
    ni = nj;
  }
  return out;
}

int64_t LastElement(const StridedLayout& v) {
  int64_t last = v.offset;
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (v.dims[d] == 0) return -1;
    last += (v.dims[d] - 1) * v.strides[d];
  }
  return last;
}

}  // namespace gemm
}  // namespace hlo
