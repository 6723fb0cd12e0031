// result_accuracy={mode=highest} / {tolerance={atol=..,rtol=..,ulps=..}} on
// the unary ops whose XLA implementation may trade accuracy for speed.
#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {

namespace {

// The opcodes XLA's parser reads result_accuracy on.
bool TakesResultAccuracy(Opcode op) {
  switch (op) {
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtanh:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kRsqrt:
    case Opcode::kTanh:
    case Opcode::kErf:
    case Opcode::kSin:
    case Opcode::kSinh:
    case Opcode::kCos:
    case Opcode::kCosh:
    case Opcode::kTan:
    case Opcode::kExp:
      return true;
    default:
      return false;
  }
}

}  // namespace

// result_accuracy ::= '{' 'mode' '=' ('default' | 'highest') '}'
//                   | '{' 'tolerance' '=' '{' [tol (',' tol)*] '}' '}'
// tol ::= ('atol' | 'rtol' | 'ulps') '=' number
// Kept as XLA prints it: `{mode=highest}`, or the tolerance with all three
// fields in that order (0 for one not given); `{mode=default}` is XLA's
// default and not kept (*keep = false).
bool Parser::ParseResultAccuracy(const Instruction& inst, const Token& name_tok, AttrValue* out,
                                 bool* keep) {
  if (!TakesResultAccuracy(inst.opcode())) {
    return ErrorAt(name_tok,
                   StrCat("attribute 'result_accuracy' is not allowed on '", inst.OpcodeText(),
                          "'; it is for the transcendental "
                          "unary ops (exponential, log, sqrt, tanh, ...)"));
  }
  *keep = true;
  if (!Expect(Tok::kLBrace, "'{' to open the result accuracy")) return false;
  if (AtName("mode")) {
    Advance();
    if (!Expect(Tok::kEqual, "'=' after 'mode'")) return false;
    if (!AtName("default") && !AtName("highest")) {
      return ErrorExpected("the result accuracy mode 'default' or 'highest'");
    }
    *keep = tok_.text == "highest";
    *out = StrCat("{mode=", tok_.text, "}");
    Advance();
    return Expect(Tok::kRBrace, "'}' to close the result accuracy");
  }
  if (!AtName("tolerance")) return ErrorExpected("'mode=' or 'tolerance=' in result_accuracy");
  Advance();
  if (!Expect(Tok::kEqual, "'=' after 'tolerance'") ||
      !Expect(Tok::kLBrace, "'{' to open the tolerance")) {
    return false;
  }
  std::string_view values[3] = {"0", "0", "0"};  // atol, rtol, ulps
  static constexpr std::string_view kNames[3] = {"atol", "rtol", "ulps"};
  while (!At(Tok::kRBrace)) {
    int i = 0;
    while (i < 3 && !AtName(kNames[i])) ++i;
    if (i == 3) return ErrorExpected("atol=, rtol= or ulps= in the tolerance");
    Advance();
    if (!Expect(Tok::kEqual, StrCat("'=' after '", kNames[i], "'"))) return false;
    double v = 0;
    if (!At(Tok::kNumber) || !ParseDouble(tok_.text, &v)) {
      return ErrorExpected(StrCat("a number for '", kNames[i], "'"));
    }
    values[i] = tok_.text;
    Advance();
    if (!Consume(Tok::kComma)) break;
  }
  if (!Expect(Tok::kRBrace, "',' or '}' in the tolerance")) return false;
  *out = StrCat("{tolerance={atol=", values[0], ",rtol=", values[1], ",ulps=", values[2], "}}");
  return Expect(Tok::kRBrace, "'}' to close the result accuracy");
}

}  // namespace hlo
