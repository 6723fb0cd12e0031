// The Winograd F(2x2, 3x3) convolution against a direct 9-tap sum, and the
// OpenBLAS thread-count guard it runs under. Inputs are small integers, so
// every intermediate of both is exact (multiples of 1/4 far below 2^24)
// and the results must be equal, whatever the summation order.
#include "eval/kernels/convolution_winograd.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "eval/blas_api.h"
#include "eval/kernels/gemm.h"

namespace hlo {
namespace {

// out[b][oy][ox][o] = sum over ky, kx, c of x at (oy + ky - pad_top,
// ox + kx - pad_left) (zero outside) times k[ky][kx][c][o].
template <typename T>
std::vector<T> Direct(const conv::WinogradShape& s, const std::vector<T>& x,
                      const std::vector<T>& k) {
  const int64_t C = s.in_features, O = s.out_features;
  std::vector<T> out(s.batch * s.out_h * s.out_w * O, T(0));
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t oy = 0; oy < s.out_h; ++oy) {
      for (int64_t ox = 0; ox < s.out_w; ++ox) {
        T* o = &out[((b * s.out_h + oy) * s.out_w + ox) * O];
        for (int64_t ky = 0; ky < 3; ++ky) {
          for (int64_t kx = 0; kx < 3; ++kx) {
            const int64_t iy = oy + ky - s.pad_top, ix = ox + kx - s.pad_left;
            if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) continue;
            for (int64_t c = 0; c < C; ++c) {
              const T xv = x[((b * s.in_h + iy) * s.in_w + ix) * C + c];
              for (int64_t j = 0; j < O; ++j) o[j] += xv * k[((ky * 3 + kx) * C + c) * O + j];
            }
          }
        }
      }
    }
  }
  return out;
}

template <typename T>
void CheckShape(const conv::WinogradShape& s, std::mt19937& rng) {
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<T> x(s.batch * s.in_h * s.in_w * s.in_features);
  std::vector<T> k(9 * s.in_features * s.out_features);
  for (T& v : x) v = T(small(rng));
  for (T& v : k) v = T(small(rng));
  std::vector<T> got(s.batch * s.out_h * s.out_w * s.out_features, T(-999));
  REQUIRE(conv::Winograd3x3<T>(s, x.data(), k.data(), got.data()).ok());
  CHECK(got == Direct(s, x, k));
}

TEST_CASE("Winograd 3x3 equals the direct sum: odd sizes, padding 0-2, batches", "[winograd]") {
  std::mt19937 rng(7);
  // {batch, in_h, in_w, pad_top, pad_left, pad_bottom, pad_right, C, O}
  const int64_t cases[][9] = {
      {1, 3, 3, 0, 0, 0, 0, 4, 4},      // one output, one partial tile
      {2, 5, 7, 0, 0, 0, 0, 16, 16},    // odd outputs 3x5
      {3, 6, 6, 1, 1, 1, 1, 5, 17},     // even outputs, batch 3
      {2, 7, 9, 2, 2, 2, 2, 16, 8},     // padding 2: tiles wholly in the padding
      {1, 4, 5, 2, 0, 1, 2, 9, 20},     // asymmetric padding
      {2, 1, 1, 1, 1, 1, 1, 16, 16},    // a 1x1 input padded to 3x3
      {1, 40, 33, 1, 1, 1, 1, 16, 16},  // several blocks of tiles
  };
  for (const auto& c : cases) {
    conv::WinogradShape s;
    s.batch = c[0];
    s.in_h = c[1];
    s.in_w = c[2];
    s.pad_top = c[3];
    s.pad_left = c[4];
    s.out_h = c[3] + c[1] + c[5] - 2;
    s.out_w = c[4] + c[2] + c[6] - 2;
    s.in_features = c[7];
    s.out_features = c[8];
    INFO("batch " << s.batch << " input " << s.in_h << "x" << s.in_w << " output " << s.out_h << "x"
                  << s.out_w << " features " << s.in_features << "->" << s.out_features);
    CheckShape<float>(s, rng);
    CheckShape<double>(s, rng);
  }
}

TEST_CASE("SingleThreadedBlas nests and restores OpenBLAS's thread count", "[winograd]") {
  const int before = blas::Threads();
  {
    gemm::SingleThreadedBlas outer;
    CHECK(blas::Threads() == 1);
    {
      gemm::SingleThreadedBlas inner;
      CHECK(blas::Threads() == 1);
    }
    CHECK(blas::Threads() == 1);
  }
  CHECK(blas::Threads() == before);
}

}  // namespace
}  // namespace hlo
