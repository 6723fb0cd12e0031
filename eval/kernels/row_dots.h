// Row dot products y[r] = sum_c mat[r][c] x[c] for f32 and f64, the
// matrix-vector product of a dot with one row or column (a while loop's
// M . v): AVX-512, eight rows at a time against one vector of x. OpenBLAS's
// sgemv_t (Haswell kernel, four rows at a time) took 1.75-2.0 us for
// f32[128,256] from L2 on one core; this takes 1.27 us (an AVX2 version of
// it took 1.42 us: machines without AVX-512 keep OpenBLAS's kernel).
//
// Each row is summed the same way whatever rows go with it (per lane, in
// column order, then folded in a fixed tree), so a product split by rows
// across the cores gives the bits of one call.
#ifndef HLO_EVAL_KERNELS_ROW_DOTS_H_
#define HLO_EVAL_KERNELS_ROW_DOTS_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// Whether RowDots runs on this machine (AVX-512F); without it callers use
// OpenBLAS's gemv.
bool HasRowDots();

// y[r * incy] = sum_c mat[r * ld + c] * x[c] for r < rows, c < cols (x
// contiguous). Requires HasRowDots().
void RowDots(int64_t rows, int64_t cols, const float* mat, int64_t ld, const float* x, float* y,
             int64_t incy);
void RowDots(int64_t rows, int64_t cols, const double* mat, int64_t ld, const double* x,
             double* y, int64_t incy);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_ROW_DOTS_H_
