// LU and QR factorisations, as jaxlib's CPU kernels run them
// (jaxlib/cpu/lapack_kernels.cc). x is [batch..., m, n], k = min(m, n):
//
//   lapack_?getrf_ffi (x) -> (x_out, ipiv s32[batch..., k] (1-based), info)
//   lapack_?getrf     (batch, m, n, x) -> the same
//   lapack_?geqrf_ffi (x) -> (x_out, tau[batch..., k]); no info
//   lapack_?geqrf     (batch, m, n, lwork, x) -> (x_out, tau, info, work[lwork])
//   lapack_?geqp3_ffi (x, jpvt s32[batch..., n]) -> (x_out, jpvt_out, tau):
//     jpvt's nonzero entries pin columns to the front (LAPACK's rule)
//   lapack_?orgqr_ffi / ?ungqr_ffi (x, tau[batch..., k']) -> x_out: the
//     first n columns of Q from the k' reflectors in x and tau
//   lapack_?orgqr / ?ungqr (batch, m, n, k', lwork, x, tau) -> (x_out, info,
//     work[lwork])
//   lapack_?ormqr_ffi / ?unmqr_ffi (a, tau, c) -> c_out, attributes left and
//     transpose (booleans): op(Q) c or c op(Q), op the adjoint when transpose
//
// Workspaces are LAPACK's optimal size (its query), as jaxlib's; a legacy
// form's work result is left zero.
#include <algorithm>

#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/strings.h"

namespace hlo::lapack {
namespace {

constexpr PrimitiveType kS32 = PrimitiveType::kS32;

// The legacy forms' workspace result: lwork elements, from operand `i`.
absl::StatusOr<int64_t> LegacyLwork(Call& call, int64_t i) {
  HLO_ASSIGN_OR_RETURN(const int64_t lwork, call.ScalarOperand(i, kS32, "lwork"));
  if (lwork < 0) return absl::InvalidArgumentError(StrCat("lwork must not be negative: ", lwork));
  return lwork;
}

// The number of reflectors: tau (operand i) is [batch..., k].
absl::StatusOr<int> TauLength(Call& call, int64_t i, const std::vector<int64_t>& batch_dims) {
  HLO_RETURN_IF_ERROR(call.ExpectOperand(i, call.type(), Append(batch_dims, {kAnySize}), "tau"));
  const Shape& s = call.OperandShape(i);
  return LapackInt(s.dim(s.rank() - 1), "the number of reflectors");
}

// The results when there is nothing to factor (an empty matrix, no
// reflectors): result 0 is operand `x_index` as it came, the others zero.
absl::StatusOr<Value> Unchanged(Call& call, int64_t x_index) {
  WithElementType(call.type(), [&](auto t) {
    call.Store(0, call.Load<decltype(t)>(x_index));
    return 0;
  });
  return call.Finish();
}

// geqp3's first step (LAPACK's "move initial columns up front"): the
// columns with a nonzero jpvt entry are swapped to the front in order, and
// jpvt becomes the 1-based permutation that makes.
void PinColumns(int32_t* jpvt, int64_t n) {
  int32_t fixed = 1;
  for (int32_t j = 1; j <= n; ++j) {
    if (jpvt[j - 1] == 0) {
      jpvt[j - 1] = j;
      continue;
    }
    if (j != fixed) {
      jpvt[j - 1] = jpvt[fixed - 1];
      jpvt[fixed - 1] = j;
    } else {
      jpvt[j - 1] = j;
    }
    ++fixed;
  }
}

template <typename T>
absl::StatusOr<Value> Getrf(Call& call) {
  const bool ffi = call.target().ffi;
  const int64_t x_index = ffi ? 0 : 3;
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(x_index, call.type()));
  if (!ffi)
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{0, "batch", x.batch}, {1, "m", x.rows}, {2, "n", x.cols}}));
  const int k = std::min(x.rows, x.cols);
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), Append(x.batch_dims, {x.rows, x.cols})},
                                          {kS32, Append(x.batch_dims, {k})},
                                          {kS32, x.batch_dims}}));
  Memory<T> a = call.Load<T>(x_index);
  Memory<int32_t> ipiv(x.batch * k), info(x.batch);
  const int64_t step = int64_t{x.rows} * x.cols;
  for (int64_t b = 0; k > 0 && b < x.batch; ++b) {
    info[b] = lapack::Getrf(x.rows, x.cols, a.data() + b * step, std::max(1, x.rows),
                            ipiv.data() + b * k);
  }
  call.Store(0, a);
  call.Store(1, ipiv);
  call.Store(2, info);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Geqrf(Call& call) {
  const bool ffi = call.target().ffi;
  const int64_t x_index = ffi ? 0 : 4;
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(x_index, call.type()));
  const int k = std::min(x.rows, x.cols);
  const int lda = std::max(1, x.rows);
  std::vector<ResultSpec> specs = {{call.type(), Append(x.batch_dims, {x.rows, x.cols})},
                                   {call.type(), Append(x.batch_dims, {k})}};
  if (!ffi) {
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{0, "batch", x.batch}, {1, "m", x.rows}, {2, "n", x.cols}}));
    HLO_ASSIGN_OR_RETURN(const int64_t lwork, LegacyLwork(call, 3));
    specs.push_back({kS32, x.batch_dims});
    specs.push_back({call.type(), {lwork}});
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  if (k == 0) return Unchanged(call, x_index);
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("geqrf", [&](T* w, int l) {
                         lapack::Geqrf<T>(x.rows, x.cols, nullptr, lda, nullptr, w, l);
                       }));
  Memory<T> a = call.Load<T>(x_index), tau(x.batch * k), work(lwork);
  Memory<int32_t> info(x.batch);
  const int64_t step = int64_t{x.rows} * x.cols;
  for (int64_t b = 0; b < x.batch; ++b) {
    info[b] = lapack::Geqrf(x.rows, x.cols, a.data() + b * step, lda, tau.data() + b * k,
                            work.data(), lwork);
  }
  call.Store(0, a);
  call.Store(1, tau);
  if (!ffi) call.Store(2, info);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Geqp3(Call& call) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(0, call.type()));
  HLO_RETURN_IF_ERROR(call.ExpectOperand(1, kS32, Append(x.batch_dims, {x.cols}), "jpvt"));
  const int k = std::min(x.rows, x.cols);
  const int lda = std::max(1, x.rows);
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), Append(x.batch_dims, {x.rows, x.cols})},
                                          {kS32, Append(x.batch_dims, {x.cols})},
                                          {call.type(), Append(x.batch_dims, {k})}}));
  if (x.cols == 0) return Unchanged(call, 0);
  if (x.rows == 0) {
    // Nothing to factor, but jpvt is still ordered; done here, as LAPACK's
    // own m = 0 path asks ormqr for more workspace than its query gave.
    Memory<int32_t> jpvt = call.Load<int32_t>(1);
    for (int64_t b = 0; b < x.batch; ++b) PinColumns(jpvt.data() + b * x.cols, x.cols);
    call.Store(1, jpvt);
    return Unchanged(call, 0);
  }
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("geqp3", [&](T* w, int l) {
                         lapack::Geqp3<T>(x.rows, x.cols, nullptr, lda, nullptr, nullptr, w, l,
                                          nullptr);
                       }));
  Memory<T> a = call.Load<T>(0), tau(x.batch * k), work(lwork);
  Memory<int32_t> jpvt = call.Load<int32_t>(1);
  Memory<Real<T>> rwork(2 * static_cast<size_t>(x.cols));
  const int64_t step = int64_t{x.rows} * x.cols;
  for (int64_t b = 0; b < x.batch; ++b) {
    lapack::Geqp3(x.rows, x.cols, a.data() + b * step, lda, jpvt.data() + b * x.cols,
                  tau.data() + b * k, work.data(), lwork, rwork.data());
  }
  call.Store(0, a);
  call.Store(1, jpvt);
  call.Store(2, tau);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Orgqr(Call& call) {
  const bool ffi = call.target().ffi;
  const int64_t x_index = ffi ? 0 : 5;
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(x_index, call.type()));
  HLO_ASSIGN_OR_RETURN(const int k, TauLength(call, x_index + 1, x.batch_dims));
  if (!(x.rows >= x.cols && x.cols >= k)) {
    return absl::InvalidArgumentError(StrCat(call.TargetName(), " needs m >= n >= k, but x is ",
                                             x.rows, "x", x.cols, " with ", k, " reflectors"));
  }
  const int lda = std::max(1, x.rows);
  std::vector<ResultSpec> specs = {{call.type(), Append(x.batch_dims, {x.rows, x.cols})}};
  if (!ffi) {
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{0, "batch", x.batch}, {1, "m", x.rows}, {2, "n", x.cols}, {3, "k", k}}));
    HLO_ASSIGN_OR_RETURN(const int64_t lwork, LegacyLwork(call, 4));
    specs.push_back({kS32, x.batch_dims});
    specs.push_back({call.type(), {lwork}});
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs, /*tuple=*/!ffi));
  if (x.cols == 0) return Unchanged(call, x_index);  // (then m >= 0 = n = k)
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("orgqr", [&](T* w, int l) {
                         lapack::Orgqr<T>(x.rows, x.cols, k, nullptr, lda, nullptr, w, l);
                       }));
  Memory<T> a = call.Load<T>(x_index), work(lwork);
  const Memory<T> tau = call.Load<T>(x_index + 1);
  Memory<int32_t> info(x.batch);
  const int64_t step = int64_t{x.rows} * x.cols;
  for (int64_t b = 0; b < x.batch; ++b) {
    info[b] = lapack::Orgqr(x.rows, x.cols, k, a.data() + b * step, lda, tau.data() + b * k,
                            work.data(), lwork);
  }
  call.Store(0, a);
  if (!ffi) call.Store(1, info);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Ormqr(Call& call) {
  HLO_ASSIGN_OR_RETURN(const bool left, call.BoolAttr("left"));
  HLO_ASSIGN_OR_RETURN(const bool transpose, call.BoolAttr("transpose"));
  HLO_ASSIGN_OR_RETURN(const Matrices a, call.MatrixOperand(0, call.type()));
  HLO_ASSIGN_OR_RETURN(const Matrices c, call.MatrixOperand(2, call.type()));
  HLO_ASSIGN_OR_RETURN(const int k, TauLength(call, 1, c.batch_dims));
  const int order = left ? c.rows : c.cols;  // Q is order x order
  if (a.batch_dims != c.batch_dims || a.rows != order || a.cols < k || k > order) {
    return absl::InvalidArgumentError(
        StrCat(call.TargetName(), " with left=", left ? "true" : "false", " needs reflectors a of ",
               order, " rows and at least ", k, " columns per matrix c (", c.rows, "x", c.cols,
               "), not ", a.rows, "x", a.cols));
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), Append(c.batch_dims, {c.rows, c.cols})}},
                                         /*tuple=*/false));
  // Q is the identity without reflectors; an empty c has nothing to change.
  if (k == 0 || c.rows == 0 || c.cols == 0) return Unchanged(call, 2);
  const char side = left ? 'L' : 'R';
  const char trans = transpose ? (kIsComplex<T> ? 'C' : 'T') : 'N';
  const int lda = std::max(1, order), ldc = std::max(1, c.rows);
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("ormqr", [&](T* w, int l) {
                         lapack::Ormqr<T>(side, trans, c.rows, c.cols, k, nullptr, lda, nullptr,
                                          nullptr, ldc, w, l);
                       }));
  const Memory<T> am = call.Load<T>(0), tau = call.Load<T>(1);
  Memory<T> cm = call.Load<T>(2), work(lwork);
  const int64_t a_step = int64_t{a.rows} * a.cols, c_step = int64_t{c.rows} * c.cols;
  for (int64_t b = 0; b < c.batch; ++b) {
    lapack::Ormqr(side, trans, c.rows, c.cols, k, am.data() + b * a_step, lda, tau.data() + b * k,
                  cm.data() + b * c_step, ldc, work.data(), lwork);
  }
  call.Store(0, cm);
  return call.Finish();
}

}  // namespace

absl::StatusOr<Value> EvalGetrf(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(call.target().ffi ? 1 : 4));
  return WithComputeType(call, [&](auto t) { return Getrf<decltype(t)>(call); });
}

absl::StatusOr<Value> EvalGeqrf(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(call.target().ffi ? 1 : 5));
  return WithComputeType(call, [&](auto t) { return Geqrf<decltype(t)>(call); });
}

absl::StatusOr<Value> EvalGeqp3(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(2));
  return WithComputeType(call, [&](auto t) { return Geqp3<decltype(t)>(call); });
}

absl::StatusOr<Value> EvalOrgqr(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(call.target().ffi ? 2 : 7));
  return WithComputeType(call, [&](auto t) { return Orgqr<decltype(t)>(call); });
}

absl::StatusOr<Value> EvalOrmqr(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(3));
  return WithComputeType(call, [&](auto t) { return Ormqr<decltype(t)>(call); });
}

}  // namespace hlo::lapack
