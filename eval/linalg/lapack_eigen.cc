// Eigendecompositions, as jaxlib's CPU kernels run them
// (jaxlib/cpu/lapack_kernels.cc). x is [batch..., n, n]:
//
//   lapack_?syevd_ffi / ?heevd_ffi (x) -> (x_out (eigenvectors with mode
//     'V'), w[batch..., n] (real, ascending), info), attributes uplo, mode
//   lapack_?syevd / ?heevd (lower, batch, n, x) -> (x_out, w, info, work...)
//   lapack_[sd]geev_ffi (x) -> (wr, wi, vl, vr (complex), info), attributes
//     compute_left, compute_right ('N' / 'V'): LAPACK's packed real
//     eigenvectors unpacked into complex columns (v_j +- i v_j+1 for a
//     conjugate pair); a batch element with a non-finite entry gets info -4
//     and is not factored (jaxlib's check)
//   lapack_[cz]geev_ffi (x) -> (w, vl, vr, info)
//   lapack_?geev (batch, n, jobvl u8, jobvr u8, x) -> real: (work, vl work,
//     vr work, wr, wi, vl, vr, info); complex: (work, rwork, w, vl, vr, info)
//   lapack_[sd]gees_ffi (x) -> (t, vs, wr, wi, sdim, info),
//   lapack_[cz]gees_ffi (x) -> (t, vs, w, sdim, info), attributes mode
//     ('N' / 'V': Schur vectors) and sort ('N'; 'S' is refused, as jaxlib)
//   lapack_?gees (batch, n, jobvs u8, sort u8, x) -> real: (t, wr, wi, vs,
//     sdim, info); complex: (t, rwork, w, vs, sdim, info)
//
// Outputs LAPACK does not write (eigenvectors not asked for or after a
// failure, workspaces) are left zero.
#include <algorithm>
#include <cmath>

#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/strings.h"

namespace hlo::lapack {
namespace {

constexpr PrimitiveType kS32 = PrimitiveType::kS32;
constexpr PrimitiveType kU8 = PrimitiveType::kU8;

absl::StatusOr<Matrices> SquareOperand(Call& call, int64_t i) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, call.MatrixOperand(i, call.type()));
  if (x.rows != x.cols) {
    return absl::InvalidArgumentError(
        StrCat(call.TargetName(), " needs square matrices, not ", x.rows, "x", x.cols));
  }
  return x;
}

absl::StatusOr<char> JobOperand(Call& call, int64_t i, const char* name, std::string_view allowed) {
  HLO_ASSIGN_OR_RETURN(const int64_t v, call.ScalarOperand(i, kU8, name));
  if (v <= 0 || v >= 128 || allowed.find(static_cast<char>(v)) == std::string_view::npos) {
    return absl::InvalidArgumentError(StrCat(name, " must be one of '", allowed, "', not ", v));
  }
  return static_cast<char>(v);
}

template <typename T>
bool AllFinite(const T* p, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (kIsComplex<T>) {
      if (!std::isfinite(p[i].real()) || !std::isfinite(p[i].imag())) return false;
    } else if (!std::isfinite(p[i])) {
      return false;
    }
  }
  return true;
}

// ---- syevd / heevd ---------------------------------------------------------------

template <typename T>
absl::StatusOr<Value> Syevd(Call& call, char uplo, char mode, int64_t x_index) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, SquareOperand(call, x_index));
  const int64_t n = x.rows;
  const bool ffi = call.target().ffi, v = mode == 'V';
  // jaxlib's sizes (LAPACK's documented minimums), which also fix LAPACK's
  // blocking.
  int64_t lwork, lrwork = 1, liwork = v ? 3 + 5 * n : 1;
  if constexpr (kIsComplex<T>) {
    lwork = v ? (ffi ? 2 * n + n * n : 1 + 2 * n + n * n) : n + 1;
    lrwork = v ? 1 + 5 * n + 2 * n * n : std::max<int64_t>(n, 1);
  } else {
    lwork = v ? 1 + 6 * n + 2 * n * n : 2 * n + 1;
  }
  const PrimitiveType real = PrimitiveTypeOf<Real<T>>();
  std::vector<ResultSpec> specs = {{call.type(), Append(x.batch_dims, {n, n})},
                                   {real, Append(x.batch_dims, {n})},
                                   {kS32, x.batch_dims}};
  if (!ffi) {
    specs.push_back({call.type(), {lwork}});
    if (kIsComplex<T>) specs.push_back({real, {lrwork}});
    specs.push_back({kS32, {liwork}});
  }
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  HLO_ASSIGN_OR_RETURN(const int lwork32, LapackInt(std::max<int64_t>(lwork, 1), "syevd's work"));
  HLO_ASSIGN_OR_RETURN(const int lrwork32,
                       LapackInt(std::max<int64_t>(lrwork, 1), "heevd's rwork"));
  HLO_ASSIGN_OR_RETURN(const int liwork32,
                       LapackInt(std::max<int64_t>(liwork, 1), "syevd's iwork"));
  Memory<T> a = call.Load<T>(x_index);
  Memory<Real<T>> w(x.batch * n);
  Memory<int32_t> info(x.batch);
  // (jaxlib's sizes reach 0 when n is 0, where LAPACK still writes the
  // first element of each workspace: at least one each.)
  Memory<T> work(std::max<int64_t>(lwork, 1));
  Memory<Real<T>> rwork(std::max<int64_t>(lrwork, 1));
  Memory<int> iwork(std::max<int64_t>(liwork, 1));
  for (int64_t b = 0; n > 0 && b < x.batch; ++b) {
    info[b] = lapack::Syevd(mode, uplo, x.rows, a.data() + b * n * n, std::max(1, x.rows),
                            w.data() + b * n, work.data(), lwork32, rwork.data(), lrwork32,
                            iwork.data(), liwork32);
  }
  call.Store(0, a);
  call.Store(1, w);
  call.Store(2, info);
  return call.Finish();
}

// ---- geev ------------------------------------------------------------------------

// LAPACK's real eigenvectors: column j real for a real eigenvalue; columns
// j, j+1 the real and imaginary parts of the pair's first vector.
template <typename R>
void UnpackEigenvectors(int64_t n, const R* wi, const R* packed, std::complex<R>* out) {
  for (int64_t j = 0; j < n;) {
    if (wi[j] == 0 || std::isnan(wi[j]) || j + 1 == n) {
      for (int64_t i = 0; i < n; ++i) out[j * n + i] = {packed[j * n + i], 0};
      ++j;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const R re = packed[j * n + i], im = packed[(j + 1) * n + i];
        out[j * n + i] = {re, im};
        out[(j + 1) * n + i] = {re, -im};
      }
      j += 2;
    }
  }
}

template <typename T>
absl::StatusOr<Value> Geev(Call& call, char jobvl, char jobvr, int64_t x_index) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, SquareOperand(call, x_index));
  const int64_t n = x.rows;
  const bool ffi = call.target().ffi;
  using R = Real<T>;
  using C = std::complex<R>;
  const PrimitiveType real = PrimitiveTypeOf<R>(), cplx = PrimitiveTypeOf<C>();
  const std::vector<int64_t> vec = Append(x.batch_dims, {n}), mat = Append(x.batch_dims, {n, n});
  std::vector<ResultSpec> specs;
  if (!ffi) {  // the workspaces first
    if constexpr (kIsComplex<T>) {
      specs = {{cplx, {n, n}}, {real, {2 * n}}};
    } else {
      specs = {{real, {n, n}}, {real, {n, n}}, {real, {n, n}}};
    }
  }
  const size_t first = specs.size();
  if constexpr (kIsComplex<T>) {
    specs.push_back({cplx, vec});
  } else {
    specs.push_back({real, vec});
    specs.push_back({real, vec});
  }
  specs.push_back({cplx, mat});
  specs.push_back({cplx, mat});
  specs.push_back({kS32, x.batch_dims});
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  const int ni = x.rows, ld = std::max(1, x.rows);
  if (n == 0) return call.Finish();  // empty results, info 0 (its zeros)
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("geev", [&](T* w, int l) {
                         if constexpr (kIsComplex<T>) {
                           R rwork[1];
                           lapack::GeevComplex<T>(jobvl, jobvr, ni, nullptr, ld, nullptr, nullptr,
                                                  ld, nullptr, ld, w, l, rwork);
                         } else {
                           lapack::GeevReal<T>(jobvl, jobvr, ni, nullptr, ld, nullptr, nullptr,
                                               nullptr, ld, nullptr, ld, w, l);
                         }
                       }));
  const Memory<T> a = call.Load<T>(x_index);
  Memory<T> a_copy(n * n), work(lwork), vl_work(n * n), vr_work(n * n);
  Memory<T> w(x.batch * n), wi(kIsComplex<T> ? 0 : x.batch * n);
  Memory<C> vl(x.batch * n * n), vr(x.batch * n * n);
  Memory<R> rwork(2 * n);
  Memory<int32_t> info(x.batch);
  for (int64_t b = 0; b < x.batch; ++b) {
    std::copy_n(a.data() + b * n * n, n * n, a_copy.data());
    if (!AllFinite(a_copy.data(), n * n)) {
      info[b] = -4;
      continue;
    }
    if constexpr (kIsComplex<T>) {
      info[b] = lapack::GeevComplex(jobvl, jobvr, ni, a_copy.data(), ld, w.data() + b * n,
                                    vl.data() + b * n * n, ld, vr.data() + b * n * n, ld,
                                    work.data(), lwork, rwork.data());
    } else {
      info[b] =
          lapack::GeevReal(jobvl, jobvr, ni, a_copy.data(), ld, w.data() + b * n, wi.data() + b * n,
                           vl_work.data(), ld, vr_work.data(), ld, work.data(), lwork);
      if (info[b] == 0) {
        UnpackEigenvectors(n, wi.data() + b * n, vl_work.data(), vl.data() + b * n * n);
        UnpackEigenvectors(n, wi.data() + b * n, vr_work.data(), vr.data() + b * n * n);
      }
    }
  }
  size_t r = first;
  call.Store(r++, w);
  if constexpr (!kIsComplex<T>) call.Store(r++, wi);
  call.Store(r++, vl);
  call.Store(r++, vr);
  call.Store(r, info);
  return call.Finish();
}

// ---- gees ------------------------------------------------------------------------

template <typename T>
absl::StatusOr<Value> Gees(Call& call, char jobvs, int64_t x_index) {
  HLO_ASSIGN_OR_RETURN(const Matrices x, SquareOperand(call, x_index));
  const int64_t n = x.rows;
  const bool ffi = call.target().ffi;
  using R = Real<T>;
  const PrimitiveType real = PrimitiveTypeOf<R>();
  const std::vector<int64_t> vec = Append(x.batch_dims, {n}), mat = Append(x.batch_dims, {n, n});
  // Result positions: t, vs, w (wr), wi, sdim, info.
  int t_at = 0, vs_at = 1, w_at = 2, wi_at = kIsComplex<T> ? -1 : 3;
  std::vector<ResultSpec> specs;
  if (ffi) {
    specs = {{call.type(), mat}, {call.type(), mat}, {call.type(), vec}};
    if (!kIsComplex<T>) specs.push_back({call.type(), vec});
  } else if constexpr (kIsComplex<T>) {
    specs = {{call.type(), mat}, {real, {n}}, {call.type(), vec}, {call.type(), mat}};
    vs_at = 3;
  } else {
    specs = {{call.type(), mat}, {call.type(), vec}, {call.type(), vec}, {call.type(), mat}};
    vs_at = 3, w_at = 1, wi_at = 2;
  }
  const int sdim_at = static_cast<int>(specs.size());
  specs.push_back({kS32, x.batch_dims});
  specs.push_back({kS32, x.batch_dims});
  HLO_RETURN_IF_ERROR(call.ExpectResults(specs));
  const int ni = x.rows, ld = std::max(1, x.rows);
  if (n == 0) return call.Finish();  // empty results, sdim and info 0 (their zeros)
  HLO_ASSIGN_OR_RETURN(const int lwork, QueryWorkspace<T>("gees", [&](T* w, int l) {
                         int sdim = 0;
                         if constexpr (kIsComplex<T>) {
                           lapack::GeesComplex<T>(jobvs, ni, nullptr, ld, &sdim, nullptr, nullptr,
                                                  ld, w, l, nullptr);
                         } else {
                           lapack::GeesReal<T>(jobvs, ni, nullptr, ld, &sdim, nullptr, nullptr,
                                               nullptr, ld, w, l);
                         }
                       }));
  Memory<T> a = call.Load<T>(x_index), vs(x.batch * n * n), work(lwork);
  Memory<T> w(x.batch * n), wi(kIsComplex<T> ? 0 : x.batch * n);
  Memory<R> rwork(n);
  Memory<int32_t> sdim(x.batch), info(x.batch);
  for (int64_t b = 0; b < x.batch; ++b) {
    int s = 0;
    if constexpr (kIsComplex<T>) {
      info[b] = lapack::GeesComplex(jobvs, ni, a.data() + b * n * n, ld, &s, w.data() + b * n,
                                    vs.data() + b * n * n, ld, work.data(), lwork, rwork.data());
    } else {
      info[b] = lapack::GeesReal(jobvs, ni, a.data() + b * n * n, ld, &s, w.data() + b * n,
                                 wi.data() + b * n, vs.data() + b * n * n, ld, work.data(), lwork);
    }
    sdim[b] = s;
  }
  call.Store(t_at, a);
  call.Store(vs_at, vs);
  call.Store(w_at, w);
  if (wi_at >= 0) call.Store(wi_at, wi);
  call.Store(sdim_at, sdim);
  call.Store(sdim_at + 1, info);
  return call.Finish();
}

// geev's and gees's two job characters: the `_ffi` form's attributes, or
// the legacy form's (batch, n, job u8, job u8, x) operands.
absl::StatusOr<std::pair<char, char>> Jobs(Call& call, const char* first, const char* second,
                                           std::string_view second_allowed) {
  char a, b;
  if (call.target().ffi) {
    HLO_RETURN_IF_ERROR(call.ExpectOperandCount(1));
    HLO_ASSIGN_OR_RETURN(a, call.CharAttr(first, "NV"));
    HLO_ASSIGN_OR_RETURN(b, call.CharAttr(second, second_allowed));
  } else {
    HLO_RETURN_IF_ERROR(call.ExpectOperandCount(5));
    HLO_ASSIGN_OR_RETURN(const Matrices x, SquareOperand(call, 4));
    HLO_RETURN_IF_ERROR(call.ExpectSizes({{0, "batch", x.batch}, {1, "n", x.rows}}));
    HLO_ASSIGN_OR_RETURN(a, JobOperand(call, 2, first, "NV"));
    HLO_ASSIGN_OR_RETURN(b, JobOperand(call, 3, second, second_allowed));
  }
  return std::pair<char, char>(a, b);
}

}  // namespace

absl::StatusOr<Value> EvalSyevd(Call& call) {
  const bool ffi = call.target().ffi;
  HLO_RETURN_IF_ERROR(call.ExpectOperandCount(ffi ? 1 : 4));
  char uplo = 'L', mode = 'V';
  if (ffi) {
    HLO_ASSIGN_OR_RETURN(uplo, call.CharAttr("uplo", "LU"));
    HLO_ASSIGN_OR_RETURN(mode, call.CharAttr("mode", "NV"));
  } else {
    HLO_ASSIGN_OR_RETURN(const int64_t lower, call.ScalarOperand(0, kS32, "lower"));
    uplo = lower ? 'L' : 'U';
    HLO_ASSIGN_OR_RETURN(const Matrices x, SquareOperand(call, 3));
    HLO_RETURN_IF_ERROR(call.ExpectSizes({{1, "batch", x.batch}, {2, "n", x.rows}}));
  }
  return WithElementType(call.type(),
                         [&](auto t) { return Syevd<decltype(t)>(call, uplo, mode, ffi ? 0 : 3); });
}

absl::StatusOr<Value> EvalGeev(Call& call) {
  const bool ffi = call.target().ffi;
  HLO_ASSIGN_OR_RETURN(const auto jobs, ffi ? Jobs(call, "compute_left", "compute_right", "NV")
                                            : Jobs(call, "jobvl", "jobvr", "NV"));
  return WithElementType(call.type(), [&](auto t) {
    return Geev<decltype(t)>(call, jobs.first, jobs.second, ffi ? 0 : 4);
  });
}

absl::StatusOr<Value> EvalGees(Call& call) {
  const bool ffi = call.target().ffi;
  HLO_ASSIGN_OR_RETURN(const auto jobs,
                       ffi ? Jobs(call, "mode", "sort", "NS") : Jobs(call, "jobvs", "sort", "NS"));
  if (jobs.second != 'N') {
    return absl::UnimplementedError(
        "gees with sort 'S' needs a select function, which the custom-call cannot pass "
        "(jaxlib refuses it too)");
  }
  return WithElementType(call.type(),
                         [&](auto t) { return Gees<decltype(t)>(call, jobs.first, ffi ? 0 : 4); });
}

}  // namespace hlo::lapack
