// The pretty (custom assembly) forms of the ops, as StableHLO and JAX print
// them. Each parser reads what follows the op name into the same Op the
// generic form gives: MLIR's property names, operand and result types.
#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/reader.h"
#include "stablehlo/types.h"

namespace hlo::stablehlo {

namespace {

using ParseFn = absl::Status (*)(Reader&, Op*, int);

Attr WordAttr(std::string word, Pos pos) {
  Attr a;
  a.kind = Attr::Kind::kWord;
  a.s = std::move(word);
  a.pos = pos;
  return a;
}

Attr IntsAttr(const std::vector<int64_t>& v, Pos pos) {
  Attr a;
  a.kind = Attr::Kind::kArray;
  a.pos = pos;
  for (int64_t x : v) {
    Attr e;
    e.kind = Attr::Kind::kInt;
    e.i = x;
    e.pos = pos;
    a.list.push_back(e);
  }
  return a;
}

// simple ::= uses? (',' key '=' attr)* attr-dict? ':' types
absl::Status ParseSimple(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  if (lex.PeekChar() == '%') HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  HLO_RETURN_IF_ERROR(r.ParseNamedParams(op));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// A leading `key = value` before the operands: iota's `dim = 0`.
absl::Status ParseIota(Reader& r, Op* op, int depth) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(lex.Expect("dim", "after stablehlo.iota"));
  HLO_RETURN_IF_ERROR(lex.Expect("="));
  Attr a;
  a.kind = Attr::Kind::kInt;
  a.pos = lex.Here();
  HLO_RETURN_IF_ERROR(lex.ExpectInt(&a.i, "the iota dimension"));
  op->attrs.emplace_back("iota_dimension", std::move(a));
  return ParseSimple(r, op, depth);
}

// constant ::= attr-dict? dense-attr   (the attribute carries the type)
//            | generic-op            (`() <{value = ...}> : () -> T`, where T is not
//                                     the value's type: a quantized constant's)
absl::Status ParseConstant(Reader& r, Op* op, int depth) {
  Lexer& lex = r.lex();
  if (lex.PeekChar() == '(') return r.ParseGenericOp(op, depth);
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  Attr v;
  HLO_RETURN_IF_ERROR(ParseAttr(lex, &v));
  if (v.kind != Attr::Kind::kDense) return lex.Error(v.pos, "expected a dense<...> value");
  op->result_types = {v.type};
  op->attrs.emplace_back("value", std::move(v));
  return absl::OkStatus();
}

// compare ::= DIR ',' use ',' use (',' TYPE)? attr-dict? ':' types
absl::Status ParseCompare(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  Pos pos = lex.Here();
  std::string dir;
  HLO_RETURN_IF_ERROR(lex.ExpectIdent(&dir, "a comparison direction like LT"));
  op->attrs.emplace_back("comparison_direction", WordAttr(dir, pos));
  HLO_RETURN_IF_ERROR(lex.Expect(","));
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  if (lex.Eat(",")) {
    pos = lex.Here();
    std::string type;
    HLO_RETURN_IF_ERROR(lex.ExpectIdent(&type, "a comparison type like FLOAT"));
    op->attrs.emplace_back("compare_type", WordAttr(type, pos));
  }
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// slice ::= use '[' (int ':' int (':' int)?) (',' ...)* ']' attr-dict? ':' types
absl::Status ParseSlice(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  Pos pos = lex.Here();
  HLO_RETURN_IF_ERROR(lex.Expect("[", "and the slice bounds"));
  std::vector<int64_t> start, limit, stride;
  if (!lex.Eat("]")) {
    do {
      int64_t a = 0, b = 0, s = 1;
      HLO_RETURN_IF_ERROR(lex.ExpectInt(&a, "a start index"));
      HLO_RETURN_IF_ERROR(lex.Expect(":"));
      HLO_RETURN_IF_ERROR(lex.ExpectInt(&b, "a limit index"));
      if (lex.Eat(":")) HLO_RETURN_IF_ERROR(lex.ExpectInt(&s, "a stride"));
      start.push_back(a);
      limit.push_back(b);
      stride.push_back(s);
    } while (lex.Eat(","));
    HLO_RETURN_IF_ERROR(lex.Expect("]", "to close the slice bounds"));
  }
  op->attrs.emplace_back("start_indices", IntsAttr(start, pos));
  op->attrs.emplace_back("limit_indices", IntsAttr(limit, pos));
  op->attrs.emplace_back("strides", IntsAttr(stride, pos));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// dims-pair ::= '[' ints ']' 'x' '[' ints ']'
absl::Status ParseIntsPair(Lexer& lex, std::vector<int64_t>* a, std::vector<int64_t>* b) {
  for (int k = 0; k < 2; ++k) {
    auto* v = k == 0 ? a : b;
    HLO_RETURN_IF_ERROR(lex.Expect("["));
    if (!lex.Eat("]")) {
      do {
        int64_t x = 0;
        HLO_RETURN_IF_ERROR(lex.ExpectInt(&x, "a dimension"));
        v->push_back(x);
      } while (lex.Eat(","));
      HLO_RETURN_IF_ERROR(lex.Expect("]"));
    }
    if (k == 0) HLO_RETURN_IF_ERROR(lex.Expect("x", "between the two dimension lists"));
  }
  return absl::OkStatus();
}

// dot_general ::= use ',' use (',' 'batching_dims' '=' pair)? ',' 'contracting_dims' '=' pair
//                 (',' 'precision' '=' '[' words ']')? (',' 'algorithm' '=' '<' ... '>')?
//                 attr-dict? ':' types
absl::Status ParseDotGeneral(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  Attr dims;
  dims.kind = Attr::Kind::kDialect;
  dims.s = "stablehlo.dot";
  dims.pos = lex.Here();
  while (lex.Eat(",")) {
    Pos pos = lex.Here();
    std::string key;
    HLO_RETURN_IF_ERROR(lex.ExpectIdent(&key, "a dot_general parameter"));
    HLO_RETURN_IF_ERROR(lex.Expect("="));
    if (key == "batching_dims" || key == "contracting_dims") {
      std::vector<int64_t> a, b;
      HLO_RETURN_IF_ERROR(ParseIntsPair(lex, &a, &b));
      std::string stem = key == "batching_dims" ? "batching" : "contracting";
      dims.dict.emplace_back("lhs_" + stem + "_dimensions", IntsAttr(a, pos));
      dims.dict.emplace_back("rhs_" + stem + "_dimensions", IntsAttr(b, pos));
    } else if (key == "precision") {
      Attr p;
      HLO_RETURN_IF_ERROR(ParseAttr(lex, &p));
      op->attrs.emplace_back("precision_config", std::move(p));
    } else if (key == "algorithm") {
      // '<' key '=' attr (',' key '=' attr)* '>': the parameters of
      // #stablehlo.dot_algorithm<...>, as the generic form has them.
      Attr p;
      p.pos = lex.Here();
      p.kind = Attr::Kind::kDialect;
      p.s = "stablehlo.dot_algorithm";
      HLO_RETURN_IF_ERROR(lex.Expect("<", "to open the dot algorithm"));
      do {
        std::string name;
        HLO_RETURN_IF_ERROR(lex.ExpectIdent(&name, "a dot algorithm parameter"));
        HLO_RETURN_IF_ERROR(lex.Expect("="));
        Attr v;
        HLO_RETURN_IF_ERROR(ParseAttr(lex, &v));
        p.dict.emplace_back(std::move(name), std::move(v));
      } while (lex.Eat(","));
      HLO_RETURN_IF_ERROR(lex.Expect(">", "to close the dot algorithm"));
      op->attrs.emplace_back("algorithm", std::move(p));
    } else {
      return lex.Error(pos, StrCat("unknown dot_general parameter '", key, "'"));
    }
  }
  op->attrs.emplace_back("dot_dimension_numbers", std::move(dims));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// convolution ::= '(' use ',' use ')' 'dim_numbers' '=' conv-dims ','
//                 'window' '=' '{' (key '=' attr (',' ...)*)? '}' attr-dict ':' types
absl::Status ParseConvolution(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(lex.Expect("(", "to open the convolution operands"));
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  HLO_RETURN_IF_ERROR(lex.Expect(")"));
  HLO_RETURN_IF_ERROR(lex.Expect("dim_numbers"));
  HLO_RETURN_IF_ERROR(lex.Expect("="));
  // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]: kept as text for the translator.
  Attr dn;
  dn.kind = Attr::Kind::kDialect;
  dn.s = "stablehlo.conv";
  dn.pos = lex.Here();
  size_t start = lex.offset();
  std::string_view piece;
  for (int k = 0; k < 3; ++k) {
    if (lex.PeekChar() != '[') return lex.ErrorExpected("'[' of a dimension layout");
    HLO_RETURN_IF_ERROR(lex.SkipBalanced(&piece));
    if (k < 2) HLO_RETURN_IF_ERROR(lex.Expect(k == 0 ? "x" : "->"));
  }
  dn.text = std::string(lex.text().substr(start, lex.offset() - start));
  op->attrs.emplace_back("dimension_numbers", std::move(dn));
  if (lex.Eat(",")) {
    HLO_RETURN_IF_ERROR(lex.Expect("window"));
    HLO_RETURN_IF_ERROR(lex.Expect("="));
    std::vector<NamedAttr> window;
    HLO_RETURN_IF_ERROR(ParseDict(lex, &window));
    for (auto& [k, v] : window) {
      static const std::pair<const char*, const char*> kNames[] = {
          {"stride", "window_strides"},   {"pad", "padding"},
          {"lhs_dilate", "lhs_dilation"}, {"rhs_dilate", "rhs_dilation"},
          {"reverse", "window_reversal"},
      };
      std::string name = k;
      for (auto [from, to] : kNames) {
        if (k == from) name = to;
      }
      op->attrs.emplace_back(name, std::move(v));
    }
  }
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// reduce ::= '(' use 'init:' use ')' (',' '(' use 'init:' use ')')*
//            ('applies' op-name | ) 'across' 'dimensions' '=' '[' ints ']' attr-dict
//            ':' types ('reducer' ('(' arg ',' arg ')')+ region)?
absl::Status ParseReduce(Reader& r, Op* op, int depth) {
  Lexer& lex = r.lex();
  std::vector<Use> inputs, inits;
  do {
    HLO_RETURN_IF_ERROR(lex.Expect("(", "to open a reduce operand"));
    inputs.emplace_back();
    HLO_RETURN_IF_ERROR(r.ParseUse(&inputs.back()));
    HLO_RETURN_IF_ERROR(lex.Expect("init"));
    HLO_RETURN_IF_ERROR(lex.Expect(":"));
    inits.emplace_back();
    HLO_RETURN_IF_ERROR(r.ParseUse(&inits.back()));
    HLO_RETURN_IF_ERROR(lex.Expect(")"));
  } while (lex.Eat(","));
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  std::string applies;
  Pos applies_pos = lex.Here();
  if (lex.Eat("applies")) {
    applies_pos = lex.Here();
    HLO_RETURN_IF_ERROR(lex.ExpectIdent(&applies, "the op a reduce applies"));
  }
  HLO_RETURN_IF_ERROR(lex.Expect("across"));
  HLO_RETURN_IF_ERROR(lex.Expect("dimensions"));
  HLO_RETURN_IF_ERROR(lex.Expect("="));
  Attr dims;
  HLO_RETURN_IF_ERROR(ParseAttr(lex, &dims));
  op->attrs.emplace_back("dimensions", std::move(dims));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  HLO_RETURN_IF_ERROR(r.ParseTrailingTypes(op));
  const size_t n = inputs.size();
  op->regions.emplace_back();
  Region& region = op->regions.back();
  if (!applies.empty()) {
    // The body is `applies` on scalars of each input's element type.
    if (n != 1) return lex.Error(applies_pos, "'applies' takes one operand");
    if (op->operand_types.size() != 2) return lex.Error(applies_pos, "reduce needs two types");
    Type scalar = op->operand_types[1];
    region.pos = applies_pos;
    region.blocks.emplace_back();
    Block& b = region.blocks.back();
    b.args = {{"%lhs", scalar}, {"%rhs", scalar}};
    b.arg_pos = {applies_pos, applies_pos};
    Op body;
    body.name = applies;
    body.pos = body.name_pos = applies_pos;
    body.operands = {{"%lhs", applies_pos}, {"%rhs", applies_pos}};
    body.operand_types = {scalar, scalar};
    body.result_types = {scalar};
    body.results = {"%result"};
    Op ret;
    ret.name = "stablehlo.return";
    ret.pos = ret.name_pos = applies_pos;
    ret.operands = {{"%result", applies_pos}};
    ret.operand_types = {scalar};
    b.ops.push_back(std::move(body));
    b.ops.push_back(std::move(ret));
    return absl::OkStatus();
  }
  HLO_RETURN_IF_ERROR(lex.Expect("reducer", "or 'applies'"));
  // reducer(%a: t, %b: t) (%c: u, %d: u) {...}: pairs (lhs_i, rhs_i); the
  // block's arguments are all lhs then all rhs.
  region.blocks.emplace_back();
  Block pairs;
  for (size_t i = 0; i < n; ++i) {
    HLO_RETURN_IF_ERROR(lex.Expect("(", "to open a reducer argument pair"));
    HLO_RETURN_IF_ERROR(r.ParseBlockArgs(&pairs));
    HLO_RETURN_IF_ERROR(lex.Expect(")"));
  }
  if (pairs.args.size() != 2 * n) {
    return lex.ErrorHere(StrCat("reducer needs ", n, " pairs of arguments"));
  }
  Block& b = region.blocks.back();
  for (size_t k = 0; k < 2; ++k) {
    for (size_t i = 0; i < n; ++i) {
      b.args.push_back(pairs.args[2 * i + k]);
      b.arg_pos.push_back(pairs.arg_pos[2 * i + k]);
    }
  }
  return r.ParseRegion(&region, depth);
}

// while ::= '(' (arg '=' use (',' ...)*)? ')' attr-dict ':' types 'cond' region 'do' region
absl::Status ParseWhile(Reader& r, Op* op, int depth) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(lex.Expect("(", "to open the loop's values"));
  Block args;
  if (!lex.Eat(")")) {
    do {
      Use a;
      HLO_RETURN_IF_ERROR(r.ParseUse(&a));
      HLO_RETURN_IF_ERROR(lex.Expect("="));
      op->operands.emplace_back();
      HLO_RETURN_IF_ERROR(r.ParseUse(&op->operands.back()));
      args.args.emplace_back(a.name, Type());
      args.arg_pos.push_back(a.pos);
    } while (lex.Eat(","));
    HLO_RETURN_IF_ERROR(lex.Expect(")"));
  }
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  if (!op->operands.empty()) {
    HLO_RETURN_IF_ERROR(lex.Expect(":", "and the loop's types"));
    Pos pos = lex.Here();
    HLO_RETURN_IF_ERROR(ParseTypeList(lex, &op->operand_types));
    if (op->operand_types.size() != op->operands.size()) {
      return lex.Error(pos, StrCat(op->operands.size(), " loop values but ",
                                   op->operand_types.size(), " types"));
    }
  }
  op->result_types = op->operand_types;
  for (size_t i = 0; i < args.args.size(); ++i) args.args[i].second = op->operand_types[i];
  for (const char* word : {"cond", "do"}) {
    HLO_RETURN_IF_ERROR(lex.Expect(word, "of the while loop"));
    op->regions.emplace_back();
    op->regions.back().blocks.push_back(args);
    HLO_RETURN_IF_ERROR(r.ParseRegion(&op->regions.back(), depth));
  }
  return absl::OkStatus();
}

// custom_call ::= '@' target '(' uses? ')' attr-dict ':' types
// call ::= '@' callee '(' uses? ')' attr-dict ':' types
absl::Status ParseCallLike(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  Attr target;
  target.pos = lex.Here();
  target.kind = Attr::Kind::kSymbol;
  if (!lex.EatSigilName('@', &target.s)) return lex.ErrorExpected("a @name");
  op->attrs.emplace_back(op->name == "func.call" ? "callee" : "call_target_name",
                         std::move(target));
  HLO_RETURN_IF_ERROR(lex.Expect("(", "to open the operands"));
  if (!lex.Eat(")")) {
    HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
    HLO_RETURN_IF_ERROR(lex.Expect(")", "to close the operands"));
  }
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// return ::= uses? (':' types)?
absl::Status ParseReturn(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  if (lex.PeekChar() != '%') return absl::OkStatus();
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  HLO_RETURN_IF_ERROR(lex.Expect(":", "and the returned types"));
  Pos pos = lex.Here();
  HLO_RETURN_IF_ERROR(ParseTypeList(lex, &op->operand_types));
  if (op->operand_types.size() != op->operands.size()) {
    return lex.Error(pos, StrCat(op->operands.size(), " returned values but ",
                                 op->operand_types.size(), " types"));
  }
  return absl::OkStatus();
}

// get_tuple_element ::= use '[' int ']' attr-dict ':' types
absl::Status ParseGetTupleElement(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  Attr index;
  index.kind = Attr::Kind::kInt;
  index.pos = lex.Here();
  HLO_RETURN_IF_ERROR(lex.Expect("["));
  HLO_RETURN_IF_ERROR(lex.ExpectInt(&index.i, "a tuple index"));
  HLO_RETURN_IF_ERROR(lex.Expect("]"));
  op->attrs.emplace_back("index", std::move(index));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// chlo.top_k ::= '(' use ',' 'k' '=' int ')' attr-dict ':' types
absl::Status ParseTopK(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(lex.Expect("("));
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  HLO_RETURN_IF_ERROR(r.ParseNamedParams(op));
  HLO_RETURN_IF_ERROR(lex.Expect(")"));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// sdy.manual_computation ::= '(' uses ')' 'in_shardings' '=' attr 'out_shardings' '=' attr
//     'manual_axes' '=' attr '(' args ')' region ':' types
absl::Status ParseManualComputation(Reader& r, Op* op, int depth) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(lex.Expect("("));
  if (!lex.Eat(")")) {
    HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
    HLO_RETURN_IF_ERROR(lex.Expect(")"));
  }
  for (const char* key : {"in_shardings", "out_shardings", "manual_axes"}) {
    HLO_RETURN_IF_ERROR(lex.Expect(key));
    HLO_RETURN_IF_ERROR(lex.Expect("="));
    Attr a;
    a.kind = Attr::Kind::kDialect;
    a.pos = lex.Here();
    std::string_view text;
    HLO_RETURN_IF_ERROR(lex.SkipBalanced(&text));
    a.text = std::string(text);
    op->attrs.emplace_back(key, std::move(a));
  }
  op->regions.emplace_back();
  HLO_RETURN_IF_ERROR(r.ParseRegionWithArgs(&op->regions.back(), depth));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// composite ::= string uses attr-dict ':' types
absl::Status ParseComposite(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  Attr name;
  name.kind = Attr::Kind::kString;
  name.pos = lex.Here();
  if (!lex.EatString(&name.s)) return lex.ErrorExpected("the composite's name");
  op->attrs.emplace_back("name", std::move(name));
  if (lex.PeekChar() == '%') HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  return r.ParseTrailingTypes(op);
}

// chlo.scan ::= '(' uses? ')' 'inits' '(' uses? ')' 'dimension' '=' int
//               ('attributes' attr-dict)? region ':' function-type
// (the count of inits goes in `num_inits`).
absl::Status ParseScan(Reader& r, Op* op, int depth) {
  Lexer& lex = r.lex();
  for (const char* group : {"", "inits"}) {
    const size_t before = op->operands.size();
    if (*group != '\0') HLO_RETURN_IF_ERROR(lex.Expect(group, "and the scan's initial carries"));
    HLO_RETURN_IF_ERROR(lex.Expect("("));
    if (!lex.Eat(")")) {
      HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
      HLO_RETURN_IF_ERROR(lex.Expect(")"));
    }
    if (*group != '\0') {
      Attr n;
      n.kind = Attr::Kind::kInt;
      n.i = static_cast<int64_t>(op->operands.size() - before);
      n.pos = lex.Here();
      op->attrs.emplace_back("num_inits", std::move(n));
    }
  }
  HLO_RETURN_IF_ERROR(lex.Expect("dimension", "after the scan's operands"));
  HLO_RETURN_IF_ERROR(lex.Expect("="));
  Attr d;
  d.kind = Attr::Kind::kInt;
  d.pos = lex.Here();
  HLO_RETURN_IF_ERROR(lex.ExpectInt(&d.i, "the scan dimension"));
  op->attrs.emplace_back("dimension", std::move(d));
  if (lex.Eat("attributes")) HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  op->regions.emplace_back();
  HLO_RETURN_IF_ERROR(r.ParseRegion(&op->regions.back(), depth));
  return r.ParseTrailingTypes(op);
}

// The check ops of StableHLO's interpreter tests (its tests/CheckOps.td):
//   check.expect_eq %a, %b : T       check.expect_almost_eq %a, %b (, tolerance = X)? : T
//   check.expect_eq_const %a, dense<...> : T (, tolerance = X)? attr-dict
//   check.expect_close %a, %b, max_ulp_difference = N (, min_ulp_difference = M)? :
//       attr-dict T, T
//   check.expect_serialized_eq %a, probe_id = "p" (, iter = N)? : T
// interpreter.probe %x, probe_id = "id" : type: a check op's form, the
// result of the operand's type.
absl::Status ParseCheck(Reader& r, Op* op, int);
absl::Status ParseProbe(Reader& r, Op* op, int depth) {
  HLO_RETURN_IF_ERROR(ParseCheck(r, op, depth));
  op->result_types = op->operand_types;
  return absl::OkStatus();
}

absl::Status ParseCheck(Reader& r, Op* op, int) {
  Lexer& lex = r.lex();
  HLO_RETURN_IF_ERROR(r.ParseUses(&op->operands));
  if (op->name.ends_with("_const")) {
    HLO_RETURN_IF_ERROR(lex.Expect(",", "and the expected value"));
    Attr v;
    HLO_RETURN_IF_ERROR(ParseAttr(lex, &v));
    if (v.kind != Attr::Kind::kDense) return lex.Error(v.pos, "expected a dense<...> value");
    op->operand_types.assign(op->operands.size(), v.type);
    op->attrs.emplace_back("value", std::move(v));
    HLO_RETURN_IF_ERROR(r.ParseNamedParams(op));
    return r.ParseOptionalAttrDict(op);
  }
  HLO_RETURN_IF_ERROR(r.ParseNamedParams(op));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));
  HLO_RETURN_IF_ERROR(lex.Expect(":", "and the operand types"));
  HLO_RETURN_IF_ERROR(r.ParseOptionalAttrDict(op));  // expect_close writes it here
  Pos pos = lex.Here();
  std::vector<Type> types;
  HLO_RETURN_IF_ERROR(ParseTypeList(lex, &types));
  const size_t n = op->operands.size();
  if (types.size() == 1) {
    op->operand_types.assign(n, types[0]);
  } else if (types.size() == n) {
    op->operand_types = std::move(types);
  } else {
    return lex.Error(pos, StrCat("expected one type or ", n, " types for the ", n, " operands of ",
                                 op->name, ", found ", types.size()));
  }
  return absl::OkStatus();
}

// The stablehlo ops whose pretty form ParseSimple reads: operands, attributes
// and the function type, nothing of their own.
constexpr const char* kSimpleStablehloOps[] = {
    "abs",
    "add",
    "after_all",
    "and",
    "atan2",
    "bitcast_convert",
    "broadcast_in_dim",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "complex",
    "concatenate",
    "convert",
    "cosine",
    "count_leading_zeros",
    "create_token",
    "divide",
    "dot",
    "dynamic_slice",
    "dynamic_update_slice",
    "exponential",
    "exponential_minus_one",
    "fft",
    "floor",
    "imag",
    "is_finite",
    "log",
    "log_plus_one",
    "logistic",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "not",
    "optimization_barrier",
    "or",
    "pad",
    "partition_id",
    "popcnt",
    "power",
    "real",
    "reduce_precision",
    "remainder",
    "replica_id",
    "reshape",
    "reverse",
    "rng",
    "rng_bit_generator",
    "round_nearest_afz",
    "round_nearest_even",
    "rsqrt",
    "select",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "sign",
    "sine",
    "sqrt",
    "subtract",
    "tan",
    "tanh",
    "transpose",
    "tuple",
    "xor",
    "uniform_quantize",
    "uniform_dequantize",
    "dynamic_iota",
    "get_dimension_size",
    "dynamic_broadcast_in_dim",
    "dynamic_reshape",
    "dynamic_pad",
    "real_dynamic_slice",
    "set_dimension_size",
};

// The same among chlo's ops.
constexpr const char* kSimpleChloOps[] = {
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bessel_i1e",
    "conj",
    "cosh",
    "digamma",
    "erf",
    "erf_inv",
    "erfc",
    "is_inf",
    "is_neg_inf",
    "is_pos_inf",
    "lgamma",
    "mulhi",
    "next_after",
    "polygamma",
    "sinh",
    "square",
    "tan",
    "zeta",
    "broadcast_add",
    "broadcast_subtract",
    "broadcast_multiply",
    "broadcast_divide",
    "broadcast_maximum",
    "broadcast_minimum",
    "broadcast_power",
    "broadcast_remainder",
    "broadcast_and",
    "broadcast_or",
    "broadcast_xor",
    "broadcast_atan2",
    "broadcast_compare",
    "broadcast_select",
    "broadcast_complex",
    "broadcast_shift_left",
    "broadcast_shift_right_logical",
    "broadcast_shift_right_arithmetic",
    "broadcast_next_after",
    "broadcast_polygamma",
    "broadcast_zeta",
    "constant_like",
};

const absl::flat_hash_map<std::string, ParseFn>& Table() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string, ParseFn>;
    for (const char* name : kSimpleStablehloOps) {
      t->emplace(StrCat("stablehlo.", name), &ParseSimple);
    }
    t->emplace("stablehlo.iota", &ParseIota);
    t->emplace("stablehlo.constant", &ParseConstant);
    t->emplace("stablehlo.compare", &ParseCompare);
    t->emplace("stablehlo.slice", &ParseSlice);
    t->emplace("stablehlo.dot_general", &ParseDotGeneral);
    t->emplace("stablehlo.convolution", &ParseConvolution);
    t->emplace("stablehlo.reduce", &ParseReduce);
    t->emplace("stablehlo.while", &ParseWhile);
    t->emplace("stablehlo.custom_call", &ParseCallLike);
    t->emplace("stablehlo.get_tuple_element", &ParseGetTupleElement);
    t->emplace("stablehlo.composite", &ParseComposite);
    t->emplace("stablehlo.return", &ParseReturn);
    t->emplace("func.call", &ParseCallLike);
    t->emplace("func.return", &ParseReturn);
    t->emplace("sdy.return", &ParseReturn);
    t->emplace("sdy.manual_computation", &ParseManualComputation);
    t->emplace("chlo.top_k", &ParseTopK);
    t->emplace("chlo.scan", &ParseScan);
    for (const char* name : {"expect_eq", "expect_eq_const", "expect_almost_eq",
                             "expect_almost_eq_const", "expect_close", "expect_serialized_eq"}) {
      t->emplace(StrCat("check.", name), &ParseCheck);
    }
    t->emplace("interpreter.probe", &ParseProbe);
    t->emplace("interpreter.print", &ParseCheck);
    for (const char* name : kSimpleChloOps) {
      t->emplace(StrCat("chlo.", name), &ParseSimple);
    }
    return t;
  }();
  return *table;
}

}  // namespace

bool HasPrettyForm(std::string_view name) {
  return Table().contains(absl::string_view(name.data(), name.size()));
}

absl::Status ParsePrettyOp(Reader& r, Op* op, int depth) {
  return Table().find(op->name)->second(r, op, depth);
}

}  // namespace hlo::stablehlo
