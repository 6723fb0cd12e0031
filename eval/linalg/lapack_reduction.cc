// Reductions to condensed form and the tridiagonal solve, as jaxlib's CPU
// kernels run them (jaxlib/cpu/lapack_kernels.cc). x is [batch..., n, n]:
//
//   lapack_?gehrd_ffi (x) -> (x_out, tau[batch..., n-1], info), attributes
//     low and high (i32, LAPACK's 1-based ilo and ihi; JAX passes 1 and n)
//   lapack_?gehrd (n, ilo, ihi, lda, batch, lwork, x) -> (x_out, tau, info,
//     work[lwork])
//   lapack_?sytrd_ffi / ?hetrd_ffi (x) -> (x_out, d[batch..., n],
//     e[batch..., n-1] (both real), tau[batch..., n-1], info), attribute uplo
//   lapack_?sytrd / ?hetrd (n, lower, lda, batch, lwork, x) -> (x_out, d, e,
//     tau, info, work[lwork])
//   lapack_?gtsv_ffi (dl, d, du [batch..., n], b [batch..., n, nrhs]) ->
//     (dl_out, d_out, du_out, b_out, info): dl[0] and du[n-1] are not part
//     of the matrix (LAPACK gets dl from its second element); the diagonals
//     come back as LAPACK leaves them (its LU factors), also with nrhs = 0.
//
// Workspaces are LAPACK's optimal size (its query), as jaxlib's; a legacy
// form's work result is left zero.
#include <algorithm>
#include <cstdint>

#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/strings.h"

namespace hlo::lapack {
namespace {

constexpr PrimitiveType kS32 = PrimitiveType::kS32;

absl::StatusOr<Matrices> NonEmptySquare(Call& call, int64_t i) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(i, call.type()));
  if (x.rows != x.cols || x.rows == 0) {
    return absl::InvalidArgumentError(
        StrCat(call.TargetName(), " needs non-empty square matrices, not ", x.rows, "x", x.cols));
  }
  return x;
}

template <typename T>
absl::StatusOr<Value> Gehrd(Call& call, int low, int high, int64_t x_index, int64_t lwork_legacy) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, NonEmptySquare(call, x_index));
  const int n = x.rows;
  if (!(1 <= low && low <= high && high <= n)) {
    return absl::InvalidArgumentError(
        StrCat("gehrd needs 1 <= low <= high <= n = ", n, ", not low ", low, ", high ", high));
  }
  std::vector<ResultSpec> specs = {{call.type(), Append(x.batch_dims, {n, n})},
                                   {call.type(), Append(x.batch_dims, {n - 1})},
                                   {kS32, x.batch_dims}};
  if (lwork_legacy >= 0) specs.push_back({call.type(), {lwork_legacy}});
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("gehrd", [&](T* w, int l) {
                         lapack::Gehrd<T>(n, low, high, nullptr, n, nullptr, w, l);
                       }));
  Memory<T> a = call.Load<T>(x_index), tau(x.batch * (n - 1)), work(lwork);
  Memory<int32_t> info(x.batch);
  const int64_t step = int64_t{n} * n;
  for (int64_t b = 0; b < x.batch; ++b) {
    info[b] = lapack::Gehrd(n, low, high, a.data() + b * step, n, tau.data() + b * (n - 1),
                            work.data(), lwork);
  }
  call.Store(0, a);
  call.Store(1, tau);
  call.Store(2, info);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Sytrd(Call& call, char uplo, int64_t x_index, int64_t lwork_legacy) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, NonEmptySquare(call, x_index));
  const int n = x.rows;
  const PrimitiveType real = RealTypeOf(call.type());
  std::vector<ResultSpec> specs = {{call.type(), Append(x.batch_dims, {n, n})},
                                   {real, Append(x.batch_dims, {n})},
                                   {real, Append(x.batch_dims, {n - 1})},
                                   {call.type(), Append(x.batch_dims, {n - 1})},
                                   {kS32, x.batch_dims}};
  if (lwork_legacy >= 0) specs.push_back({call.type(), {lwork_legacy}});
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("sytrd", [&](T* w, int l) {
                         lapack::Sytrd<T>('L', n, nullptr, n, nullptr, nullptr, nullptr, w, l);
                       }));
  Memory<T> a = call.Load<T>(x_index), tau(x.batch * (n - 1)), work(lwork);
  Memory<Real<T>> d(x.batch * n), e(x.batch * (n - 1));
  Memory<int32_t> info(x.batch);
  const int64_t step = int64_t{n} * n;
  for (int64_t b = 0; b < x.batch; ++b) {
    info[b] = lapack::Sytrd(uplo, n, a.data() + b * step, n, d.data() + b * n,
                            e.data() + b * (n - 1), tau.data() + b * (n - 1), work.data(), lwork);
  }
  call.Store(0, a);
  call.Store(1, d);
  call.Store(2, e);
  call.Store(3, tau);
  call.Store(4, info);
  return call.Finish();
}

template <typename T>
absl::StatusOr<Value> Gtsv(Call& call) {
  HLO_ASSIGN_OR_RETURN(const Matrices b, call.MatrixOperand(3, call.type()));
  const std::vector<int64_t> diag = Append(b.batch_dims, {b.rows});
  const char* names[3] = {"dl", "d", "du"};
  for (int i = 0; i < 3; ++i)
    HLO_RETURN_IF_ERROR(call.ExpectOperand(i, call.type(), diag, names[i]));
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), diag},
                                          {call.type(), diag},
                                          {call.type(), diag},
                                          {call.type(), Append(b.batch_dims, {b.rows, b.cols})},
                                          {kS32, b.batch_dims}}));
  Memory<T> dl = call.Load<T>(0), d = call.Load<T>(1), du = call.Load<T>(2), x = call.Load<T>(3);
  Memory<int32_t> info(b.batch);
  const int n = b.rows;
  const int64_t b_step = int64_t{n} * b.cols;
  // With no right-hand sides LAPACK still factors the matrix, but its back
  // substitution writes B(N,1) all the same: it gets a zero column instead
  // (pivoting looks only at the diagonals, so the factors are the same).
  Memory<T> stand_in(b.cols == 0 ? n : 0);
  for (int64_t i = 0; n > 0 && i < b.batch; ++i) {
    T* rhs = b.cols == 0 ? stand_in.data() : x.data() + i * b_step;
    info[i] = lapack::Gtsv(n, std::max(1, b.cols), dl.data() + i * n + 1, d.data() + i * n,
                           du.data() + i * n, rhs, n);
  }
  call.Store(0, dl);
  call.Store(1, d);
  call.Store(2, du);
  call.Store(3, x);
  call.Store(4, info);
  return call.Finish();
}

}  // namespace

absl::StatusOr<Value> EvalGehrd(Call& call) {
  const bool ffi = call.target().ffi;
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(ffi ? 1 : 7));
  int64_t low = 1, high = 0, lwork = -1;
  const int64_t x_index = ffi ? 0 : 6;
  if (ffi) {
    HLO_ASSIGN_OR_RETURN(low, call.IntAttr("low"));
    HLO_ASSIGN_OR_RETURN(high, call.IntAttr("high"));
  } else {
    HLO_ASSIGN_OR_RETURN(const Matrices x, NonEmptySquare(call, x_index));
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{0, "n", x.rows}, {3, "lda", x.rows}, {4, "batch", x.batch}}));
    HLO_ASSIGN_OR_RETURN(low, call.ScalarOperand(1, kS32, "ilo"));
    HLO_ASSIGN_OR_RETURN(high, call.ScalarOperand(2, kS32, "ihi"));
    HLO_ASSIGN_OR_RETURN(lwork, call.ScalarOperand(5, kS32, "lwork"));
  }
  if (low < 1 || high > INT32_MAX) {
    return absl::InvalidArgumentError(
        StrCat("gehrd's low ", low, " or high ", high, " is out of range"));
  }
  return WithComputeType(call, [&](auto t) {
    return Gehrd<decltype(t)>(call, static_cast<int>(low), static_cast<int>(high), x_index, lwork);
  });
}

absl::StatusOr<Value> EvalSytrd(Call& call) {
  const bool ffi = call.target().ffi;
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(ffi ? 1 : 6));
  char uplo = 'L';
  int64_t lwork = -1;
  const int64_t x_index = ffi ? 0 : 5;
  if (ffi) {
    HLO_ASSIGN_OR_RETURN(uplo, call.CharAttr("uplo", "LU"));
  } else {
    HLO_ASSIGN_OR_RETURN(const Matrices x, NonEmptySquare(call, x_index));
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{0, "n", x.rows}, {2, "lda", x.rows}, {3, "batch", x.batch}}));
    HLO_ASSIGN_OR_RETURN(const int64_t lower, call.ScalarOperand(1, kS32, "lower"));
    uplo = lower ? 'L' : 'U';
    HLO_ASSIGN_OR_RETURN(lwork, call.ScalarOperand(4, kS32, "lwork"));
  }
  return WithComputeType(call,
                         [&](auto t) { return Sytrd<decltype(t)>(call, uplo, x_index, lwork); });
}

absl::StatusOr<Value> EvalGtsv(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(4));
  return WithElementType(call.type(), [&](auto t) { return Gtsv<decltype(t)>(call); });
}

}  // namespace hlo::lapack
