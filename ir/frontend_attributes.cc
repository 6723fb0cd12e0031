#include "ir/frontend_attributes.h"

namespace hlo {

std::optional<std::string_view> FrontendAttribute(const Instruction& inst, std::string_view key) {
  const Attribute* a = inst.FindAttr(AttrKind::kFrontendAttributes);
  const auto* holder = a ? std::get_if<std::shared_ptr<const KeyValues>>(&a->value) : nullptr;
  if (holder == nullptr || *holder == nullptr) return std::nullopt;
  for (const KeyValue& e : **holder) {
    if (e.key == key) return std::string_view(e.value);
  }
  return std::nullopt;
}

}  // namespace hlo
