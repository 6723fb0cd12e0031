// Matrix products for the dot and convolution kernels: one gemm entry point
// per compute type (OpenBLAS sgemm/dgemm/cgemm/zgemm for floats, an exact
// wrapping loop for integers), and a general strided "dot core" that maps a
// dot_general over strided views onto (batched) gemm calls.
#ifndef HLO_EVAL_KERNELS_GEMM_H_
#define HLO_EVAL_KERNELS_GEMM_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"

namespace hlo {
namespace gemm {

// C (m x n, row-major with leading dimension ldc) = op(A) * op(B), where
// op(A) is m x k: A[i*lda + p] untransposed, A[p*lda + i] transposed (and
// likewise B, k x n). C is overwritten. T: float, double, complex<float>,
// complex<double>, uint64_t. Floats go to OpenBLAS, always on the calling
// thread alone, a large product cut into parts across the cores (the parts,
// and so the bits, follow from the shape alone), except small products (up
// to 2^12 multiply-adds, 2^15 complex),
// which run as a plain loop summing in k order like XLA's reference
// evaluator, and f32/f64 products of at most 1024 results over k >= 32
// and matrix-vector products that dot a matrix's rows with a contiguous
// vector, which sum each result in lanes (eval/kernels/row_dots.h, the
// same bits on every machine); uint64 runs the exact wrapping loop, or a
// float product where that is exact too (eval/kernels/gemm_exact_int.h).
// `calls`: how many products of this shape the caller runs for one
// instruction (a batched dot's batches). The libraries that cost a one-time
// set-up (libxsmm, oneDNN) weigh the instruction's whole work against their
// thresholds, so that the choice, and the bits, follow from the
// instruction's shape alone.
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T* c, int64_t ldc, int64_t calls = 1);

// While one is alive, OpenBLAS runs each call on the calling thread only,
// so that callers can split many small independent products across the
// cores themselves: no wake-up of OpenBLAS's workers per call, and no
// workers spinning for work while the callers transform data between
// calls. Usable from several threads at once and nested: the first one in
// saves OpenBLAS's thread count, the last one out restores it (other OpenBLAS
// calls meanwhile run single-threaded too; Gemm's always do, so its results
// never depend on it).
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

// For a process that evaluates only on the side (hlo-opt's constant
// folding): OpenBLAS runs every later call on the calling thread, and its
// worker threads, started when the library loads, are stopped. Idle workers
// spin for work for a while after start-up and after each call, on a core
// the process could use (measured: hlo-opt -O on the 100k-instruction bench
// module ran its passes about 15% slower with them).
void StopBlasThreads();
// The same stop of the workers that started with the library, keeping their
// number: OpenBLAS starts them again at its next threaded call (a large
// LAPACK routine). Until then they do not spin beside the evaluator; one of
// them sharing the evaluating thread's core made a short program's median
// time bimodal (0.14 or 0.24 ms, random_threefry's before.hlo).
void ParkBlasThreads();

using Dims = absl::InlinedVector<int64_t, 6>;

// An array as a base pointer and per-dimension sizes and element strides
// (a literal's row-major storage, or a sub-view of it).
template <typename T>
struct View {
  T* base = nullptr;
  Dims dims;
  Dims strides;
};

template <typename T>
View<T> RowMajorView(T* base, absl::Span<const int64_t> dims) {
  View<T> v{base, Dims(dims.begin(), dims.end()), Dims(dims.size(), 1)};
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    v.strides[i] = v.strides[i + 1] * dims[i + 1];
  }
  return v;
}

// Removes dimension d of a view, keeping index `at` of it.
template <typename T>
void FixDim(View<T>& v, int64_t d, int64_t at) {
  v.base += at * v.strides[d];
  v.dims.erase(v.dims.begin() + d);
  v.strides.erase(v.strides.begin() + d);
}

// Dimension numbers of a dot_general over views (validated by the caller).
struct DotDimNumbers {
  Dims lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};

// out = dot_general(lhs, rhs): out's dims are the batch dims, then lhs's free
// dims, then rhs's free dims, each in order. Operands whose matrix dims are
// contiguous go to gemm as they are (with transpose flags); others are packed
// once per batch. Fails only when a scratch buffer cannot be allocated.
template <typename T>
absl::Status DotCore(const View<const T>& lhs, const View<const T>& rhs, const View<T>& out,
                     const DotDimNumbers& d);

}  // namespace gemm
}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_GEMM_H_
