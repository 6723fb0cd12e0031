// Private to eval/kernels/convolution*.cc: a convolution's sizes, and the
// views its fast paths read and write.
#ifndef HLO_EVAL_KERNELS_CONVOLUTION_INTERNAL_H_
#define HLO_EVAL_KERNELS_CONVOLUTION_INTERNAL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/gemm_convert.h"
#include "ir/attribute.h"

namespace hlo {
namespace conv {

using gemm::Dims;

// Sizes of everything, checked against each other and the result shape.
struct Geometry {
  int64_t nsp = 0;                     // spatial dims
  int64_t batch = 0, in_features = 0;  // input
  Dims in_sp;                          // input spatial sizes
  int64_t kernel_in = 0, kernel_out = 0;
  Dims win;  // window (kernel spatial) sizes
  Dims stride, lo, hi, base_dil, win_dil;
  std::vector<bool> reversal;
  Dims padded;  // padded dilated input spatial sizes
  Dims out_sp;
  int64_t out_batch = 0;
  int64_t feature_groups = 1, batch_groups = 1;
  ConvDims labels;

  int64_t groups() const { return feature_groups * batch_groups; }
  int64_t per_group() const { return kernel_out / groups(); }
  int64_t positions() const;  // output positions per output batch element
  int64_t taps() const;       // window positions
};

// Where windows are read from: an array x[batch][spatial...][feature]
// (row-major, features contiguous) that is either the padded, dilated copy
// Xp (pad all zero) or the input itself, read as if padded with pad[i]
// elements before each spatial dim (negative: cropped) and with zeros
// wherever a window reaches outside it.
template <typename T>
struct Source {
  const T* x = nullptr;
  Dims sp;         // spatial sizes of x
  Dims sp_stride;  // element stride of each spatial dim
  int64_t batch_stride = 0;
  Dims pad;  // virtual low padding per spatial dim
};

// The kernel as gemm operands: group g's [taps * kernel_in] x [per_group]
// matrix starts at k + g * group_offset with row stride ld. Either the
// kernel literal itself (spatial..., in, out row-major) or a packed copy.
template <typename T>
struct KernelMatrix {
  const T* k = nullptr;
  int64_t group_offset = 0;
  int64_t ld = 0;
};

// Rows of output are out_batch x output positions, row-major; the output
// row r's features start at out + r * kernel_out.

// The im2col + gemm path (eval/kernels/convolution_gemm.cc): any geometry.
template <typename T>
absl::Status GemmConvolution(const Geometry& g, const Source<T>& src, const KernelMatrix<T>& k,
                             T* out);

// One input feature per feature group (eval/kernels/convolution_depthwise.cc):
// out[f] = sum over taps of x[f / per_group] * k[tap][f], vectorised
// across features; kd is [taps][kernel_out].
template <typename T>
void DepthwiseConvolution(const Geometry& g, const Source<T>& src, const T* kd, T* out);

// Whether x is in bounds in every spatial dim for every tap of the window
// starting at `start` (per dim, in source coordinates).
bool WindowInside(const Geometry& g, const Dims& sp, const Dims& start);

}  // namespace conv
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_CONVOLUTION_INTERNAL_H_
