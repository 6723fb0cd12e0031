// Row dot products y[r] = sum_c mat[r][c] x[c] for f32 and f64, the
// matrix-vector product of a dot with one row or column (a while loop's
// M . v): AVX-512, up to 16 vectors of x held in registers and the matrix
// read row after row. For f32[256,256] from L2 on one core: OpenBLAS's
// sgemv_t (Haswell kernel) 3.4 us, eight rows at a time against one x
// vector 2.4 us, this 1.65 us (a plain read of the matrix: 1.6 us).
// Machines without AVX-512 run a plain loop with the same bits.
//
// Each row is summed the same way whatever rows go with it and whatever the
// machine: 64 bytes of lanes (16 f32, 8 f64), lane l a chain of fused
// multiply-adds over the columns c = l mod lanes in order from +0, then the
// lanes folded in halves (16 -> 8 -> 4 -> 2 -> 1). So a product split by
// rows across the cores gives the bits of one call, and the rounding grows
// with cols / lanes, not cols.
#ifndef HLO_EVAL_KERNELS_ROW_DOTS_H_
#define HLO_EVAL_KERNELS_ROW_DOTS_H_

#include <cstdint>

namespace hlo {
namespace gemm {

// y[r * incy] = sum_c mat[r * ld + c] * x[c] for r < rows, c < cols (x
// contiguous).
void RowDots(int64_t rows, int64_t cols, const float* mat, int64_t ld, const float* x, float* y,
             int64_t incy);
void RowDots(int64_t rows, int64_t cols, const double* mat, int64_t ld, const double* x, double* y,
             int64_t incy);
// The loop machines without AVX-512 run (tests: the same bits).
void PortableRowDots(int64_t rows, int64_t cols, const float* mat, int64_t ld, const float* x,
                     float* y, int64_t incy);
void PortableRowDots(int64_t rows, int64_t cols, const double* mat, int64_t ld, const double* x,
                     double* y, int64_t incy);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_ROW_DOTS_H_
