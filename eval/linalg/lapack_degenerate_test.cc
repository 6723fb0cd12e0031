// Every `_ffi` LAPACK custom-call of eval/custom_call.cc, for each element
// type, on degenerate sizes: no batch, batch 0 and batch 2; n = 0, 1, 3 and,
// for the non-square routines, every m with every n of those; gtsv with 0 and
// 2 right-hand sides; SVD in modes 'A', 'S' and 'N' (u and vt of any size).
// Each must evaluate (the result values are the goldens' business:
// testdata/eval/lapack_*), and be an error naming the shapes when any one
// result is declared with a rank too low. Before, gtsv with no right-hand sides and heevd
// on 0x0 matrices crashed (SIGSEGV).
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

struct Array {
  std::string type;
  std::vector<int64_t> dims;
};

std::string ShapeText(const Array& a) {
  std::string out = StrCat(a.type, "[");
  for (size_t i = 0; i < a.dims.size(); ++i) StrAppend(&out, i ? "," : "", a.dims[i]);
  return out + "]";
}

std::vector<int64_t> Dims(std::vector<int64_t> batch, std::initializer_list<int64_t> more) {
  batch.insert(batch.end(), more.begin(), more.end());
  return batch;
}

// A module calling `target` on operands filled with 0.5 (0 for s32).
std::string CallText(const std::string& target, const std::vector<Array>& operands,
                     const std::vector<Array>& results, const std::string& config, bool tuple) {
  const std::string& t = operands[0].type;
  std::string text = StrCat("HloModule m\n\nENTRY main {\n  v = ", t, "[] constant(",
                            t[0] == 'c' ? "(0.5, 0.25)" : "0.5", ")\n  vi = s32[] constant(0)\n");
  std::string names, shapes;
  for (size_t i = 0; i < operands.size(); ++i) {
    StrAppend(&text, "  o", i, " = ", ShapeText(operands[i]), " broadcast(",
              operands[i].type == "s32" ? "vi" : "v", "), dimensions={}\n");
    StrAppend(&names, i ? ", " : "", "o", i);
  }
  for (size_t i = 0; i < results.size(); ++i)
    StrAppend(&shapes, i ? ", " : "", ShapeText(results[i]));
  StrAppend(&text, "  ROOT r = ", tuple ? StrCat("(", shapes, ")") : shapes, " custom-call(", names,
            "), custom_call_target=\"", target,
            "\", api_version=API_VERSION_TYPED_FFI, backend_config={", config, "}\n}\n");
  return text;
}

absl::Status Evaluate(const std::string& text) {
  INFO(text);
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  REQUIRE(m.ok());
  Evaluator evaluator(**m, EvalOptions{});
  return evaluator.Run({}).status();
}

// The call evaluates; with any one result's last dimension left out, it is
// an error naming the shapes, not a crash or a read past the declared dims.
void Check(const std::string& target, const std::vector<Array>& operands,
           const std::vector<Array>& results, const std::string& config, bool tuple) {
  {
    absl::Status st = Evaluate(CallText(target, operands, results, config, tuple));
    INFO(st.message());
    CHECK(st.ok());
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].dims.empty()) continue;
    std::vector<Array> wrong = results;
    wrong[i].dims.pop_back();
    absl::Status st = Evaluate(CallText(target, operands, wrong, config, tuple));
    INFO(target << " with result " << i << " of rank " << wrong[i].dims.size());
    CHECK(st.message().find(" returns ") != std::string::npos);
  }
}

struct Type {
  char letter;
  std::string type, real, complex;
};

// The square routines at batch `b`, n x n.
void Square(const Type& ty, const std::vector<int64_t>& b, int64_t n) {
  const std::string T = ty.type, R = ty.real, p = StrCat("lapack_", std::string(1, ty.letter));
  const bool cplx = T[0] == 'c';
  const Array x{T, Dims(b, {n, n})}, vec{T, Dims(b, {n})}, info{"s32", b};
  Check(p + "potrf_ffi", {x}, {x, info}, "uplo = 76 : ui8", true);
  for (int mode : {86, 78}) {
    Check(p + (cplx ? "heevd_ffi" : "syevd_ffi"), {x}, {x, {R, Dims(b, {n})}, info},
          StrCat("mode = ", mode, " : ui8, uplo = 76 : ui8"), true);
  }
  const std::string vectors = "compute_left = 86 : ui8, compute_right = 86 : ui8";
  const std::string schur = "mode = 86 : ui8, sort = 78 : ui8";
  if (cplx) {
    Check(p + "geev_ffi", {x}, {vec, x, x, info}, vectors, true);
    Check(p + "gees_ffi", {x}, {x, x, vec, info, info}, schur, true);
  } else {
    const Array cx{ty.complex, Dims(b, {n, n})};
    Check(p + "geev_ffi", {x}, {vec, vec, cx, cx, info}, vectors, true);
    Check(p + "gees_ffi", {x}, {x, x, vec, vec, info, info}, schur, true);
  }
  if (n > 0) {  // (tau has n - 1 elements)
    const Array tau{T, Dims(b, {n - 1})};
    Check(p + "gehrd_ffi", {x}, {x, tau, info}, StrCat("high = ", n, " : i32, low = 1 : i32"),
          true);
    Check(p + (cplx ? "hetrd_ffi" : "sytrd_ffi"), {x},
          {x, {R, Dims(b, {n})}, {R, Dims(b, {n - 1})}, tau, info}, "uplo = 76 : ui8", true);
  }
  for (int64_t nrhs : {0, 2}) {
    const Array rhs{T, Dims(b, {n, nrhs})};
    Check(p + "gtsv_ffi", {vec, vec, vec, rhs}, {vec, vec, vec, rhs, info}, "", true);
  }
}

// The routines of m x n matrices at batch `b`.
void Rectangular(const Type& ty, const std::vector<int64_t>& b, int64_t m, int64_t n) {
  const std::string T = ty.type, R = ty.real, p = StrCat("lapack_", std::string(1, ty.letter));
  const bool cplx = T[0] == 'c';
  const int64_t k = std::min(m, n);
  const Array x{T, Dims(b, {m, n})}, info{"s32", b}, tau{T, Dims(b, {k})};
  Check(p + "getrf_ffi", {x}, {x, {"s32", Dims(b, {k})}, info}, "", true);
  Check(p + "geqrf_ffi", {x}, {x, tau}, "", true);
  const Array jpvt{"s32", Dims(b, {n})};
  Check(p + "geqp3_ffi", {x, jpvt}, {x, jpvt, tau}, "", true);
  for (int64_t reflectors : {int64_t{0}, n}) {
    if (m < n) break;
    Check(p + (cplx ? "ungqr_ffi" : "orgqr_ffi"), {x, {T, Dims(b, {reflectors})}}, {x}, "", false);
  }
  for (int64_t reflectors : {int64_t{0}, std::min<int64_t>(m, 1)}) {
    Check(p + (cplx ? "unmqr_ffi" : "ormqr_ffi"),
          {{T, Dims(b, {m, reflectors})}, {T, Dims(b, {reflectors})}, x}, {x},
          "left = true, transpose = false", false);
  }
  Check(p + "trsm_ffi", {{T, Dims(b, {m, m})}, x}, {x},
        "diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8", false);
  struct Mode {
    int code;
    std::vector<int64_t> u, vt;
  };
  const Mode modes[] = {
      {65, {m, m}, {n, n}}, {83, {m, k}, {k, n}}, {78, {m, 0}, {0, n}}, {78, {m, 5}, {2, n}}};
  for (const char* routine : {"gesdd_ffi", "gesvd_ffi"}) {
    for (const Mode& mode : modes) {
      const Array u{T, Dims(b, {mode.u[0], mode.u[1]})}, vt{T, Dims(b, {mode.vt[0], mode.vt[1]})};
      Check(p + routine, {x}, {x, {R, Dims(b, {k})}, u, vt, info},
            StrCat("mode = ", mode.code, " : ui8"), true);
    }
  }
}

TEST_CASE("every LAPACK custom-call evaluates on degenerate sizes, or names a wrong rank",
          "[linalg][lapack]") {
  const Type types[] = {{'s', "f32", "f32", "c64"},
                        {'d', "f64", "f64", "c128"},
                        {'c', "c64", "f32", "c64"},
                        {'z', "c128", "f64", "c128"}};
  const std::vector<std::vector<int64_t>> batches = {{}, {0}, {2}};
  for (const Type& ty : types) {
    for (const std::vector<int64_t>& b : batches) {
      for (int64_t n : {0, 1, 3}) {
        Square(ty, b, n);
        for (int64_t m : {0, 1, 3}) Rectangular(ty, b, m, n);
      }
    }
  }
}

}  // namespace
}  // namespace hlo
