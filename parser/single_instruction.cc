// A lone instruction without a module, as XLA's ParseAndReturnUnverifiedModule
// reads it (HloParserImpl::ParseSingleInstruction):
//
//   %multiply = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %a, f32[2,4]{1,0})
//   f32[5,10]{1,0} conditional(s32[], ...), branch_computations={{...}, ...}
//
// The text is the entry computation `_` of a module `_`. Each operand that is
// written with a shape but not defined becomes a parameter of it (named as
// written, or `_N` for a shape alone), numbered in the order they appear; an
// instruction without a name is named `_`. Inline computations inside it
// (`calls={...}`) see only their own instructions, as in XLA.
#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {

// Not a module: the first token starts a shape (`f32[...] opcode(`), or a
// name is followed by '=' (`name = shape opcode(`), or it is `ROOT`, or a
// name is followed by '(' that opens no signature (`multiply(f32[2] a)`, an
// instruction without its left-hand side, which is then reported).
bool Parser::AtSingleInstruction() const {
  if (AtName("ENTRY")) return false;
  if (IsShapeStart() || AtName("ROOT")) return true;
  if (!At(Tok::kName)) return false;
  Lexer peek = lexer_;
  Token next = peek.Next();
  if (next.kind == Tok::kEqual) return true;
  if (next.kind != Tok::kLParen) return false;
  // signature ::= '(' [name ':' ...] ')' '->' ...
  Token first = peek.Next();
  if (first.kind == Tok::kRParen) return false;
  return !(first.kind == Tok::kName && peek.Next().kind == Tok::kColon);
}

// single_instruction ::= [['ROOT'] name '='] shape opcode '(' operands ')' (',' attr)*
bool Parser::ParseSingleInstruction() {
  single_instruction_ = true;
  module_->set_name("_");
  Computation* comp = module_->AddComputation(std::make_unique<Computation>("_"));
  comp->set_loc({tok_.line, tok_.col});
  last_top_level_ = comp;
  const bool named = !IsShapeStart();
  // Printed in the style of the name: `%name` is XLA's long form.
  const bool percent = named && !AtName("ROOT") && tok_.text[0] == '%';
  module_->style().percent_names = percent;
  module_->style().signatures = percent;
  style_known_[0] = style_known_[1] = true;
  recent_names_.assign(16, RecentName{});
  computation_serial_ = ++serials_used_;
  bool ok = false;
  if (named) {
    ok = ParseInstruction(comp);
  } else {
    Instruction* inst = nullptr;
    Token name_tok = tok_;
    ok = ParseInstructionRhs(comp, name_tok, "_", nullptr, &inst);
  }
  if (!ok) return false;
  if (!At(Tok::kEof)) {
    return ErrorHere(StrCat("expected the end of the input after the instruction, found ", Found(),
                            " (a text that starts with an instruction is one "
                            "instruction; a module starts with 'HloModule' or a computation)"));
  }
  return FinishComputation(comp, tok_);
}

// An undefined operand of the lone instruction: a parameter of the entry
// computation, made on the spot (before the instruction that uses it).
bool Parser::MakeOperandParameter(Computation* comp, std::string_view name, const Shape* shape,
                                  const Token& at, Instruction** out) {
  if (shape == nullptr) {
    return ErrorAt(at, StrCat("operand '", name,
                              "' is not defined and has no shape: the "
                              "undefined operands of a lone instruction become parameters, "
                              "which need a shape"));
  }
  const int64_t number = comp->parameter_count();
  std::string param_name = name.empty() ? StrCat("_", number) : std::string(name);
  auto param = std::make_unique<Instruction>(Opcode::kParameter, param_name, shape);
  param->set_loc({at.line, at.col});
  param->set_parameter_number(number);
  Instruction* inst = param.get();
  auto [it, inserted] = names_.emplace(inst->name(), inst);
  if (!inserted) {
    return ErrorAt(at, StrCat("operand name '", param_name, "' is taken"));
  }
  RecentSlot(inst->name()) = {inst->name(), inst, computation_serial_};
  module_->NoteName(inst->name());
  comp->AddInstruction(std::move(param));
  *out = inst;
  return true;
}

}  // namespace hlo
