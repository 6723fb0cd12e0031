// MLIR attribute values: integers and floats with their types, strings,
// symbols, arrays, dictionaries, `dense<...>` elements (nested lists, splats
// and hex bytes), `array<i64: ...>`, and dialect attributes (`#stablehlo.gather<...>`,
// `#stablehlo<precision DEFAULT>`, `#sdy.sharding<...>`), which keep their
// text and, where they are `key = value` lists, their parameters.
#ifndef HLO_STABLEHLO_ATTRIBUTES_H_
#define HLO_STABLEHLO_ATTRIBUTES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "stablehlo/ast.h"
#include "stablehlo/lexer.h"

namespace hlo::stablehlo {

// How deep attributes and regions may nest: deeper text is an error, not a
// stack overflow.
inline constexpr int kMaxNesting = 200;

// `typed`: a number or string may be followed by `: type` (not so for the
// `key = value` parameters of pretty forms, which the op's types follow).
absl::Status ParseAttr(Lexer& lex, Attr* out, int depth = 0, bool typed = true);
// dict ::= '{' (entry (',' entry)*)? '}'   entry ::= (ident | string) ('=' attr)?
absl::Status ParseDict(Lexer& lex, std::vector<NamedAttr>* out, int depth = 0);

// Typed readers of attribute values, with a located error naming `what`.
absl::Status AttrInt(const Lexer& lex, const Attr& a, std::string_view what, int64_t* out);
// An array of integers: `[1, 2]`, `array<i64: 1, 2>` or `dense<[1, 2]>`.
absl::Status AttrInts(const Lexer& lex, const Attr& a, std::string_view what,
                      std::vector<int64_t>* out);
// A 2-D integer list: `dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>` or nested arrays.
absl::Status AttrIntMatrix(const Lexer& lex, const Attr& a, std::string_view what,
                           std::vector<std::vector<int64_t>>* out);
// The word of an enum attribute: `DEFAULT`, `#stablehlo<precision DEFAULT>`.
absl::Status AttrWord(const Lexer& lex, const Attr& a, std::string_view what, std::string* out);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_ATTRIBUTES_H_
