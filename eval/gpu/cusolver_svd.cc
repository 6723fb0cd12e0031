// jaxlib's GPU singular value decompositions (jaxlib/gpu/solver_kernels_ffi.cc),
// run with LAPACK's gesvd on the memory cuSOLVER would see:
//
//   cusolver_gesvd_ffi (a [batch, rows, cols]) -> (a_out, s[batch, n],
//     u, vt[batch, n, n], info), attributes full_matrices, compute_uv,
//     transposed: the call factors the m x n column-major matrix in a's
//     memory, m = cols and n = rows when transposed (else rows, cols), and
//     needs m >= n; u is [batch, m, m] (full), else [batch, m, n] or, when
//     transposed, [batch, n, m] (the same memory).
//   cusolver_gesvdj_ffi (a) -> (a_out, s[batch, k], u[batch, m, m or k],
//     v[batch, n, n or k], info), attributes full_matrices, compute_uv,
//     k = min(m, n): Jacobi's SVD, whose result is V, not V^H.
//
// Without compute_uv, u and v(t) are left zero (cuSOLVER does not write
// them). Singular vectors are LAPACK's: their signs (phases) may differ
// from cuSOLVER's, the products U S V^H do not.
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

using lapack::Call;
using lapack::Matrices;
using lapack::Real;
using lapack::ResultSpec;

template <typename T>
T Conj(T v) {
  if constexpr (lapack::kIsComplex<T>) {
    return std::conj(v);
  } else {
    return v;
  }
}

struct Job {
  bool full = false, uv = true;
  char mode() const { return uv ? (full ? 'A' : 'S') : 'N'; }
};

// LAPACK's gesvd of `batch` m x n column-major matrices in `a`: u is
// m x u_cols (ld m), vt vt_rows x n (ld vt_rows).
template <typename T>
absl::StatusOr<lapack::Memory<int32_t>> RunGesvd(const Job& job, int64_t batch, int m, int n,
                                                 lapack::Memory<T>& a, lapack::Memory<Real<T>>& s,
                                                 lapack::Memory<T>& u, int u_cols,
                                                 lapack::Memory<T>& vt, int vt_rows) {
  lapack::Memory<int32_t> info(batch);
  const int k = std::min(m, n);
  if (k == 0) return info;
  const char mode = job.mode();
  const int lda = std::max(1, m), ldvt = std::max(1, vt_rows);
  HLO_ASSIGN_OR_RETURN(const int lwork, lapack::QueryWorkspace<T>("gesvd", [&](T* w, int l) {
                         lapack::Gesvd<T>(mode, mode, m, n, nullptr, lda, nullptr, nullptr, lda,
                                          nullptr, ldvt, w, l, nullptr);
                       }));
  lapack::Memory<T> work(lwork);
  lapack::Memory<Real<T>> rwork(lapack::kIsComplex<T> ? 5 * k : 0);
  T unused[1] = {};
  const int64_t a_step = int64_t{m} * n, u_step = int64_t{m} * u_cols,
                vt_step = int64_t{vt_rows} * n;
  for (int64_t b = 0; b < batch; ++b) {
    T* ub = mode == 'N' ? unused : u.data() + b * u_step;
    T* vtb = mode == 'N' ? unused : vt.data() + b * vt_step;
    info[b] = lapack::Gesvd(mode, mode, m, n, a.data() + b * a_step, lda, s.data() + b * k, ub, lda,
                            vtb, ldvt, work.data(), lwork, rwork.data());
  }
  return info;
}

template <typename T>
absl::StatusOr<Value> Gesvd(Call& call, const Job& job, bool transposed) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(0, call.type()));
  const int m = transposed ? x.cols : x.rows, n = transposed ? x.rows : x.cols;
  if (n > m) {
    return absl::InvalidArgumentError(StrCat(call.TargetName(), " needs m >= n, not ", m, "x", n,
                                             transposed ? " (transposed)" : ""));
  }
  std::vector<int64_t> u_dims = job.full     ? std::vector<int64_t>{m, m}
                                : transposed ? std::vector<int64_t>{n, m}
                                             : std::vector<int64_t>{m, n};
  const std::vector<int64_t>& b = x.batch_dims;
  HLO_RETURN_IF_ERROR(
      call.ExpectResults({{call.type(), lapack::Append(b, {x.rows, x.cols})},
                          {lapack::PrimitiveTypeOf<Real<T>>(), lapack::Append(b, {n})},
                          {call.type(), lapack::Append(b, {u_dims[0], u_dims[1]})},
                          {call.type(), lapack::Append(b, {n, n})},
                          {PrimitiveType::kS32, b}}));
  const int u_cols = job.full ? m : n;
  lapack::Memory<T> a = call.Load<T>(0), u(x.batch * m * u_cols), vt(x.batch * n * n);
  lapack::Memory<Real<T>> s(x.batch * n);
  HLO_ASSIGN_OR_RETURN(lapack::Memory<int32_t> info,
                       RunGesvd<T>(job, x.batch, m, n, a, s, u, u_cols, vt, n));
  call.Store(0, a);
  call.Store(1, s);
  call.Store(2, u);
  call.Store(3, vt);
  call.Store(4, info);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Gesvdj(Call& call, const Job& job) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(0, call.type()));
  const int m = x.rows, n = x.cols, k = std::min(m, n);
  const int u_cols = job.full ? m : k, v_cols = job.full ? n : k;
  const std::vector<int64_t>& b = x.batch_dims;
  HLO_RETURN_IF_ERROR(
      call.ExpectResults({{call.type(), lapack::Append(b, {m, n})},
                          {lapack::PrimitiveTypeOf<Real<T>>(), lapack::Append(b, {k})},
                          {call.type(), lapack::Append(b, {m, u_cols})},
                          {call.type(), lapack::Append(b, {n, v_cols})},
                          {PrimitiveType::kS32, b}}));
  lapack::Memory<T> a = call.Load<T>(0), u(x.batch * m * u_cols), vt(x.batch * v_cols * n),
                    v(x.batch * n * v_cols);
  lapack::Memory<Real<T>> s(x.batch * k);
  HLO_ASSIGN_OR_RETURN(lapack::Memory<int32_t> info,
                       RunGesvd<T>(job, x.batch, m, n, a, s, u, u_cols, vt, v_cols));
  // v (n x v_cols, column-major) is vt (v_cols x n) adjoint.
  const int64_t step = int64_t{n} * v_cols;
  for (int64_t bi = 0; job.uv && bi < x.batch; ++bi) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < v_cols; ++j) {
        v[bi * step + i + int64_t{j} * n] = Conj(vt[bi * step + j + int64_t{i} * v_cols]);
      }
    }
  }
  call.Store(0, a);
  call.Store(1, s);
  call.Store(2, u);
  call.Store(3, v);
  call.Store(4, info);
  return call.Finish();
}

absl::StatusOr<Job> ReadJob(Call& call) {
  Job job;
  HLO_ASSIGN_OR_RETURN(job.full, call.BoolAttr("full_matrices"));
  HLO_ASSIGN_OR_RETURN(job.uv, call.BoolAttr("compute_uv"));
  return job;
}

}  // namespace

absl::StatusOr<Value> EvalSolverGesvd(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(1));
  HLO_ASSIGN_OR_RETURN(const Job job, ReadJob(call));
  HLO_ASSIGN_OR_RETURN(const bool transposed, call.BoolAttr("transposed"));
  return lapack::WithElementType(call.type(),
                                 [&](auto t) { return Gesvd<decltype(t)>(call, job, transposed); });
}

absl::StatusOr<Value> EvalSolverGesvdj(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(1));
  HLO_ASSIGN_OR_RETURN(const Job job, ReadJob(call));
  return lapack::WithElementType(call.type(),
                                 [&](auto t) { return Gesvdj<decltype(t)>(call, job); });
}

}  // namespace hlo::gpu
