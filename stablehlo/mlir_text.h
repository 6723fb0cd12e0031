// MLIR text of HLO's types and literals, as StableHLO writes them:
// `tensor<2x3xf32>`, `tuple<...>`, `!stablehlo.token`, `dense<...>`
// (the writer's; the reader has its own in types.h and dense.h).
#ifndef HLO_STABLEHLO_MLIR_TEXT_H_
#define HLO_STABLEHLO_MLIR_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/literal.h"
#include "ir/primitive_type.h"
#include "ir/shape.h"

namespace hlo::stablehlo::writing {

// The MLIR element type (`i1`, `ui8`, `bf16`, `complex<f32>`, `f8E4M3FN`);
// an error for token and opaque.
absl::StatusOr<std::string_view> ElementTypeText(PrimitiveType type);

// `tensor<2x?xf32, #stablehlo.bounds<?, 4>>`, `tuple<...>` or
// `!stablehlo.token` (layouts are not part of StableHLO's types).
absl::StatusOr<std::string> TypeText(const Shape& shape);

// `dense<...>` for an array literal: a splat when every element is equal,
// nested lists for small arrays, a little-endian hex string for large ones
// of whole-byte types. Floats are written so that they read back exactly
// (decimal when it round-trips, the bit pattern `0x...` otherwise).
absl::StatusOr<std::string> DenseText(const Literal& literal);

// `array<i64: 1, 2>` and `[1, 2]`.
std::string I64Array(absl::Span<const int64_t> values);
std::string I64List(absl::Span<const int64_t> values);
// `dense<[[a, b], ...]> : tensor<Nxwidthxi64>` of `rows`.
std::string I64Matrix(const std::vector<std::vector<int64_t>>& rows, size_t width);
// `#stablehlo<kind VALUE>` and an upper-case copy of `s`.
std::string Enum(std::string_view kind, std::string_view value);
std::string Upper(std::string_view s);
// `"text"` with MLIR's escapes (\\, \", \n, \t, \XX for other bytes).
std::string Quoted(std::string_view text);

}  // namespace hlo::stablehlo::writing

#endif  // HLO_STABLEHLO_MLIR_TEXT_H_
