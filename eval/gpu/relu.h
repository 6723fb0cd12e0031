// ReLU of an f64 value without a branch, for the GPU epilogues' typed
// loops: x < 0 ? +0 : x, where a branch on the sign of random data
// mispredicts every other element.
#ifndef HLO_EVAL_GPU_RELU_H_
#define HLO_EVAL_GPU_RELU_H_

#include <cstdint>
#include <cstring>

namespace hlo::gpu {

// A mask on x's bits (x where x is NaN or -0, as the ternary gives): GCC's
// vectoriser takes this select, where it leaves the ternary a branch
// (floating compares may trap), so the f32 epilogue's loop vectorises.
inline double ReluF64(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits &= x < 0 ? 0 : ~uint64_t{0};
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_RELU_H_
