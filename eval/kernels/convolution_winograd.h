// Winograd F(2x2, 3x3) convolution (Lavin & Gray 2015) for the convolution
// kernel's fast path, and the core-splitting helper both paths share.
//
// A 3x3 stride-1 window over a padded NHWC input becomes, per 2x2 output
// tile, 16 products of transformed 4x4 input tiles (B^T d B) with the
// transformed kernel (G g G^T): 16 independent gemms [tiles x C] @ [C x O],
// then A^T m A gives the 2x2 outputs. That is 2.25x fewer multiplications
// than im2col; the transform coefficients are 0, +-1 and +-1/2, so rounding
// stays close to direct summation.
#ifndef HLO_EVAL_KERNELS_CONVOLUTION_WINOGRAD_H_
#define HLO_EVAL_KERNELS_CONVOLUTION_WINOGRAD_H_

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "eval/runtime/parallel.h"

namespace hlo {
namespace conv {

using ::hlo::ParallelRows;

// A convolution the Winograd path takes: the input in canonical layout
// x[batch][in_h][in_w][in_features], read as if padded with pad_top rows
// and pad_left columns of zeros before it (and zeros after it, as far as
// the output needs); the kernel as kc[3 * ky + kx][in_features]
// [out_features] (correlation taps, reversal applied); the output
// out[batch][out_h][out_w][out_features], out_h <= pad_top + in_h + 2 - 2
// + (zero rows after), likewise out_w.
struct WinogradShape {
  int64_t batch = 0, in_h = 0, in_w = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t in_features = 0, out_features = 0;
};

// Whether the Winograd path pays for this many features. Measured on
// f32[8,56,56,C] 3x3 pad 1 against im2col (min ms, 2 cores): C=O=1 0.84
// vs 0.73, C=O=2 0.74 vs 0.78, C=O=4 1.0 vs 1.4, C=O=8 0.7 vs 2.2,
// C=O=16 0.95 vs 3.9, C=O=64 ~6 vs ~11, C=64 O=4 1.8 vs 13.2, C=3 O=64
// 1.2 vs 2.1: it pays from about 16 feature pairs on. It also needs a full
// block of output tiles (2x2 outputs each, 64 a block) to pay for
// transforming the kernel (16 planes of C x O per call): f32[2,7,7,512]
// (32 tiles, one core) took 17.6 ms min against 11.7 with im2col, while
// f32[2,14,14,256] (98 tiles) took 3.2-3.8 against 5.4-6.7.
bool WinogradPays(int64_t in_features, int64_t out_features, int64_t tiles);

// The convolution above into `out`. T: float or double. Fails only when a
// scratch buffer cannot be allocated.
template <typename T>
absl::Status Winograd3x3(const WinogradShape& s, const T* x, const T* kc, T* out);

}  // namespace conv
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_CONVOLUTION_WINOGRAD_H_
