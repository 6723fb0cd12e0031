// XLA:GPU's library calls and jaxlib's GPU kernels as custom-calls on the
// CPU (eval/gpu/): what an XLA:GPU optimized module calls instead of HLO
// instructions, evaluated with hlo-run's own kernels (convolution, dot,
// triangular solve) and its LAPACK adapters (eval/linalg/). The targets
// and their meaning come from XLA's GPU sources
// (xla/service/gpu/cublas_cudnn.h, backend_configs.proto) and jaxlib's
// (jaxlib/gpu/*_ffi.cc); custom_call.cc asks FindGpuCustomCall first.
#ifndef HLO_EVAL_GPU_GPU_CUSTOM_CALLS_H_
#define HLO_EVAL_GPU_GPU_CUSTOM_CALLS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernels.h"
#include "eval/linalg/lapack_call.h"

namespace hlo::gpu {

using GpuCustomCallFn = absl::StatusOr<Value> (*)(const Instruction& inst, Operands ops,
                                                  KernelContext& ev);

// The function that evaluates `target`, or null when it is none of these.
GpuCustomCallFn FindGpuCustomCall(std::string_view target);

// The targets, each with its names and one line about it (for the
// registry's list: eval/custom_call.h).
struct GpuTargetInfo {
  std::vector<std::string> names;
  std::string_view description;
};
std::vector<GpuTargetInfo> ListGpuCustomCallTargets();
std::vector<GpuTargetInfo> ListSolverTargets();  // eval/gpu/cusolver.cc

// eval/gpu/cudnn_conv.cc
absl::StatusOr<Value> EvalCudnnConvForward(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCudnnConvBackwardInput(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCudnnConvBackwardFilter(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCudnnConvBiasActivation(const Instruction&, Operands, KernelContext&);

// eval/gpu/cudnn_fmha.cc: cuDNN fused attention, forward and backward; the
// f8 targets are refused with an error.
absl::StatusOr<Value> EvalCudnnFmhaSoftmax(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCudnnFmhaScaleBiasSoftmax(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCudnnFmhaSoftmaxBackward(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCudnnFmhaScaleBiasSoftmaxBackward(const Instruction&, Operands,
                                                            KernelContext&);
absl::StatusOr<Value> EvalCudnnFmhaF8(const Instruction&, Operands, KernelContext&);

// eval/gpu/cublas.cc
absl::StatusOr<Value> EvalCublasGemm(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCublasTriangularSolve(const Instruction&, Operands, KernelContext&);

// eval/gpu/cublas_f8.cc: the FP8 gemm with its scales and d_amax.
absl::StatusOr<Value> EvalCublasLtMatmulF8(const Instruction&, Operands, KernelContext&);

// eval/gpu/cudnn_norm.cc: cuDNN layer norm, forward and backward.
absl::StatusOr<Value> EvalCudnnNorm(const Instruction&, Operands, KernelContext&);

// eval/gpu/cub.cc
absl::StatusOr<Value> EvalCubSort(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalCubScan(const Instruction&, Operands, KernelContext&);

// eval/gpu/cusolver.cc
bool IsSolverTarget(std::string_view target);
absl::StatusOr<Value> EvalSolverCall(const Instruction&, Operands, KernelContext&);
absl::StatusOr<Value> EvalLuPivotsToPermutation(const Instruction&, Operands, KernelContext&);

// eval/gpu/cusolver_svd.cc: cusolver_gesvd_ffi and cusolver_gesvdj_ffi on a
// LAPACK call context (eval/linalg/lapack_call.h).
absl::StatusOr<Value> EvalSolverGesvd(lapack::Call& call);
absl::StatusOr<Value> EvalSolverGesvdj(lapack::Call& call);

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_GPU_CUSTOM_CALLS_H_
