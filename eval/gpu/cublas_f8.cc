// XLA:GPU's FP8 cuBLASLt gemm, __cublas$lt$matmul$f8: operands and results
// as xla/service/gpu/thunk_emitter.cc (EmitCublasLtMatmulThunkF8) reads
// the call that xla/backends/gpu/transforms/gemm_rewriter.cc builds:
//
//   (a, b[, c], a_scale, b_scale[, bias][, d_scale]) -> (d[, d_amax], s8[workspace])
//
// a and b are f8e4m3fn or f8e5m2 (not both e5m2); c, the matrix bias, is
// there when beta is not 0; bias, a vector along d's minor-most dimension,
// when the epilogue names BIAS; d_scale, the last operand, when d is f8
// (when XLA rewrote an unscaled f8 dot, there is none and its thunk emitter
// reads the last operand, b_scale, as d_scale, as this does);
// the scales are f32 scalars; d_amax (damax_output) is an f32 scalar. With
// cuBLASLt's scaling (the FP8 equation of cublasLtMatmul):
//
//   t = act(alpha * a_scale * b_scale * dot(a, b) + beta * c + bias)
//   d_amax = max |t|,   d = t (bf16/f16/f32 d), or
//   d = convert(clamp(d_scale * t, lowest, max)) (f8 d)
//
// the f8 conversion saturating as the clamp XLA's F8ConvertD requires
// before it fuses the conversion (gemm_rewriter.cc), then rounding to
// nearest even; NaN stays NaN. The rewriter inverts a divided scale
// before it passes it, so every scale multiplies. The dot of the f8
// values, exact in f32, accumulates in f32 and the equation runs in f32
// (cuBLASLt's scale type for every FP8 combination, cuda_blas_lt.cc);
// cuBLASLt's FAST_ACCUM mode (DEFAULT precision) changes only how its
// accumulator rounds. Refused with an error: the _AUX epilogues (the thunk
// emitter rejects them), d_amax of a non-f8 result (XLA never asks for it),
// block scaling (scale_mode 2, MX), f8 types other
// than e4m3fn/e5m2 (ROCm's fnuz calls take no d_scale: their meaning
// differs) and type combinations cuBLASLt's FP8 table has not.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "eval/gpu/cublas.h"
#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

constexpr std::string_view kTarget = "custom-call __cublas$lt$matmul$f8";

bool IsOcpF8(PrimitiveType t) {
  return t == PrimitiveType::kF8E4M3FN || t == PrimitiveType::kF8E5M2;
}

// The largest finite value of the f8 output types.
float F8Max(PrimitiveType t) { return t == PrimitiveType::kF8E4M3FN ? 448.0f : 57344.0f; }

// Which operand is which, after the call's configuration.
struct Layout {
  size_t c = 0, a_scale = 2, b_scale = 3, bias = 0, d_scale = 0, count = 4;
};

absl::StatusOr<Layout> OperandLayout(const Gemm& g, bool f8_out, size_t given) {
  Layout l;
  const bool has_c = g.beta != 0;
  if (has_c) l.c = 2;
  l.a_scale = has_c ? 3 : 2;
  l.b_scale = l.a_scale + 1;
  l.count = l.b_scale + 1;
  if (g.bias) l.bias = l.count++;
  if (f8_out) l.d_scale = l.count++;
  // XLA rewrites an unscaled dot with an f8 result into (a, b, 1, 1): its
  // thunk emitter then reads the last operand, b_scale, as d_scale.
  if (f8_out && !g.bias && given + 1 == l.count) {
    l.d_scale = l.b_scale;
    l.count = given;
  }
  if (given != l.count) {
    return Invalid(StrCat(kTarget, " with beta ", g.beta, ", epilogue ", g.epilogue, " and ",
                          f8_out ? "an f8" : "a non-f8", " result takes ", l.count,
                          " operands (a, b", has_c ? ", c" : "", ", a_scale, b_scale",
                          g.bias ? ", bias" : "", f8_out ? ", d_scale" : "", "), not ", given));
  }
  return l;
}

absl::Status CheckConfig(const Gemm& g) {
  if (g.aux) {
    return Invalid(StrCat(kTarget, ": epilogue ", g.epilogue,
                          " is not implemented (XLA's thunk emitter rejects an auxiliary output "
                          "on FP8 gemms)"));
  }
  if (g.scale_mode != 0 && g.scale_mode != 1) {
    return Invalid(StrCat(kTarget, ": scale_mode ", g.scale_mode,
                          " is not implemented (only tensor scaling, 1, has XLA's FP8 meaning; "
                          "block scaling is __cublas$lt$matmul$mx)"));
  }
  if (g.alpha_imag != 0) return Invalid(StrCat(kTarget, " takes no imaginary alpha"));
  return absl::OkStatus();
}

absl::Status CheckTypes(PrimitiveType a, PrimitiveType b, PrimitiveType d) {
  if (!IsOcpF8(a) || !IsOcpF8(b)) {
    return Invalid(StrCat(kTarget, ": a and b must be f8e4m3fn or f8e5m2, not ",
                          PrimitiveTypeName(a), " and ", PrimitiveTypeName(b),
                          " (other f8 types are ROCm's, whose call has another meaning)"));
  }
  if (a == PrimitiveType::kF8E5M2 && b == PrimitiveType::kF8E5M2) {
    return Invalid(StrCat(kTarget,
                          ": cuBLASLt has no f8e5m2 x f8e5m2 gemm (one operand must "
                          "be f8e4m3fn)"));
  }
  const bool d_ok = d == PrimitiveType::kF8E4M3FN || d == PrimitiveType::kBF16 ||
                    d == PrimitiveType::kF16 || d == PrimitiveType::kF32 ||
                    (d == PrimitiveType::kF8E5M2 && (a == d || b == d));
  if (!d_ok) {
    return Invalid(StrCat(kTarget, ": a ", PrimitiveTypeName(d), " result of ",
                          PrimitiveTypeName(a), " x ", PrimitiveTypeName(b),
                          " is not in cuBLASLt's FP8 table (f8e4m3fn, bf16, f16, f32, or "
                          "f8e5m2 when an operand is)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<float> Scale(Operands ops, size_t i, std::string_view name) {
  const Literal& s = ops[i]->array();
  if (s.element_type() != PrimitiveType::kF32 || s.element_count() != 1) {
    return Invalid(StrCat(kTarget, ": ", name, " (operand ", i, ") must be an f32 scalar, not ",
                          s.shape().ToString(false)));
  }
  return static_cast<float>(s.GetDouble(0));
}

// c: the result's dims; bf16/f16 for an f8 result, else the result's type.
absl::Status CheckMatrixBias(const Literal& c, const Shape& d) {
  const PrimitiveType t = c.element_type();
  const bool f8_out = IsOcpF8(d.element_type());
  const bool type_ok =
      f8_out ? (t == PrimitiveType::kBF16 || t == PrimitiveType::kF16) : t == d.element_type();
  if (c.shape().dims() != d.dims() || !type_ok) {
    return Invalid(StrCat(kTarget, ": the matrix bias c must have the result's dims and ",
                          f8_out ? "type bf16 or f16" : "type", " (", d.ToString(false), "), not ",
                          c.shape().ToString(false)));
  }
  return absl::OkStatus();
}

absl::Status CheckVectorBias(const Literal& bias, const Shape& d, int64_t bias_dim) {
  if (bias.shape().rank() != 1 || d.rank() == 0 || bias.shape().dim(0) != d.dim(bias_dim) ||
      !IsFloat(bias.element_type())) {
    return Invalid(StrCat(kTarget,
                          ": the bias must be a float vector along the result's "
                          "dimension ",
                          bias_dim, ", not ", bias.shape().ToString(false)));
  }
  return absl::OkStatus();
}

// The result's shapes: d first, then the f32 scalar d_amax when asked.
absl::Status CheckResults(const Instruction& inst, const Gemm& g) {
  const Shape& s = inst.shape();
  const bool ok = s.IsTuple() && s.tuple_size() >= 1 && s.tuple_shape(0).IsArray() &&
                  (!g.damax_output || (s.tuple_size() >= 2 && s.tuple_shape(1).IsArray() &&
                                       s.tuple_shape(1).element_type() == PrimitiveType::kF32 &&
                                       s.tuple_shape(1).rank() == 0));
  if (!ok) {
    return Invalid(StrCat(kTarget, " returns (d", g.damax_output ? ", f32[] d_amax" : "",
                          ", s8[workspace]), not ", s.ToString(false)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> EvalCublasLtMatmulF8(const Instruction& inst, Operands ops,
                                           KernelContext& ev) {
  absl::StatusOr<Gemm> g = ReadGemm(inst);
  if (!g.ok()) return g.status();
  HLO_RETURN_IF_ERROR(CheckConfig(*g));
  HLO_RETURN_IF_ERROR(CheckResults(inst, *g));
  const Shape& d_shape = inst.shape().tuple_shape(0);
  const PrimitiveType d_type = d_shape.element_type();
  const bool f8_out = IsOcpF8(d_type);
  if (g->damax_output && !f8_out) {
    return Invalid(StrCat(kTarget, ": damax_output with a ", PrimitiveTypeName(d_type),
                          " result is not implemented (XLA asks for d_amax only when it fuses the "
                          "conversion to f8)"));
  }
  HLO_ASSIGN_OR_RETURN(Layout l, OperandLayout(*g, f8_out, ops.size()));
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]->is_array()) return Invalid(StrCat(kTarget, ": operand ", i, " is a tuple"));
  }
  HLO_RETURN_IF_ERROR(
      CheckTypes(ops[0]->array().element_type(), ops[1]->array().element_type(), d_type));
  HLO_ASSIGN_OR_RETURN(float a_scale, Scale(ops, l.a_scale, "a_scale"));
  HLO_ASSIGN_OR_RETURN(float b_scale, Scale(ops, l.b_scale, "b_scale"));
  float d_scale = 1;
  if (f8_out) {
    HLO_ASSIGN_OR_RETURN(d_scale, Scale(ops, l.d_scale, "d_scale"));
  }
  const Literal* c = g->beta != 0 ? &ops[l.c]->array() : nullptr;
  if (c != nullptr) HLO_RETURN_IF_ERROR(CheckMatrixBias(*c, d_shape));
  const Literal* bias = g->bias ? &ops[l.bias]->array() : nullptr;
  const int64_t bias_dim = GemmBiasDim(d_shape);
  int64_t inner = 1;
  if (bias != nullptr) {
    HLO_RETURN_IF_ERROR(CheckVectorBias(*bias, d_shape, bias_dim));
    for (int64_t k = bias_dim + 1; k < d_shape.rank(); ++k) inner *= d_shape.dim(k);
  }
  // The product of the f8 values in f32: the dot kernel checks the dims.
  const Shape acc_shape = Shape::Array(PrimitiveType::kF32, d_shape.dims());
  auto dot = GemmDot(&acc_shape, *g);
  HLO_ASSIGN_OR_RETURN(Value acc, EvalDot(*dot, ops.subspan(0, 2), ev));
  HLO_ASSIGN_OR_RETURN(Value d, NewArrayUninitialized(d_shape));
  const float* t_in = acc.array().typed<float>();
  Literal& out = d.mutable_array();
  const float scale = static_cast<float>(g->alpha) * a_scale * b_scale;
  const float beta = static_cast<float>(g->beta);
  const float max = f8_out ? F8Max(d_type) : 0;
  float amax = 0;
  for (int64_t i = 0; i < out.element_count(); ++i) {
    float t = scale * t_in[i];
    if (c != nullptr) t += beta * static_cast<float>(c->GetDouble(i));
    if (bias != nullptr)
      t += static_cast<float>(bias->GetDouble((i / inner) % d_shape.dim(bias_dim)));
    t = static_cast<float>(GemmActivation(g->activation, t));
    // max(|t|) as the reduce XLA replaced computes it: NaN wins.
    if (std::isnan(t) || std::isnan(amax)) {
      amax = std::numeric_limits<float>::quiet_NaN();
    } else if (std::fabs(t) > amax) {
      amax = std::fabs(t);
    }
    if (f8_out) {
      t *= d_scale;
      if (t > max) t = max;
      if (t < -max) t = -max;
    }
    out.SetDouble(i, t);
  }
  std::vector<Value> results;
  results.push_back(std::move(d));
  if (g->damax_output) {
    HLO_ASSIGN_OR_RETURN(Value a, NewArrayUninitialized(inst.shape().tuple_shape(1)));
    a.mutable_array().SetDouble(0, amax);
    results.push_back(std::move(a));
  }
  return WithWorkspaces(inst, std::move(results));
}

}  // namespace hlo::gpu
