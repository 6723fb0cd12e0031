#include "ir/module_json.h"

namespace hlo {

std::string ModuleToJson(Module&) { return "{}"; }

absl::StatusOr<std::unique_ptr<Module>> ModuleFromJson(std::string_view,
                                                       std::string_view) {
  return absl::UnimplementedError("module JSON reading is being written");
}

}  // namespace hlo
