// jaxlib's CPU LAPACK custom-calls (see eval/linalg/lapack_call.h), one entry per
// routine family; custom_call.cc maps target names to them. Each takes both
// the `_ffi` form and, where jaxlib had one, the legacy form.
#ifndef HLO_EVAL_LINALG_LAPACK_KERNELS_H_
#define HLO_EVAL_LINALG_LAPACK_KERNELS_H_

#include "absl/status/statusor.h"
#include "eval/linalg/lapack_call.h"

namespace hlo::lapack {

// eval/linalg/lapack_triangular.cc
absl::StatusOr<Value> EvalPotrf(Call& call);  // Cholesky
absl::StatusOr<Value> EvalTrsm(Call& call);   // triangular solve (BLAS)

// eval/linalg/lapack_qr.cc
absl::StatusOr<Value> EvalGetrf(Call& call);  // LU with partial pivoting
absl::StatusOr<Value> EvalGeqrf(Call& call);  // QR (Householder)
absl::StatusOr<Value> EvalGeqp3(Call& call);  // QR with column pivoting
absl::StatusOr<Value> EvalOrgqr(Call& call);  // orgqr / ungqr: Q from reflectors
absl::StatusOr<Value> EvalOrmqr(Call& call);  // ormqr / unmqr: Q times a matrix

// eval/linalg/lapack_svd.cc
absl::StatusOr<Value> EvalGesdd(Call& call);  // SVD, divide and conquer
absl::StatusOr<Value> EvalGesvd(Call& call);  // SVD, QR iteration

// eval/linalg/lapack_eigen.cc
absl::StatusOr<Value> EvalSyevd(Call& call);  // syevd / heevd: Hermitian eigensystem
absl::StatusOr<Value> EvalGeev(Call& call);   // general eigensystem
absl::StatusOr<Value> EvalGees(Call& call);   // Schur factorisation

// eval/linalg/lapack_reduction.cc
absl::StatusOr<Value> EvalGehrd(Call& call);  // Hessenberg reduction
absl::StatusOr<Value> EvalSytrd(Call& call);  // sytrd / hetrd: tridiagonal reduction
absl::StatusOr<Value> EvalGtsv(Call& call);   // tridiagonal solve

}  // namespace hlo::lapack

#endif  // HLO_EVAL_LINALG_LAPACK_KERNELS_H_
