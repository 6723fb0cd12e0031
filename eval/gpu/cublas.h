// The gemm_backend_config of XLA:GPU's cuBLAS gemms (backend_configs.proto),
// shared by __cublas$gemm / __cublas$lt$matmul (eval/gpu/cublas.cc) and
// __cublas$lt$matmul$f8 (eval/gpu/cublas_f8.cc).
#ifndef HLO_EVAL_GPU_CUBLAS_H_
#define HLO_EVAL_GPU_CUBLAS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernels.h"

namespace hlo::gpu {

struct Gemm {
  double alpha = 1, alpha_imag = 0, beta = 0;
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
  std::string epilogue = "DEFAULT";
  bool bias = false, aux = false;
  std::string activation;  // "", "RELU", "GELU", "SILU"
  bool damax_output = false;
  int64_t scale_mode = 0;  // 0 none, 1 tensor scaling (f8), 2 block scaling (MX)
};

// The instruction's gemm_backend_config; an error for an epilogue hlo-run
// does not know.
absl::StatusOr<Gemm> ReadGemm(const Instruction& inst);

// A dot instruction with the gemm's dimension numbers and `result` shape.
std::unique_ptr<Instruction> GemmDot(const Shape* result, const Gemm& g);

// The epilogue's activation ("" is none); GELU is cuBLASLt's tanh form.
double GemmActivation(std::string_view act, double x);

// The output dimension a vector bias runs along: the result's minor-most.
int64_t GemmBiasDim(const Shape& out);

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_CUBLAS_H_
