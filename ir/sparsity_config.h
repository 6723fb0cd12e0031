// A convolution's sparsity_config (XLA's SparsityConfig proto): for the lhs
// and/or rhs operand, N:M structured sparsity along one dimension.
//
//   sparsity_config={lhs={sparsity=1x4 dimension=1 stride=1} rhs={...}}
//
// The IR keeps the attribute as its canonical text (kRaw); this reads and
// writes it.
#ifndef HLO_IR_SPARSITY_CONFIG_H_
#define HLO_IR_SPARSITY_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hlo {

struct TensorSparsity {
  int64_t num_non_zero = 0;  // N of N:M (`sparsity=NxM`)
  int64_t block_size = 0;    // M
  int64_t dimension = 0;
  int64_t stride = 0;
};

struct SparsityConfig {
  std::optional<TensorSparsity> lhs;
  std::optional<TensorSparsity> rhs;
};

// Reads `{[lhs={...}] [rhs={...}]}`, each side `{[sparsity=NxM]
// [dimension=D] [stride=S]}` in any order (fields left out are 0; a field or
// side given twice keeps the last), as XLA's parser reads it. On an error
// returns nullopt with the message and the offset in `text` it is about.
std::optional<SparsityConfig> ReadSparsityConfig(std::string_view text, std::string* error,
                                                 size_t* error_offset);

// XLA's print: `{lhs={sparsity=1x4 dimension=1 stride=1} rhs={...}}`.
std::string SparsityConfigText(const SparsityConfig& config);

// Whether XLA prints it at all (a side is given).
inline bool HasSparsity(const SparsityConfig& config) { return config.lhs || config.rhs; }

}  // namespace hlo

#endif  // HLO_IR_SPARSITY_CONFIG_H_
