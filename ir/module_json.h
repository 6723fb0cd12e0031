// The module JSON format (hlo-opt --emit=json / --input-format=json); the
// schema is in README.md.
#ifndef HLO_IR_MODULE_JSON_H_
#define HLO_IR_MODULE_JSON_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace hlo {

std::string ModuleToJson(Module& module);
absl::StatusOr<std::unique_ptr<Module>> ModuleFromJson(std::string_view json,
                                                       std::string_view filename);

}  // namespace hlo

#endif  // HLO_IR_MODULE_JSON_H_
