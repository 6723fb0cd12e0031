// `dense<...>` elements as an HLO literal's text: nested lists, one splat
// value, or hex bytes (little-endian, as MLIR writes them), for every
// element type (floats given as bit patterns become inf, nan(0x..) or their
// shortest exact decimal).
#ifndef HLO_STABLEHLO_DENSE_H_
#define HLO_STABLEHLO_DENSE_H_

#include <string>

#include "absl/status/status.h"
#include "stablehlo/ast.h"
#include "stablehlo/lexer.h"

namespace hlo::stablehlo {

struct DenseText {
  bool splat = false;  // one value for every element
  std::string text;    // HLO literal text: of the scalar when splat, else of the whole array
};

// `type` is the tensor type the elements fill (the attribute's own type).
absl::Status DenseToHloLiteral(const Lexer& lex, const Attr& dense, const Type& type,
                               DenseText* out);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_DENSE_H_
