// jaxlib's GPU solver custom-calls (jaxlib/gpu/solver_kernels_ffi.cc,
// linalg_kernels.cc), `cusolver_<routine>_ffi` and ROCm's
// `hipsolver_<routine>_ffi`: typed FFI calls whose element type is the
// operand's, with boolean attributes in backend_config. Where a call's
// operands and results are those of the CPU kernel of the same routine
// (eval/linalg/lapack_*.cc) it runs there, its attributes translated:
//
//   potrf (a) -> (a_out, info[batch]), lower: Cholesky of that triangle;
//     the other triangle keeps a's values
//   getrf (a) -> (a_out, ipiv[batch, k] (1-based), info[batch])
//   geqrf (a) -> (a_out, tau[batch, k])
//   orgqr (a, tau) -> q (the first n columns of Q; complex types too)
//   syevd (a) -> (v, w[batch, n] ascending, info), lower, algorithm: the
//     eigenvectors' signs are LAPACK's, which cuSOLVER's need not share
//   sytrd (a) -> (a_out, d, e, tau, info), lower
//   gesvd, gesvdj: eval/gpu/cusolver_svd.cc
//   syrk (a, c_in, alpha, beta) -> c_out, transpose: see SyrkOf below
//
// cu_lu_pivots_to_permutation / hip_lu_pivots_to_permutation (pivots
// s32[batch, k], 0-based) -> s32[batch, p], p >= k: the identity
// permutation with the swaps i <-> pivots[i] applied in order (pivots
// outside [0, p) skipped, as jaxlib's kernel does).
#include <algorithm>
#include <string>
#include <string_view>

#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

using lapack::Call;

// The `lower` attribute as the CPU kernels' uplo ('L' = 76, 'U' = 85).
absl::Status TranslateLower(Call& call) {
  absl::StatusOr<bool> lower = call.BoolAttr("lower");
  if (!lower.ok()) return lower.status();
  return call.SetAttr("uplo", *lower ? 'L' : 'U');
}

absl::StatusOr<Value> Potrf(Call& call) {
  if (auto st = TranslateLower(call); !st.ok()) return st;
  return lapack::EvalPotrf(call);
}

absl::StatusOr<Value> Syevd(Call& call) {
  if (auto st = TranslateLower(call); !st.ok()) return st;
  if (auto st = call.SetAttr("mode", 'V'); !st.ok()) return st;  // eigenvectors always
  return lapack::EvalSyevd(call);
}

absl::StatusOr<Value> Sytrd(Call& call) {
  if (auto st = TranslateLower(call); !st.ok()) return st;
  return lapack::EvalSytrd(call);
}

// syrk (a [batch, rows, cols], c_in [batch, n, n], alpha, beta (one element
// each)) -> c_out, attribute transpose: cuBLAS's syrk with uplo upper and
// op = transpose ? N : T on column-major memory, n = transpose ? cols : rows.
// In memory, op(A) (n x k) is A (lda n) for N, and the transpose of the
// k x n A (lda k) for T; C's upper triangle becomes alpha op(A) op(A)^T +
// beta C (a plain transpose for complex types too), the lower keeps c_in.
template <typename T>
absl::StatusOr<Value> SyrkOf(Call& call, bool transpose) {
  HLO_ASSIGN_OR_RETURN(const lapack::Matrices a, call.MatrixOperand(0, call.type()));
  const int64_t n = transpose ? a.cols : a.rows, k = transpose ? a.rows : a.cols;
  HLO_RETURN_IF_ERROR(
      call.ExpectOperand(1, call.type(), lapack::Append(a.batch_dims, {n, n}), "c_in"));
  for (int64_t i : {2, 3}) {
    if (call.OperandShape(i).element_type() != call.type() ||
        call.OperandShape(i).ElementCount() != 1) {
      return absl::InvalidArgumentError(StrCat("alpha and beta of ", call.TargetName(),
                                               " must be single ", PrimitiveTypeName(call.type()),
                                               " values"));
    }
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults({{call.type(), lapack::Append(a.batch_dims, {n, n})}},
                                         /*tuple=*/false));
  const lapack::Memory<T> am = call.Load<T>(0);
  lapack::Memory<T> c = call.Load<T>(1);
  const T alpha = call.Load<T>(2)[0], beta = call.Load<T>(3)[0];
  auto op = [&](const T* m, int64_t i, int64_t l) {
    return transpose ? m[i + l * n] : m[l + i * k];
  };
  for (int64_t b = 0; b < a.batch; ++b) {
    const T* ab = am.data() + b * n * k;
    T* cb = c.data() + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i <= j; ++i) {
        T sum{};
        for (int64_t l = 0; l < k; ++l) sum += op(ab, i, l) * op(ab, j, l);
        cb[i + j * n] = alpha * sum + beta * cb[i + j * n];
      }
    }
  }
  call.Store(0, c);
  return call.Finish();
}

absl::StatusOr<Value> Syrk(Call& call) {
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(4));
  HLO_ASSIGN_OR_RETURN(const bool transpose, call.BoolAttr("transpose"));
  return lapack::WithElementType(call.type(),
                                 [&](auto t) { return SyrkOf<decltype(t)>(call, transpose); });
}

struct Routine {
  std::string_view name;
  absl::StatusOr<Value> (*fn)(Call&);
  std::string_view description;
};

constexpr Routine kRoutines[] = {
    {"potrf", &Potrf, "Cholesky factorisation (LAPACK's potrf)"},
    {"getrf", &lapack::EvalGetrf, "LU factorisation with partial pivoting (LAPACK's getrf)"},
    {"geqrf", &lapack::EvalGeqrf, "QR factorisation (LAPACK's geqrf)"},
    {"orgqr", &lapack::EvalOrgqr, "Q from Householder reflectors (LAPACK's orgqr/ungqr)"},
    {"syevd", &Syevd, "symmetric/Hermitian eigensystem (LAPACK's syevd/heevd)"},
    {"sytrd", &Sytrd, "tridiagonal reduction (LAPACK's sytrd/hetrd)"},
    {"gesvd", &EvalSolverGesvd, "SVD (LAPACK's gesvd; `transposed` included)"},
    {"gesvdj", &EvalSolverGesvdj, "SVD by Jacobi's method: V, not V^H (LAPACK's gesvd)"},
    {"syrk", &Syrk, "symmetric rank-k update"},
};

// `cusolver_potrf_ffi` -> "potrf"; empty when the name is not a solver call.
std::string_view RoutineOf(std::string_view target) {
  for (std::string_view prefix : {"cusolver_", "hipsolver_"}) {
    if (target.starts_with(prefix) && target.ends_with("_ffi") &&
        target.size() > prefix.size() + 4) {
      return target.substr(prefix.size(), target.size() - prefix.size() - 4);
    }
  }
  return {};
}

}  // namespace

std::vector<GpuTargetInfo> ListSolverTargets() {
  std::vector<GpuTargetInfo> list;
  for (const Routine& r : kRoutines) {
    list.push_back({{StrCat("cusolver_", r.name, "_ffi"), StrCat("hipsolver_", r.name, "_ffi")},
                    r.description});
  }
  return list;
}

bool IsSolverTarget(std::string_view target) {
  std::string_view routine = RoutineOf(target);
  for (const Routine& r : kRoutines) {
    if (r.name == routine) return true;
  }
  return false;
}

absl::StatusOr<Value> EvalSolverCall(const Instruction& inst, Operands ops, KernelContext&) {
  const std::string target = TargetOf(inst);
  const std::string_view routine = RoutineOf(target);
  for (const Routine& r : kRoutines) {
    if (r.name != routine) continue;
    if (ops.empty() || !ops[0]->is_array()) {
      return absl::InvalidArgumentError(StrCat("custom-call ", target, " takes an array operand"));
    }
    const PrimitiveType type = ops[0]->array().element_type();
    if (type != PrimitiveType::kF32 && type != PrimitiveType::kF64 && type != PrimitiveType::kC64 &&
        type != PrimitiveType::kC128) {
      return absl::InvalidArgumentError(StrCat("custom-call ", target,
                                               " takes f32, f64, c64 or c128 matrices, not ",
                                               PrimitiveTypeName(type)));
    }
    Call call(inst, ops, lapack::Target{r.name, type, /*ffi=*/true});
    return r.fn(call);
  }
  return absl::UnimplementedError(
      StrCat("hlo-run has no implementation of custom-call target '", target, "'"));
}

absl::StatusOr<Value> EvalLuPivotsToPermutation(const Instruction& inst, Operands ops,
                                                KernelContext&) {
  const std::string target = TargetOf(inst);
  const Shape& out = inst.shape();
  if (ops.size() != 1 || !ops[0]->is_array()) {
    return absl::InvalidArgumentError(StrCat("custom-call ", target, " takes one operand"));
  }
  const Literal& pivots = ops[0]->array();
  const Shape& in = pivots.shape();
  const bool ok = in.element_type() == PrimitiveType::kS32 && in.rank() >= 1 && out.IsArray() &&
                  out.element_type() == PrimitiveType::kS32 && out.rank() == in.rank() &&
                  std::equal(in.dims().begin(), in.dims().end() - 1, out.dims().begin()) &&
                  out.dim(out.rank() - 1) >= in.dim(in.rank() - 1);
  if (!ok) {
    return absl::InvalidArgumentError(StrCat(
        "custom-call ", target, " maps s32[batch..., k] pivots to s32[batch..., p >= k], not ",
        in.ToString(false), " to ", out.ToString(false)));
  }
  absl::StatusOr<Value> result = NewArray(out);
  if (!result.ok()) return result;
  const int64_t k = in.dim(in.rank() - 1), p = out.dim(out.rank() - 1);
  const int64_t batch = p == 0 ? 0 : result->array().element_count() / p;
  const int32_t* piv = pivots.typed<int32_t>();
  int32_t* perm = result->mutable_array().typed<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    int32_t* row = perm + b * p;
    for (int64_t i = 0; i < p; ++i) row[i] = static_cast<int32_t>(i);
    for (int64_t i = 0; i < k; ++i) {
      const int32_t j = piv[b * k + i];
      if (j < 0 || j >= p) continue;
      std::swap(row[i], row[j]);
    }
  }
  return result;
}

}  // namespace hlo::gpu
