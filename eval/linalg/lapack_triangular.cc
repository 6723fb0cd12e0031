// potrf (Cholesky) and trsm (triangular solve), as jaxlib's CPU kernels run
// them (jaxlib/cpu/lapack_kernels.cc):
//
//   lapack_?potrf_ffi (x) -> (x_out, info s32[batch]), attribute uplo ('L'
//     or 'U'): LAPACK leaves the other triangle of x_out as it was in x.
//   lapack_?potrf     (lower, batch, n, x) -> (x_out, info)
//   lapack_?trsm_ffi  (a, b) -> b_out, attributes side, uplo, trans_x
//     ('N', 'T', 'C'), diag ('N', 'U'); a is k x k with k the rows of b
//     (side 'L') or its columns ('R'), one a per batch element of b.
//   blas_?trsm        (left_side, lower, trans_a (0, 1 = T, 2 = C), diag,
//     m, n, batch, alpha, a, b) -> b_out, solving with alpha.
#include <algorithm>

#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/strings.h"

namespace hlo::lapack {
namespace {

absl::Status CheckSquare(const Matrices& m, std::string_view what) {
  if (m.rows != m.cols) {
    return absl::InvalidArgumentError(
        StrCat(what, " must be square matrices, not ", m.rows, "x", m.cols));
  }
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<Value> Potrf(Call& call, char uplo, int64_t a_index) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(a_index, call.type()));
  HLO_RETURN_IF_ERROR(CheckSquare(x, "the operand of potrf"));
  if (!call.target().ffi)
    HLO_RETURN_IF_ERROR(call.ExpectSizes({{1, "batch", x.batch}, {2, "n", x.rows}}));
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), Append(x.batch_dims, {x.rows, x.cols})},
                                          {PrimitiveType::kS32, x.batch_dims}}));
  Memory<T> a = call.Load<T>(a_index);
  Memory<int32_t> info(x.batch);
  const int64_t step = int64_t{x.rows} * x.cols;
  for (int64_t b = 0; x.rows > 0 && b < x.batch; ++b) {
    info[b] = lapack::Potrf(uplo, x.rows, a.data() + b * step, std::max(1, x.rows));
  }
  call.Store(0, a);
  call.Store(1, info);
  return call.Finish();
}

struct TrsmOptions {
  char side, uplo, trans, diag;
};

template <typename T>
absl::StatusOr<Value> Trsm(Call& call, const TrsmOptions& o, T alpha, int64_t a_index) {
  HLO_ASSIGN_OR_RETURN(const Matrices a, call.MatrixOperand(a_index, call.type()));
  HLO_ASSIGN_OR_RETURN(const Matrices b, call.MatrixOperand(a_index + 1, call.type()));
  const int k = o.side == 'L' ? b.rows : b.cols;
  if (a.batch_dims != b.batch_dims || a.rows != k || a.cols != k) {
    return absl::InvalidArgumentError(
        StrCat("trsm with side ", std::string(1, o.side), " needs one ", k, "x", k,
               " matrix a per matrix of b, but a is ", call.OperandShape(a_index).ToString(false),
               " and b ", call.OperandShape(a_index + 1).ToString(false)));
  }
  if (!call.target().ffi) {
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{4, "m", b.rows}, {5, "n", b.cols}, {6, "batch", b.batch}}));
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), Append(b.batch_dims, {b.rows, b.cols})}},
                                         /*tuple=*/false));
  const Memory<T> am = call.Load<T>(a_index);
  Memory<T> x = call.Load<T>(a_index + 1);
  const int64_t a_step = int64_t{k} * k, b_step = int64_t{b.rows} * b.cols;
  if (b_step > 0) {
    for (int64_t i = 0; i < b.batch; ++i) {
      lapack::Trsm(o.side, o.uplo, o.trans, o.diag, b.rows, b.cols, alpha, am.data() + i * a_step,
                   std::max(1, k), x.data() + i * b_step, std::max(1, b.rows));
    }
  }
  call.Store(0, x);
  return call.Finish();
}

// blas_?trsm's options and alpha from its leading scalar operands.
template <typename T>
absl::StatusOr<Value> LegacyTrsm(Call& call) {
  int64_t flags[4];
  const char* names[4] = {"left_side", "lower", "trans_a", "diag"};
  for (int i = 0; i < 4; ++i) {
    HLO_ASSIGN_OR_RETURN(flags[i], call.ScalarOperand(i, PrimitiveType::kS32, names[i]));
  }
  if (flags[2] < 0 || flags[2] > 2) {
    return absl::InvalidArgumentError(
        StrCat("trans_a must be 0, 1 (transpose) or 2 (adjoint), not ", flags[2]));
  }
  TrsmOptions o{flags[0] ? 'L' : 'R', flags[1] ? 'L' : 'U', "NTC"[flags[2]], flags[3] ? 'U' : 'N'};
  HLO_RETURN_IF_ERROR(call.ExpectOperand(7, call.type(), {}, "alpha"));
  const T alpha = call.Load<T>(7)[0];
  return Trsm<T>(call, o, alpha, 8);
}

}  // namespace

absl::StatusOr<Value> EvalPotrf(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(call.target().ffi ? 1 : 4));
  char uplo = 'L';
  if (call.target().ffi) {
    HLO_ASSIGN_OR_RETURN(uplo, call.CharAttr("uplo", "LU"));
  } else {
    HLO_ASSIGN_OR_RETURN(const int64_t lower, call.ScalarOperand(0, PrimitiveType::kS32, "lower"));
    uplo = lower ? 'L' : 'U';
  }
  const int64_t a_index = call.target().ffi ? 0 : 3;
  return WithComputeType(call, [&](auto t) { return Potrf<decltype(t)>(call, uplo, a_index); });
}

absl::StatusOr<Value> EvalTrsm(Call& call) {
  if (!call.target().ffi) {
    HLO_RETURN_IF_ERROR(call.ExpectOperandCount(10));
    return WithComputeType(call, [&](auto t) { return LegacyTrsm<decltype(t)>(call); });
  }
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(2));
  TrsmOptions o{};
  HLO_ASSIGN_OR_RETURN(o.side, call.CharAttr("side", "LR"));
  HLO_ASSIGN_OR_RETURN(o.uplo, call.CharAttr("uplo", "LU"));
  HLO_ASSIGN_OR_RETURN(o.trans, call.CharAttr("trans_x", "NTC"));
  HLO_ASSIGN_OR_RETURN(o.diag, call.CharAttr("diag", "NU"));
  return WithComputeType(call, [&](auto t) {
    using T = decltype(t);
    return Trsm<T>(call, o, T(1), 0);
  });
}

}  // namespace hlo::lapack
