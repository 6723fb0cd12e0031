// Reading one entry of an instruction's frontend_attributes={key="value"}.
#ifndef HLO_IR_FRONTEND_ATTRIBUTES_H_
#define HLO_IR_FRONTEND_ATTRIBUTES_H_

#include <optional>
#include <string_view>

#include "ir/instruction.h"

namespace hlo {

// The value of frontend attribute `key`, or nullopt when it has none.
std::optional<std::string_view> FrontendAttribute(const Instruction& inst, std::string_view key);

}  // namespace hlo

#endif  // HLO_IR_FRONTEND_ATTRIBUTES_H_
