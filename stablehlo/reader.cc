#include "stablehlo/reader.h"

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/locations.h"
#include "stablehlo/types.h"

namespace hlo::stablehlo {

const Attr* Op::FindAttr(std::string_view key) const {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

absl::Status Reader::ParseUse(Use* out) {
  out->pos = lex_.Here();
  if (!lex_.EatSigilName('%', &out->name)) return lex_.ErrorExpected("a value like %0");
  out->name.insert(0, "%");
  if (lex_.EatRaw('#')) {
    int64_t n = 0;
    if (!lex_.EatDigitsRaw(&n)) return lex_.ErrorExpected("a result number after '#'");
    StrAppend(&out->name, "#", n);
  }
  return absl::OkStatus();
}

absl::Status Reader::ParseUses(std::vector<Use>* out) {
  while (true) {
    out->emplace_back();
    HLO_RETURN_IF_ERROR(ParseUse(&out->back()));
    Lexer::Mark m = lex_.Save();
    if (!lex_.Eat(",")) break;
    if (lex_.PeekChar() != '%') {
      lex_.Restore(m);
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status Reader::ParseBlockArgs(Block* block) {
  if (lex_.PeekChar() == ')') return absl::OkStatus();
  do {
    Use u;
    HLO_RETURN_IF_ERROR(ParseUse(&u));
    HLO_RETURN_IF_ERROR(lex_.Expect(":", "and the argument's type"));
    Type t;
    HLO_RETURN_IF_ERROR(ParseType(lex_, &t));
    Location ignored;
    HLO_RETURN_IF_ERROR(ParseOptionalLoc(&ignored));
    block->args.emplace_back(u.name, std::move(t));
    block->arg_pos.push_back(u.pos);
  } while (lex_.Eat(","));
  return absl::OkStatus();
}

absl::Status Reader::ParseRegion(Region* out, int depth) {
  if (depth > kMaxNesting) {
    return lex_.ErrorHere(StrCat("regions nested more than ", kMaxNesting, " deep"));
  }
  out->pos = lex_.Here();
  HLO_RETURN_IF_ERROR(lex_.Expect("{", "to open a region"));
  if (out->blocks.empty()) out->blocks.emplace_back();
  bool first = true;
  while (!lex_.Eat("}")) {
    if (lex_.AtEnd()) return lex_.Error(out->pos, "the text ends inside this region");
    if (lex_.PeekChar() == '^') {
      if (!first || !out->blocks.back().ops.empty()) {
        return lex_.ErrorHere("regions of more than one block are not supported");
      }
      std::string label;
      lex_.EatSigilName('^', &label);
      if (lex_.Eat("(")) {
        HLO_RETURN_IF_ERROR(ParseBlockArgs(&out->blocks.back()));
        HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the block arguments"));
      }
      HLO_RETURN_IF_ERROR(lex_.Expect(":", "after a block label"));
    }
    first = false;
    out->blocks.back().ops.emplace_back();
    HLO_RETURN_IF_ERROR(ParseOp(&out->blocks.back().ops.back(), depth + 1));
  }
  return absl::OkStatus();
}

absl::Status Reader::ParseRegionWithArgs(Region* out, int depth) {
  if (lex_.Eat("(")) {
    out->blocks.emplace_back();
    HLO_RETURN_IF_ERROR(ParseBlockArgs(&out->blocks.back()));
    HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the region arguments"));
  }
  return ParseRegion(out, depth);
}

absl::Status Reader::ParseOptionalAttrDict(Op* op) {
  if (lex_.PeekChar() != '{') return absl::OkStatus();
  return ParseDict(lex_, &op->attrs);
}

absl::Status Reader::ParseTrailingTypes(Op* op) {
  HLO_RETURN_IF_ERROR(lex_.Expect(":", "and the op's types"));
  Pos pos = lex_.Here();
  std::vector<Type> in, out;
  HLO_RETURN_IF_ERROR(ParseFunctionType(lex_, &in, &out));
  Lexer::Mark m = lex_.Save();
  (void)m;
  if (!out.empty() || lex_.text().substr(pos.offset, lex_.offset() - pos.offset).find("->") !=
                          std::string_view::npos) {
    op->operand_types = std::move(in);
    op->result_types = std::move(out);
    return absl::OkStatus();
  }
  // Short forms: one type for every operand and the result; select's
  // `pred, type`; complex's result type; tuple's type; pairwise lists.
  const size_t n = op->operands.size();
  const std::string& name = op->name;
  if (name == "stablehlo.select" && in.size() == 2) {
    op->operand_types = {in[0], in[1], in[1]};
    op->result_types = {in[1]};
  } else if (name == "stablehlo.tuple" && in.size() == 1 && in[0].kind == Type::Kind::kTuple) {
    op->operand_types = in[0].elements;
    op->result_types = in;
  } else if (name == "stablehlo.complex" && in.size() == 1) {
    Type part = in[0];
    part.element = part.element == "c128" ? "f64" : "f32";
    op->operand_types.assign(n, part);
    op->result_types = in;
  } else if (in.size() == 1) {
    op->operand_types.assign(n, in[0]);
    op->result_types = in;
  } else if (in.size() == n) {  // pairwise: optimization_barrier, returns
    op->operand_types = in;
    op->result_types = in;
  } else {
    return lex_.Error(pos, StrCat("expected one type or ", n, " types for the ", n, " operands of ",
                                  name, ", found ", in.size()));
  }
  return absl::OkStatus();
}

absl::Status Reader::ParseNamedParams(Op* op) {
  while (true) {
    Lexer::Mark m = lex_.Save();
    if (!lex_.Eat(",")) return absl::OkStatus();
    std::string key;
    if (!lex_.EatIdent(&key)) {
      lex_.Restore(m);
      return absl::OkStatus();
    }
    HLO_RETURN_IF_ERROR(lex_.Expect("=", StrCat("after '", key, "'")));
    Attr v;
    HLO_RETURN_IF_ERROR(ParseAttr(lex_, &v, 0, /*typed=*/false));
    op->attrs.emplace_back(std::move(key), std::move(v));
  }
}

// generic-op ::= string '(' uses? ')' ('<' dict '>')? ('(' region (',' region)* ')')?
//                attr-dict? ':' function-type
absl::Status Reader::ParseGenericOp(Op* op, int depth) {
  HLO_RETURN_IF_ERROR(lex_.Expect("(", "after the op name"));
  if (!lex_.Eat(")")) {
    HLO_RETURN_IF_ERROR(ParseUses(&op->operands));
    HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the operands"));
  }
  if (lex_.Eat("<")) {
    HLO_RETURN_IF_ERROR(ParseDict(lex_, &op->attrs));
    HLO_RETURN_IF_ERROR(lex_.Expect(">", "to close the properties"));
  }
  if (lex_.Eat("(")) {
    do {
      op->regions.emplace_back();
      HLO_RETURN_IF_ERROR(ParseRegion(&op->regions.back(), depth));
    } while (lex_.Eat(","));
    HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the regions"));
  }
  HLO_RETURN_IF_ERROR(ParseOptionalAttrDict(op));
  HLO_RETURN_IF_ERROR(lex_.Expect(":", "and the op's function type"));
  std::vector<Type> in, out;
  Pos pos = lex_.Here();
  HLO_RETURN_IF_ERROR(lex_.Expect("(", "to open the operand types"));
  if (!lex_.Eat(")")) {
    HLO_RETURN_IF_ERROR(ParseTypeList(lex_, &in));
    HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the operand types"));
  }
  HLO_RETURN_IF_ERROR(lex_.Expect("->", "and the result types"));
  HLO_RETURN_IF_ERROR(ParseResultTypes(lex_, &out));
  if (in.size() != op->operands.size()) {
    return lex_.Error(pos,
                      StrCat(op->operands.size(), " operands but ", in.size(), " operand types"));
  }
  op->operand_types = std::move(in);
  op->result_types = std::move(out);
  return absl::OkStatus();
}

// op ::= (value-def (',' value-def)* '=')? (string generic-op | name pretty-op) loc?
// value-def ::= '%' name (':' int)?
absl::Status Reader::ParseOp(Op* op, int depth) {
  if (depth > kMaxNesting) {
    return lex_.ErrorHere(StrCat("regions nested more than ", kMaxNesting, " deep"));
  }
  op->pos = lex_.Here();
  if (lex_.PeekChar() == '%') {
    do {
      Use def;
      HLO_RETURN_IF_ERROR(ParseUse(&def));
      int64_t count = 1;
      if (lex_.EatRaw(':')) {
        if (!lex_.EatDigitsRaw(&count) || count < 1 || count > 1000000) {
          return lex_.ErrorExpected("a result count after ':'");
        }
        for (int64_t i = 0; i < count; ++i) op->results.push_back(StrCat(def.name, "#", i));
      } else {
        op->results.push_back(def.name);
      }
    } while (lex_.Eat(","));
    HLO_RETURN_IF_ERROR(lex_.Expect("=", "after the results"));
  }
  op->name_pos = lex_.Here();
  if (lex_.PeekChar() == '"') {
    if (!lex_.EatString(&op->name)) return lex_.ErrorExpected("an op name");
    HLO_RETURN_IF_ERROR(ParseGenericOp(op, depth));
  } else {
    if (!lex_.EatIdent(&op->name)) return lex_.ErrorExpected("an op like stablehlo.add");
    if (op->name == "call" || op->name == "return") op->name = "func." + op->name;
    if (!HasPrettyForm(op->name)) {
      return lex_.Error(op->name_pos, StrCat("unknown op '", op->name, "'"));
    }
    HLO_RETURN_IF_ERROR(ParsePrettyOp(*this, op, depth));
  }
  return ParseOptionalLoc(&op->loc);
}

absl::Status Reader::ParseOptionalLoc(Location* out) {
  if (!lex_.Eat("loc")) return absl::OkStatus();
  if (lex_.PeekChar() != '(') return lex_.ErrorExpected("'(' after 'loc'");
  std::string_view body;
  HLO_RETURN_IF_ERROR(lex_.SkipBalanced(&body));
  out->raw = body.substr(1, body.size() - 2);
  return absl::OkStatus();
}

// mesh ::= 'sdy.mesh' '@' name '=' '<' ... '>' attr-dict?
absl::Status Reader::ParseMesh(Mesh* out) {
  out->pos = lex_.Here();
  if (!lex_.EatSigilName('@', &out->name)) return lex_.ErrorExpected("the mesh's @name");
  HLO_RETURN_IF_ERROR(lex_.Expect("="));
  if (lex_.PeekChar() != '<') return lex_.ErrorExpected("'<' and the mesh's axes");
  std::string_view body;
  HLO_RETURN_IF_ERROR(lex_.SkipBalanced(&body));
  out->text = std::string(body);
  // <["i"=4, "j"=2]> or <[], device_ids=[0]>
  Lexer inner(body.substr(1, body.size() - 2), lex_.filename());
  if (inner.Eat("[")) {
    while (inner.PeekChar() == '"') {
      std::string axis;
      int64_t size = 0;
      inner.EatString(&axis);
      if (!inner.Eat("=") || !inner.EatInt(&size)) {
        return lex_.Error(out->pos, "cannot read the mesh's axes");
      }
      out->axes.emplace_back(axis, size);
      if (!inner.Eat(",")) break;
    }
  }
  Op ignored;
  return ParseOptionalAttrDict(&ignored);
}

// func ::= 'func.func' ('public' | 'private')? '@' name '(' (arg (',' arg)*)? ')'
//          ('->' results)? ('attributes' dict)? region loc?
// arg ::= '%' name ':' type dict? loc?     results ::= '(' type dict? (',' ...)* ')' | type
absl::Status Reader::ParseFunc(MlirModule* module, Func* f) {
  (void)module;
  if (lex_.Eat("private")) {
    f->is_public = false;
  } else {
    lex_.Eat("public");
  }
  if (!lex_.EatSigilName('@', &f->name)) return lex_.ErrorExpected("the function's @name");
  HLO_RETURN_IF_ERROR(lex_.Expect("(", "to open the arguments"));
  if (!lex_.Eat(")")) {
    do {
      Argument a;
      Use u;
      HLO_RETURN_IF_ERROR(ParseUse(&u));
      a.name = u.name;
      a.pos = u.pos;
      HLO_RETURN_IF_ERROR(lex_.Expect(":", "and the argument's type"));
      HLO_RETURN_IF_ERROR(ParseType(lex_, &a.type));
      a.attrs.kind = Attr::Kind::kDict;
      if (lex_.PeekChar() == '{') HLO_RETURN_IF_ERROR(ParseDict(lex_, &a.attrs.dict));
      Location ignored;
      HLO_RETURN_IF_ERROR(ParseOptionalLoc(&ignored));
      f->args.push_back(std::move(a));
    } while (lex_.Eat(","));
    HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the arguments"));
  }
  if (lex_.Eat("->")) {
    bool paren = lex_.Eat("(");
    if (!paren || !lex_.Eat(")")) {
      do {
        f->results.emplace_back();
        HLO_RETURN_IF_ERROR(ParseType(lex_, &f->results.back()));
        f->result_attrs.emplace_back();
        f->result_attrs.back().kind = Attr::Kind::kDict;
        if (paren && lex_.PeekChar() == '{') {
          HLO_RETURN_IF_ERROR(ParseDict(lex_, &f->result_attrs.back().dict));
        }
      } while (paren && lex_.Eat(","));
      if (paren) HLO_RETURN_IF_ERROR(lex_.Expect(")", "to close the result types"));
    }
  }
  if (lex_.Eat("attributes")) {
    Op ignored;
    HLO_RETURN_IF_ERROR(ParseOptionalAttrDict(&ignored));
  }
  Region& body = f->body;
  body.blocks.emplace_back();
  for (const Argument& a : f->args) {
    body.blocks[0].args.emplace_back(a.name, a.type);
    body.blocks[0].arg_pos.push_back(a.pos);
  }
  HLO_RETURN_IF_ERROR(ParseRegion(&body, 1));
  return ParseOptionalLoc(&f->loc);
}

absl::Status Reader::ParseModuleBody(MlirModule* m) {
  while (true) {
    Pos pos = lex_.Here();
    if (lex_.Eat("func.func")) {
      m->funcs.emplace_back();
      m->funcs.back().pos = pos;
      HLO_RETURN_IF_ERROR(ParseFunc(m, &m->funcs.back()));
    } else if (lex_.Eat("sdy.mesh")) {
      m->meshes.emplace_back();
      HLO_RETURN_IF_ERROR(ParseMesh(&m->meshes.back()));
    } else {
      return absl::OkStatus();
    }
  }
}

// alias-def ::= '#' name '=' (loc | attr)
absl::Status Reader::ParseAliasDef() {
  std::string name;
  Pos pos = lex_.Here();
  if (!lex_.EatSigilName('#', &name)) return lex_.ErrorExpected("an alias like #loc1");
  HLO_RETURN_IF_ERROR(lex_.Expect("=", StrCat("after #", name)));
  if (lex_.Eat("loc")) {
    std::string_view body;
    if (lex_.PeekChar() != '(') return lex_.ErrorExpected("'(' after 'loc'");
    HLO_RETURN_IF_ERROR(lex_.SkipBalanced(&body));
    aliases_[name] = body.substr(1, body.size() - 2);
    return absl::OkStatus();
  }
  Attr ignored;
  HLO_RETURN_IF_ERROR(ParseAttr(lex_, &ignored));
  (void)pos;
  return absl::OkStatus();
}

// file ::= alias-def* (module | func*) alias-def*
// module ::= 'module' ('@' name)? ('attributes' dict)? '{' (func | mesh)* '}' loc?
absl::Status Reader::ReadFile(MlirModule* m) {
  while (lex_.PeekChar() == '#') HLO_RETURN_IF_ERROR(ParseAliasDef());
  m->pos = lex_.Here();
  m->attrs.kind = Attr::Kind::kDict;
  if (lex_.Eat("module")) {
    if (lex_.PeekChar() == '@' && !lex_.EatSigilName('@', &m->name)) {
      return lex_.ErrorExpected("the module's @name");
    }
    if (lex_.Eat("attributes")) HLO_RETURN_IF_ERROR(ParseDict(lex_, &m->attrs.dict));
    HLO_RETURN_IF_ERROR(lex_.Expect("{", "to open the module"));
    HLO_RETURN_IF_ERROR(ParseModuleBody(m));
    HLO_RETURN_IF_ERROR(lex_.Expect("}", "to close the module (or func.func / sdy.mesh)"));
    Location ignored;
    HLO_RETURN_IF_ERROR(ParseOptionalLoc(&ignored));
  } else {
    HLO_RETURN_IF_ERROR(ParseModuleBody(m));
    if (m->funcs.empty()) return lex_.ErrorExpected("'module' or 'func.func'");
  }
  while (lex_.PeekChar() == '#') HLO_RETURN_IF_ERROR(ParseAliasDef());
  if (!lex_.AtEnd()) return lex_.ErrorExpected("the end of the text");
  ResolveLocations(m);
  return absl::OkStatus();
}

void Reader::ResolveLoc(Location& loc) {
  if (!loc.raw.empty()) ResolveLocation(loc.raw, aliases_, &loc);
}

void Reader::ResolveRegion(Region& region) {
  for (Block& b : region.blocks) {
    for (Op& op : b.ops) {
      ResolveLoc(op.loc);
      for (Region& r : op.regions) ResolveRegion(r);
    }
  }
}

void Reader::ResolveLocations(MlirModule* m) {
  if (aliases_.empty() && lex_.text().find("loc(") == std::string_view::npos) return;
  for (Func& f : m->funcs) {
    ResolveLoc(f.loc);
    ResolveRegion(f.body);
  }
}

}  // namespace hlo::stablehlo
