// Strided layouts of slices and reshapes (strided_layout.h) against the
// storage index of every element, enumerated here one by one.
#include "eval/kernels/strided_layout.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

namespace hlo {
namespace {

using gemm::Dims;
using gemm::StridedLayout;

// The slice of a whole row-major array of dims `in`.
std::optional<StridedLayout> SliceLayout(const Dims& in, const Dims& starts, const Dims& steps,
                                         const Dims& dims) {
  std::optional<StridedLayout> whole = gemm::RowMajorLayout(in);
  if (!whole) return std::nullopt;
  return gemm::SliceOf(*whole, starts, steps, dims);
}

// The storage index of each element of a slice of a row-major array, in
// the slice's row-major order.
std::vector<int64_t> SliceIndices(const Dims& in, const Dims& starts, const Dims& steps,
                                  const Dims& dims) {
  const size_t rank = in.size();
  Dims stride(rank, 1);
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * in[d];
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> out;
  Dims idx(rank, 0);
  for (int64_t e = 0; e < count; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d) at += (starts[d] + idx[d] * steps[d]) * stride[d];
    out.push_back(at);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// Each element's storage index by the layout, in its row-major order.
std::vector<int64_t> LayoutIndices(const StridedLayout& v) {
  int64_t count = 1;
  for (int64_t d : v.dims) count *= d;
  std::vector<int64_t> out;
  Dims idx(v.dims.size(), 0);
  for (int64_t e = 0; e < count; ++e) {
    int64_t at = v.offset;
    for (size_t d = 0; d < v.dims.size(); ++d) at += idx[d] * v.strides[d];
    out.push_back(at);
    for (size_t d = v.dims.size(); d-- > 0;) {
      if (++idx[d] < v.dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

TEST_CASE("a slice's layout places every element where the slice reads it", "[strided_layout]") {
  std::mt19937 rng(5);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int reshaped = 0, refused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t rank = static_cast<size_t>(pick(1, 4));
    Dims in(rank), starts(rank), steps(rank), dims(rank);
    for (size_t d = 0; d < rank; ++d) {
      in[d] = pick(1, 6);
      starts[d] = pick(0, in[d] - 1);
      steps[d] = pick(1, 3);
      dims[d] = pick(1, 1 + (in[d] - 1 - starts[d]) / steps[d]);
    }
    std::optional<StridedLayout> v = SliceLayout(in, starts, steps, dims);
    REQUIRE(v.has_value());
    const std::vector<int64_t> want = SliceIndices(in, starts, steps, dims);
    REQUIRE(LayoutIndices(*v) == want);
    REQUIRE(gemm::LastElement(*v) == *std::max_element(want.begin(), want.end()));
    // A random reshape: the count split into factors, size-1 dims among them.
    int64_t rest = static_cast<int64_t>(want.size());
    Dims shape;
    while (rest > 1 || shape.empty() || pick(0, 3) == 0) {
      if (pick(0, 4) == 0 || rest == 1) {
        shape.push_back(1);
        if (shape.size() > 6) break;
        continue;
      }
      int64_t f = pick(2, rest);
      while (rest % f != 0) --f;
      shape.push_back(f);
      rest /= f;
    }
    if (rest != 1) continue;
    std::optional<StridedLayout> r = gemm::ReshapeLayout(*v, shape);
    if (!r) {
      ++refused;
      continue;
    }
    ++reshaped;
    REQUIRE(LayoutIndices(*r) == want);  // the same elements, in the same order
  }
  CHECK(reshaped > 500);
  CHECK(refused > 50);
}

TEST_CASE("a transpose of a slice places every element where it reads it", "[strided_layout]") {
  // [4,6] -> rows 1..3, every other column from 1 -> transposed: element
  // (j, i) of the result is element (1 + i, 1 + 2 j) of the array.
  std::optional<StridedLayout> v = SliceLayout(Dims{4, 6}, Dims{1, 1}, Dims{1, 2}, Dims{3, 3});
  REQUIRE(v.has_value());
  std::optional<StridedLayout> t = gemm::TransposeOf(*v, Dims{1, 0});
  REQUIRE(t.has_value());
  std::vector<int64_t> want;
  for (int64_t j = 0; j < 3; ++j) {
    for (int64_t i = 0; i < 3; ++i) want.push_back((1 + i) * 6 + 1 + 2 * j);
  }
  CHECK(LayoutIndices(*t) == want);
  // A slice of the transposed view: its columns 1..2.
  std::optional<StridedLayout> s = gemm::SliceOf(*t, Dims{0, 1}, Dims{1, 1}, Dims{3, 2});
  REQUIRE(s.has_value());
  std::vector<int64_t> want_s;
  for (int64_t j = 0; j < 3; ++j) {
    for (int64_t i = 1; i < 3; ++i) want_s.push_back((1 + i) * 6 + 1 + 2 * j);
  }
  CHECK(LayoutIndices(*s) == want_s);
  CHECK_FALSE(gemm::SliceOf(*t, Dims{0, 2}, Dims{1, 1}, Dims{3, 2}).has_value());  // past it
  CHECK_FALSE(gemm::TransposeOf(*v, Dims{0, 0}).has_value());
  CHECK_FALSE(gemm::TransposeOf(*v, Dims{0}).has_value());
}

TEST_CASE("a reshape that would need a copy is refused", "[strided_layout]") {
  // Columns 0..3 of a [2,6] array: the rows are not one run.
  std::optional<StridedLayout> v = SliceLayout(Dims{2, 6}, Dims{0, 0}, Dims{1, 1}, Dims{2, 4});
  REQUIRE(v.has_value());
  CHECK_FALSE(gemm::ReshapeLayout(*v, Dims{8}).has_value());
  std::optional<StridedLayout> split = gemm::ReshapeLayout(*v, Dims{2, 2, 2});
  REQUIRE(split.has_value());
  CHECK(split->strides == Dims{6, 2, 1});
  CHECK_FALSE(gemm::ReshapeLayout(*v, Dims{9}).has_value());  // another count
}

TEST_CASE("a slice past its array has no layout", "[strided_layout]") {
  CHECK_FALSE(SliceLayout(Dims{4}, Dims{2}, Dims{1}, Dims{3}).has_value());
  CHECK_FALSE(SliceLayout(Dims{4}, Dims{0}, Dims{2}, Dims{3}).has_value());
  CHECK(SliceLayout(Dims{4}, Dims{0}, Dims{2}, Dims{2}).has_value());
  CHECK_FALSE(SliceLayout(Dims{4}, Dims{-1}, Dims{1}, Dims{2}).has_value());
  CHECK_FALSE(SliceLayout(Dims{4}, Dims{0}, Dims{0}, Dims{2}).has_value());
}

}  // namespace
}  // namespace hlo
