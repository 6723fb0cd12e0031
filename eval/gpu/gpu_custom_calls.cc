// The GPU targets (eval/gpu/gpu_custom_calls.h), one table.
#include "eval/gpu/gpu_custom_calls.h"

namespace hlo::gpu {
namespace {

struct Target {
  std::string_view name;
  GpuCustomCallFn fn;
  std::string_view description;
};

constexpr Target kTargets[] = {
    {"__cudnn$convForward", &EvalCudnnConvForward,
     "cuDNN convolution (window and dim_labels of the forward convolution)"},
    {"__cudnn$convBackwardInput", &EvalCudnnConvBackwardInput,
     "cuDNN convolution: the input gradient"},
    {"__cudnn$convBackwardFilter", &EvalCudnnConvBackwardFilter,
     "cuDNN convolution: the filter gradient"},
    {"__cudnn$convBiasActivationForward", &EvalCudnnConvBiasActivation,
     "cuDNN convolution with scales, side input, bias and activation"},
    {"__cudnn$fmhaSoftmax", &EvalCudnnFmhaSoftmax,
     "cuDNN fused attention: softmax(fmha_scale * q.k^T, masked).v and the softmax stats"},
    {"__cudnn$fmhaScaleBiasSoftmax", &EvalCudnnFmhaScaleBiasSoftmax,
     "cuDNN fused attention with a bias added to the scaled scores"},
    {"__cudnn$fmhaSoftmaxDropout", &EvalCudnnFmhaSoftmax,
     "cuDNN fused attention with dropout: dropout_rate 0 only (an error otherwise)"},
    {"__cudnn$fmhaScaleBiasSoftmaxDropout", &EvalCudnnFmhaScaleBiasSoftmax,
     "cuDNN fused attention with bias and dropout: dropout_rate 0 only (an error otherwise)"},
    {"__cudnn$fmhaSoftmaxBackward", &EvalCudnnFmhaSoftmaxBackward,
     "cuDNN fused attention's gradients dq, dk, dv from the stats, o and d_o"},
    {"__cudnn$fmhaScaleBiasSoftmaxBackward", &EvalCudnnFmhaScaleBiasSoftmaxBackward,
     "cuDNN fused attention's gradients with a bias: dq, dk, dv and dbias"},
    {"__cudnn$fmhaSoftmaxDropoutBackward", &EvalCudnnFmhaSoftmaxBackward,
     "cuDNN fused attention's gradients, dropout: dropout_rate 0 only (an error otherwise)"},
    {"__cudnn$fmhaScaleBiasSoftmaxDropoutBackward", &EvalCudnnFmhaScaleBiasSoftmaxBackward,
     "cuDNN fused attention's gradients, bias and dropout: dropout_rate 0 only (an error "
     "otherwise)"},
    {"__cudnn$fmhaSoftmaxF8", &EvalCudnnFmhaF8,
     "cuDNN f8 fused attention: not evaluated (an error saying why)"},
    {"__cudnn$fmhaSoftmaxBackwardF8", &EvalCudnnFmhaF8,
     "cuDNN f8 fused attention's gradients: not evaluated (an error saying why)"},
    {"__cudnn$norm", &EvalCudnnNorm,
     "cuDNN layer norm: forward (inference, training with mean and norm factor) and backward"},
    {"__cublas$gemm", &EvalCublasGemm, "cuBLAS gemm: alpha, beta with c, gemm_backend_config"},
    {"__cublas$lt$matmul", &EvalCublasGemm,
     "cuBLASLt matmul: gemm with bias, RELU, GELU, SILU epilogues and aux outputs"},
    {"__cublas$lt$matmul$f8", &EvalCublasLtMatmulF8,
     "cuBLASLt FP8 matmul: a_scale, b_scale, bias, RELU/GELU/SILU, d_scale with saturation, "
     "d_amax"},
    {"__cublas$triangularSolve", &EvalCublasTriangularSolve, "cuBLAS triangular solve"},
    {"xla.gpu.ext.cub_sort_keys", &EvalCubSort, "CUB radix sort of each row"},
    {"xla.gpu.ext.cub_sort_pairs", &EvalCubSort, "CUB radix sort of each row, with values"},
    {"xla.gpu.ext.cub_scan", &EvalCubScan, "CUB inclusive sum along the minor-most dimension"},
    {"cu_lu_pivots_to_permutation", &EvalLuPivotsToPermutation,
     "LU pivots to a permutation (jaxlib)"},
    {"hip_lu_pivots_to_permutation", &EvalLuPivotsToPermutation,
     "LU pivots to a permutation (jaxlib, ROCm)"},
};

}  // namespace

std::vector<GpuTargetInfo> ListGpuCustomCallTargets() {
  std::vector<GpuTargetInfo> list;
  for (const Target& t : kTargets) list.push_back({{std::string(t.name)}, t.description});
  for (GpuTargetInfo& info : ListSolverTargets()) list.push_back(std::move(info));
  return list;
}

GpuCustomCallFn FindGpuCustomCall(std::string_view target) {
  for (const Target& t : kTargets) {
    if (t.name == target) return t.fn;
  }
  if (IsSolverTarget(target)) return &EvalSolverCall;
  return nullptr;
}

}  // namespace hlo::gpu
