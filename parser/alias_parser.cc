// The module header's input_output_alias and buffer_donor.
#include <algorithm>
#include <tuple>

#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {

// shape_index ::= '{' [int (',' int)*] '}'
bool Parser::ParseShapeIndex(std::vector<int64_t>* out) {
  if (!Expect(Tok::kLBrace, "'{' to open a shape index like {0,1}")) return false;
  while (!At(Tok::kRBrace)) {
    Token at = tok_;
    int64_t i = 0;
    if (!ParseInt(&i)) return false;
    if (i < 0) return ErrorAt(at, StrCat("shape index ", i, " is negative"));
    out->push_back(i);
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "',' or '}' in the shape index");
}

namespace {
std::string IndexText(const std::vector<int64_t>& index) {
  return StrCat("{", StrJoin(index, ","), "}");
}
}  // namespace

// input_output_alias ::= '{' [alias (',' alias)*] '}'
// alias ::= shape_index ':' '(' int ',' shape_index [',' ('may-alias' | 'must-alias')] ')'
// buffer_donor ::= '{' [donor (',' donor)*] '}'
// donor ::= '(' int ',' shape_index ')'
// `out` gets the value as XLA prints it: entries sorted (aliases by output
// index, donors by parameter and index), each alias with its kind.
bool Parser::ParseAliasHeader(bool donors, std::string* out) {
  const std::string_view format =
      donors ? "(<parameter>, <parameter shape index>)"
             : "<output shape index>: (<parameter>, <parameter shape index>[, may-alias])";
  struct Entry {
    std::vector<int64_t> output;
    int64_t param = 0;
    std::vector<int64_t> param_index;
    bool must = false;
  };
  std::vector<Entry> entries;
  if (!Expect(Tok::kLBrace, StrCat("'{' to open the list of ", format))) return false;
  while (!At(Tok::kRBrace)) {
    Entry e;
    Token at = tok_;
    if (!donors &&
        (!ParseShapeIndex(&e.output) ||
         !Expect(Tok::kColon, StrCat("':' after the output shape index; expected ", format)))) {
      return false;
    }
    if (!Expect(Tok::kLParen, StrCat("'(' before the parameter; expected ", format))) return false;
    Token param_tok = tok_;
    if (!ParseInt(&e.param)) return false;
    if (e.param < 0) return ErrorAt(param_tok, StrCat("parameter ", e.param, " is negative"));
    if (!Expect(Tok::kComma, StrCat("',' after the parameter; expected ", format)) ||
        !ParseShapeIndex(&e.param_index)) {
      return false;
    }
    if (!donors && Consume(Tok::kComma)) {
      if (!AtName("may-alias") && !AtName("must-alias")) {
        return ErrorExpected("may-alias or must-alias");
      }
      e.must = tok_.text == "must-alias";
      Advance();
    }
    if (!Expect(Tok::kRParen, StrCat("')' after the parameter's shape index; expected ", format))) {
      return false;
    }
    for (const Entry& other : entries) {
      if (!donors && other.output == e.output) {
        return ErrorAt(at, StrCat("output ", IndexText(e.output), " is aliased twice"));
      }
    }
    entries.push_back(std::move(e));
    if (!Consume(Tok::kComma)) break;
  }
  if (!Expect(Tok::kRBrace, "',' or '}' in the list")) return false;
  if (donors) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.param, a.param_index) < std::tie(b.param, b.param_index);
    });
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [](const Entry& a, const Entry& b) {
                                return a.param == b.param && a.param_index == b.param_index;
                              }),
                  entries.end());
  } else {
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.output < b.output; });
  }
  *out = "{ ";
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i) *out += ", ";
    if (donors) {
      StrAppend(out, "(", e.param, ", ", IndexText(e.param_index), ")");
    } else {
      StrAppend(out, IndexText(e.output), ": (", e.param, ", ", IndexText(e.param_index), ", ",
                e.must ? "must-alias" : "may-alias", ")");
    }
  }
  *out += " }";
  return true;
}

}  // namespace hlo
