// The GPU targets (eval/gpu/gpu_custom_calls.h), one table.
#include "eval/gpu/gpu_custom_calls.h"

namespace hlo::gpu {
namespace {

struct Target {
  std::string_view name;
  GpuCustomCallFn fn;
};

constexpr Target kTargets[] = {
    {"__cudnn$convForward", &EvalCudnnConvForward},
    {"__cudnn$convBackwardInput", &EvalCudnnConvBackwardInput},
    {"__cudnn$convBackwardFilter", &EvalCudnnConvBackwardFilter},
    {"__cudnn$convBiasActivationForward", &EvalCudnnConvBiasActivation},
    {"__cublas$gemm", &EvalCublasGemm},
    {"__cublas$lt$matmul", &EvalCublasGemm},
    {"__cublas$triangularSolve", &EvalCublasTriangularSolve},
    {"xla.gpu.ext.cub_sort_keys", &EvalCubSort},
    {"xla.gpu.ext.cub_sort_pairs", &EvalCubSort},
    {"xla.gpu.ext.cub_scan", &EvalCubScan},
    {"cu_lu_pivots_to_permutation", &EvalLuPivotsToPermutation},
    {"hip_lu_pivots_to_permutation", &EvalLuPivotsToPermutation},
};

}  // namespace

GpuCustomCallFn FindGpuCustomCall(std::string_view target) {
  for (const Target& t : kTargets) {
    if (t.name == target) return t.fn;
  }
  if (IsSolverTarget(target)) return &EvalSolverCall;
  return nullptr;
}

}  // namespace hlo::gpu
