// Whether an instruction's or computation's name can be printed without its
// '%': it must lex as a name on its own, so it starts with a letter, '_' or
// '$'. One that starts with a digit (`%8`, `%1x`, `%0.5`) would lex as a
// number, so the printer keeps its '%' even in the bare style (the parser
// accepts '%' wherever a name goes).
#ifndef HLO_IR_BARE_NAME_H_
#define HLO_IR_BARE_NAME_H_

#include <string_view>

namespace hlo {

inline bool LexesBare(std::string_view name) {
  const char c = name.empty() ? '0' : name[0];
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

}  // namespace hlo

#endif  // HLO_IR_BARE_NAME_H_
