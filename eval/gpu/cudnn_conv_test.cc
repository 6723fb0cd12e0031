// __cudnn$convBiasActivationForward's epilogue (eval/gpu/cudnn_conv.cc):
// the typed f32/f64/bf16/f16 loops give the generic f64 loop's bytes (hlo-run
// --no-fast-paths) for every activation, scale, side input and feature
// position, and ReLU of a negative f64 value too small for the result's
// type is +0 (the f64 compare comes before the rounding).
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

struct EpilogueCase {
  std::string_view type;  // f32, f64 or bf16
  bool feature_minor;     // b01f (the feature is the minor dimension) or bf01
  std::string_view activation, scale, side_scale;
};

// A 1x1 convolution of one input feature by `features` filters of ones
// (each output feature is the input) over 3x5 positions, then the case's
// epilogue. 19 features and 15 positions: the vector loops' widths (2 to
// 16 lanes) leave a remainder both where the feature is minor (b01f) and
// where a feature's run is (bf01).
std::string ConvBiasModule(const EpilogueCase& c, int features = 19) {
  const std::string t(c.type);
  const std::string f = std::to_string(features);
  const bool side = c.side_scale != "0";
  const std::string x = t + (c.feature_minor ? "[2,3,5,1]" : "[2,1,3,5]");
  const std::string out = t + (c.feature_minor ? "[2,3,5," + f + "]" : "[2," + f + ",3,5]");
  const std::string labels = c.feature_minor ? "b01f_o01i->b01f" : "bf01_oi01->bf01";
  std::string ones;
  for (int i = 0; i < features; ++i) ones += i == 0 ? "{{{1}}}" : ", {{{1}}}";
  return StrCat("HloModule conv_bias\n\nENTRY main {\n  x = ", x, " parameter(0)\n  k = ", t, "[",
                f, ",1,1,1] constant({", ones, "})\n  b = ", t, "[", f, "] parameter(1)\n",
                side ? StrCat("  s = ", out, " parameter(2)\n") : "", "  c = (", out,
                ", u8[0]) custom-call(x, k, b", side ? ", s" : "",
                "), window={size=1x1}, dim_labels=", labels,
                ", custom_call_target=\"__cudnn$convBiasActivationForward\", "
                "backend_config={\"cudnn_conv_backend_config\":{\"activation_mode\":\"",
                c.activation, "\",\"conv_result_scale\":", c.scale,
                ",\"side_input_scale\":", c.side_scale, ",\"leakyrelu_alpha\":0.25}}\n",
                "  ROOT r = ", out, " get-tuple-element(c), index=0\n}\n");
}

// Values whose epilogue meets the edges: signed zeros, a subnormal, values
// near the type's largest, ordinary ones of both signs, and NaNs where
// `nans` (the input only: which of two NaNs an add passes on is the
// compiler's choice of operand order, so no element meets two).
Value EdgeValues(const Shape& shape, uint32_t seed, bool nans) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const double pick[] = {-1, 3, nans ? NAN : 1.5, -0.0, 0.0, 1e-40, -2.5e38, 7.25, -0.5, 1e30};
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    lit->SetDouble(i, pick[(seed >> 16) % 10]);
  }
  return Value::FromLiteral(*std::move(lit));
}

std::vector<Value> Arguments(const Module& m) {
  std::vector<Value> args;
  for (int64_t p = 0; p < m.entry()->parameter_count(); ++p) {
    args.push_back(
        EdgeValues(m.entry()->parameter(p)->shape(), 17u + static_cast<uint32_t>(p), p == 0));
  }
  return args;
}

TEST_CASE("cudnn conv bias activation: typed epilogue gives the generic loop's bytes",
          "[cudnn_conv]") {
  const EpilogueCase cases[] = {
      {"f32", true, "kRelu", "1", "0"},       {"f32", true, "kRelu", "0.5", "2"},
      {"f32", false, "kRelu", "0.5", "2"},    {"f32", true, "2", "1e-46", "0"},
      {"f32", true, "kNone", "3", "0"},       {"f32", false, "kNone", "1", "-1.5"},
      {"f32", true, "kElu", "1", "0"},        {"f32", false, "kLeakyRelu", "2", "1"},
      {"f32", true, "kTanh", "0.5", "0"},     {"f64", true, "kRelu", "0.5", "2"},
      {"f64", false, "kRelu", "1e-300", "0"}, {"f64", true, "kSigmoid", "1", "1"},
      {"bf16", true, "kRelu", "0.5", "2"},    {"bf16", false, "kElu", "1", "0"},
      {"f16", true, "kNone", "0.5", "1"},     {"f16", false, "kRelu", "2", "0"},
  };
  for (const EpilogueCase& c : cases) {
    const std::string text = ConvBiasModule(c);
    INFO(text);
    auto m = ParseTestModule(text);
    CheckFastPathsKeepBytes(*m, Arguments(*m));
  }
}

TEST_CASE("cudnn conv bias activation: ReLU compares in f64 before rounding", "[cudnn_conv]") {
  // 1e-46 * -1 = -1e-46 is negative in f64 (ReLU gives +0) though it rounds
  // to -0 in f32: a ReLU after the rounding would keep the sign.
  auto m = ParseTestModule(ConvBiasModule({"f32", true, "kRelu", "1e-46", "0"}, 4));
  auto x = Literal::Create(m->entry()->parameter(0)->shape());
  auto bias = Literal::Create(m->entry()->parameter(1)->shape());
  REQUIRE(x.ok());
  REQUIRE(bias.ok());
  for (int64_t i = 0; i < x->element_count(); ++i) x->SetDouble(i, i % 2 == 0 ? -1 : 1e8);
  for (int64_t f = 0; f < bias->element_count(); ++f) bias->SetDouble(f, 0);
  Evaluator ev(*m, {});
  auto r = ev.Run({Value::FromLiteral(*std::move(x)), Value::FromLiteral(*std::move(bias))});
  REQUIRE(r.ok());
  const Literal& out = r->array();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const float v = out.typed<float>()[i];
    INFO("element " << i);
    if ((i / 4) % 2 == 0) {
      CHECK(v == 0.0f);
      CHECK_FALSE(std::signbit(v));
    } else {
      CHECK(v == static_cast<float>(1e8 * 1e-46));  // 1e-38, an f32 subnormal
    }
  }
}

}  // namespace
}  // namespace hlo
