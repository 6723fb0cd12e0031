// __cublas$gemm / __cublas$lt$matmul's epilogue (eval/gpu/cublas.cc): the
// typed f32/f64 loop gives the generic f64 loop's bytes (hlo-run
// --no-fast-paths) for every activation, with and without the matrix bias,
// the vector bias (along the minor-most dimension of either layout) and
// aux, in f32, f64, bf16 and f16 (NaNs with payloads among the 16-bit
// ones), on products long enough to run on both cores.
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

// Values with signed zeros, a subnormal and large ones among ordinary ones
// of both signs, and NaNs where `nans` (in one operand only: which of two
// NaNs an add passes on is the compiler's choice of operand order, not a
// fixed bit pattern, so no element meets two).
Value EdgeValues(const Shape& shape, uint32_t seed, bool nans) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const double pick[] = {-1, 3,   nans ? NAN : 1.5, -0.0, 0.0, 1e-40, -20, 7.25, -0.5, 0.125,
                         2,  -3.5};
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    lit->SetDouble(i, (seed >> 16) % 64 == 0 ? pick[(seed >> 8) % 12]
                                             : static_cast<double>((seed >> 16) % 33) / 8 - 2);
  }
  // 16-bit floats: NaNs with payloads too (read as the quiet NaN of their sign).
  const PrimitiveType t = shape.element_type();
  if (nans && (t == PrimitiveType::kBF16 || t == PrimitiveType::kF16)) {
    uint16_t* bits = reinterpret_cast<uint16_t*>(lit->data());
    const bool bf16 = t == PrimitiveType::kBF16;
    for (int64_t i = 3; i < lit->element_count(); i += 97) {
      bits[i] =
          static_cast<uint16_t>(i % 2 == 0 ? (bf16 ? 0xFF85 : 0xFC21) : (bf16 ? 0x7F81 : 0x7C11));
    }
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
      {"bf16", "BIAS_GELU_AUX", "0", true}, {"bf16", "RELU", "0.5", false},
      {"f16", "BIAS_SILU", "-1", false},
  };
  for (const GemmCase& c : cases) {
    const std::string text = GemmModule(c, 96, 8, 200);
    INFO(text);
    auto m = ParseTestModule(text);
    std::vector<Value> args;
    for (int64_t p = 0; p < m->entry()->parameter_count(); ++p) {
      args.push_back(
          EdgeValues(m->entry()->parameter(p)->shape(), 7u + static_cast<uint32_t>(p), p == 0));
    }
    CheckFastPathsKeepBytes(*m, args);
  }
}

}  // namespace
}  // namespace hlo
