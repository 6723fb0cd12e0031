// Attribute values: one parse function per value type.
#include <algorithm>
#include <charconv>

#include "ir/sparsity_config.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace {

// Allowed identifiers of enum-like attributes (empty: any identifier).
std::vector<std::string_view> IdentValues(AttrKind kind, Opcode opcode) {
  switch (kind) {
    case AttrKind::kDirection:
      return {"EQ", "NE", "LT", "LE", "GT", "GE"};
    case AttrKind::kType:
      return {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
    case AttrKind::kOrder:
      return {"TOTAL", "PARTIAL"};
    case AttrKind::kDistribution:
      return {"rng_uniform", "rng_normal"};
    case AttrKind::kAlgorithm:
      if (opcode == Opcode::kRngBitGenerator) {
        return {"rng_default", "rng_three_fry", "rng_philox"};
      }
      return {};
    case AttrKind::kFftType:
      return {"FFT", "IFFT", "RFFT", "IRFFT"};
    case AttrKind::kTransposeA:
      return {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    case AttrKind::kKind:
      return {"kLoop", "kInput", "kOutput", "kCustom"};
    case AttrKind::kApiVersion:
      return {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
              "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
    case AttrKind::kSchedule:
      return {"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"};
    case AttrKind::kPaddingType:
      return {"PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"};
    case AttrKind::kConvolutionKind:
      return {"fprop", "wgrad", "dgrad", "unset"};
    default:
      return {};
  }
}

}  // namespace

bool Parser::ParseInt(int64_t* out) {
  if (!At(Tok::kNumber)) return ErrorExpected("an integer");
  if (!ParseInt64(tok_.text, out)) {
    std::string_view t = tok_.text;
    bool digits = !t.empty() && std::all_of(t.begin() + (t[0] == '-' || t[0] == '+'), t.end(),
                                            [](char c) { return c >= '0' && c <= '9'; });
    if (digits && t.size() > 1) {
      return ErrorHere(StrCat("integer ", t, " is out of range (64-bit signed)"));
    }
    return ErrorHere(StrCat("expected an integer, found ", Found()));
  }
  Advance();
  return true;
}

// int_list ::= '{' [int (',' int)*] '}'
bool Parser::ParseIntList(std::vector<int64_t>* out) {
  if (!Expect(Tok::kLBrace, "'{' to open a list of integers")) return false;
  if (Consume(Tok::kRBrace)) return true;
  while (true) {
    int64_t v = 0;
    if (!At(Tok::kNumber)) {
      return ErrorExpected(out->empty() ? "an integer or '}'" : "an integer after ','");
    }
    if (!ParseInt(&v)) return false;
    out->push_back(v);
    if (Consume(Tok::kRBrace)) return true;
    if (!At(Tok::kComma)) return ErrorExpected("',' or '}' in the list of integers");
    Advance();
  }
}

// int_list_list ::= '{' [int_list (',' int_list)*] '}'
bool Parser::ParseIntListList(std::vector<std::vector<int64_t>>* out) {
  if (!Expect(Tok::kLBrace, "'{' to open a list of lists like {{0,1},{2,3}}")) return false;
  while (!At(Tok::kRBrace)) {
    std::vector<int64_t> inner;
    if (!At(Tok::kLBrace)) {
      return ErrorExpected(out->empty() ? "'{' to open the first inner list, or '}'"
                                        : "'{' to open the next inner list, or '}' to close "
                                          "the list of lists");
    }
    if (!ParseIntList(&inner)) return false;
    out->push_back(std::move(inner));
    if (!Consume(Tok::kComma)) break;
    if (!At(Tok::kLBrace)) return ErrorExpected("'{' to open the next inner list after ','");
  }
  return Expect(Tok::kRBrace, "',' or '}' after an inner list");
}

// window ::= '{' (field '=' NxN...)* '}'
// fields: size stride pad (lo_hi) lhs_dilate rhs_dilate rhs_reversal
bool Parser::ParseWindow(Window* out) {
  if (!Expect(Tok::kLBrace, "'{' to open the window")) return false;
  static constexpr std::string_view kFields[] = {"size",       "stride",     "pad",
                                                 "lhs_dilate", "rhs_dilate", "rhs_reversal"};
  std::vector<std::string_view> seen;
  while (!At(Tok::kRBrace)) {
    if (!At(Tok::kName)) {
      return ErrorExpected(seen.empty()
                               ? "a window field (size, stride, pad, lhs_dilate, rhs_dilate, "
                                 "rhs_reversal) or '}'"
                               : "another window field (separated by a space) or '}' to "
                                 "close the window");
    }
    Token field = tok_;
    if (std::find(std::begin(kFields), std::end(kFields), field.text) == std::end(kFields)) {
      std::string msg = StrCat("unknown window field '", field.text,
                               "'; expected size, stride, pad, lhs_dilate, rhs_dilate or "
                               "rhs_reversal");
      std::string_view close = ClosestMatch(
          field.text, std::vector<std::string_view>(std::begin(kFields), std::end(kFields)));
      if (!close.empty())
        msg = StrCat("unknown window field '", field.text, "'; did you mean '", close, "'?");
      return ErrorHere(std::move(msg));
    }
    if (std::find(seen.begin(), seen.end(), field.text) != seen.end()) {
      return ErrorHere(StrCat("window field '", field.text, "' is given twice"));
    }
    seen.push_back(field.text);
    Advance();
    if (!Consume(Tok::kEqual) &&
        !Expect(Tok::kEqual, StrCat("'=' after the window field '", field.text, "'"))) {
      return false;
    }
    const bool pad = field.text == "pad";
    if (!At(Tok::kNumber)) {
      return ErrorExpected(
          StrCat("a value for '", field.text, "' like ",
                 pad ? "0_0x1_1 (low_high per dimension)" : "2x2 (one number per dimension)"));
    }
    Token value = tok_;
    std::vector<std::string_view> parts = StrSplit(value.text, 'x');
    if (out->empty()) out->resize(parts.size());
    if (parts.size() != out->size()) {
      return ErrorHere(StrCat("window field '", field.text, "' has ", parts.size(), " dimension",
                              parts.size() == 1 ? "" : "s", " but the window has ", out->size(),
                              " (from the first field)"));
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      WindowDim& d = (*out)[i];
      bool ok = true;
      std::string_view expect = "an integer";
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
        expect = "0 or 1";
      } else {  // pad
        std::vector<std::string_view> lh = StrSplit(parts[i], '_');
        ok = lh.size() == 2 && ParseInt64(lh[0], &d.padding_low) &&
             ParseInt64(lh[1], &d.padding_high);
        expect = "low_high, like 1_1";
      }
      if (!ok) {
        const size_t offset = static_cast<size_t>(parts[i].data() - value.text.data());
        return ErrorInToken(value, offset,
                            StrCat("bad value '", parts[i], "' for dimension ", i,
                                   " of window field '", field.text, "'; expected ", expect));
      }
    }
    Advance();
  }
  Advance();
  return true;
}

// Dim labels with '?' (a dimension without a role, XLA's custom calls):
// `?b01f_0?1io->b01?f`. Each side counts its own spatial dimensions.
bool Parser::ParseConvDimsWithUnknown(ConvDims* out) {
  const char* begin = tok_.begin;
  const char* end = lexer_.buffer().data() + lexer_.buffer().size();
  const char* p = begin;
  auto label = [](char c) {
    return c == '?' || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
  };
  while (p < end && label(*p)) ++p;
  if (end - p < 2 || p[0] != '-' || p[1] != '>') {
    return ErrorAtPointer(p, "expected '->' between the input_kernel and output dim labels");
  }
  std::string_view lr(begin, static_cast<size_t>(p - begin));
  p += 2;
  const char* o_begin = p;
  while (p < end && label(*p) && *p != '_') ++p;
  std::string_view o(o_begin, static_cast<size_t>(p - o_begin));
  size_t us = lr.find('_');
  if (us == std::string_view::npos || lr.find('_', us + 1) != std::string_view::npos) {
    return ErrorAtPointer(begin, "dim labels need one '_' between the input and kernel labels");
  }
  auto parse_side = [](std::string_view s, char a, char b, int64_t* pa, int64_t* pb,
                       std::vector<int64_t>* sp) {
    *pa = *pb = -1;
    size_t spatial = 0;
    for (char c : s) spatial += c != a && c != b && c != '?';
    sp->assign(spatial, -1);
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      int64_t* slot = c == a                                               ? pa
                      : c == b                                             ? pb
                      : c >= '0' && static_cast<size_t>(c - '0') < spatial ? &(*sp)[c - '0']
                                                                           : nullptr;
      if (c == '?') continue;
      if (slot == nullptr || *slot >= 0) return false;
      *slot = static_cast<int64_t>(i);
    }
    return true;
  };
  if (!parse_side(lr.substr(0, us), 'b', 'f', &out->input_batch, &out->input_feature,
                  &out->input_spatial) ||
      !parse_side(lr.substr(us + 1), 'i', 'o', &out->kernel_input_feature,
                  &out->kernel_output_feature, &out->kernel_spatial) ||
      !parse_side(o, 'b', 'f', &out->output_batch, &out->output_feature, &out->output_spatial)) {
    return ErrorAtPointer(begin, StrCat("bad dim labels '", lr, "->", o,
                                        "': each side needs its letters (b/f, i/o) and its "
                                        "spatial digits 0, 1, ... once, or '?'"));
  }
  uint32_t line, col;
  lexer_.LocationOf(p, &line, &col);
  lexer_.SkipTo(p);
  AdvanceAfter(line, col);
  return true;
}

// dim_labels ::= lhs '_' rhs '->' out, e.g. b01f_01io->b01f
bool Parser::ParseConvDims(ConvDims* out) {
  {
    // A '?' anywhere in the labels (before the next space or comma).
    const char* p = tok_.begin;
    const char* end = lexer_.buffer().data() + lexer_.buffer().size();
    while (p < end && *p != ' ' && *p != ',' && *p != '\n' && *p != '?') ++p;
    if (p < end && *p == '?') return ParseConvDimsWithUnknown(out);
  }
  if (!At(Tok::kName) && !At(Tok::kNumber)) {
    return ErrorExpected("dim labels like b01f_01io->b01f");
  }
  Token first = tok_;
  std::string_view lr = tok_.text;
  Advance();
  if (!Expect(Tok::kArrow,
              "'->' between the input_kernel and output dim labels "
              "(like b01f_01io->b01f)")) {
    return false;
  }
  if (!At(Tok::kName) && !At(Tok::kNumber)) {
    return ErrorExpected("the output dim labels after '->'");
  }
  std::string_view o = tok_.text;
  size_t us = lr.find('_');
  if (us == std::string_view::npos) {
    return ErrorAt(first, StrCat("dim labels '", lr,
                                 "' have no '_' between the input and "
                                 "the kernel labels (like b01f_01io->b01f)"));
  }
  std::string_view l = lr.substr(0, us), r = lr.substr(us + 1);
  if (l.size() != r.size() || l.size() != o.size() || l.size() < 2) {
    return ErrorAt(first, StrCat("input, kernel and output dim labels must have the same "
                                 "rank (at least 2), but '",
                                 l, "', '", r, "' and '", o, "' have ", l.size(), ", ", r.size(),
                                 " and ", o.size(), " letters"));
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
      !parse_side(o, 'b', 'f', &out->output_batch, &out->output_feature, &out->output_spatial)) {
    return ErrorAt(first, StrCat("bad dim labels '", lr, "->", o,
                                 "': each side needs b/f (i/o for the kernel) once and "
                                 "the spatial digits 0..",
                                 spatial == 0 ? 0 : spatial - 1, " once"));
  }
  Advance();
  return true;
}

// padding ::= lo_hi[_interior] ('x' lo_hi[_interior])*
bool Parser::ParsePadding(PaddingConfig* out) {
  if (!At(Tok::kNumber)) {
    return ErrorExpected(
        "padding like 0_0x1_1 (low_high or low_high_interior per "
        "dimension)");
  }
  std::vector<std::string_view> parts = StrSplit(tok_.text, 'x');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    std::vector<std::string_view> v = StrSplit(part, '_');
    PaddingDim d;
    bool ok = (v.size() == 2 || v.size() == 3) && ParseInt64(v[0], &d.low) &&
              ParseInt64(v[1], &d.high) && (v.size() == 2 || ParseInt64(v[2], &d.interior));
    if (!ok) {
      return ErrorInToken(tok_, static_cast<size_t>(part.data() - tok_.text.data()),
                          StrCat("bad padding '", part, "' for dimension ", i,
                                 "; expected low_high or low_high_interior, like 1_1 or "
                                 "0_0_1"));
    }
    out->push_back(d);
  }
  Advance();
  return true;
}

// slice ::= '{' [ '[' start ':' limit [':' stride] ']' (',' ...)* ] '}'
bool Parser::ParseSliceSpec(SliceSpec* out) {
  if (!Expect(Tok::kLBrace, "'{' to open the slice, like {[0:4], [1:3]}")) return false;
  while (!At(Tok::kRBrace)) {
    if (!Expect(Tok::kLSquare, "'[' to open a slice range like [0:4]")) return false;
    SliceDim d;
    if (!ParseInt(&d.start) ||
        !Expect(Tok::kColon, "':' between the start and the limit of the slice range") ||
        !ParseInt(&d.limit)) {
      return false;
    }
    if (Consume(Tok::kColon) && !ParseInt(&d.stride)) return false;
    if (!Expect(Tok::kRSquare, "']' to close the slice range [start:limit:stride]")) {
      return false;
    }
    out->push_back(d);
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "',' or '}' after a slice range");
}

bool Parser::ParseReplicaGroups(ReplicaGroups* out) {
  if (AtName("mesh") || AtName("maximal_mesh")) {
    return ParseMeshReplicaGroups(&out->mesh.emplace());
  }
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
  if (!Expect(Tok::kLBrace, "'{' to open the list of key=value pairs")) return false;
  out->reserve(4);  // metadata: op_type, op_name, source_file, source_line
  while (!At(Tok::kRBrace)) {
    if (!At(Tok::kName) && !At(Tok::kString)) {
      return ErrorExpected(out->empty() ? "a key (of key=value) or '}'"
                                        : "another key=value pair or '}' to close the list");
    }
    KeyValue kv;
    if (At(Tok::kString)) {
      if (!UnescapeInterned(tok_, &kv.key)) return false;
    } else {
      kv.key = tok_.text;
    }
    Advance();
    if (!Consume(Tok::kEqual))
      return Expect(Tok::kEqual, StrCat("'=' after the key '", kv.key, "'"));
    if (At(Tok::kString)) {
      if (!UnescapeInterned(tok_, &kv.value)) return false;
      Advance();
    } else if (At(Tok::kLBrace) || At(Tok::kLSquare)) {
      std::string err;
      const char* err_at = nullptr;
      std::string_view raw = lexer_.ScanBalanced(tok_, &err, &err_at);
      if (raw.empty()) return ErrorAtPointer(err_at, err);
      kv.value = raw;
      kv.quoted = false;
      AdvanceAfterRaw();
    } else if (allow_unquoted && (At(Tok::kNumber) || At(Tok::kName))) {
      kv.value = tok_.text;
      kv.quoted = false;
      Advance();
    } else {
      return ErrorExpected(StrCat(allow_unquoted ? "a value for '" : "a string value for '", kv.key,
                                  "'", allow_unquoted ? "" : " (in double quotes)"));
    }
    out->push_back(std::move(kv));
    Consume(Tok::kComma);
  }
  Advance();
  return true;
}

bool Parser::UnescapeString(const Token& tok, std::string* out) {
  std::string err;
  size_t offset = 0;
  if (!Lexer::Unescape(tok.text, out, &err, &offset)) {
    return ErrorInToken(tok, offset, std::move(err));
  }
  return true;
}

// Unescapes a string token straight into the interned pool; text without
// backslashes is interned without a copy.
bool Parser::UnescapeInterned(const Token& tok, InternedString* out) {
  if (tok.text.find('\\') == std::string_view::npos) {
    *out = tok.text;
    return true;
  }
  std::string text;
  if (!UnescapeString(tok, &text)) return false;
  *out = text;
  return true;
}

// sharding ::= '{' (tuple_element (',' tuple_element)* | single) '}'
bool Parser::ParseSharding(Sharding* out, int depth) {
  if (depth > kMaxDepth) {
    return ErrorHere(StrCat("sharding is nested more than ", kMaxDepth, " levels deep"));
  }
  if (!Expect(Tok::kLBrace, "'{' to open the sharding")) return false;
  if (AtName("mesh") || AtName("maximal_mesh")) return ParseNamedSharding(out);
  if (At(Tok::kLBrace) || At(Tok::kRBrace)) {
    out->type = Sharding::Type::kTuple;
    while (At(Tok::kLBrace)) {
      Sharding e;
      if (!ParseSharding(&e, depth + 1)) return false;
      out->tuple_elements.push_back(std::move(e));
      if (!Consume(Tok::kComma)) break;
    }
    return Expect(Tok::kRBrace, "',' or '}' after an element of the tuple sharding");
  }
  bool have_type = false;
  while (!At(Tok::kRBrace)) {
    if (!At(Tok::kName)) {
      return ErrorExpected(have_type ? "a sharding keyword (last_tile_dim_replicate, "
                                       "last_tile_dims=, metadata=, ...) or '}'"
                                     : "a sharding (replicated, maximal device=N, "
                                       "devices=[...]..., manual, unknown)");
    }
    std::string_view w = tok_.text;
    Token at = tok_;
    Advance();
    if (!ParseShardingWord(w, at, out, &have_type)) return false;
  }
  if (!have_type) {
    return ErrorHere(
        "sharding has no type: expected replicated, maximal device=N, "
        "devices=[...]..., manual or unknown before '}'");
  }
  return Expect(Tok::kRBrace, "'}' to close the sharding");
}

// One keyword of a single sharding, read (`w`, at `at`), and what follows
// it.
bool Parser::ParseShardingWord(std::string_view w, const Token& at, Sharding* out,
                               bool* have_type) {
  if (w == "replicated" || w == "manual" || w == "unknown" || w == "unreduced") {
    out->type = w == "replicated" ? Sharding::Type::kReplicated
                : w == "manual"   ? Sharding::Type::kManual
                : w == "unknown"  ? Sharding::Type::kUnknown
                                  : Sharding::Type::kUnreduced;
    *have_type = true;
  } else if (w == "maximal") {
    if (!AtName("device")) return ErrorExpected("'device=N' after 'maximal'");
    Advance();
    if (!Expect(Tok::kEqual, "'=' after 'device'") || !ParseInt(&out->device)) return false;
    out->type = Sharding::Type::kMaximal;
    *have_type = true;
  } else if (w == "devices") {
    if (!ParseShardingDevices(out)) return false;
    *have_type = true;
  } else if (w == "last_tile_dim_replicate") {
    out->last_tile_dim_replicate = true;
  } else if (w == "last_tile_dims") {
    if (!Expect(Tok::kEqual, "'=' after 'last_tile_dims'") ||
        !Expect(Tok::kLBrace, "'{' to open the list of last tile dims")) {
      return false;
    }
    while (At(Tok::kName)) {
      out->last_tile_dims.emplace_back(tok_.text);
      Advance();
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRBrace, "',' or '}' in last_tile_dims")) return false;
  } else if (w == "shard_as" || w == "shard_like") {
    int64_t g = 0;
    if (!ParseInt(&g)) return false;
    out->shard_group = StrCat(w, " ", g);
  } else if (w == "metadata") {
    if (!Expect(Tok::kEqual, "'=' after 'metadata'")) return false;
    if (!ParseShardingMetadata(&out->metadata)) return false;
  } else {
    static const std::vector<std::string_view> kWords = {"replicated",
                                                         "manual",
                                                         "unknown",
                                                         "unreduced",
                                                         "maximal",
                                                         "devices",
                                                         "last_tile_dim_replicate",
                                                         "last_tile_dims",
                                                         "shard_as",
                                                         "shard_like",
                                                         "metadata"};
    std::string msg = StrCat("unknown sharding keyword '", w, "'");
    std::string_view close = ClosestMatch(w, kWords);
    if (!close.empty()) StrAppend(&msg, "; did you mean '", close, "'?");
    return ErrorAt(at, std::move(msg));
  }
  return true;
}

// tile_assignment ::= '=' '[' dims ']' ('<=' iota_rest | id (',' id)*)
bool Parser::ParseShardingDevices(Sharding* out) {
  if (!Expect(Tok::kEqual, "'=' after 'devices'")) return false;
  out->type = Sharding::Type::kTiled;
  // Look ahead: `[dims]<=[..]` (iota) or `[dims]id,id,...`.
  Token open = tok_;
  Pos before_open = PrevEnd();
  // Positive dimensions whose product is at most 2^40 devices.
  if (!ParseIotaDims(&out->tile_dims, "tile shape")) return false;
  int64_t n = 1;
  for (int64_t d : out->tile_dims) n *= d;
  if (At(Tok::kLess)) {
    Backtrack(open, before_open);
    IotaTileAssignment iota;
    if (!ParseIota(&iota)) return false;
    out->iota = std::move(iota);
    out->tile_dims.clear();
    return true;
  }
  while (At(Tok::kNumber)) {
    int64_t d = 0;
    if (!ParseInt(&d)) return false;
    out->devices.push_back(d);
    if (!At(Tok::kComma)) break;
    Advance();
  }
  if (static_cast<int64_t>(out->devices.size()) != n) {
    return ErrorAt(open, StrCat("tile shape [", StrJoin(out->tile_dims, ","), "] needs ", n,
                                " device", n == 1 ? "" : "s", " but ", out->devices.size(),
                                out->devices.size() == 1 ? " is" : " are", " listed"));
  }
  return true;
}

// aliasing ::= '{' [ '{' index '}' ':' '(' int ',' '{' index '}' [',' kind] ')' ...] '}'
bool Parser::ParseAliasing(Aliasing* out) {
  if (!Expect(Tok::kLBrace, "'{' to open the aliasing, like {{0}: (1, {})}")) return false;
  while (!At(Tok::kRBrace)) {
    AliasEntry e;
    if (!ParseIntList(&e.output_index) ||
        !Expect(Tok::kColon, "':' after the output index (like {0}: (1, {}))") ||
        !Expect(Tok::kLParen, "'(' to open (operand, {operand index})") || !ParseInt(&e.operand) ||
        !Expect(Tok::kComma, "',' after the operand number") || !ParseIntList(&e.operand_index) ||
        !Expect(Tok::kRParen, "')' after the operand index")) {
      return false;
    }
    out->push_back(std::move(e));
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "',' or '}' after an aliasing entry");
}

// shaped_literal ::= shape literal | '(' shaped_literal (',' shaped_literal)* ')'
bool Parser::ParseShapedLiteral(Literal* out, int depth) {
  if (depth > kMaxDepth) {
    return ErrorHere(StrCat("literal is nested more than ", kMaxDepth, " levels deep"));
  }
  if (Consume(Tok::kLParen)) {
    std::vector<Literal> elems;
    while (!At(Tok::kRParen)) {
      Literal e;
      if (!ParseShapedLiteral(&e, depth + 1)) return false;
      elems.push_back(std::move(e));
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRParen, "',' or ')' after an element of the tuple literal")) {
      return false;
    }
    *out = Literal::Tuple(std::move(elems));
    return true;
  }
  Token at = tok_;
  const Shape* s = nullptr;
  if (!ParseShape(&s)) return false;
  Literal lit;
  if (!CreateLiteralFor(*s, at, &lit)) return false;
  if (!ParseLiteralForShape(*s, &lit, depth)) return false;
  *out = std::move(lit);
  return true;
}

bool Parser::ParseStringValue(std::string* out) {
  if (!At(Tok::kString)) return ErrorExpected("a string in double quotes");
  if (!UnescapeString(tok_, out)) return false;
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
        return ErrorExpected(StrCat("a number for '", AttrName(kind), "'"));
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
      return ErrorExpected(StrCat("true or false for '", AttrName(kind), "'"));
    case AttrType::kString: {
      std::string s;
      if (!ParseStringValue(&s)) return false;
      *out = std::move(s);
      return true;
    }
    case AttrType::kIdent: {
      std::vector<std::string_view> allowed = IdentValues(kind, inst->opcode());
      if (!At(Tok::kName)) {
        return ErrorExpected(allowed.empty() ? StrCat("a name for '", AttrName(kind), "'")
                                             : StrCat("one of ", StrJoin(allowed, ", "), " for '",
                                                      AttrName(kind), "'"));
      }
      if (!allowed.empty() &&
          std::find(allowed.begin(), allowed.end(), tok_.text) == allowed.end()) {
        std::string msg = StrCat("unknown ", AttrName(kind), " '", tok_.text, "'; expected one of ",
                                 StrJoin(allowed, ", "));
        std::string_view close = ClosestMatch(tok_.text, allowed);
        if (!close.empty()) StrAppend(&msg, " (did you mean '", close, "'?)");
        return ErrorHere(std::move(msg));
      }
      *out = std::string(tok_.text);
      Advance();
      return true;
    }
    case AttrType::kIntList: {
      if (kind == AttrKind::kSliceSizes && (inst->opcode() == Opcode::kCollectivePermute ||
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
      if (!Expect(Tok::kLBrace, "'{' to open the list of booleans")) return false;
      while (!At(Tok::kRBrace)) {
        if (!AtName("true") && !AtName("false")) {
          return ErrorExpected("true or false in the list of booleans");
        }
        v.push_back(tok_.text == "true");
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "',' or '}' in the list of booleans")) return false;
      *out = std::make_shared<const std::vector<bool>>(std::move(v));
      return true;
    }
    case AttrType::kIdentList: {
      std::vector<std::string> v;
      if (!Expect(Tok::kLBrace, "'{' to open the list of names")) return false;
      while (!At(Tok::kRBrace)) {
        if (!At(Tok::kName)) return ErrorExpected("a name in the list");
        v.emplace_back(tok_.text);
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "',' or '}' in the list of names")) return false;
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
      if (!Expect(Tok::kLBrace, "'{' to open the list of shapes")) return false;
      while (!At(Tok::kRBrace)) {
        const Shape* s = nullptr;
        if (!ParseShape(&s)) return false;
        v.push_back(s);
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "',' or '}' in the list of shapes")) return false;
      *out = std::move(v);
      return true;
    }
    case AttrType::kComputation:
    case AttrType::kComputationList: {
      std::vector<Computation*> v;
      Token open = tok_;
      // `to_apply={ p = f32[] parameter(0) ... }`: one inline computation.
      if (AtInlineComputation()) {
        Computation* inline_comp = nullptr;
        if (!ParseInlineComputation(&inline_comp)) return false;
        v.push_back(inline_comp);
        *out = std::move(v);
        return true;
      }
      bool braced = Consume(Tok::kLBrace);
      // Each element of a braced list: a name, or an inline computation.
      auto at_element = [&] { return At(Tok::kName) || (braced && AtInlineComputation()); };
      if (!at_element() && !(braced && At(Tok::kRBrace))) {
        return ErrorExpected(braced ? "a computation name in the list"
                                    : StrCat("a computation name for '", AttrName(kind), "'"));
      }
      while (at_element()) {
        if (At(Tok::kLBrace)) {
          Computation* inline_comp = nullptr;
          if (!ParseInlineComputation(&inline_comp)) return false;
          v.push_back(inline_comp);
        } else {
          pending_computations_.push_back({inst, kind, v.size(), tok_});
          v.push_back(nullptr);
          Advance();
        }
        if (!braced) break;
        if (!Consume(Tok::kComma)) break;
        if (!at_element()) return ErrorExpected("a computation name after ','");
      }
      if (braced && !Expect(Tok::kRBrace, "',' or '}' in the list of computations")) {
        return false;
      }
      if (v.empty()) {
        return ErrorAt(open, StrCat("'", AttrName(kind), "' needs at least one computation"));
      }
      if (AttrValueType(kind) == AttrType::kComputation && v.size() != 1) {
        return ErrorAt(open,
                       StrCat("'", AttrName(kind), "' takes one computation, found ", v.size()));
      }
      *out = std::move(v);
      return true;
    }
    case AttrType::kInstructionList: {
      std::vector<Instruction*> v;
      if (!Expect(Tok::kLBrace, "'{' to open the list of instructions")) return false;
      size_t attr_index = inst->attributes().size() - 1;
      while (!At(Tok::kRBrace)) {
        if (!At(Tok::kName)) return ErrorExpected("an instruction name in the list");
        pending_controls_.push_back({inst, attr_index, v.size(), tok_});
        v.push_back(nullptr);
        Advance();
        if (!Consume(Tok::kComma)) break;
      }
      if (!Expect(Tok::kRBrace, "',' or '}' in the list of instructions")) return false;
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
        const char* err_at = nullptr;
        std::string_view raw = lexer_.ScanBalanced(tok_, &err, &err_at);
        if (raw.empty()) return ErrorAtPointer(err_at, err);
        v->text = std::string(raw);
        v->is_json_object = true;
        AdvanceAfterRaw();
      } else {
        return ErrorExpected("a string or a {...} object for 'backend_config'");
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
      if (kind == AttrKind::kSparsityConfig) return ParseSparsityConfig(out);
      if (At(Tok::kLBrace) || At(Tok::kLParen) || At(Tok::kLSquare)) {
        std::string err;
        const char* err_at = nullptr;
        std::string_view raw = lexer_.ScanBalanced(tok_, &err, &err_at);
        if (raw.empty()) return ErrorAtPointer(err_at, err);
        *out = std::string(raw);
        AdvanceAfterRaw();
        return true;
      }
      if (At(Tok::kName) || At(Tok::kNumber)) {
        *out = std::string(tok_.text);
        Advance();
        return true;
      }
      return ErrorExpected(StrCat("a value for '", AttrName(kind), "'"));
    }
  }
  return ErrorHere("unhandled attribute type");
}

}  // namespace hlo

namespace hlo {

// sparsity_config ::= '{' [('lhs' | 'rhs') '=' '{' [field '=' value]* '}']* '}'
// Read as XLA reads it and kept as the canonical text XLA prints.
bool Parser::ParseSparsityConfig(AttrValue* out) {
  if (!At(Tok::kLBrace)) return ErrorExpected("'{' to open sparsity_config");
  std::string err;
  const char* err_at = nullptr;
  std::string_view raw = lexer_.ScanBalanced(tok_, &err, &err_at);
  if (raw.empty()) return ErrorAtPointer(err_at, err);
  size_t offset = 0;
  std::optional<SparsityConfig> config = ReadSparsityConfig(raw, &err, &offset);
  if (!config) return ErrorAtPointer(raw.data() + offset, StrCat("in sparsity_config: ", err));
  *out = SparsityConfigText(*config);
  AdvanceAfterRaw();
  return true;
}

}  // namespace hlo
