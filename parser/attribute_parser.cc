// Attribute values: one parse function per value type.
#include <algorithm>
#include <charconv>

#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace {

// Allowed identifiers of enum-like attributes (empty: any identifier).
std::vector<std::string_view> IdentValues(AttrKind kind, Opcode opcode) {
  switch (kind) {
    case AttrKind::kDirection: return {"EQ", "NE", "LT", "LE", "GT", "GE"};
    case AttrKind::kType: return {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
    case AttrKind::kDistribution: return {"rng_uniform", "rng_normal"};
    case AttrKind::kAlgorithm:
      if (opcode == Opcode::kRngBitGenerator) {
        return {"rng_default", "rng_three_fry", "rng_philox"};
      }
      return {};
    case AttrKind::kFftType: return {"FFT", "IFFT", "RFFT", "IRFFT"};
    case AttrKind::kTransposeA: return {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    case AttrKind::kKind: return {"kLoop", "kInput", "kOutput", "kCustom"};
    case AttrKind::kApiVersion:
      return {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
              "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
    case AttrKind::kSchedule:
      return {"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"};
    case AttrKind::kPaddingType: return {"PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"};
    default: return {};
  }
}

}  // namespace

bool Parser::ParseInt(int64_t* out) {
  if (!At(Tok::kNumber) || !ParseInt64(tok_.text, out)) {
    return ErrorHere(StrCat("expected an integer, found ", Found()));
  }
  Advance();
  return true;
}

// int_list ::= '{' [int (',' int)*] '}'
bool Parser::ParseIntList(std::vector<int64_t>* out) {
  if (!Expect(Tok::kLBrace, "'{' to open a list of integers")) return false;
  while (!At(Tok::kRBrace)) {
    int64_t v = 0;
    if (!ParseInt(&v)) return false;
    out->push_back(v);
    if (At(Tok::kRBrace)) break;
    if (!At(Tok::kComma)) {
      return ErrorHere(StrCat("expected ',' or '}' in the list, found ", Found()));
    }
    Advance();
  }
  Advance();
  return true;
}

// int_list_list ::= '{' [int_list (',' int_list)*] '}'
bool Parser::ParseIntListList(std::vector<std::vector<int64_t>>* out) {
  if (!Expect(Tok::kLBrace, "'{' to open a list of lists")) return false;
  while (!At(Tok::kRBrace)) {
    std::vector<int64_t> inner;
    if (!ParseIntList(&inner)) return false;
    out->push_back(std::move(inner));
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "'}' to close the list of lists");
}

// window ::= '{' (field '=' NxN...)* '}'
// fields: size stride pad (lo_hi) lhs_dilate rhs_dilate rhs_reversal
bool Parser::ParseWindow(Window* out) {
  if (!Expect(Tok::kLBrace, "'{' to open the window")) return false;
  std::vector<std::string_view> seen;
  while (!At(Tok::kRBrace)) {
    if (!At(Tok::kName)) {
      return ErrorHere(StrCat("expected a window field (size, stride, pad, lhs_dilate, "
                                    "rhs_dilate, rhs_reversal), found ", Found()));
    }
    Token field = tok_;
    Advance();
    if (!Expect(Tok::kEqual, "'=' after the window field")) return false;
    if (!At(Tok::kNumber)) {
      return ErrorHere(StrCat("expected values like 3x3 for '", field.text,
                                    "', found ", Found()));
    }
    Token value = tok_;
    std::vector<std::string_view> parts = StrSplit(value.text, 'x');
    if (out->empty()) out->resize(parts.size());
    if (parts.size() != out->size()) {
      return ErrorHere(StrCat("window field '", field.text, "' has ", parts.size(),
                                    " dimensions but the window has ", out->size()));
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      WindowDim& d = (*out)[i];
      bool ok = true;
      if (field.text == "size") {
        ok = ParseInt64(parts[i], &d.size);
      } else if (field.text == "stride") {
        ok = ParseInt64(parts[i], &d.stride);
      } else if (field.text == "lhs_dilate") {
        ok = ParseInt64(parts[i], &d.base_dilation);
      } else if (field.text == "rhs_dilate") {
        ok = ParseInt64(parts[i], &d.window_dilation);
      } else if (field.text == "rhs_reversal") {
        int64_t r = 0;
        ok = ParseInt64(parts[i], &r) && (r == 0 || r == 1);
        d.window_reversal = r == 1;
      } else if (field.text == "pad") {
        std::vector<std::string_view> lh = StrSplit(parts[i], '_');
        ok = lh.size() == 2 && ParseInt64(lh[0], &d.padding_low) &&
             ParseInt64(lh[1], &d.padding_high);
      } else {
        return ErrorAt(field, StrCat("unknown window field '", field.text,
                                           "'; expected size, stride, pad, lhs_dilate, "
                                           "rhs_dilate or rhs_reversal"));
      }
      if (!ok) {
        return ErrorHere(StrCat("bad value '", parts[i], "' in window field '",
                                      field.text, "'"));
      }
    }
    Advance();
  }
  Advance();
  return true;
}

// dim_labels ::= lhs '_' rhs '->' out, e.g. b01f_01io->b01f
bool Parser::ParseConvDims(ConvDims* out) {
  if (!At(Tok::kName) && !At(Tok::kNumber)) {
    return ErrorHere(StrCat("expected dim labels like b01f_01io->b01f, found ", Found()));
  }
  Token first = tok_;
  std::string_view lr = tok_.text;
  Advance();
  if (!Expect(Tok::kArrow, "'->' in the dim labels")) return false;
  if (!At(Tok::kName) && !At(Tok::kNumber)) {
    return ErrorHere(StrCat("expected output dim labels, found ", Found()));
  }
  std::string_view o = tok_.text;
  size_t us = lr.find('_');
  if (us == std::string_view::npos) {
    return ErrorAt(first, "expected dim labels like b01f_01io->b01f (missing '_')");
  }
  std::string_view l = lr.substr(0, us), r = lr.substr(us + 1);
  if (l.size() != r.size() || l.size() != o.size() || l.size() < 2) {
    return ErrorAt(first, "input, kernel and output dim labels must have the same rank");
  }
  size_t spatial = l.size() - 2;
  auto parse_side = [&](std::string_view s, char a, char b, int64_t* pa, int64_t* pb,
                        std::vector<int64_t>* sp) {
    *pa = *pb = -1;
    sp->assign(spatial, -1);
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == a && *pa < 0) {
        *pa = static_cast<int64_t>(i);
      } else if (c == b && *pb < 0) {
        *pb = static_cast<int64_t>(i);
      } else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < spatial &&
                 (*sp)[c - '0'] < 0) {
        (*sp)[c - '0'] = static_cast<int64_t>(i);
      } else {
        return false;
      }
    }
    return true;
  };
  if (!parse_side(l, 'b', 'f', &out->input_batch, &out->input_feature, &out->input_spatial) ||
      !parse_side(r, 'i', 'o', &out->kernel_input_feature, &out->kernel_output_feature,
                  &out->kernel_spatial) ||
      !parse_side(o, 'b', 'f', &out->output_batch, &out->output_feature,
                  &out->output_spatial)) {
    return ErrorAt(first, StrCat("bad dim labels '", lr, "->", o,
                                       "': each side needs b/f (i/o for the kernel) once and "
                                       "the spatial digits 0..", spatial == 0 ? 0 : spatial - 1,
                                       " once"));
  }
  Advance();
  return true;
}

// padding ::= lo_hi[_interior] ('x' lo_hi[_interior])*
bool Parser::ParsePadding(PaddingConfig* out) {
  if (!At(Tok::kNumber)) {
    return ErrorHere(StrCat("expected padding like 0_0x1_1, found ", Found()));
  }
  for (std::string_view part : StrSplit(tok_.text, 'x')) {
    std::vector<std::string_view> v = StrSplit(part, '_');
    PaddingDim d;
    bool ok = (v.size() == 2 || v.size() == 3) && ParseInt64(v[0], &d.low) &&
              ParseInt64(v[1], &d.high) && (v.size() == 2 || ParseInt64(v[2], &d.interior));
    if (!ok) {
      return ErrorHere(StrCat("bad padding '", part,
                                    "'; expected low_high or low_high_interior"));
    }
    out->push_back(d);
  }
  Advance();
  return true;
}

// slice ::= '{' [ '[' start ':' limit [':' stride] ']' (',' ...)* ] '}'
bool Parser::ParseSliceSpec(SliceSpec* out) {
  if (!Expect(Tok::kLBrace, "'{' to open the slice")) return false;
  while (!At(Tok::kRBrace)) {
    if (!Expect(Tok::kLSquare, "'[' to open a slice range like [0:4]")) return false;
    SliceDim d;
    if (!ParseInt(&d.start) || !Expect(Tok::kColon, "':' between start and limit") ||
        !ParseInt(&d.limit)) {
      return false;
    }
    if (Consume(Tok::kColon) && !ParseInt(&d.stride)) return false;
    if (!Expect(Tok::kRSquare, "']' to close the slice range")) return false;
    out->push_back(d);
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "'}' to close the slice");
}

// iota ::= '[' dims ']' '<=' '[' dims ']' ['T' '(' perm ')']
bool Parser::ParseIota(IotaTileAssignment* out) {
  auto dims = [&](std::vector<int64_t>* v) {
    if (!Expect(Tok::kLSquare, "'['")) return false;
    while (!At(Tok::kRSquare)) {
      int64_t d = 0;
      if (!ParseInt(&d)) return false;
      v->push_back(d);
      if (!Consume(Tok::kComma)) break;
    }
    return Expect(Tok::kRSquare, "']'");
  };
  if (!dims(&out->dims)) return false;
  if (!Expect(Tok::kLess, "'<=' in the iota device list") ||
      !Expect(Tok::kEqual, "'<=' in the iota device list")) {
    return false;
  }
  Token at = tok_;
  if (!dims(&out->reshape_dims)) return false;
  if (AtName("T")) {
    Advance();
    if (!Expect(Tok::kLParen, "'(' after T")) return false;
    while (!At(Tok::kRParen)) {
      int64_t d = 0;
      if (!ParseInt(&d)) return false;
      out->transpose_perm.push_back(d);
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRParen, "')'")) return false;
  }
  int64_t n1 = 1, n2 = 1;
  for (int64_t d : out->dims) n1 *= d;
  for (int64_t d : out->reshape_dims) {
    if (d <= 0 || n2 > (int64_t{1} << 40) / d) {
      return ErrorAt(at, "bad iota reshape dimensions");
    }
    n2 *= d;
  }
  if (n1 != n2) {
    return ErrorAt(at, StrCat("iota list has ", n2, " devices but the shape [",
                                    StrJoin(out->dims, ","), "] needs ", n1));
  }
  if (!out->transpose_perm.empty()) {
    std::vector<int64_t> p = out->transpose_perm;
    std::sort(p.begin(), p.end());
    bool perm = p.size() == out->reshape_dims.size();
    for (size_t i = 0; perm && i < p.size(); ++i) perm = p[i] == static_cast<int64_t>(i);
    if (!perm) return ErrorAt(at, "iota transpose is not a permutation of the reshape dims");
  }
  return true;
}

bool Parser::ParseReplicaGroups(ReplicaGroups* out) {
  if (At(Tok::kLSquare)) {
    IotaTileAssignment iota;
    if (!ParseIota(&iota)) return false;
    out->iota = std::move(iota);
    return true;
  }
  return ParseIntListList(&out->groups);
}

// key_values ::= '{' [key '=' value (sep key '=' value)*] '}'
// Metadata separates with spaces, frontend attributes with ','.
bool Parser::ParseKeyValues(KeyValues* out, bool allow_unquoted) {
  if (!Expect(Tok::kLBrace, "'{'")) return false;
  while (!At(Tok::kRBrace)) {
    if (!At(Tok::kName) && !At(Tok::kString)) {
      return ErrorHere(StrCat("expected a key, found ", Found()));
    }
    KeyValue kv;
    if (At(Tok::kString)) {
      std::string err;
      if (!Lexer::Unescape(tok_.text, &kv.key, &err)) return ErrorHere(err);
    } else {
      kv.key = std::string(tok_.text);
    }
    Advance();
    if (!Expect(Tok::kEqual, StrCat("'=' after '", kv.key, "'"))) return false;
    if (At(Tok::kString)) {
      std::string err;
      if (!Lexer::Unescape(tok_.text, &kv.value, &err)) return ErrorHere(err);
      Advance();
    } else if (At(Tok::kLBrace) || At(Tok::kLSquare)) {
      std::string err;
      std::string_view raw = lexer_.ScanBalanced(tok_, &err);
      if (raw.empty()) return ErrorHere(err);
      kv.value = std::string(raw);
      kv.quoted = false;
      Advance();
    } else if (allow_unquoted && (At(Tok::kNumber) || At(Tok::kName))) {
      kv.value = std::string(tok_.text);
      kv.quoted = false;
      Advance();
    } else {
      return ErrorHere(StrCat("expected a value for '", kv.key, "', found ", Found()));
    }
    out->push_back(std::move(kv));
    Consume(Tok::kComma);
  }
  Advance();
  return true;
}

// sharding ::= '{' (tuple_element (',' tuple_element)* | single) '}'
bool Parser::ParseSharding(Sharding* out, int depth) {
  if (depth > kMaxDepth) return ErrorHere("sharding is nested too deeply");
  if (!Expect(Tok::kLBrace, "'{' to open the sharding")) return false;
  if (At(Tok::kLBrace) || At(Tok::kRBrace)) {
    out->type = Sharding::Type::kTuple;
    while (At(Tok::kLBrace)) {
      Sharding e;
      if (!ParseSharding(&e, depth + 1)) return false;
      out->tuple_elements.push_back(std::move(e));
      if (!Consume(Tok::kComma)) break;
    }
    return Expect(Tok::kRBrace, "'}' to close the tuple sharding");
  }
  bool have_type = false;
  while (!At(Tok::kRBrace)) {
    if (!At(Tok::kName)) {
      return ErrorHere(StrCat("expected a sharding (replicated, maximal, devices=…), "
                                    "found ", Found()));
    }
    std::string_view w = tok_.text;
    Token at = tok_;
    Advance();
    if (w == "replicated" || w == "manual" || w == "unknown" || w == "unreduced") {
      out->type = w == "replicated" ? Sharding::Type::kReplicated
                  : w == "manual"   ? Sharding::Type::kManual
                  : w == "unknown"  ? Sharding::Type::kUnknown
                                    : Sharding::Type::kUnreduced;
      have_type = true;
    } else if (w == "maximal") {
      if (!AtName("device")) return ErrorHere("expected 'device=' after 'maximal'");
      Advance();
      if (!Expect(Tok::kEqual, "'='") || !ParseInt(&out->device)) return false;
      out->type = Sharding::Type::kMaximal;
      have_type = true;
    } else if (w == "devices") {
      if (!Expect(Tok::kEqual, "'=' after 'devices'")) return false;
      out->type = Sharding::Type::kTiled;
      have_type = true;
      // Look ahead: `[dims]<=[..]` (iota) or `[dims]id,id,...`.
      Token open = tok_;
      if (!Expect(Tok::kLSquare, "'[' after 'devices='")) return false;
      while (!At(Tok::kRSquare)) {
        int64_t d = 0;
        if (!ParseInt(&d)) return false;
        out->tile_dims.push_back(d);
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRSquare, "']'")) return false;
      if (At(Tok::kLess)) {
        lexer_.Reset(open);
        Advance();
        IotaTileAssignment iota;
        if (!ParseIota(&iota)) return false;
        out->iota = std::move(iota);
        out->tile_dims.clear();
      } else {
        int64_t n = 1;
        for (int64_t d : out->tile_dims) n *= d;
        while (At(Tok::kNumber)) {
          int64_t d = 0;
          if (!ParseInt(&d)) return false;
          out->devices.push_back(d);
          if (!At(Tok::kComma)) break;
          Advance();
        }
        if (static_cast<int64_t>(out->devices.size()) != n) {
          return ErrorAt(open, StrCat("tile shape [", StrJoin(out->tile_dims, ","),
                                            "] needs ", n, " devices but ",
                                            out->devices.size(), " are listed"));
        }
      }
    } else if (w == "last_tile_dim_replicate") {
      out->last_tile_dim_replicate = true;
    } else if (w == "last_tile_dims") {
      if (!Expect(Tok::kEqual, "'='") || !Expect(Tok::kLBrace, "'{'")) return false;
      while (At(Tok::kName)) {
        out->last_tile_dims.emplace_back(tok_.text);
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "'}'")) return false;
    } else if (w == "shard_as" || w == "shard_like") {
      int64_t g = 0;
      if (!ParseInt(&g)) return false;
      out->shard_group = StrCat(w, " ", g);
    } else if (w == "metadata") {
      if (!Expect(Tok::kEqual, "'='")) return false;
      Token open = tok_;
      if (!Expect(Tok::kLBrace, "'{'")) return false;
      bool list = At(Tok::kLBrace);
      lexer_.Reset(open);
      Advance();
      if (list) {
        Advance();
        while (At(Tok::kLBrace)) {
          KeyValues kv;
          if (!ParseKeyValues(&kv, true)) return false;
          out->metadata.push_back(std::move(kv));
          if (!Consume(Tok::kComma)) break;
        }
        if (!Expect(Tok::kRBrace, "'}'")) return false;
      } else {
        KeyValues kv;
        if (!ParseKeyValues(&kv, true)) return false;
        out->metadata.push_back(std::move(kv));
      }
    } else {
      return ErrorAt(at, StrCat("unknown sharding keyword '", w, "'"));
    }
  }
  if (!have_type) return ErrorHere("sharding has no type (replicated, maximal, devices=…)");
  return Expect(Tok::kRBrace, "'}'");
}

// aliasing ::= '{' [ '{' index '}' ':' '(' int ',' '{' index '}' [',' kind] ')' ...] '}'
bool Parser::ParseAliasing(Aliasing* out) {
  if (!Expect(Tok::kLBrace, "'{'")) return false;
  while (!At(Tok::kRBrace)) {
    AliasEntry e;
    if (!ParseIntList(&e.output_index) || !Expect(Tok::kColon, "':' after the output index") ||
        !Expect(Tok::kLParen, "'('") || !ParseInt(&e.operand) ||
        !Expect(Tok::kComma, "','") || !ParseIntList(&e.operand_index) ||
        !Expect(Tok::kRParen, "')'")) {
      return false;
    }
    out->push_back(std::move(e));
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "'}'");
}

// shaped_literal ::= shape literal | '(' shaped_literal (',' shaped_literal)* ')'
bool Parser::ParseShapedLiteral(Literal* out, int depth) {
  if (depth > kMaxDepth) return ErrorHere("literal is nested too deeply");
  if (Consume(Tok::kLParen)) {
    std::vector<Literal> elems;
    while (!At(Tok::kRParen)) {
      Literal e;
      if (!ParseShapedLiteral(&e, depth + 1)) return false;
      elems.push_back(std::move(e));
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRParen, "')' to close the tuple literal")) return false;
    *out = Literal::Tuple(std::move(elems));
    return true;
  }
  const Shape* s = nullptr;
  if (!ParseShape(&s)) return false;
  auto lit = Literal::Create(*s);
  if (!lit.ok()) return ErrorHere(std::string(lit.status().message()));
  if (!ParseLiteralForShape(*s, &*lit, depth)) return false;
  *out = *std::move(lit);
  return true;
}

bool Parser::ParseStringValue(std::string* out) {
  if (!At(Tok::kString)) return ErrorHere(StrCat("expected a string, found ", Found()));
  std::string err;
  if (!Lexer::Unescape(tok_.text, out, &err)) return ErrorHere(err);
  Advance();
  return true;
}

bool Parser::ParseAttrValue(AttrKind kind, Instruction* inst, AttrValue* out) {
  switch (AttrValueType(kind)) {
    case AttrType::kInt: {
      int64_t v = 0;
      if (!ParseInt(&v)) return false;
      *out = v;
      return true;
    }
    case AttrType::kFloat: {
      double v = 0;
      if (!At(Tok::kNumber) || !ParseDouble(tok_.text, &v)) {
        return ErrorHere(StrCat("expected a number, found ", Found()));
      }
      Advance();
      *out = v;
      return true;
    }
    case AttrType::kBool:
      if (AtName("true") || AtName("false")) {
        *out = tok_.text == "true";
        Advance();
        return true;
      }
      return ErrorHere(StrCat("expected true or false, found ", Found()));
    case AttrType::kString: {
      std::string s;
      if (!ParseStringValue(&s)) return false;
      *out = std::move(s);
      return true;
    }
    case AttrType::kIdent: {
      if (!At(Tok::kName)) return ErrorHere(StrCat("expected a name, found ", Found()));
      std::vector<std::string_view> allowed = IdentValues(kind, inst->opcode());
      if (!allowed.empty() &&
          std::find(allowed.begin(), allowed.end(), tok_.text) == allowed.end()) {
        return ErrorHere(StrCat("unknown ", AttrName(kind), " '", tok_.text,
                                      "'; expected one of ", StrJoin(allowed, ", ")));
      }
      *out = std::string(tok_.text);
      Advance();
      return true;
    }
    case AttrType::kIntList: {
      if (kind == AttrKind::kSliceSizes &&
          (inst->opcode() == Opcode::kCollectivePermute ||
           inst->opcode() == Opcode::kCollectivePermuteStart)) {
        // collective-permute's slice sizes are one list per operand.
        std::vector<std::vector<int64_t>> v;
        if (!ParseIntListList(&v)) return false;
        *out = std::move(v);
        return true;
      }
      std::vector<int64_t> v;
      if (!ParseIntList(&v)) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kBoolList: {
      std::vector<bool> v;
      if (!Expect(Tok::kLBrace, "'{'")) return false;
      while (AtName("true") || AtName("false")) {
        v.push_back(tok_.text == "true");
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "'}' to close the list of booleans")) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kIdentList: {
      std::vector<std::string> v;
      if (!Expect(Tok::kLBrace, "'{'")) return false;
      while (At(Tok::kName)) {
        v.emplace_back(tok_.text);
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "'}' to close the list")) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kIntListList: {
      std::vector<std::vector<int64_t>> v;
      if (!ParseIntListList(&v)) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kShape: {
      const Shape* s = nullptr;
      if (!ParseShape(&s)) return false;
      *out = s;
      return true;
    }
    case AttrType::kShapeList: {
      std::vector<const Shape*> v;
      if (!Expect(Tok::kLBrace, "'{'")) return false;
      while (!At(Tok::kRBrace)) {
        const Shape* s = nullptr;
        if (!ParseShape(&s)) return false;
        v.push_back(s);
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "'}' to close the list of shapes")) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kComputation:
    case AttrType::kComputationList: {
      std::vector<Computation*> v;
      bool braced = Consume(Tok::kLBrace);
      while (At(Tok::kName)) {
        pending_computations_.push_back({inst, kind, v.size(), tok_});
        v.push_back(nullptr);
        Advance();
        if (!braced) break;
        if (!Consume(Tok::kComma)) break;
      }
      if (braced && !Expect(Tok::kRBrace, "'}' to close the list of computations")) {
        return false;
      }
      if (v.empty()) return ErrorHere(StrCat("expected a computation name, found ", Found()));
      if (AttrValueType(kind) == AttrType::kComputation && v.size() != 1) {
        return ErrorHere(StrCat("'", AttrName(kind), "' takes one computation"));
      }
      *out = std::move(v);
      return true;
    }
    case AttrType::kInstructionList: {
      std::vector<Instruction*> v;
      if (!Expect(Tok::kLBrace, "'{'")) return false;
      size_t attr_index = inst->attributes().size() - 1;
      while (At(Tok::kName)) {
        pending_controls_.push_back({inst, attr_index, v.size(), tok_});
        v.push_back(nullptr);
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "'}' to close the list of instructions")) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kSlice: {
      auto v = std::make_shared<SliceSpec>();
      if (!ParseSliceSpec(v.get())) return false;
      *out = std::shared_ptr<const SliceSpec>(std::move(v));
      return true;
    }
    case AttrType::kWindow: {
      auto v = std::make_shared<Window>();
      if (!ParseWindow(v.get())) return false;
      *out = std::shared_ptr<const Window>(std::move(v));
      return true;
    }
    case AttrType::kConvDims: {
      auto v = std::make_shared<ConvDims>();
      if (!ParseConvDims(v.get())) return false;
      *out = std::shared_ptr<const ConvDims>(std::move(v));
      return true;
    }
    case AttrType::kPadding: {
      auto v = std::make_shared<PaddingConfig>();
      if (!ParsePadding(v.get())) return false;
      *out = std::shared_ptr<const PaddingConfig>(std::move(v));
      return true;
    }
    case AttrType::kReplicaGroups: {
      auto v = std::make_shared<ReplicaGroups>();
      if (!ParseReplicaGroups(v.get())) return false;
      *out = std::shared_ptr<const ReplicaGroups>(std::move(v));
      return true;
    }
    case AttrType::kSharding: {
      auto v = std::make_shared<Sharding>();
      if (!ParseSharding(v.get(), 0)) return false;
      *out = std::shared_ptr<const Sharding>(std::move(v));
      return true;
    }
    case AttrType::kKeyValues:
    case AttrType::kStringMap: {
      auto v = std::make_shared<KeyValues>();
      if (!ParseKeyValues(v.get(), AttrValueType(kind) == AttrType::kKeyValues)) return false;
      *out = std::shared_ptr<const KeyValues>(std::move(v));
      return true;
    }
    case AttrType::kBackendConfig: {
      auto v = std::make_shared<BackendConfig>();
      if (At(Tok::kString)) {
        if (!ParseStringValue(&v->text)) return false;
      } else if (At(Tok::kLBrace)) {
        std::string err;
        std::string_view raw = lexer_.ScanBalanced(tok_, &err);
        if (raw.empty()) return ErrorHere(err);
        v->text = std::string(raw);
        v->is_json_object = true;
        Advance();
      } else {
        return ErrorHere(StrCat("expected a string or a {…} object, found ", Found()));
      }
      *out = std::shared_ptr<const BackendConfig>(std::move(v));
      return true;
    }
    case AttrType::kAliasing: {
      auto v = std::make_shared<Aliasing>();
      if (!ParseAliasing(v.get())) return false;
      *out = std::shared_ptr<const Aliasing>(std::move(v));
      return true;
    }
    case AttrType::kLiteral: {
      Literal lit;
      if (!ParseShapedLiteral(&lit, 0)) return false;
      *out = std::make_shared<const Literal>(std::move(lit));
      return true;
    }
    case AttrType::kRaw: {
      if (At(Tok::kLBrace) || At(Tok::kLParen) || At(Tok::kLSquare)) {
        std::string err;
        std::string_view raw = lexer_.ScanBalanced(tok_, &err);
        if (raw.empty()) return ErrorHere(err);
        *out = std::string(raw);
        Advance();
        return true;
      }
      if (At(Tok::kName) || At(Tok::kNumber)) {
        *out = std::string(tok_.text);
        Advance();
        return true;
      }
      return ErrorHere(StrCat("expected a value, found ", Found()));
    }
  }
  return ErrorHere("unhandled attribute type");
}

}  // namespace hlo
