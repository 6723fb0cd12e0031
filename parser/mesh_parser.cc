// Device lists: the iota form (`[2,4]<=[4,2]T(1,0)`) and meshes with named
// axes, for replica groups over mesh axes and named shardings (ir/mesh.h).
#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {

namespace {

// At most 2^40 devices, so that products of mesh sizes never overflow.
constexpr int64_t kMaxMeshDevices = int64_t{1} << 40;

}  // namespace

// mesh ::= 'mesh' '[' [string '=' int (',' string '=' int)*] ']'
//              [',' 'device_ids' '=' '(' (iota | int (',' int)*) ')']
//        | 'maximal_mesh' '[' 'device_id' '=' int ']'
// iota ::= '[' int (',' int)* ']' ['T' '(' int (',' int)* ')']
bool Parser::ParseMesh(Mesh* out) {
  Token kw = tok_;
  Advance();
  if (kw.text == "maximal_mesh") return ParseMaximalMesh(out);
  int64_t devices = 1;
  if (!ParseMeshAxes(out, &devices)) return false;
  // `, device_ids=` belongs to the mesh; any other `,` to what follows it.
  if (!At(Tok::kComma) || out->axis_names.empty()) return true;
  std::string_view rest = lexer_.buffer().substr(tok_.end - lexer_.buffer().data());
  size_t p = rest.find_first_not_of(" \t\r\n");
  if (p == std::string_view::npos || rest.substr(p, 10) != "device_ids") return true;
  if (p + 10 < rest.size() && rest[p + 10] != '=' && rest[p + 10] != ' ') return true;
  Advance();  // ','
  Advance();  // device_ids
  Token open = tok_;
  if (!Expect(Tok::kEqual, "'=' after 'device_ids'") ||
      !Expect(Tok::kLParen, "'(' to open the device ids")) {
    return false;
  }
  if (!(At(Tok::kLSquare) ? ParseMeshIotaIds(devices, out) : ParseMeshIdList(devices, open, out))) {
    return false;
  }
  return Expect(Tok::kRParen, "')' to close the device ids");
}

// (after 'maximal_mesh') '[' 'device_id' '=' int ']'
bool Parser::ParseMaximalMesh(Mesh* out) {
  int64_t device = 0;
  if (!Expect(Tok::kLSquare, "'[' after 'maximal_mesh'")) return false;
  if (!AtName("device_id")) return ErrorExpected("'device_id=' in maximal_mesh[...]");
  Advance();
  Token at = tok_;
  if (!Expect(Tok::kEqual, "'=' after 'device_id'") || !ParseInt(&device)) return false;
  if (device < 0) return ErrorAt(at, StrCat("device_id ", device, " is negative"));
  out->maximal_device = device;
  return Expect(Tok::kRSquare, "']' to close maximal_mesh[...]");
}

// axes ::= '[' [string '=' int (',' string '=' int)*] ']'; `devices` their
// product.
bool Parser::ParseMeshAxes(Mesh* out, int64_t* devices) {
  if (!Expect(Tok::kLSquare, "'[' after 'mesh'")) return false;
  while (!At(Tok::kRSquare)) {
    Token name_tok = tok_;
    std::string name;
    if (!At(Tok::kString)) return ErrorExpected("a quoted axis name like 'x' or ']'");
    if (!UnescapeString(tok_, &name)) return false;
    Advance();
    for (const std::string& n : out->axis_names) {
      if (n == name) return ErrorAt(name_tok, StrCat("the mesh names axis '", name, "' twice"));
    }
    int64_t size = 0;
    if (!Expect(Tok::kEqual, "'=' after the axis name")) return false;
    Token size_tok = tok_;
    if (!ParseInt(&size)) return false;
    if (size < 1) return ErrorAt(size_tok, StrCat("mesh axis size ", size, " is not positive"));
    if (*devices > kMaxMeshDevices / size) {
      return ErrorAt(size_tok, "the mesh has more than 2^40 devices");
    }
    *devices *= size;
    out->axis_names.push_back(std::move(name));
    out->axis_sizes.push_back(size);
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRSquare, "',' or ']' in the mesh axes");
}

// The device ids as an iota over the mesh's `devices`.
bool Parser::ParseMeshIotaIds(int64_t devices, Mesh* out) {
  IotaTileAssignment iota;
  iota.dims = {devices};
  Token at = tok_;
  if (!ParseIotaArray(&iota)) return false;
  if (iota.reshape_dims.size() > 1 && iota.transpose_perm.empty()) {
    return ErrorHere("expected 'T(' with the transpose after the iota device dims");
  }
  int64_t n = 1;
  for (int64_t d : iota.reshape_dims) n *= d;
  if (n != devices) {
    return ErrorAt(at, StrCat("the iota device ids [", StrJoin(iota.reshape_dims, ","), "] hold ",
                              n, " devices but the mesh has ", devices));
  }
  if (iota.transpose_perm.empty()) iota.transpose_perm = {0};
  CanonicalizeIota(&iota.reshape_dims, &iota.transpose_perm);
  // A single dimension is the plain order: no device_ids.
  if (iota.reshape_dims.size() > 1) {
    out->iota_reshape_dims = std::move(iota.reshape_dims);
    out->iota_perm = std::move(iota.transpose_perm);
  }
  return true;
}

// The device ids listed, one per device of the mesh; `open` the '(' that
// messages point at.
bool Parser::ParseMeshIdList(int64_t devices, const Token& open, Mesh* out) {
  while (!At(Tok::kRParen)) {
    int64_t d = 0;
    if (!ParseInt(&d)) return false;
    if (static_cast<int64_t>(out->device_ids.size()) >= devices) {
      return ErrorAt(open, StrCat("the mesh has ", devices, " devices but more ids are listed"));
    }
    out->device_ids.push_back(d);
    if (!Consume(Tok::kComma)) break;
  }
  if (static_cast<int64_t>(out->device_ids.size()) != devices) {
    return ErrorAt(open, StrCat("the mesh has ", devices, " devices but ", out->device_ids.size(),
                                " ids are listed"));
  }
  if (std::string e = ValidateMesh(*out); !e.empty()) return ErrorAt(open, e);
  return true;
}

// dims ::= '[' int (',' int)* ']', positive, at most 2^40 devices together
// (so products never overflow); `what` names them in messages.
bool Parser::ParseIotaDims(std::vector<int64_t>* out, std::string_view what) {
  if (!Expect(Tok::kLSquare, StrCat("'[' to open the ", what))) return false;
  int64_t product = 1;
  while (!At(Tok::kRSquare)) {
    Token at = tok_;
    int64_t d = 0;
    if (!ParseInt(&d)) return false;
    if (d <= 0) {
      return ErrorAt(at, StrCat("dimension ", d, " of the ", what, " must be positive"));
    }
    if (product > kMaxMeshDevices / d) {
      return ErrorAt(at, StrCat("the ", what, " has more than 2^40 devices"));
    }
    product *= d;
    out->push_back(d);
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRSquare, StrCat("',' or ']' in the ", what));
}

// iota_array ::= dims ['T' '(' int (',' int)* ')']   (the part after `<=`)
bool Parser::ParseIotaArray(IotaTileAssignment* out) {
  if (!ParseIotaDims(&out->reshape_dims, "iota device list")) return false;
  if (!AtName("T")) return true;
  Token t_tok = tok_;
  Advance();
  if (!Expect(Tok::kLParen, "'(' after 'T'")) return false;
  while (!At(Tok::kRParen)) {
    int64_t d = 0;
    if (!ParseInt(&d)) return false;
    out->transpose_perm.push_back(d);
    if (!Consume(Tok::kComma)) break;
  }
  if (!Expect(Tok::kRParen, "',' or ')' in the transpose T(...)")) return false;
  std::vector<bool> seen(out->reshape_dims.size(), false);
  bool perm = out->transpose_perm.size() == seen.size();
  for (int64_t p : out->transpose_perm) {
    perm = perm && p >= 0 && p < static_cast<int64_t>(seen.size()) && !seen[p];
    if (perm) seen[p] = true;
  }
  if (!perm) {
    return ErrorAt(t_tok, StrCat("iota transpose T(", StrJoin(out->transpose_perm, ","),
                                 ") is not a permutation of the ", seen.size(), " dimensions of [",
                                 StrJoin(out->reshape_dims, ","), "]"));
  }
  return true;
}

// iota ::= dims '<=' iota_array: the devices 0..n-1 of iota_array laid out
// in the group shape.
bool Parser::ParseIota(IotaTileAssignment* out) {
  if (!ParseIotaDims(&out->dims, "iota group shape")) return false;
  if (!At(Tok::kLess)) {
    return ErrorExpected(
        "'<=' after the group shape (an iota list is written like "
        "[2,4]<=[8])");
  }
  Advance();
  if (!Expect(Tok::kEqual, "'=' after '<' (an iota list is written like [2,4]<=[8])")) {
    return false;
  }
  Token at = tok_;
  if (!ParseIotaArray(out)) return false;
  auto product = [](const std::vector<int64_t>& v) {
    int64_t n = 1;
    for (int64_t d : v) n *= d;
    return n;
  };
  const int64_t n1 = product(out->dims), n2 = product(out->reshape_dims);
  if (n1 != n2) {
    return ErrorAt(
        at, StrCat("iota device list [", StrJoin(out->reshape_dims, ","), "] has ", n2,
                   " devices but the group shape [", StrJoin(out->dims, ","), "] needs ", n1));
  }
  return true;
}

// axis_ref ::= string [':' '(' int ')' int]
// The string is an axis name of the mesh, or an axis number.
bool Parser::ParseMeshAxisRef(const Mesh& mesh, MeshAxisRef* out) {
  Token at = tok_;
  std::string name;
  if (!At(Tok::kString)) return ErrorExpected("a quoted mesh axis name like 'x'");
  if (!UnescapeString(tok_, &name)) return false;
  Advance();
  out->axis = -1;
  for (size_t i = 0; i < mesh.axis_names.size(); ++i) {
    if (mesh.axis_names[i] == name) out->axis = static_cast<int64_t>(i);
  }
  int64_t number = 0;
  if (out->axis < 0 && ParseInt64(name, &number)) {
    if (number < 0 || number >= static_cast<int64_t>(mesh.axis_names.size())) {
      return ErrorAt(
          at, StrCat("axis number ", number, " is out of range: the mesh has ",
                     mesh.axis_names.size(), mesh.axis_names.size() == 1 ? " axis" : " axes"));
    }
    out->axis = number;
  }
  if (out->axis < 0) {
    std::string mesh_text;
    AppendMesh(mesh_text, mesh);
    return ErrorAt(at, StrCat("'", name, "' is not an axis of ", mesh_text));
  }
  if (!Consume(Tok::kColon)) return true;
  if (!Expect(Tok::kLParen, "'(' before the sub-axis pre-size") || !ParseInt(&out->pre_size) ||
      !Expect(Tok::kRParen, "')' after the sub-axis pre-size") || !ParseInt(&out->size)) {
    return false;
  }
  if (out->pre_size < 1 || out->size < 2) {
    return ErrorAt(at, StrCat("sub-axis ':(", out->pre_size, ")", out->size,
                              "' needs a pre-size of at least 1 and a size of at least 2"));
  }
  return true;
}

// axis_list ::= '{' [axis_ref (',' axis_ref)*] '}'
bool Parser::ParseMeshAxisList(const Mesh& mesh, std::vector<MeshAxisRef>* out) {
  if (!Expect(Tok::kLBrace, "'{' to open the list of mesh axes")) return false;
  while (!At(Tok::kRBrace)) {
    MeshAxisRef ref;
    if (!ParseMeshAxisRef(mesh, &ref)) return false;
    out->push_back(ref);
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "',' or '}' in the list of mesh axes");
}

// mesh_groups ::= mesh axis_list
bool Parser::ParseMeshReplicaGroups(MeshReplicaGroups* out) {
  if (!ParseMesh(&out->mesh)) return false;
  Token at = tok_;
  if (!ParseMeshAxisList(out->mesh, &out->axes)) return false;
  if (std::string e = ValidateMeshAxes(out->mesh, out->axes); !e.empty()) return ErrorAt(at, e);
  return true;
}

// metadata ::= '{' key_values '}' | '{' ['{' key_values '}' (',' ...)*] '}'
bool Parser::ParseShardingMetadata(std::vector<KeyValues>* out) {
  Token open = tok_;
  Pos before_open = PrevEnd();
  if (!Expect(Tok::kLBrace, "'{' to open the sharding metadata")) return false;
  bool list = At(Tok::kLBrace);
  Backtrack(open, before_open);
  if (!list) {
    KeyValues kv;
    if (!ParseKeyValues(&kv, true)) return false;
    out->push_back(std::move(kv));
    return true;
  }
  Advance();
  while (At(Tok::kLBrace)) {
    KeyValues kv;
    if (!ParseKeyValues(&kv, true)) return false;
    out->push_back(std::move(kv));
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRBrace, "',' or '}' in the list of metadata");
}

// named_sharding ::= mesh [',' 'metadata=' metadata] '}'                  (maximal)
//   | mesh [','] 'replicated' [',' 'metadata=' metadata] '}'
//   | mesh [','] 'unreduced' ['=' op] [axis_list] [',' 'metadata=' metadata] '}'
//   | mesh [','] 'manual' [',' 'metadata=' metadata] '}'
//   | mesh [','] '[' [dim (',' dim)*] ']' (',' extra)* '}'
// extra ::= 'replicated=' axis_list | 'unreduced=' [op] axis_list
//         | 'manual=' axis_list | 'metadata=' metadata
// Called after the opening '{', at 'mesh' or 'maximal_mesh'.
bool Parser::ParseNamedSharding(Sharding* out) {
  Token start = tok_;
  out->type = Sharding::Type::kNamed;
  NamedSharding& s = out->named.emplace();
  if (!ParseMesh(&s.mesh)) return false;
  auto finish = [&](bool allow_metadata) {
    if (allow_metadata && Consume(Tok::kComma) && !ParseNamedShardingMetadata(out)) return false;
    if (!Expect(Tok::kRBrace, "'}' to close the sharding")) return false;
    if (std::string e = ValidateNamedSharding(s); !e.empty()) return ErrorAt(start, e);
    return true;
  };
  if (s.mesh.maximal_device) return finish(true);
  Consume(Tok::kComma);
  if (AtName("replicated") || AtName("manual")) {
    if (tok_.text == "manual") {
      for (size_t i = 0; i < s.mesh.axis_sizes.size(); ++i) s.manual.push_back({int64_t(i), 0, 0});
    }
    Advance();
    return finish(true);
  }
  if (AtName("unreduced")) {
    Advance();
    if (Consume(Tok::kEqual) && !ParseUnreducedOp(&s.reduction)) return false;
    if (At(Tok::kLBrace)) {
      if (!ParseMeshAxisList(s.mesh, &s.unreduced)) return false;
    } else {
      for (size_t i = 0; i < s.mesh.axis_sizes.size(); ++i) {
        s.unreduced.push_back({int64_t(i), 0, 0});
      }
    }
    return finish(true);
  }
  if (!ParseNamedShardingDims(&s)) return false;
  while (!At(Tok::kRBrace)) {
    if (!Expect(Tok::kComma, "',' or '}' after the dimension shardings")) return false;
    Token name = tok_;
    if (AtName("metadata")) {
      if (!ParseNamedShardingMetadata(out)) return false;
      continue;
    }
    if (!AtName("replicated") && !AtName("unreduced") && !AtName("manual")) {
      return ErrorExpected("replicated=, unreduced=, manual= or metadata=");
    }
    Advance();
    if (!Expect(Tok::kEqual, StrCat("'=' after '", name.text, "'"))) return false;
    if (name.text == "unreduced" && !At(Tok::kLBrace) && !ParseUnreducedOp(&s.reduction)) {
      return false;
    }
    std::vector<MeshAxisRef>* list = name.text == "replicated"  ? &s.replicated
                                     : name.text == "unreduced" ? &s.unreduced
                                                                : &s.manual;
    if (!ParseMeshAxisList(s.mesh, list)) return false;
  }
  return finish(false);
}

// 'metadata' '=' metadata, into the sharding's metadata.
bool Parser::ParseNamedShardingMetadata(Sharding* out) {
  if (!AtName("metadata")) return ErrorExpected("'metadata=' or '}'");
  Advance();
  return Expect(Tok::kEqual, "'=' after 'metadata'") && ParseShardingMetadata(&out->metadata);
}

// op ::= 'sum' | 'max' | 'min'
bool Parser::ParseUnreducedOp(NamedSharding::Reduction* r) {
  if (AtName("sum") || AtName("max") || AtName("min")) {
    *r = tok_.text == "max"   ? NamedSharding::Reduction::kMax
         : tok_.text == "min" ? NamedSharding::Reduction::kMin
                              : NamedSharding::Reduction::kSum;
    Advance();
    return true;
  }
  return ErrorExpected("sum, max or min (the reduction of the unreduced axes)");
}

// dims ::= '[' [dim (',' dim)*] ']'
// dim ::= '{' [axis_ref (',' axis_ref)*] [',' '?'] '}' | '{' '?' '}'
bool Parser::ParseNamedShardingDims(NamedSharding* s) {
  if (!Expect(Tok::kLSquare,
              "'[' to open the dimension shardings (or replicated, "
              "unreduced, manual)")) {
    return false;
  }
  while (!At(Tok::kRSquare)) {
    NamedSharding::Dim& d = s->dims.emplace_back();
    if (!Expect(Tok::kLBrace, "'{' to open the axes of a dimension")) return false;
    while (!At(Tok::kRBrace)) {
      if (Consume(Tok::kQuestion)) {
        d.closed = false;
        break;
      }
      MeshAxisRef ref;
      if (!ParseMeshAxisRef(s->mesh, &ref)) return false;
      d.axes.push_back(ref);
      if (!Consume(Tok::kComma)) break;
    }
    if (!Expect(Tok::kRBrace,
                d.closed ? "',' or '}' after a mesh axis" : "'}' after '?' (it comes last)")) {
      return false;
    }
    if (!Consume(Tok::kComma)) break;
  }
  return Expect(Tok::kRSquare, "',' or ']' in the dimension shardings");
}

}  // namespace hlo
