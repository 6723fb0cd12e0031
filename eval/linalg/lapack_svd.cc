// Singular value decompositions, as jaxlib's CPU kernels run them
// (jaxlib/cpu/lapack_kernels.cc). x is [batch..., m, n], k = min(m, n):
//
//   lapack_?gesdd_ffi / ?gesvd_ffi (x) -> (x_out, s[batch..., k] (real),
//     u[batch..., m, ucols], vt[batch..., vtrows, n], info), attribute mode:
//     'A' (u m x m, vt n x n), 'S' (u m x k, vt k x n) or 'N' (no u, vt: they
//     keep whatever shape JAX gave them and are left zero). x_out is what
//     LAPACK leaves in x (its contents are not specified).
//   lapack_?gesdd (full_matrices, compute_uv, batch, m, n, lwork, x) ->
//     (x_out, s, u, vt, info, iwork, [rwork,] work): mode from the flags;
//     u is m x (full ? m : k), vt (full ? n : k) x n even without compute_uv;
//     the workspace results are left zero.
//
// Workspaces: LAPACK's query for work, the documented sizes jaxlib uses for
// iwork (8k) and rwork.
#include <algorithm>

#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/strings.h"

namespace hlo::lapack {
namespace {

constexpr PrimitiveType kS32 = PrimitiveType::kS32;

struct SvdShape {
  Matrices x;
  int k = 0;
  char mode = 'A';
  int64_t u_cols = 0, vt_rows = 0;  // u is m x u_cols, vt vt_rows x n
};

int64_t RworkSize(bool gesdd, char mode, int64_t m, int64_t n) {
  const int64_t mn = std::min(m, n), mx = std::max(m, n);
  if (!gesdd) return 5 * mn;
  if (mode == 'N') return 7 * mn;
  return std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
}

template <typename T>
absl::StatusOr<Value> Svd(Call& call, SvdShape sv, bool gesdd, int64_t x_index) {
  const Matrices& x = sv.x;
  const ResultSpec real = {RealTypeOf(call.type()), Append(x.batch_dims, {sv.k})};
  std::vector<ResultSpec> specs = {{call.type(), Append(x.batch_dims, {x.rows, x.cols})},
                                   real,
                                   {call.type(), Append(x.batch_dims, {x.rows, sv.u_cols})},
                                   {call.type(), Append(x.batch_dims, {sv.vt_rows, x.cols})},
                                   {kS32, x.batch_dims}};
  if (!call.target().ffi) {  // the workspaces, of any length
    specs.push_back({kS32, {kAnySize}});
    if (kIsComplex<T>) specs.push_back({real.type, {kAnySize}});
    specs.push_back({call.type(), {kAnySize}});
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  // With mode 'N', u and vt keep the shapes they are given.
  const std::vector<int64_t> u_dims = call.ResultDims(2), vt_dims = call.ResultDims(3);
  HLO_ASSIGN_OR_RETURN(const int u_cols, LapackInt(u_dims.back(), "u's columns"));
  HLO_ASSIGN_OR_RETURN(const int vt_rows, LapackInt(vt_dims[vt_dims.size() - 2], "vt's rows"));
  const char mode = sv.mode;
  const int m = x.rows, n = x.cols;
  const int64_t u_step = int64_t{m} * u_cols, vt_step = int64_t{vt_rows} * n;
  std::vector<T> a = call.Load<T>(x_index);
  std::vector<T> u(x.batch * u_step), vt(x.batch * vt_step);
  std::vector<Real<T>> s(x.batch * sv.k);
  std::vector<int32_t> info(x.batch);
  if (sv.k == 0) {
    // An empty matrix: LAPACK returns at once and leaves u and vt as they
    // were; full ones are the identity (numpy's and jax's answer).
    call.Store(0, a);
    call.Store(1, s);
    if (mode == 'A') {
      call.StoreIdentity<T>(2);
      call.StoreIdentity<T>(3);
    }
    call.Store(4, info);
    return call.Finish();
  }
  const int lda = std::max(1, m), ldu = std::max(1, m), ldvt = std::max(1, vt_rows);
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("svd", [&](T* w, int l) {
                         if (gesdd) {
                           lapack::Gesdd<T>(mode, m, n, nullptr, lda, nullptr, nullptr, ldu,
                                            nullptr, ldvt, w, l, nullptr, nullptr);
                         } else {
                           lapack::Gesvd<T>(mode, mode, m, n, nullptr, lda, nullptr, nullptr, ldu,
                                            nullptr, ldvt, w, l, nullptr);
                         }
                       }));
  HLO_ASSIGN_OR_RETURN(const int rwork_size, LapackInt(RworkSize(gesdd, mode, m, n), "rwork"));
  std::vector<T> work(lwork);
  std::vector<Real<T>> rwork(kIsComplex<T> ? std::max(rwork_size, 1) : 0);
  std::vector<int> iwork(8 * static_cast<size_t>(sv.k));
  // LAPACK writes u and vt only with mode 'A' or 'S'; with 'N' they may be
  // of any size (even empty), so it gets a one-element stand-in.
  T unused[1] = {};
  const int64_t a_step = int64_t{m} * n;
  for (int64_t b = 0; b < x.batch; ++b) {
    T* ab = a.data() + b * a_step;
    Real<T>* sb = s.data() + b * sv.k;
    T* ub = mode == 'N' ? unused : u.data() + b * u_step;
    T* vtb = mode == 'N' ? unused : vt.data() + b * vt_step;
    info[b] = gesdd ? lapack::Gesdd(mode, m, n, ab, lda, sb, ub, ldu, vtb, ldvt, work.data(), lwork,
                                    rwork.data(), iwork.data())
                    : lapack::Gesvd(mode, mode, m, n, ab, lda, sb, ub, ldu, vtb, ldvt, work.data(),
                                    lwork, rwork.data());
  }
  call.Store(0, a);
  call.Store(1, s);
  call.Store(2, u);
  call.Store(3, vt);
  call.Store(4, info);
  return call.Finish();
}

// u's and vt's shapes for a mode; with 'N' they are whatever the result
// declares (LAPACK does not touch them).
void ShapeUV(SvdShape& sv) {
  const Matrices& x = sv.x;
  if (sv.mode == 'A') {
    sv.u_cols = x.rows;
    sv.vt_rows = x.cols;
  } else if (sv.mode == 'S') {
    sv.u_cols = sv.vt_rows = sv.k;
  } else {
    sv.u_cols = sv.vt_rows = kAnySize;
  }
}

absl::StatusOr<Value> Run(Call& call, bool gesdd) {
  const bool ffi = call.target().ffi;
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(ffi ? 1 : 7));
  const int64_t x_index = ffi ? 0 : 6;
  SvdShape sv;
  HLO_ASSIGN_OR_RETURN(sv.x, call.MatrixOperand(x_index, call.type()));
  sv.k = std::min(sv.x.rows, sv.x.cols);
  if (ffi) {
    HLO_ASSIGN_OR_RETURN(sv.mode, call.CharAttr("mode", "ASON"));
    if (sv.mode == 'O') {
      return absl::UnimplementedError(
          "SVD mode 'O' (overwrite x) is not supported, as in jaxlib's kernel");
    }
  } else {
    HLO_ASSIGN_OR_RETURN(const int64_t full, call.ScalarOperand(0, kS32, "full_matrices"));
    HLO_ASSIGN_OR_RETURN(const int64_t uv, call.ScalarOperand(1, kS32, "compute_uv"));
    HLO_RETURN_IF_ERROR(call.ScalarOperand(5, kS32, "lwork").status());
    HLO_RETURN_IF_ERROR(
        call.ExpectSizes({{2, "batch", sv.x.batch}, {3, "m", sv.x.rows}, {4, "n", sv.x.cols}}));
    sv.mode = !uv ? 'N' : full ? 'A' : 'S';
    // The legacy u and vt always have their full_matrices shapes.
    sv.u_cols = full ? sv.x.rows : sv.k;
    sv.vt_rows = full ? sv.x.cols : sv.k;
  }
  if (ffi) ShapeUV(sv);
  return WithElementType(call.type(),
                         [&](auto t) { return Svd<decltype(t)>(call, sv, gesdd, x_index); });
}

}  // namespace

absl::StatusOr<Value> EvalGesdd(Call& call) { return Run(call, /*gesdd=*/true); }
absl::StatusOr<Value> EvalGesvd(Call& call) { return Run(call, /*gesdd=*/false); }

}  // namespace hlo::lapack
