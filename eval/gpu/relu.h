// ReLU of an f64 value without a branch, for the GPU epilogues' typed
// loops: x < 0 ? 0 : x, where a branch on the sign of random data
// mispredicts every other element.
#ifndef HLO_EVAL_GPU_RELU_H_
#define HLO_EVAL_GPU_RELU_H_

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hlo::gpu {

// MAXSD(0, x) is 0 > x ? 0 : x: x where x is NaN or -0, as the ternary
// gives.
inline double ReluF64(double x) {
#if defined(__SSE2__)
  return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(0.0), _mm_set_sd(x)));
#else
  return x < 0 ? 0 : x;
#endif
}

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_RELU_H_
