#include "stablehlo/locations.h"

#include "ir/strings.h"
#include "stablehlo/lexer.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

struct LocReader {
  const absl::flat_hash_map<std::string, std::string_view>& aliases;
  Location* out;

  // loc-body ::= '#' alias | 'unknown' | string (':' int ':' int)?
  //            | string '(' loc-body ')' | 'callsite' '(' loc-body 'at' loc-body ')'
  //            | 'fused' ('<' ... '>')? '[' loc-body (',' loc-body)* ']'
  bool Read(Lexer& lex, int depth) {
    if (depth > 50) return false;
    std::string word;
    if (lex.PeekChar() == '#') {
      if (!lex.EatSigilName('#', &word)) return false;
      auto it = aliases.find(word);
      if (it == aliases.end()) return false;
      Lexer inner(it->second, "");
      return Read(inner, depth + 1);
    }
    if (lex.PeekChar() == '"') {
      std::string s;
      if (!lex.EatString(&s)) return false;
      if (lex.Eat(":")) {  // file:line:col
        int64_t line = 0, col = 0;
        if (!lex.EatInt(&line)) return false;
        if (lex.Eat(":")) lex.EatInt(&col);
        if (out->file.empty()) {
          out->file = s;
          out->line = line;
          out->col = col;
        }
        return true;
      }
      if (out->op_name.empty()) out->op_name = s;
      if (lex.Eat("(")) {
        if (!Read(lex, depth + 1)) return false;
        return lex.Eat(")");
      }
      return true;
    }
    if (!lex.EatIdent(&word)) return false;
    if (word == "unknown") return true;
    if (word == "callsite") {
      if (!lex.Eat("(") || !Read(lex, depth + 1) || !lex.Eat("at")) return false;
      Location caller_side;
      LocReader rest{aliases, &caller_side};
      return rest.Read(lex, depth + 1) && lex.Eat(")");
    }
    if (word == "fused") {
      std::string_view ignored;
      if (lex.PeekChar() == '<' && !lex.SkipBalanced(&ignored).ok()) return false;
      if (!lex.Eat("[")) return false;
      do {
        if (!Read(lex, depth + 1)) return false;
      } while (lex.Eat(","));
      return lex.Eat("]");
    }
    return false;
  }
};

}  // namespace

void ResolveLocation(std::string_view raw,
                     const absl::flat_hash_map<std::string, std::string_view>& aliases,
                     Location* out) {
  Lexer lex(raw, "");
  LocReader reader{aliases, out};
  reader.Read(lex, 0);
}

std::string MetadataText(const Location& loc) {
  if (loc.op_name.empty() && loc.file.empty()) return "";
  std::string out = "metadata={";
  bool first = true;
  if (!loc.op_name.empty()) {
    StrAppend(&out, "op_name=", HloQuoted(loc.op_name));
    first = false;
  }
  if (!loc.file.empty()) {
    StrAppend(&out, first ? "" : " ", "source_file=", HloQuoted(loc.file),
              " source_line=", loc.line);
  }
  return out + "}";
}

}  // namespace hlo::stablehlo
