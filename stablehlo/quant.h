// Ops on quantized tensors (`!quant.uniform`): lowered to integer and float
// HLO on their storage integers (quant.cc, quant_dot.cc).
#ifndef HLO_STABLEHLO_QUANT_H_
#define HLO_STABLEHLO_QUANT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stablehlo/ast.h"
#include "stablehlo/chlo_builder.h"
#include "stablehlo/translator.h"

namespace hlo::stablehlo {

// Whether an operand or result of the op is a quantized tensor.
bool UsesQuantTypes(const Op& op);
absl::Status TranslateQuantOp(Translator& t, const Op& op, Scope& s);

namespace quant {  // what quant.cc and quant_dot.cc share

bool IsQuant(const Type& t);
// The same shape with a plain element type.
Type Plain(const Type& t, std::string_view element);
// The f32 nearest `v`, as HLO constant text.
std::string FloatText(double v);
// A per-tensor scalar or a per-axis vector (broadcast along `axis`) of
// `element` values, in the shape of `b.type`.
std::string Param(Builder& b, std::string_view element, const std::vector<std::string>& texts,
                  int64_t axis);
std::vector<std::string> ScaleTexts(const QuantParams& q);
std::vector<std::string> ZeroPointTexts(const QuantParams& q, bool as_float);
absl::StatusOr<Value> Dequantize(Translator& t, Scope& s, const Op& op, const Value& v);
// The op on its dequantized operands in f32, quantized results quantized.
absl::Status DequantizeOpQuantize(Translator& t, const Op& op, Scope& s);
// Runs the op's own translator on `in`, with result types `results` and
// attributes `attrs`; returns its results.
absl::StatusOr<std::vector<Value>> Reissue(Translator& t, Scope& s, const Op& op,
                                           const std::vector<Value>& in,
                                           const std::vector<Type>& results,
                                           const std::vector<NamedAttr>& attrs);
// Binds the op's result names to `values`.
absl::Status Bind(Translator& t, Scope& s, const Op& op, const std::vector<Value>& values);
// dot, dot_general and convolution (quant_dot.cc).
absl::Status DotLike(Translator& t, const Op& op, Scope& s);

}  // namespace quant
}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_QUANT_H_
