// round-dot-operands: f32 dots and convolutions of DEFAULT precision
// computed as NVIDIA GPUs compute them by default (hlo-run
// --dot-default-precision=tf32|bf16): each f32 operand they multiply goes
// through reduce-precision first (8 exponent bits, 10 mantissa bits for
// TF32 or 7 for BF16, rounding to nearest even), and the products are
// summed in f32 as before.
//
// What is rounded: the two operands of a dot whose operand_precision is
// DEFAULT for both (XLA:GPU takes the higher of the two) and that names no
// algorithm; the two operands of a convolution likewise; the multiplied
// operands (0 and 1) of XLA:GPU's library calls that run one: __cublas$gemm
// and __cublas$lt$matmul whose gemm_backend_config's precision_config is
// DEFAULT (not c or the bias), and the __cudnn$conv* calls. Dots inside
// fusions (Triton's gemm fusions among them) are reached through the
// fused computations, which the pass walks like every other.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/computation.h"
#include "nlohmann/json.hpp"
#include "passes/passes.h"

namespace hlo {
namespace {

bool AllDefault(const std::vector<std::string>& precisions) {
  for (const std::string& p : precisions) {
    if (p != "default" && p != "DEFAULT") return false;
  }
  return true;
}

bool DefaultPrecision(const Instruction& inst) {
  if (const Attribute* a = inst.FindAttr(AttrKind::kOperandPrecision)) {
    if (const auto* v = std::get_if<std::vector<std::string>>(&a->value); v && !AllDefault(*v)) {
      return false;
    }
  }
  std::string_view algorithm = inst.GetString(AttrKind::kAlgorithm);
  return algorithm.empty() || algorithm == "unset" || algorithm == "alg_unset";
}

// A gemm call's gemm_backend_config.precision_config: DEFAULT operands and
// no algorithm (absent fields are DEFAULT in proto3's JSON).
bool GemmDefaultPrecision(const Instruction& inst) {
  const Attribute* a = inst.FindAttr(AttrKind::kBackendConfig);
  const auto* c = a ? std::get_if<std::shared_ptr<const BackendConfig>>(&a->value) : nullptr;
  if (c == nullptr || !*c) return true;
  nlohmann::json j = nlohmann::json::parse((*c)->text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return true;
  if (j.contains("gemm_backend_config")) j = j["gemm_backend_config"];
  if (!j.is_object() || !j.contains("precision_config")) return true;
  const nlohmann::json& p = j["precision_config"];
  if (p.contains("operand_precision") && p["operand_precision"].is_array()) {
    for (const nlohmann::json& e : p["operand_precision"]) {
      if (!(e == "DEFAULT" || e == 0)) return false;
    }
  }
  return !p.contains("algorithm") || p["algorithm"] == "ALG_UNSET" || p["algorithm"] == 0;
}

// How many leading operands `inst` multiplies at DEFAULT precision: 2 or 0.
int RoundedOperands(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kDot:
    case Opcode::kConvolution:
      return DefaultPrecision(inst) ? 2 : 0;
    case Opcode::kCustomCall: {
      std::string_view t = inst.GetString(AttrKind::kCustomCallTarget);
      if (t == "__cublas$gemm" || t == "__cublas$lt$matmul") {
        return GemmDefaultPrecision(inst) ? 2 : 0;
      }
      if (t.starts_with("__cudnn$conv")) return DefaultPrecision(inst) ? 2 : 0;
      return 0;
    }
    default:
      return 0;
  }
}

class RoundDotOperands : public Pass {
 public:
  explicit RoundDotOperands(int mantissa_bits) : mantissa_bits_(mantissa_bits) {}
  std::string_view name() const override { return "round-dot-operands"; }
  std::string_view description() const override {
    return "rounds the f32 operands of DEFAULT-precision dots and convolutions (tf32/bf16)";
  }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    for (const auto& comp : module.computations()) {
      std::vector<Instruction*> users;
      for (const auto& inst : comp->instructions()) {
        if (RoundedOperands(*inst) > 0) users.push_back(inst.get());
      }
      // One rounding per value, shared by its users in this computation.
      absl::flat_hash_map<Instruction*, Instruction*> rounded;
      for (Instruction* inst : users) {
        const int n = std::min<int64_t>(RoundedOperands(*inst), inst->operand_count());
        for (int i = 0; i < n; ++i) {
          Instruction* op = inst->operand(i);
          if (!op->shape().IsArray() || op->shape().element_type() != PrimitiveType::kF32) continue;
          Instruction*& r = rounded[op];
          if (r == nullptr) {
            auto rp = std::make_unique<Instruction>(
                Opcode::kReducePrecision, module.UniqueName("reduce-precision"), op->shape_ptr());
            rp->AppendOperand(op);
            rp->SetAttr(AttrKind::kExponentBits, int64_t{8});
            rp->SetAttr(AttrKind::kMantissaBits, int64_t{mantissa_bits_});
            r = comp->AddInstruction(std::move(rp));
          }
          inst->ReplaceOperand(i, r);
          changed = true;
        }
      }
    }
    return changed;
  }

 private:
  int mantissa_bits_;
};

}  // namespace

std::unique_ptr<Pass> CreateRoundDotOperands(int mantissa_bits) {
  return std::make_unique<RoundDotOperands>(mantissa_bits);
}

}  // namespace hlo
