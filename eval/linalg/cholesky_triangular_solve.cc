// cholesky and triangular-solve through OpenBLAS (LAPACK ?potrf, CBLAS
// ?trsm), batched over the leading dimensions.
//
// f32, f64, c64 and c128 run natively; the narrower float types are widened
// to f32 and the result rounded back once.
//
// cholesky reads only the triangle named by `lower` and returns the factor
// with the other triangle zero (as XLA's expansion, which builds the factor
// from zeros). A matrix that is not positive definite gives a result of all
// NaN for that batch element, as XLA's CholeskyExpander does (the spec
// leaves it undefined). triangular-solve reads only the `lower` triangle and,
// with unit_diagonal, not the diagonal either.

#include <climits>
#include <complex>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "eval/blas_api.h"
#include "eval/kernels/kernels.h"
#include "eval/linalg/lapack_fortran.h"
#include "eval/linalg/lapack_memory.h"
#include "eval/type_dispatch.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using lapack::Memory;

using C64 = std::complex<float>;
using C128 = std::complex<double>;

// The arithmetic type an element type is computed in (f32 for the narrow
// floats); non-float types map to themselves and are rejected by callers.
PrimitiveType WorkType(PrimitiveType t) {
  return IsFloat(t) && t != PrimitiveType::kF64 ? PrimitiveType::kF32 : t;
}

// run(W{}) with W the work type of elements of type t (float, double, C64,
// C128); false, running nothing, for any other type.
template <typename Run>
bool RunInWorkType(PrimitiveType t, Run&& run) {
  bool ran = false;
  DispatchType(WorkType(t), [&](auto tag) {
    using W = typename decltype(tag)::T;
    if constexpr (std::is_same_v<W, float> || std::is_same_v<W, double> || std::is_same_v<W, C64> ||
                  std::is_same_v<W, C128>) {
      run(W{});
      ran = true;
    }
  });
  return ran;
}

// The literal's elements as W (a copy for native types, a widening for the
// narrow floats).
template <typename W>
Memory<W> Load(const Literal& lit) {
  Memory<W> out(lit.element_count());
  if (WorkType(lit.element_type()) == lit.element_type()) {
    if (!out.empty()) std::memcpy(out.data(), lit.data(), out.size() * sizeof(W));
  } else {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<W>(static_cast<float>(lit.GetDouble(static_cast<int64_t>(i))));
    }
  }
  return out;
}

template <typename W>
void StoreTo(const Memory<W>& v, Literal& lit) {
  if (WorkType(lit.element_type()) == lit.element_type()) {
    if (!v.empty()) std::memcpy(lit.data(), v.data(), v.size() * sizeof(W));
  } else {
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<W, float>) lit.SetDouble(static_cast<int64_t>(i), v[i]);
    }
  }
}

// Both matrix dimensions must fit LAPACK's 32-bit integers.
absl::Status CheckBlasSize(int64_t rows, int64_t cols) {
  if (rows > INT_MAX || cols > INT_MAX) {
    return absl::InvalidArgumentError(
        StrCat("a ", rows, "x", cols, " matrix is too large for LAPACK"));
  }
  return absl::OkStatus();
}

// ---- cholesky -------------------------------------------------------------------

// Factors every n x n matrix of `data` in place.
template <typename W>
void CholeskyBatch(Memory<W>& data, int64_t n, bool lower) {
  const int64_t batch = n == 0 ? 0 : static_cast<int64_t>(data.size()) / (n * n);
  // Row-major storage read column-major is the transpose, whose upper
  // triangle is our lower one: LAPACK's 'U' factor A^T = U^H U is, read back
  // row-major, the L of A = L L^H (and 'L' gives our upper factor).
  const char uplo = lower ? 'U' : 'L';
  for (int64_t b = 0; b < batch; ++b) {
    W* m = data.data() + b * n * n;
    if (lapack::Potrf(uplo, static_cast<int>(n), m, static_cast<int>(n)) != 0) {
      std::fill(m, m + n * n, W(std::numeric_limits<float>::quiet_NaN()));
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (lower ? j > i : j < i) m[i * n + j] = W(0);
      }
    }
  }
}

absl::StatusOr<Value> EvalCholesky(const Instruction& inst, const Literal& a) {
  const Shape& s = a.shape();
  if (s.rank() < 2 || s.dim(s.rank() - 1) != s.dim(s.rank() - 2)) {
    return absl::InvalidArgumentError(StrCat(
        "cholesky needs square matrices in the last two dimensions, but a is ", s.ToString(false)));
  }
  const int64_t n = s.dim(s.rank() - 1);
  if (auto st = CheckBlasSize(n, n); !st.ok()) return st;
  if (!inst.shape().IsArray() || inst.shape().element_type() != s.element_type() ||
      !std::equal(inst.shape().dims().begin(), inst.shape().dims().end(), s.dims().begin(),
                  s.dims().end())) {
    return absl::InvalidArgumentError(StrCat("the result shape ", inst.shape().ToString(false),
                                             " should be ", s.ToString(false)));
  }
  absl::StatusOr<Value> result = NewArray(inst.shape());
  if (!result.ok()) return result;
  const bool lower = inst.GetBool(AttrKind::kLower, false);
  auto run = [&](auto tag) {
    using W = decltype(tag);
    Memory<W> data = Load<W>(a);
    CholeskyBatch(data, n, lower);
    StoreTo(data, result->mutable_array());
  };
  if (!RunInWorkType(s.element_type(), run)) {
    return absl::InvalidArgumentError(
        StrCat("cholesky needs a floating-point or complex operand, but a is ", s.ToString(false)));
  }
  return result;
}

// ---- triangular-solve -----------------------------------------------------------

struct SolveOptions {
  bool left_side = false, lower = false, unit_diagonal = false;
  CBLAS_TRANSPOSE transpose = CblasNoTrans;
};

absl::StatusOr<SolveOptions> ParseSolveOptions(const Instruction& inst) {
  SolveOptions o;
  o.left_side = inst.GetBool(AttrKind::kLeftSide, false);
  o.lower = inst.GetBool(AttrKind::kLower, false);
  o.unit_diagonal = inst.GetBool(AttrKind::kUnitDiagonal, false);
  std::string_view t = inst.GetString(AttrKind::kTransposeA);
  if (t.empty() || t == "NO_TRANSPOSE") {
    o.transpose = CblasNoTrans;
  } else if (t == "TRANSPOSE") {
    o.transpose = CblasTrans;
  } else if (t == "ADJOINT") {
    o.transpose = CblasConjTrans;
  } else {
    return absl::InvalidArgumentError(
        StrCat("unknown transpose_a '", t, "'; expected NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
  }
  return o;
}

// Solves op(a) x = b (left) or x op(a) = b (right) for every batch element,
// overwriting b (rows x cols each) with x.
template <typename W>
void SolveBatch(const Memory<W>& a, Memory<W>& b, int64_t n, int64_t rows, int64_t cols,
                const SolveOptions& o) {
  const int64_t batch = n == 0 ? 0 : static_cast<int64_t>(a.size()) / (n * n);
  if (rows == 0 || cols == 0) return;
  const CBLAS_SIDE side = o.left_side ? CblasLeft : CblasRight;
  const CBLAS_UPLO uplo = o.lower ? CblasLower : CblasUpper;
  const CBLAS_DIAG diag = o.unit_diagonal ? CblasUnit : CblasNonUnit;
  const int m = static_cast<int>(rows), k = static_cast<int>(cols), lda = static_cast<int>(n);
  blas::PrepareWorkers(n, std::max(rows, cols));
  for (int64_t i = 0; i < batch; ++i) {
    const W* am = a.data() + i * n * n;
    W* bm = b.data() + i * rows * cols;
    if constexpr (std::is_same_v<W, float>) {
      cblas_strsm(CblasRowMajor, side, uplo, o.transpose, diag, m, k, 1.0f, am, lda, bm, k);
    } else if constexpr (std::is_same_v<W, double>) {
      cblas_dtrsm(CblasRowMajor, side, uplo, o.transpose, diag, m, k, 1.0, am, lda, bm, k);
    } else {
      const W one(1);
      auto trsm = std::is_same_v<W, C64> ? cblas_ctrsm : cblas_ztrsm;
      trsm(CblasRowMajor, side, uplo, o.transpose, diag, m, k, &one, am, lda, bm, k);
    }
  }
}

absl::StatusOr<Value> EvalTriangularSolve(const Instruction& inst, const Literal& a,
                                          const Literal& b) {
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  absl::StatusOr<SolveOptions> o = ParseSolveOptions(inst);
  if (!o.ok()) return o.status();
  const int64_t r = sa.rank();
  if (r < 2 || sa.dim(r - 1) != sa.dim(r - 2)) {
    return absl::InvalidArgumentError(
        StrCat("triangular-solve needs square matrices a in the last two dimensions, but a is ",
               sa.ToString(false)));
  }
  const int64_t n = sa.dim(r - 1);
  if (sb.rank() != r || sa.element_type() != sb.element_type() ||
      !std::equal(sa.dims().begin(), sa.dims().end() - 2, sb.dims().begin()) ||
      sb.dim(o->left_side ? r - 2 : r - 1) != n) {
    return absl::InvalidArgumentError(StrCat("b ", sb.ToString(false), " does not fit a ",
                                             sa.ToString(false),
                                             " with left_side=", o->left_side ? "true" : "false"));
  }
  const int64_t rows = sb.dim(r - 2), cols = sb.dim(r - 1);
  if (auto st = CheckBlasSize(rows, cols); !st.ok()) return st;
  if (!inst.shape().IsArray() || inst.shape().element_type() != sb.element_type() ||
      !std::equal(inst.shape().dims().begin(), inst.shape().dims().end(), sb.dims().begin(),
                  sb.dims().end())) {
    return absl::InvalidArgumentError(StrCat("the result shape ", inst.shape().ToString(false),
                                             " should be ", sb.ToString(false)));
  }
  absl::StatusOr<Value> result = NewArray(inst.shape());
  if (!result.ok()) return result;
  auto run = [&](auto tag) {
    using W = decltype(tag);
    Memory<W> am = Load<W>(a);
    Memory<W> x = Load<W>(b);
    SolveBatch(am, x, n, rows, cols, *o);
    StoreTo(x, result->mutable_array());
  };
  if (!RunInWorkType(sa.element_type(), run)) {
    return absl::InvalidArgumentError(
        StrCat("triangular-solve needs floating-point or complex operands, but a is ",
               sa.ToString(false)));
  }
  return result;
}

}  // namespace

absl::StatusOr<Value> EvalLinalg(const Instruction& inst, Operands ops, KernelContext&) {
  const bool cholesky = inst.opcode() == Opcode::kCholesky;
  const size_t want = cholesky ? 1 : 2;
  if (ops.size() != want) {
    return absl::InvalidArgumentError(
        StrCat(inst.OpcodeText(), " takes ", want, " operands but has ", ops.size()));
  }
  for (const Value* v : ops) {
    if (!v->is_array()) {
      return absl::InvalidArgumentError(StrCat(inst.OpcodeText(), " takes array operands"));
    }
  }
  if (cholesky) return EvalCholesky(inst, ops[0]->array());
  return EvalTriangularSolve(inst, ops[0]->array(), ops[1]->array());
}

}  // namespace hlo
