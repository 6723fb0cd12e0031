#include "eval/kernels/gather_index.h"

#include <cstring>
#include <limits>

#include "eval/type_dispatch.h"
#include "ir/strings.h"

namespace hlo {
namespace gather_internal {
namespace {

template <typename T>
int64_t ReadIndex(const uint8_t* data, int64_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return static_cast<int64_t>(v);
}

}  // namespace

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

Dims RowMajorStrides(absl::Span<const int64_t> dims) {
  Dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

IndexReader ReaderFor(PrimitiveType type) {
  if (!IsInteger(type)) return nullptr;
  IndexReader reader = nullptr;
  DispatchType(type, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) reader = &ReadIndex<T>;
  });
  return reader;
}

absl::Status CheckDimList(std::string_view op, std::string_view name,
                          absl::Span<const int64_t> dims, int64_t bound, bool sorted) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= bound) {
      return Invalid(
          StrCat(op, " ", name, "=", DimsText(dims), ": ", dims[i], " is not in [0, ", bound, ")"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (dims[j] == dims[i]) {
        return Invalid(StrCat(op, " ", name, "=", DimsText(dims), " repeats ", dims[i]));
      }
    }
    if (sorted && i > 0 && dims[i - 1] > dims[i]) {
      return Invalid(StrCat(op, " ", name, "=", DimsText(dims), " must be ascending"));
    }
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> list, int64_t value) {
  for (int64_t v : list) {
    if (v == value) return true;
  }
  return false;
}

absl::Status CheckDisjoint(std::string_view op, std::string_view a_name,
                           absl::Span<const int64_t> a, std::string_view b_name,
                           absl::Span<const int64_t> b) {
  for (int64_t v : a) {
    if (Contains(b, v)) {
      return Invalid(StrCat(op, " dimension ", v, " is in both ", a_name, " and ", b_name));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<IndexBatch> MakeIndexBatch(std::string_view op, const Shape& indices,
                                          int64_t index_vector_dim) {
  const int64_t rank = indices.rank();
  if (index_vector_dim < 0 || index_vector_dim > rank) {
    return Invalid(StrCat(op, " index_vector_dim=", index_vector_dim, " is not in [0, ", rank,
                          "] for indices ", indices.ToString(false)));
  }
  IndexBatch b;
  Dims strides = RowMajorStrides(indices.dims());
  for (int64_t d = 0; d < rank; ++d) {
    if (d == index_vector_dim) {
      b.vector_size = indices.dim(d);
      b.vector_stride = strides[d];
      continue;
    }
    b.dims.push_back(indices.dim(d));
    b.array_dim.push_back(d);
    b.strides.push_back(strides[d]);
    if (__builtin_mul_overflow(b.count, indices.dim(d), &b.count)) {
      return Invalid(StrCat(op, " indices ", indices.ToString(false), " are too large"));
    }
  }
  return b;
}

bool NormalizeAxes(Axes& axes) {
  if (!MergeContiguousAxes(axes)) return false;
  if (axes.empty()) axes.push_back({1, 1, 1});
  return true;
}

}  // namespace gather_internal
}  // namespace hlo
