#include "stablehlo/dot_algorithm.h"

#include <array>

#include "ir/strings.h"

namespace hlo::stablehlo {
namespace {

struct Known {
  std::string_view hlo;
  std::string_view operand_type;  // lhs and rhs alike
  std::string_view accumulation;
  int64_t primitive_operations;
  bool imprecise;
};

// XLA's PrecisionConfig::Algorithm values, in its order.
constexpr std::array<Known, 13> kKnown{{
    {"dot_any_f8_any_f8_f32", "f8E5M2", "f32", 1, false},
    {"dot_any_f8_any_f8_f32_fast_accum", "f8E5M2", "f32", 1, true},
    {"dot_f16_f16_f16", "f16", "f16", 1, false},
    {"dot_f16_f16_f32", "f16", "f32", 1, false},
    {"dot_bf16_bf16_bf16", "bf16", "bf16", 1, false},
    {"dot_bf16_bf16_f32", "bf16", "f32", 1, false},
    {"dot_bf16_bf16_f32_x3", "bf16", "f32", 3, false},
    {"dot_bf16_bf16_f32_x6", "bf16", "f32", 6, false},
    {"dot_tf32_tf32_f32", "tf32", "f32", 1, false},
    {"dot_tf32_tf32_f32_x3", "tf32", "f32", 3, false},
    {"dot_f32_f32_f32", "f32", "f32", 1, false},
    {"dot_f64_f64_f64", "f64", "f64", 1, false},
    {"dot_bf16_bf16_f32_x9", "bf16", "f32", 9, false},
}};

// StableHLO's "any f8": every f8 type but f8E8M0FNU (a scale type).
bool IsAnyF8(std::string_view t) {
  return t == "f8E3M4" || t == "f8E4M3" || t == "f8E4M3FN" || t == "f8E5M2" || t == "f8E4M3FNUZ" ||
         t == "f8E4M3B11FNUZ" || t == "f8E5M2FNUZ";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

}  // namespace

std::optional<DotAlgorithmParams> DotAlgorithmOfHlo(std::string_view hlo_name) {
  // XLA prints the enum's name in lower case without ALG_; accept it as the
  // proto spells it too.
  std::string name = Lower(hlo_name);
  if (name.starts_with("alg_")) name = name.substr(4);
  for (const Known& k : kKnown) {
    if (k.hlo != name) continue;
    DotAlgorithmParams p;
    p.lhs = p.rhs = std::string(k.operand_type);
    p.accumulation = std::string(k.accumulation);
    p.primitive_operations = k.primitive_operations;
    p.allow_imprecise_accumulation = k.imprecise;
    return p;
  }
  return std::nullopt;
}

std::optional<std::string> HloDotAlgorithm(const DotAlgorithmParams& p) {
  if (p.lhs_components != 1 || p.rhs_components != 1) return std::nullopt;
  if (IsAnyF8(p.lhs) && IsAnyF8(p.rhs) && p.accumulation == "f32" && p.primitive_operations == 1) {
    return std::string(p.allow_imprecise_accumulation ? kKnown[1].hlo : kKnown[0].hlo);
  }
  if (p.allow_imprecise_accumulation || p.lhs != p.rhs) return std::nullopt;
  for (const Known& k : kKnown) {
    if (k.operand_type == p.lhs && k.accumulation == p.accumulation &&
        k.primitive_operations == p.primitive_operations && !k.imprecise &&
        !IsAnyF8(k.operand_type)) {
      return std::string(k.hlo);
    }
  }
  return std::nullopt;
}

std::string DotAlgorithmFields(const DotAlgorithmParams& p) {
  return StrCat(
      "lhs_precision_type = ", p.lhs, ", rhs_precision_type = ", p.rhs,
      ", accumulation_type = ", p.accumulation, ", lhs_component_count = ", p.lhs_components,
      ", rhs_component_count = ", p.rhs_components,
      ", num_primitive_operations = ", p.primitive_operations,
      ", allow_imprecise_accumulation = ", p.allow_imprecise_accumulation ? "true" : "false");
}

}  // namespace hlo::stablehlo
