// __cublas$gemm / __cublas$lt$matmul's epilogue (eval/gpu/cublas.cc): the
// typed f32/f64 loop gives the generic f64 loop's bytes (hlo-run
// --no-fast-paths) for every activation, with and without the matrix bias,
// the vector bias (along the minor-most dimension of either layout) and
// aux, on products long enough to run on both cores.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace {

struct GemmCase {
  std::string_view type;      // f32, f64 or f16
  std::string_view epilogue;  // gemm_backend_config's
  std::string_view beta;
  bool column_major;  // the result's layout {0,1}: the bias runs along dimension 0
};

bool HasBias(std::string_view epilogue) { return epilogue.find("BIAS") != std::string_view::npos; }
bool HasAux(std::string_view epilogue) { return epilogue.find("AUX") != std::string_view::npos; }

// [m,k] x [k,n] with the case's epilogue; m * n is past one part of the
// parallel epilogue.
std::string GemmModule(const GemmCase& c, int64_t m, int64_t k, int64_t n) {
  const std::string t(c.type);
  const std::string layout = c.column_major ? "{0,1}" : "{1,0}";
  const std::string out = StrCat(t, "[", m, ",", n, "]", layout);
  const int64_t bias_len = c.column_major ? m : n;
  std::string params = StrCat("  a = ", t, "[", m, ",", k, "]{1,0} parameter(0)\n  b = ", t, "[", k,
                              ",", n, "]{1,0} parameter(1)\n");
  std::string operands = "a, b";
  int p = 2;
  if (c.beta != "0") {
    params += StrCat("  c = ", out, " parameter(", p++, ")\n");
    operands += ", c";
  }
  if (HasBias(c.epilogue)) {
    params += StrCat("  bias = ", t, "[", bias_len, "]{0} parameter(", p++, ")\n");
    operands += ", bias";
  }
  return StrCat("HloModule gemm\n\nENTRY main {\n", params, "  ROOT g = (", out,
                HasAux(c.epilogue) ? StrCat(", ", out) : "", ", s8[8]{0}) custom-call(", operands,
                "), custom_call_target=\"__cublas$lt$matmul\", backend_config={"
                "\"gemm_backend_config\":{\"alpha_real\":0.75,\"alpha_imag\":0,\"beta\":",
                c.beta,
                ",\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],"
                "\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],"
                "\"rhs_batch_dimensions\":[]},\"epilogue\":\"",
                c.epilogue, "\"}}\n}\n");
}

// Values with NaN, signed zeros, a subnormal and large ones among ordinary
// ones of both signs.
Value EdgeValues(const Shape& shape, uint32_t seed) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const double pick[] = {-1, 3, NAN, -0.0, 0.0, 1e-40, -20, 7.25, -0.5, 0.125, 2, -3.5};
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    lit->SetDouble(i, (seed >> 16) % 64 == 0 ? pick[(seed >> 8) % 12]
                                             : static_cast<double>((seed >> 16) % 33) / 8 - 2);
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("cublas gemm epilogue: typed loop gives the generic loop's bytes", "[cublas]") {
  const GemmCase cases[] = {
      {"f32", "BIAS_RELU", "0", false},     {"f32", "RELU", "0.5", false},
      {"f32", "BIAS_GELU_AUX", "0", false}, {"f32", "GELU", "-1", true},
      {"f32", "BIAS_SILU", "0", true},      {"f32", "BIAS", "2", false},
      {"f32", "DEFAULT", "0.25", true},     {"f64", "BIAS_GELU", "1", false},
      {"f64", "BIAS_RELU", "0", true},      {"f16", "BIAS_RELU", "0", false},
  };
  for (const GemmCase& c : cases) {
    const std::string text = GemmModule(c, 96, 8, 200);
    INFO(text);
    auto m = ParseTestModule(text);
    std::vector<Value> args;
    for (int64_t p = 0; p < m->entry()->parameter_count(); ++p) {
      args.push_back(EdgeValues(m->entry()->parameter(p)->shape(), 7u + static_cast<uint32_t>(p)));
    }
    CheckFastPathsKeepBytes(*m, args);
  }
}

}  // namespace
}  // namespace hlo
