// cuDNN fused attention (eval/gpu/cudnn_fmha.cc): bf16 and f16 operands
// are read as DecodeSmallFloat reads them, NaNs as the quiet NaN of their
// sign whatever their payload, so a call on 16-bit operands gives the bits
// of the same call on their f32 values (its output rounded once to the
// 16-bit type, its stats identical).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/float_formats.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// softmax(0.35 q.k^T).v over q, k, v [2,6,2,8] of `type`, with the stats.
std::string FmhaModule(std::string_view type) {
  const std::string t(type);
  return StrCat(
      "HloModule fmha\n\nENTRY main {\n  q = ", t, "[2,6,2,8]{3,2,1,0} parameter(0)\n  k = ", t,
      "[2,6,2,8]{3,2,1,0} parameter(1)\n  v = ", t, "[2,6,2,8]{3,2,1,0} parameter(2)\n  a = (", t,
      "[2,2,6,8]{3,1,2,0}, f32[2,2,6]{2,1,0}, u8[0]{0}) custom-call(q, k, v), "
      "custom_call_target=\"__cudnn$fmhaSoftmax\", backend_config={\"cudnn_fmha_backend_config\":"
      "{\"fmha_scale\":0.35,\"dropout_rate\":0,\"seed\":\"42\",\"is_flash_attention\":true,"
      "\"mask_type\":\"NO_MASK\",\"sliding_window_length\":0,\"bmm1_dot_dimension_numbers\":"
      "{\"lhs_contracting_dimensions\":[\"3\"],\"rhs_contracting_dimensions\":[\"3\"],"
      "\"lhs_batch_dimensions\":[\"0\",\"2\"],\"rhs_batch_dimensions\":[\"0\",\"2\"]},"
      "\"bmm2_dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"3\"],"
      "\"rhs_contracting_dimensions\":[\"1\"],\"lhs_batch_dimensions\":[\"0\",\"1\"],"
      "\"rhs_batch_dimensions\":[\"0\",\"2\"]}}}\n  o = ",
      t, "[2,2,6,8]{3,1,2,0} get-tuple-element(a), index=0\n",
      "  s = f32[2,2,6]{2,1,0} get-tuple-element(a), index=1\n  ROOT r = (", t,
      "[2,2,6,8]{3,1,2,0}, f32[2,2,6]{2,1,0}) tuple(o, s)\n}\n");
}

TEST_CASE("cudnn fmha: 16-bit operands read as their f32 values, NaN payloads dropped",
          "[cudnn_fmha]") {
  for (PrimitiveType type : {PrimitiveType::kBF16, PrimitiveType::kF16}) {
    const bool bf16 = type == PrimitiveType::kBF16;
    auto narrow = ParseTestModule(FmhaModule(bf16 ? "bf16" : "f16"));
    auto wide = ParseTestModule(FmhaModule("f32"));
    // NaNs of either sign with payloads in a few rows; other values exact
    // in both types.
    const uint16_t nans[] = {static_cast<uint16_t>(bf16 ? 0x7F81 : 0x7C01),
                             static_cast<uint16_t>(bf16 ? 0xFFA5 : 0xFE33)};
    std::vector<Value> narrow_args, wide_args;
    uint32_t seed = 5;
    for (int p = 0; p < 3; ++p) {
      auto n = Literal::Create(Shape::Array(type, {2, 6, 2, 8}));
      auto w = Literal::Create(Shape::Array(PrimitiveType::kF32, {2, 6, 2, 8}));
      REQUIRE(n.ok());
      REQUIRE(w.ok());
      uint16_t* bits = reinterpret_cast<uint16_t*>(n->data());
      for (int64_t i = 0; i < n->element_count(); ++i) {
        seed = seed * 1664525u + 1013904223u;
        if (p == 0 && i % 37 == 5) {
          bits[i] = nans[(i / 37) % 2];
        } else {
          n->SetDouble(i, static_cast<double>((seed >> 16) % 17) / 4 - 2);
        }
        w->SetDouble(i, DecodeSmallFloat(type, bits[i]));
      }
      narrow_args.push_back(Value::FromLiteral(*std::move(n)));
      wide_args.push_back(Value::FromLiteral(*std::move(w)));
    }
    Evaluator narrow_ev(*narrow, {});
    Evaluator wide_ev(*wide, {});
    auto a = narrow_ev.Run(narrow_args);
    auto b = wide_ev.Run(wide_args);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const Literal& o16 = a->element(0).array();
    const Literal& o32 = b->element(0).array();
    int nan_outputs = 0;
    for (int64_t i = 0; i < o16.element_count(); ++i) {
      const float v = o32.typed<float>()[i];
      nan_outputs += v != v;
      INFO("element " << i);
      CHECK(o16.GetBits(i) == EncodeSmallFloat(type, v));
    }
    CHECK(nan_outputs > 0);
    CheckSameBytes(a->element(1), b->element(1));
  }
}

}  // namespace
}  // namespace hlo
