// StableHLO types: `tensor<2x3xf32>`, `tensor<complex<f32>>`, `tuple<...>`,
// `!stablehlo.token`, and the element types, mapped to HLO's.
#ifndef HLO_STABLEHLO_TYPES_H_
#define HLO_STABLEHLO_TYPES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "stablehlo/ast.h"
#include "stablehlo/lexer.h"

namespace hlo::stablehlo {

// The HLO primitive type name of an MLIR element type (`i32` -> `s32`,
// `ui8` -> `u8`, `i1` -> `pred`, `f8E4M3FN` -> `f8e4m3fn`, `index` -> `s64`),
// or empty when there is none.
std::string HloElementType(std::string_view mlir_name);

absl::Status ParseType(Lexer& lex, Type* out, int depth = 0);
// type-list ::= type (',' type)*
absl::Status ParseTypeList(Lexer& lex, std::vector<Type>* out, int depth = 0);
// `(types) -> types` or `types -> types` or a single type (for all operands
// and the result); `n_operands` resolves the single-type forms.
absl::Status ParseFunctionType(Lexer& lex, std::vector<Type>* inputs, std::vector<Type>* results);
// Parenthesised or bare result types: `(t1, t2)` or `t`.
absl::Status ParseResultTypes(Lexer& lex, std::vector<Type>* out);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_TYPES_H_
