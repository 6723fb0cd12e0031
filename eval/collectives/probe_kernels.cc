// StableHLO's interpreter probes and prints (declared in eval/kernels/kernels.h).
#include <cstdio>
#include <string>
#include <string_view>

#include "eval/collectives/replica_context.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/stablehlo_check.h"
#include "ir/config_ints.h"
#include "ir/strings.h"

namespace hlo {
namespace {

constexpr std::string_view kProbeId = "probe_id=";

// The probe id: everything after `probe_id=` (the last field: it may hold
// commas).
absl::StatusOr<std::string> ProbeIdOf(const Instruction& inst) {
  std::string_view config = inst.GetString(AttrKind::kBackendConfig);
  size_t at = config.find(kProbeId);
  if (at == std::string_view::npos || (at > 0 && config[at - 1] != ',')) {
    return absl::InvalidArgumentError(
        StrCat(inst.GetString(AttrKind::kCustomCallTarget), " needs backend_config probe_id=ID"));
  }
  return std::string(config.substr(at + kProbeId.size()));
}

absl::StatusOr<DeviceContext*> DeviceFor(const Instruction& inst, KernelContext& ev) {
  if (ev.options().device == nullptr) {
    return absl::InvalidArgumentError(StrCat(inst.GetString(AttrKind::kCustomCallTarget),
                                             " runs only in a run of the module (it keeps "
                                             "what it records for the run)"));
  }
  return ev.options().device;
}

}  // namespace

absl::StatusOr<Value> EvalInterpreterPrint(const Instruction& inst, Operands ops, KernelContext&) {
  if (ops.size() != 1 || !ops[0]->is_array()) {
    return absl::InvalidArgumentError("stablehlo.interpreter.print takes one array");
  }
  std::string text = StrCat("%", inst.name(), " = ",
                            LiteralToString(ops[0]->array(), LiteralStyle::kCompact), "\n");
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return Value::Tuple({});
}

absl::StatusOr<Value> EvalInterpreterProbe(const Instruction& inst, Operands ops,
                                           KernelContext& ev) {
  if (ops.size() != 1 || !ops[0]->is_array()) {
    return absl::InvalidArgumentError("stablehlo.interpreter.probe takes one array");
  }
  absl::StatusOr<std::string> id = ProbeIdOf(inst);
  if (!id.ok()) return id.status();
  absl::StatusOr<DeviceContext*> dev = DeviceFor(inst, ev);
  if (!dev.ok()) return dev.status();
  (*dev)->probes[*id].push_back(ops[0]->ToLiteral());
  return *ops[0];
}

absl::StatusOr<Value> EvalExpectSerializedEq(const Instruction& inst, Operands ops,
                                             KernelContext& ev) {
  if (ops.empty() || ops.size() > 2 || !ops[0]->is_array()) {
    return absl::InvalidArgumentError(
        "stablehlo.check.expect_serialized_eq takes the expected value and a pred[]");
  }
  if (ops.size() == 2) {
    if (!ops[1]->is_array() || ops[1]->array().element_type() != PrimitiveType::kPred ||
        ops[1]->array().element_count() != 1) {
      return absl::InvalidArgumentError(
          "stablehlo.check.expect_serialized_eq's second operand is a pred[]");
    }
    if (ops[1]->array().GetInt(0) == 0) return Value::Tuple({});
  }
  absl::StatusOr<std::string> id = ProbeIdOf(inst);
  if (!id.ok()) return id.status();
  int64_t iter = 0;
  if (auto n = ConfigInts(inst.GetString(AttrKind::kBackendConfig), "iter")) {
    if (n->size() != 1) {
      return absl::InvalidArgumentError("stablehlo.check.expect_serialized_eq: a bad iter=N");
    }
    iter = (*n)[0];
  }
  absl::StatusOr<DeviceContext*> dev = DeviceFor(inst, ev);
  if (!dev.ok()) return dev.status();
  auto it = (*dev)->probes.find(*id);
  const size_t runs = it == (*dev)->probes.end() ? 0 : it->second.size();
  if (iter < 0 || static_cast<size_t>(iter) >= runs) {
    return absl::InvalidArgumentError(StrCat("probe '", *id, "' ran ", runs,
                                             runs == 1 ? " time" : " times", ": it has no value ",
                                             iter, " to compare"));
  }
  absl::Status st = StableHloExpectEq(it->second[iter], ops[0]->array());
  if (!st.ok()) return st;
  return Value::Tuple({});
}

}  // namespace hlo
