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
#include <complex>
#include <optional>
#include <vector>

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

// What one run of the routine leaves: x's contents, s, u, vt and info, each
// for the whole batch (u and vt column-major, m x u_cols and vt_rows x n).
template <typename T>
struct SvdMemory {
  Memory<T> a, u, vt;
  Memory<Real<T>> s;
  Memory<int32_t> info;
};

// One run of the routine over a batch: its memory and what LAPACK is asked
// for. PrepareSvd allocates and queries the workspace on the calling thread;
// FactorSvd then runs the batch, on any thread.
template <typename T>
struct SvdRun {
  SvdMemory<T> out;
  const SvdShape* sv = nullptr;  // the caller's, alive across both calls
  bool gesdd = true;
  int u_cols = 0, vt_rows = 0, lda = 1, ldu = 1, ldvt = 1, lwork = 0, rwork_size = 0;
};

template <typename T>
absl::StatusOr<SvdRun<T>> PrepareSvd(Call& call, const SvdShape& sv, bool gesdd, int64_t x_index,
                                     int u_cols, int vt_rows) {
  const Matrices& x = sv.x;
  const int m = x.rows, n = x.cols;
  SvdRun<T> run;
  run.sv = &sv;
  run.gesdd = gesdd;
  run.u_cols = u_cols, run.vt_rows = vt_rows;
  run.lda = std::max(1, m), run.ldu = std::max(1, m), run.ldvt = std::max(1, vt_rows);
  HLO_ASSIGN_OR_RETURN(run.lwork, QueryWorkspace<T>("svd", [&](T* w, int l) {
                         if (gesdd) {
                           lapack::Gesdd<T>(sv.mode, m, n, nullptr, run.lda, nullptr, nullptr,
                                            run.ldu, nullptr, run.ldvt, w, l, nullptr, nullptr);
                         } else {
                           lapack::Gesvd<T>(sv.mode, sv.mode, m, n, nullptr, run.lda, nullptr,
                                            nullptr, run.ldu, nullptr, run.ldvt, w, l, nullptr);
                         }
                       }));
  HLO_ASSIGN_OR_RETURN(run.rwork_size, LapackInt(RworkSize(gesdd, sv.mode, m, n), "rwork"));
  SvdMemory<T>& out = run.out;
  out.a = call.Load<T>(x_index);
  out.u.resize(x.batch * int64_t{m} * u_cols);
  out.vt.resize(x.batch * int64_t{vt_rows} * n);
  out.s.resize(x.batch * sv.k);
  out.info.resize(x.batch);
  return run;
}

// A prepared run's batch, with a workspace of its own.
template <typename T>
void FactorSvd(SvdRun<T>& run) {
  const SvdShape& sv = *run.sv;
  const char mode = sv.mode;
  const int m = sv.x.rows, n = sv.x.cols;
  const int64_t a_step = int64_t{m} * n, u_step = int64_t{m} * run.u_cols,
                vt_step = int64_t{run.vt_rows} * n;
  Memory<T> work(run.lwork);
  Memory<Real<T>> rwork(kIsComplex<T> ? std::max(run.rwork_size, 1) : 0);
  Memory<int> iwork(8 * static_cast<size_t>(sv.k));
  // LAPACK writes u and vt only with mode 'A' or 'S'; with 'N' they may be
  // of any size (even empty), so it gets a one-element stand-in.
  T unused[1] = {};
  SvdMemory<T>& out = run.out;
  for (int64_t b = 0; b < sv.x.batch; ++b) {
    T* ab = out.a.data() + b * a_step;
    Real<T>* sb = out.s.data() + b * sv.k;
    T* ub = mode == 'N' ? unused : out.u.data() + b * u_step;
    T* vtb = mode == 'N' ? unused : out.vt.data() + b * vt_step;
    out.info[b] = run.gesdd ? lapack::Gesdd(mode, m, n, ab, run.lda, sb, ub, run.ldu, vtb, run.ldvt,
                                            work.data(), run.lwork, rwork.data(), iwork.data())
                            : lapack::Gesvd(mode, mode, m, n, ab, run.lda, sb, ub, run.ldu, vtb,
                                            run.ldvt, work.data(), run.lwork, rwork.data());
  }
}

// Singular vectors are unique up to a sign (a phase when complex), which
// depends on the precision the routine runs in. The f64/c128 run's vectors
// take the signs of the f32/c64 run's (XLA:CPU's convention, f32 LAPACK):
// u_j and v_j by the same phase, so u_j s_j v_j^H is unchanged. Columns of
// u and rows of vt past k (mode 'A': a basis of the complement) are aligned
// one by one, or are the narrow run's where the two runs chose other bases.
// A batch element whose vectors do not pair up (repeated singular values:
// no unique vectors; a failed run) is the narrow run's.
template <typename T>
class SignAligner {
 public:
  using W = Wide<T>;
  SignAligner(const SvdShape& sv, int u_cols, int vt_rows, const SvdMemory<T>& narrow,
              SvdMemory<W>& wide)
      : m_(sv.x.rows),
        n_(sv.x.cols),
        k_(sv.k),
        u_cols_(u_cols),
        vt_rows_(vt_rows),
        narrow_(narrow),
        wide_(wide) {}

  void Batch(int64_t b) {
    const int64_t u0 = b * m_ * u_cols_, vt0 = b * vt_rows_ * n_;
    // A u column or vt row: `count` elements from `first`, `stride` apart.
    auto phase = [&](int64_t first, int64_t stride, int64_t count, const Memory<T>& n,
                     const Memory<W>& w) -> std::optional<W> {
      W inner{};
      for (int64_t i = 0; i < count; ++i)
        inner += Conj(w[first + i * stride]) * W(n[first + i * stride]);
      if (std::abs(inner) < 0.9) return std::nullopt;  // both are unit vectors
      // The two runs mostly follow one phase convention, the narrow run's
      // phase off by its rounding: a phase within 1e-3 of 1 or -1 is that
      // exactly (the wide run's own phase, or its negation), not the
      // narrow run's rounding error.
      W p = inner / std::abs(inner);
      if (std::abs(p - W(1)) < 1e-3) return W(1);
      if (std::abs(p + W(1)) < 1e-3) return W(-1);
      return p;
    };
    bool paired = narrow_.info[b] == 0 && wide_.info[b] == 0;
    std::vector<W> phases;
    for (int64_t j = 0; paired && j < k_; ++j) {
      std::optional<W> p = phase(u0 + j * m_, 1, m_, narrow_.u, wide_.u);
      paired = p.has_value();
      if (paired) phases.push_back(*p);
    }
    if (!paired) {
      TakeNarrow(b);
      return;
    }
    for (int64_t j = 0; j < u_cols_; ++j) {
      std::optional<W> p = j < k_ ? phases[j] : phase(u0 + j * m_, 1, m_, narrow_.u, wide_.u);
      for (int64_t r = 0; r < m_; ++r) {
        W& x = wide_.u[u0 + j * m_ + r];
        x = p ? x * *p : W(narrow_.u[u0 + j * m_ + r]);
      }
    }
    for (int64_t j = 0; j < vt_rows_; ++j) {
      std::optional<W> p =
          j < k_ ? Conj(phases[j]) : phase(vt0 + j, vt_rows_, n_, narrow_.vt, wide_.vt);
      for (int64_t c = 0; c < n_; ++c) {
        W& x = wide_.vt[vt0 + c * vt_rows_ + j];
        x = p ? x * *p : W(narrow_.vt[vt0 + c * vt_rows_ + j]);
      }
    }
  }

 private:
  static W Conj(W x) {
    if constexpr (kIsComplex<T>) return std::conj(x);
    return x;
  }
  void TakeNarrow(int64_t b) {
    for (int64_t j = 0; j < k_; ++j) wide_.s[b * k_ + j] = narrow_.s[b * k_ + j];
    wide_.info[b] = narrow_.info[b];
    const int64_t u_step = m_ * u_cols_, vt_step = int64_t{vt_rows_} * n_;
    for (int64_t i = 0; i < u_step; ++i) wide_.u[b * u_step + i] = W(narrow_.u[b * u_step + i]);
    for (int64_t i = 0; i < vt_step; ++i)
      wide_.vt[b * vt_step + i] = W(narrow_.vt[b * vt_step + i]);
  }

  const int64_t m_, n_, k_, u_cols_, vt_rows_;
  const SvdMemory<T>& narrow_;
  SvdMemory<W>& wide_;
};

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
  if (sv.k == 0) {
    // An empty matrix: LAPACK returns at once and leaves u and vt as they
    // were; full ones are the identity (numpy's and jax's answer).
    call.Store(0, call.Load<T>(x_index));
    call.Store(1, Memory<Real<T>>());
    if (sv.mode == 'A') {
      call.StoreIdentity<T>(2);
      call.StoreIdentity<T>(3);
    }
    call.Store(4, Memory<int32_t>(x.batch));
    return call.Finish();
  }
  HLO_ASSIGN_OR_RETURN(SvdRun<T> narrow, PrepareSvd<T>(call, sv, gesdd, x_index, u_cols, vt_rows));
  const int64_t max_dim = std::max(x.rows, x.cols);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>) {
    // A small f32/c64 SVD also runs in f64/c128 (as WithComputeType's
    // kernels do), rounded once, with the f32 run's signs: the two runs
    // are independent, so they run side by side (a batch of 4x4 matrices,
    // 'A': 30 us a call, 20% off the lapack_gesdd case's time).
    if (WidenedCall(call)) {
      HLO_ASSIGN_OR_RETURN(SvdRun<Wide<T>> wide_run,
                           PrepareSvd<Wide<T>>(call, sv, gesdd, x_index, u_cols, vt_rows));
      ParallelProblems(2, max_dim, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          if (r == 0) FactorSvd(wide_run);
          if (r == 1) FactorSvd(narrow);
        }
      });
      const SvdMemory<T>& out = narrow.out;
      SvdMemory<Wide<T>>& wide = wide_run.out;
      if (sv.mode != 'N') {
        SignAligner<T> align(sv, u_cols, vt_rows, out, wide);
        for (int64_t b = 0; b < x.batch; ++b) align.Batch(b);
      }
      call.Store(0, out.a);  // what LAPACK leaves in x: the f32 run's
      call.Store(1, wide.s);
      call.Store(2, wide.u);
      call.Store(3, wide.vt);
      call.Store(4, wide.info);
      return call.Finish();
    }
  }
  FactorSvd(narrow);
  const SvdMemory<T>& out = narrow.out;
  call.Store(0, out.a);
  call.Store(1, out.s);
  call.Store(2, out.u);
  call.Store(3, out.vt);
  call.Store(4, out.info);
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
