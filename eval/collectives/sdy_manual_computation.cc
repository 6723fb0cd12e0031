// Shardy manual computations (JAX's shard_map) in a global-view module, run
// on one host as the global computation. XLA's Shardy round trip
// (xla/service/spmd/shardy/sdy_round_trip/shard_map_export.cc) writes one as
//
//   l = custom-call(g...), custom_call_target="xla.sdy.GlobalToLocalShape",
//       frontend_attributes={xla.sdy.in_shardings=..., xla.sdy.manual_axes=...}
//   c = call(l or get-tuple-element(l)...),
//       to_apply=xla.sdy.manual_computation_body.N
//   r = custom-call(get-tuple-element(c)...),
//       custom_call_target="xla.sdy.LocalToGlobalShape",
//       frontend_attributes={xla.sdy.out_shardings=..., ...}
//
// with the mesh in the module's frontend_attributes (xla.sdy.meshes={mesh =
// #sdy.mesh<["x"=2, "y"=2]>}). The body runs once per device of the mesh;
// mesh positions are row-major over the axes in mesh order and hold devices
// 0, 1, ... (or device_ids=[...]). A dimension sharded over manual axes
// {"x", "y"} is cut into size(x)*size(y) equal blocks and the device at
// coordinates (cx, cy) gets block cx*size(y)+cy; axes a value's sharding
// does not name (and free, non-manual axes) replicate it.
//
// Here: GlobalToLocalShape passes its global operands through unchanged;
// the call cuts them per in_shardings, runs the body on every device (one
// partition each, so partition id = device id, as use_global_device_ids
// collectives expect) through ReplicaRunner, and returns per result the
// tuple of all devices' pieces; LocalToGlobalShape puts each result together
// per out_shardings, a replicated piece taken from the first device (in mesh
// order) that holds it.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/frontend_attributes.h"
#include "ir/mesh.h"
#include "ir/strings.h"

namespace hlo {
namespace {

constexpr std::string_view kGlobalToLocal = "xla.sdy.GlobalToLocalShape";
constexpr std::string_view kLocalToGlobal = "xla.sdy.LocalToGlobalShape";
constexpr int64_t kMaxDevices = 4096;  // one thread each

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// ---- the #sdy attribute text --------------------------------------------

struct SdyMesh {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  std::vector<int64_t> device_ids;  // empty: 0, 1, ... row-major
  int64_t device_count() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// "x" (the whole axis: pre 1, size of x) or "x":(pre)size.
struct AxisRef {
  int64_t axis = 0, pre = 1, size = 1;
};
using DimAxes = std::vector<AxisRef>;

struct TensorSharding {
  std::string mesh_name;  // @name; empty for an inline mesh<...>
  std::optional<SdyMesh> inline_mesh;
  std::vector<std::vector<std::string>> dim_names;                // resolved later
  std::vector<std::vector<std::pair<int64_t, int64_t>>> dim_sub;  // (pre, size), 0: whole
};

// A cursor over attribute text; the printer escapes quotes (\"), which are
// dropped first.
class Cursor {
 public:
  explicit Cursor(std::string_view text) {
    for (char c : text) {
      if (c != '\\') text_.push_back(c);
    }
  }
  void Skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  bool Eat(std::string_view token) {
    Skip();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  char Peek() {
    Skip();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Find(std::string_view token) {
    size_t at = text_.find(token, pos_);
    if (at == std::string::npos) return false;
    pos_ = at + token.size();
    return true;
  }
  std::optional<int64_t> Int() {
    Skip();
    int64_t v = 0;
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (v > (int64_t{1} << 40)) return std::nullopt;
      v = v * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start) return std::nullopt;
    return v;
  }
  // "name" or a bare identifier.
  std::optional<std::string> Name() {
    Skip();
    std::string out;
    if (Eat("\"")) {
      while (pos_ < text_.size() && text_[pos_] != '"') out.push_back(text_[pos_++]);
      if (!Eat("\"")) return std::nullopt;
      return out;
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '.' || text_[pos_] == '-' || text_[pos_] == '$')) {
      out.push_back(text_[pos_++]);
    }
    if (out.empty()) return std::nullopt;
    return out;
  }
  // Skips to the `>` closing the current `<`, nested brackets balanced.
  bool SkipToClose() {
    int depth = 0;
    for (; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == '<' || c == '[' || c == '{' || c == '(') ++depth;
      if (c == ']' || c == '}' || c == ')') --depth;
      if (c == '>') {
        if (depth == 0) return true;
        --depth;
      }
    }
    return false;
  }

 private:
  std::string text_;
  size_t pos_ = 0;
};

// mesh_body ::= '<' '[' (name '=' int (',' name '=' int)*)? ']'
//               (',' 'device_ids' '=' '[' int (',' int)* ']')? '>'
std::optional<SdyMesh> ParseMeshBody(Cursor& c) {
  SdyMesh mesh;
  if (!c.Eat("<") || !c.Eat("[")) return std::nullopt;
  if (!c.Eat("]")) {
    do {
      auto name = c.Name();
      if (!name || !c.Eat("=")) return std::nullopt;
      auto size = c.Int();
      if (!size || *size < 1) return std::nullopt;
      mesh.names.push_back(*name);
      mesh.sizes.push_back(*size);
    } while (c.Eat(","));
    if (!c.Eat("]")) return std::nullopt;
  }
  if (c.Eat(",")) {
    if (!c.Eat("device_ids") || !c.Eat("=") || !c.Eat("[")) return std::nullopt;
    do {
      auto id = c.Int();
      if (!id) return std::nullopt;
      mesh.device_ids.push_back(*id);
    } while (c.Eat(","));
    if (!c.Eat("]")) return std::nullopt;
  }
  if (!c.Eat(">")) return std::nullopt;
  return mesh;
}

// The module's xla.sdy.meshes={name = #sdy.mesh<...>, ...} entry `name`.
absl::StatusOr<SdyMesh> FindMesh(const Module& module, const std::string& name) {
  const ModuleAttr* attrs = module.FindHeaderAttr("frontend_attributes");
  Cursor c(attrs ? std::string_view(attrs->value) : std::string_view());
  if (attrs && c.Find("xla.sdy.meshes") && c.Eat("=")) {
    c.Eat("\"");
    if (c.Eat("{")) {
      do {
        auto key = c.Name();
        if (!key || !c.Eat("=") || !c.Eat("#sdy.mesh")) break;
        auto mesh = ParseMeshBody(c);
        if (!mesh) break;
        if (*key == name) return *mesh;
      } while (c.Eat(","));
    }
  }
  return Invalid(
      StrCat("the module's frontend_attributes have no mesh '", name, "' in xla.sdy.meshes"));
}

// sharding ::= '<' ('@' name | 'mesh' mesh_body) ',' '[' dim (',' dim)* ']'
//              (',' anything)* '>'
// dim ::= '{' (axis (',' axis)*)? (','? '?')? '}' ('p' int)?
// axis ::= '"' name '"' (':' '(' int ')' int)?
std::optional<TensorSharding> ParseSharding(Cursor& c) {
  TensorSharding s;
  if (!c.Eat("<")) return std::nullopt;
  if (c.Eat("@")) {
    auto name = c.Name();
    if (!name) return std::nullopt;
    s.mesh_name = *name;
  } else if (c.Eat("#sdy.mesh") || c.Eat("mesh")) {
    s.inline_mesh = ParseMeshBody(c);
    if (!s.inline_mesh) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!c.Eat(",") || !c.Eat("[")) return std::nullopt;
  if (!c.Eat("]")) {
    do {
      if (!c.Eat("{")) return std::nullopt;
      s.dim_names.emplace_back();
      s.dim_sub.emplace_back();
      while (c.Peek() == '"') {
        auto name = c.Name();
        if (!name) return std::nullopt;
        std::pair<int64_t, int64_t> sub{0, 0};
        if (c.Eat(":")) {
          if (!c.Eat("(")) return std::nullopt;
          auto pre = c.Int();
          if (!pre || !c.Eat(")")) return std::nullopt;
          auto size = c.Int();
          if (!size || *pre < 1 || *size < 1) return std::nullopt;
          sub = {*pre, *size};
        }
        s.dim_names.back().push_back(*name);
        s.dim_sub.back().push_back(sub);
        if (!c.Eat(",")) break;
      }
      c.Eat("?");
      if (!c.Eat("}")) return std::nullopt;
      if (c.Eat("p")) c.Int();
    } while (c.Eat(","));
    if (!c.Eat("]")) return std::nullopt;
  }
  if (!c.SkipToClose() || !c.Eat(">")) return std::nullopt;
  return s;
}

// The frontend attribute `key` of `inst`; empty when absent.
std::string_view FrontendAttr(const Instruction& inst, std::string_view key) {
  return FrontendAttribute(inst, key).value_or(std::string_view());
}

// #sdy.sharding_per_value<[sharding (',' sharding)*]>
absl::StatusOr<std::vector<TensorSharding>> ShardingsOf(const Instruction& inst,
                                                        std::string_view key) {
  std::string_view text = FrontendAttr(inst, key);
  Cursor c(text);
  std::vector<TensorSharding> out;
  bool ok = c.Eat("#sdy.sharding_per_value") && c.Eat("<") && c.Eat("[");
  if (ok && !c.Eat("]")) {
    do {
      auto s = ParseSharding(c);
      if (!s) {
        ok = false;
        break;
      }
      out.push_back(*std::move(s));
    } while (c.Eat(","));
    ok = ok && c.Eat("]");
  }
  if (!ok || !c.Eat(">")) {
    return Invalid(StrCat("cannot read frontend attribute ", key, "=\"", text, "\""));
  }
  return out;
}

// #sdy<manual_axes{"x", "y"}>
absl::StatusOr<std::vector<std::string>> ManualAxesOf(const Instruction& inst) {
  std::string_view text = FrontendAttr(inst, "xla.sdy.manual_axes");
  Cursor c(text);
  std::vector<std::string> out;
  bool ok = c.Find("manual_axes") && c.Eat("{");
  while (ok && c.Peek() == '"') {
    auto name = c.Name();
    if (!name)
      ok = false;
    else
      out.push_back(*name);
    if (!c.Eat(",")) break;
  }
  if (!ok || !c.Eat("}")) {
    return Invalid(StrCat("cannot read frontend attribute xla.sdy.manual_axes=\"", text, "\""));
  }
  return out;
}

// ---- the mesh's devices ---------------------------------------------------

// A mesh with its manual axes, and every device's coordinates.
struct ManualMesh {
  SdyMesh mesh;
  std::string name;
  std::vector<bool> manual;                  // per axis
  std::vector<std::vector<int64_t>> coords;  // per mesh position
  std::vector<int64_t> position_of_device;   // inverse of device_ids
};

absl::StatusOr<ManualMesh> MakeManualMesh(const Module& module, const TensorSharding& s,
                                          const std::vector<std::string>& manual_axes) {
  ManualMesh m;
  if (s.inline_mesh) {
    m.mesh = *s.inline_mesh;
  } else {
    auto mesh = FindMesh(module, s.mesh_name);
    if (!mesh.ok()) return mesh.status();
    m.mesh = *std::move(mesh);
    m.name = s.mesh_name;
  }
  int64_t n = 1;
  for (int64_t size : m.mesh.sizes) {
    if (size > kMaxDevices || n * size > kMaxDevices) {
      return Invalid(StrCat("the mesh has more than ", kMaxDevices, " devices"));
    }
    n *= size;
  }
  m.manual.assign(m.mesh.names.size(), false);
  for (const std::string& axis : manual_axes) {
    auto it = std::find(m.mesh.names.begin(), m.mesh.names.end(), axis);
    if (it == m.mesh.names.end())
      return Invalid(StrCat("the mesh has no manual axis '", axis, "'"));
    m.manual[it - m.mesh.names.begin()] = true;
  }
  if (!m.mesh.device_ids.empty() && static_cast<int64_t>(m.mesh.device_ids.size()) != n) {
    return Invalid(
        StrCat("the mesh has ", n, " positions but ", m.mesh.device_ids.size(), " device_ids"));
  }
  m.position_of_device.assign(n, -1);
  for (int64_t p = 0; p < n; ++p) {
    int64_t id = m.mesh.device_ids.empty() ? p : m.mesh.device_ids[p];
    if (id < 0 || id >= n || m.position_of_device[id] >= 0) {
      return Invalid("the mesh's device_ids are not a permutation of its devices");
    }
    m.position_of_device[id] = p;
    std::vector<int64_t> coord(m.mesh.sizes.size());
    for (int64_t a = static_cast<int64_t>(coord.size()) - 1, rest = p; a >= 0; --a) {
      coord[a] = rest % m.mesh.sizes[a];
      rest /= m.mesh.sizes[a];
    }
    m.coords.push_back(std::move(coord));
  }
  return m;
}

// `s` over the mesh as a named sharding, checked as the parser checks a
// `sharding={mesh[...], [...]}` (ValidateNamedSharding): sub-axes that
// divide their axis, no axis used twice or overlapping another. Shardy
// refuses the same; without the check, blocks would overlap (and others be
// left unwritten) and their counts could overflow.
absl::StatusOr<NamedSharding> CheckedSharding(const ManualMesh& m, const TensorSharding& s,
                                              std::string_view what) {
  NamedSharding named;
  named.mesh.axis_names = m.mesh.names;
  named.mesh.axis_sizes = m.mesh.sizes;
  for (size_t d = 0; d < s.dim_names.size(); ++d) {
    NamedSharding::Dim& dim = named.dims.emplace_back();
    for (size_t k = 0; k < s.dim_names[d].size(); ++k) {
      const auto& names = m.mesh.names;
      auto it = std::find(names.begin(), names.end(), s.dim_names[d][k]);
      if (it == names.end()) {
        return Invalid(StrCat(what, ": the mesh has no axis '", s.dim_names[d][k], "'"));
      }
      const auto [pre, size] = s.dim_sub[d][k];
      dim.axes.push_back(MeshAxisRef{it - names.begin(), pre, pre > 0 ? size : 0});
    }
  }
  if (std::string e = ValidateNamedSharding(named); !e.empty()) {
    return Invalid(StrCat(what, ": ", e));
  }
  return named;
}

// Per dimension, the manual axes a value is cut along; `what` names the
// sharding in messages.
absl::StatusOr<std::vector<DimAxes>> ManualDims(const ManualMesh& m, const TensorSharding& s,
                                                std::string_view what) {
  if (!s.inline_mesh && s.mesh_name != m.name) {
    return Invalid(StrCat("a manual computation's shardings name two meshes, '", m.name, "' and '",
                          s.mesh_name, "'"));
  }
  auto named = CheckedSharding(m, s, what);
  if (!named.ok()) return named.status();
  std::vector<DimAxes> dims(named->dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    for (const MeshAxisRef& r : named->dims[d].axes) {
      if (!m.manual[r.axis]) continue;  // a free axis: the body sees it whole
      dims[d].push_back(r.is_sub_axis() ? AxisRef{r.axis, r.pre_size, r.size}
                                        : AxisRef{r.axis, 1, m.mesh.sizes[r.axis]});
    }
  }
  return dims;
}

// How many blocks each dimension is cut into, and the block of position p.
int64_t Parts(const DimAxes& axes) {
  int64_t n = 1;
  for (const AxisRef& r : axes) n *= r.size;
  return n;
}
int64_t BlockOf(const ManualMesh& m, const DimAxes& axes, int64_t p) {
  int64_t b = 0;
  for (const AxisRef& r : axes) b = b * r.size + (m.coords[p][r.axis] / r.pre) % r.size;
  return b;
}

// The local dims of a global array cut along `dims`; an error when a
// dimension does not divide.
absl::StatusOr<std::vector<int64_t>> LocalDims(const Shape& global,
                                               const std::vector<DimAxes>& dims) {
  if (static_cast<int64_t>(dims.size()) != global.rank()) {
    return Invalid(StrCat("a sharding of rank ", dims.size(), " for ", global.ToString(false)));
  }
  std::vector<int64_t> local(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t parts = Parts(dims[d]);
    if (global.dim(d) % parts != 0) {
      return Invalid(StrCat("dimension ", d, " of ", global.ToString(false),
                            " does not divide into ", parts, " blocks"));
    }
    local[d] = global.dim(d) / parts;
  }
  return local;
}

// Copies the block at `offset` (global index of its first element) between
// a global array and a local one of dims `local`.
void CopyBlock(const Literal& from, Literal& to, const std::vector<int64_t>& local,
               const std::vector<int64_t>& offset, bool to_global) {
  const Literal& global = to_global ? to : from;
  const int64_t rank = static_cast<int64_t>(local.size());
  const int64_t width = ByteWidth(global.element_type());
  for (int64_t d : local) {
    if (d == 0) return;
  }
  if (rank == 0) {
    std::memcpy(to.data(), from.data(), width);
    return;
  }
  std::vector<int64_t> gstride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) gstride[d] = gstride[d + 1] * global.shape().dim(d + 1);
  const int64_t row = local[rank - 1] * width;
  std::vector<int64_t> index(rank, 0);
  for (int64_t local_row = 0;; ++local_row) {
    int64_t g = 0;
    for (int64_t d = 0; d < rank; ++d) g += (offset[d] + index[d]) * gstride[d];
    uint8_t* dst = to.data() + (to_global ? g * width : local_row * row);
    const uint8_t* src = from.data() + (to_global ? local_row * row : g * width);
    std::memcpy(dst, src, row);
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < local[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

std::vector<int64_t> Offset(const ManualMesh& m, const std::vector<DimAxes>& dims,
                            const std::vector<int64_t>& local, int64_t p) {
  std::vector<int64_t> offset(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) offset[d] = BlockOf(m, dims[d], p) * local[d];
  return offset;
}

bool IsTarget(const Instruction& inst, std::string_view target) {
  return inst.opcode() == Opcode::kCustomCall &&
         inst.GetString(AttrKind::kCustomCallTarget) == target;
}

// The sharding of the call's operand j: its GlobalToLocalShape, and which of
// that custom-call's values it is.
absl::StatusOr<std::pair<const Instruction*, int64_t>> InShardingSource(const Instruction& call,
                                                                        int64_t j) {
  const Instruction* src = call.operand(j);
  int64_t index = 0;
  if (src->opcode() == Opcode::kGetTupleElement && src->operand_count() == 1) {
    index = src->GetInt(AttrKind::kIndex, -1);
    src = src->operand(0);
  }
  if (!IsTarget(*src, kGlobalToLocal)) {
    return Invalid(
        StrCat("operand ", j, " of a manual computation is not made by ", kGlobalToLocal));
  }
  return std::make_pair(src, index);
}

// The mesh of a manual computation: its first in-sharding's, else the
// first out-sharding's.
absl::StatusOr<ManualMesh> MeshOfCall(const Instruction& call, const Module& module) {
  const Instruction* source = nullptr;
  std::string_view key;
  if (call.operand_count() > 0) {
    auto src = InShardingSource(call, 0);
    if (!src.ok()) return src.status();
    source = src->first;
    key = "xla.sdy.in_shardings";
  } else {
    for (const Instruction* u : call.users()) {
      const Instruction* v =
          u->opcode() == Opcode::kGetTupleElement && !u->users().empty() ? u->users()[0] : u;
      if (IsTarget(*v, kLocalToGlobal)) source = v;
    }
    key = "xla.sdy.out_shardings";
  }
  if (source == nullptr) return Invalid("cannot tell the mesh of this manual computation");
  auto shardings = ShardingsOf(*source, key);
  if (!shardings.ok()) return shardings.status();
  if (shardings->empty()) return Invalid(StrCat(key, " is empty"));
  auto manual = ManualAxesOf(*source);
  if (!manual.ok()) return manual.status();
  return MakeManualMesh(module, (*shardings)[0], *manual);
}

}  // namespace

bool IsSdyManualComputationCall(const Instruction& call) {
  const Computation* body = call.to_apply();
  return call.opcode() == Opcode::kCall && body != nullptr &&
         body->name().starts_with("xla.sdy.manual_computation_body");
}

// The operands, global, unchanged: the manual computation's call cuts them.
absl::StatusOr<Value> EvalSdyGlobalToLocalShape(const Instruction& inst, Operands ops,
                                                KernelContext&) {
  if (!inst.shape().IsTuple()) {
    if (ops.size() != 1) return Invalid(StrCat(kGlobalToLocal, " of one result takes one operand"));
    return *ops[0];
  }
  std::vector<Value> values;
  for (const Value* v : ops) values.push_back(*v);
  return Value::Tuple(std::move(values));
}

absl::StatusOr<Value> EvalSdyManualComputation(const Instruction& call, Operands ops,
                                               KernelContext& ev) {
  const Computation& body = *call.to_apply();
  if (body.parameter_count() != static_cast<int64_t>(ops.size())) {
    return Invalid(StrCat("the manual computation body takes ", body.parameter_count(),
                          " parameters but the call has ", ops.size(), " operands"));
  }
  auto mesh = MeshOfCall(call, ev.module());
  if (!mesh.ok()) return mesh.status();
  const int64_t n = mesh->mesh.device_count();
  std::vector<std::vector<Value>> args(n);
  for (int64_t j = 0; j < static_cast<int64_t>(ops.size()); ++j) {
    auto src = InShardingSource(call, j);
    if (!src.ok()) return src.status();
    auto shardings = ShardingsOf(*src->first, "xla.sdy.in_shardings");
    if (!shardings.ok()) return shardings.status();
    if (src->second < 0 || src->second >= static_cast<int64_t>(shardings->size())) {
      return Invalid(StrCat("operand ", j, " of the manual computation has no in-sharding"));
    }
    auto dims =
        ManualDims(*mesh, (*shardings)[src->second], StrCat("xla.sdy.in_shardings of operand ", j));
    if (!dims.ok()) return dims.status();
    if (!ops[j]->is_array()) return Invalid(StrCat("operand ", j, " is not an array"));
    const Literal& global = ops[j]->array();
    auto local = LocalDims(global.shape(), *dims);
    if (!local.ok())
      return Invalid(StrCat("operand ", j, ": ", std::string(local.status().message())));
    Shape local_shape = Shape::Array(global.element_type(), *local);
    const Shape& param = body.parameter(j)->shape();
    if (!param.IsArray() || !local_shape.Compatible(param.WithoutLayout())) {
      return Invalid(StrCat("operand ", j, " cut per its in-sharding is ",
                            local_shape.ToString(false), " but the body takes ",
                            param.ToString(false)));
    }
    for (int64_t d = 0; d < n; ++d) {
      auto piece = NewArrayUninitialized(local_shape);
      if (!piece.ok()) return piece.status();
      const int64_t p = mesh->position_of_device[d];
      CopyBlock(global, piece->mutable_array(), *local, Offset(*mesh, *dims, *local, p),
                /*to_global=*/false);
      args[d].push_back(*std::move(piece));
    }
  }
  auto results = ev.RunManualComputation(call, n, args, body);
  if (!results.ok()) return results.status();
  // Per result, all devices' pieces.
  if (!call.shape().IsTuple()) return Value::Tuple(*std::move(results));
  const int64_t count = call.shape().tuple_size();
  std::vector<Value> out(count);
  for (int64_t k = 0; k < count; ++k) {
    std::vector<Value> pieces;
    for (Value& r : *results) {
      if (!r.is_tuple() || static_cast<int64_t>(r.elements().size()) != count) {
        return Invalid(StrCat("the manual computation body should return a tuple of ", count));
      }
      pieces.push_back(r.element(k));
    }
    out[k] = Value::Tuple(std::move(pieces));
  }
  return Value::Tuple(std::move(out));
}

absl::StatusOr<Value> EvalSdyLocalToGlobalShape(const Instruction& inst, Operands ops,
                                                KernelContext& ev) {
  auto shardings = ShardingsOf(inst, "xla.sdy.out_shardings");
  if (!shardings.ok()) return shardings.status();
  const bool tuple = inst.shape().IsTuple();
  const int64_t count = tuple ? inst.shape().tuple_size() : 1;
  if (static_cast<int64_t>(ops.size()) != count ||
      static_cast<int64_t>(shardings->size()) != count) {
    return Invalid(StrCat(kLocalToGlobal, " has ", ops.size(), " operands and ", shardings->size(),
                          " out-shardings for ", count, " results"));
  }
  if (count == 0) return Value::Tuple({});
  auto manual = ManualAxesOf(inst);
  if (!manual.ok()) return manual.status();
  auto mesh = MakeManualMesh(ev.module(), (*shardings)[0], *manual);
  if (!mesh.ok()) return mesh.status();
  const int64_t n = mesh->mesh.device_count();
  std::vector<Value> out;
  for (int64_t i = 0; i < count; ++i) {
    const Shape& shape = tuple ? inst.shape().tuple_shape(i) : inst.shape();
    if (!ops[i]->is_tuple() || static_cast<int64_t>(ops[i]->elements().size()) != n) {
      return Invalid(StrCat("operand ", i, " is not a result of a manual computation"));
    }
    auto dims = ManualDims(*mesh, (*shardings)[i], StrCat("xla.sdy.out_shardings of result ", i));
    if (!dims.ok()) return dims.status();
    if (!shape.IsArray()) return Invalid(StrCat("result ", i, " is not an array"));
    auto local = LocalDims(shape, *dims);
    if (!local.ok())
      return Invalid(StrCat("result ", i, ": ", std::string(local.status().message())));
    auto global = NewArrayUninitialized(shape);
    if (!global.ok()) return global.status();
    int64_t blocks = 1;
    for (const DimAxes& a : *dims) blocks *= Parts(a);
    std::vector<bool> written(blocks, false);
    for (int64_t p = 0; p < n; ++p) {
      int64_t block = 0;
      for (const DimAxes& a : *dims) block = block * Parts(a) + BlockOf(*mesh, a, p);
      if (written[block]) continue;
      written[block] = true;
      const int64_t device = mesh->mesh.device_ids.empty() ? p : mesh->mesh.device_ids[p];
      const Value& piece = ops[i]->element(device);
      const Shape local_shape = Shape::Array(shape.element_type(), *local);
      if (!piece.is_array() || !piece.array().shape().Compatible(local_shape)) {
        return Invalid(StrCat("operand ", i, " on device ", device, " should be ",
                              local_shape.ToString(false), " to make ", shape.ToString(false)));
      }
      CopyBlock(piece.array(), global->mutable_array(), *local, Offset(*mesh, *dims, *local, p),
                /*to_global=*/true);
    }
    // (Every block has a device once the sharding is checked; a gap would
    // be uninitialised memory in the result.)
    if (std::find(written.begin(), written.end(), false) != written.end()) {
      return Invalid(StrCat("result ", i, ": some blocks of ", shape.ToString(false),
                            " are held by no device"));
    }
    out.push_back(*std::move(global));
  }
  if (!tuple) return std::move(out[0]);
  return Value::Tuple(std::move(out));
}

}  // namespace hlo
