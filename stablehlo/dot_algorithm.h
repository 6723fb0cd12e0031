// The dot algorithms XLA knows, between HLO's `algorithm=dot_bf16_bf16_f32_x3`
// and StableHLO's `algorithm = #stablehlo.dot_algorithm<lhs_precision_type =
// bf16, ...>`, as XLA's translations map them (StableHLO's
// getKnownDotAlgorithm decides which parameter sets are known).
#ifndef HLO_STABLEHLO_DOT_ALGORITHM_H_
#define HLO_STABLEHLO_DOT_ALGORITHM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hlo::stablehlo {

struct DotAlgorithmParams {
  std::string lhs, rhs, accumulation;  // MLIR type names: bf16, tf32, f8E5M2
  int64_t lhs_components = 1, rhs_components = 1, primitive_operations = 1;
  bool allow_imprecise_accumulation = false;
};

// The parameters of HLO's algorithm name (XLA's import writes the any-f8
// ones as f8E5M2); nullopt for a name XLA does not know (or `unset`).
std::optional<DotAlgorithmParams> DotAlgorithmOfHlo(std::string_view hlo_name);

// HLO's name for the parameters; nullopt when XLA knows no such algorithm.
std::optional<std::string> HloDotAlgorithm(const DotAlgorithmParams& p);

// `lhs_precision_type = bf16, ..., allow_imprecise_accumulation = false`.
std::string DotAlgorithmFields(const DotAlgorithmParams& p);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_DOT_ALGORITHM_H_
