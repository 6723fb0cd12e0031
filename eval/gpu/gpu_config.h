// Reading XLA:GPU's backend_config on the library calls (eval/gpu/): the
// JSON of a GpuBackendConfig proto (xla/service/gpu/backend_configs.proto),
// whose sub-message for the call (cudnn_conv_backend_config,
// gemm_backend_config) holds the options. Older dumps wrote the
// sub-message itself; both are read. Proto3's JSON leaves fields at their
// defaults out and writes int64 values as strings, so the accessors take a
// default and read numbers from strings too.
#ifndef HLO_EVAL_GPU_GPU_CONFIG_H_
#define HLO_EVAL_GPU_GPU_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels/kernels.h"
#include "nlohmann/json.hpp"

namespace hlo::gpu {

using Json = nlohmann::json;

// The backend_config's sub-message `field` (or the whole object when the
// config is not wrapped in a GpuBackendConfig); an empty object when the
// instruction has no backend_config. An error when it is not JSON.
absl::StatusOr<Json> ConfigMessage(const Instruction& inst, std::string_view field);

// A field of a message: its default when absent; an error naming the field
// when it holds the wrong kind of value.
absl::StatusOr<double> DoubleField(const Json& m, std::string_view name, double def);
absl::StatusOr<int64_t> IntField(const Json& m, std::string_view name, int64_t def);
absl::StatusOr<bool> BoolField(const Json& m, std::string_view name, bool def);
// An enum or string field ("kRelu", "BIAS_RELU"); integers are given as
// their decimal text.
absl::StatusOr<std::string> EnumField(const Json& m, std::string_view name, std::string_view def);
// A repeated int64 field; empty when absent.
absl::StatusOr<std::vector<int64_t>> IntListField(const Json& m, std::string_view name);

// The custom call's target, for messages.
std::string TargetOf(const Instruction& inst);

// The workspace result of a library call (u8/s8[N]): zeros.
absl::StatusOr<Value> Workspace(const Shape& shape);

// `result` and the workspaces the tuple shape asks for after it:
// (result, workspace...) when the instruction's shape is a tuple whose
// first element is `result`'s shape, else `result` itself.
absl::StatusOr<Value> WithWorkspaces(const Instruction& inst, std::vector<Value> results);

}  // namespace hlo::gpu

#endif  // HLO_EVAL_GPU_GPU_CONFIG_H_
