// Reading the module JSON (schema: docs/module-json.md).
//
// The reader validates as much as the HLO parser does (names, references,
// operand counts, allowed and required attributes, parameter numbering,
// layouts, cycles) and also that the derived fields a writer adds agree with
// the rest. Any problem is a ReadError thrown with the JSON pointer of the
// value at fault; the entry points turn it (and any nlohmann exception) into
// `FILE: error: module JSON: <pointer>: <what>`.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/located_status.h"
#include "ir/module_json.h"
#include "ir/opcode_attributes.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// Plain json (std::map objects): parsing an ordered_json copies values when
// its vector of members grows, recursively, so deep input could overflow the
// stack. Key order does not matter when reading.
using J = nlohmann::json;
namespace mj = module_json;

// Deeper nesting (tuple shapes, shardings, literals) is refused before the
// recursion can exhaust the stack; the HLO parser has the same limit.
constexpr int kMaxDepth = 500;

struct ReadError {
  std::string path;
  std::string what;
};

// A JSON value with its JSON pointer, and typed accessors that fail with
// that pointer.
class Node {
 public:
  Node(const J& v, std::string path) : v_(&v), path_(std::move(path)) {}

  const J& json() const { return *v_; }
  [[noreturn]] void Fail(std::string what) const {
    throw ReadError{path_.empty() ? "/" : path_, std::move(what)};
  }

  // Objects: the keys must all be in `allowed` (catches misspelt fields).
  void ExpectObject(std::initializer_list<std::string_view> allowed) const {
    if (!v_->is_object()) Fail(StrCat("expected an object, found ", Type()));
    for (const auto& [key, value] : v_->items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        Fail(StrCat("unknown field '", key, "'; expected one of ", StrJoin(allowed, ", ")));
      }
    }
  }
  bool Has(std::string_view key) const { return v_->is_object() && v_->contains(std::string(key)); }
  Node Get(std::string_view key) const {
    if (!Has(key)) Fail(StrCat("missing field '", key, "'"));
    return Node(v_->at(std::string(key)), StrCat(path_, "/", key));
  }

  // Arrays.
  std::vector<Node> Items() const {
    if (!v_->is_array()) Fail(StrCat("expected an array, found ", Type()));
    std::vector<Node> out;
    out.reserve(v_->size());
    for (size_t i = 0; i < v_->size(); ++i) out.emplace_back((*v_)[i], StrCat(path_, "/", i));
    return out;
  }

  int64_t Int() const {
    if (v_->is_number_integer() && !v_->is_number_unsigned()) return v_->get<int64_t>();
    if (v_->is_number_unsigned() && v_->get<uint64_t>() <= INT64_MAX) {
      return static_cast<int64_t>(v_->get<uint64_t>());
    }
    Fail(StrCat("expected a 64-bit integer, found ", Type()));
  }
  uint64_t UInt() const {
    if (v_->is_number_unsigned()) return v_->get<uint64_t>();
    Fail(StrCat("expected a non-negative integer, found ", Type()));
  }
  bool Bool() const {
    if (!v_->is_boolean()) Fail(StrCat("expected true or false, found ", Type()));
    return v_->get<bool>();
  }
  // A string, or {"hex": "..."} for bytes that are not UTF-8.
  std::string Str() const {
    if (v_->is_string()) return v_->get<std::string>();
    if (v_->is_object() && v_->size() == 1 && Has("hex")) return Get("hex").HexBytes();
    Fail(StrCat("expected a string, found ", Type()));
  }
  // A number, or "nan", "inf", "-inf" ("-nan" too, as literal JSON reads).
  double Number() const {
    if (v_->is_number()) return v_->get<double>();
    if (v_->is_string()) {
      const std::string& s = v_->get_ref<const std::string&>();
      if (s == "nan") return std::nan("");
      if (s == "-nan") return -std::nan("");
      if (s == "inf") return INFINITY;
      if (s == "-inf") return -INFINITY;
    }
    Fail(StrCat("expected a number or \"nan\", \"inf\", \"-inf\", found ", Type()));
  }
  std::vector<int64_t> Ints() const {
    std::vector<int64_t> out;
    for (const Node& n : Items()) out.push_back(n.Int());
    return out;
  }

  // Optional fields.
  int64_t IntOr(std::string_view key, int64_t def) const { return Has(key) ? Get(key).Int() : def; }
  bool BoolOr(std::string_view key, bool def) const { return Has(key) ? Get(key).Bool() : def; }
  std::string StrOr(std::string_view key, std::string def) const {
    return Has(key) ? Get(key).Str() : def;
  }
  std::vector<int64_t> IntsOr(std::string_view key) const {
    return Has(key) ? Get(key).Ints() : std::vector<int64_t>{};
  }

 private:
  std::string Type() const {
    if (v_->is_number_float()) return "a non-integer number";
    if (v_->is_number()) return StrCat("the number ", v_->dump());
    if (v_->is_string()) return "a string";
    if (v_->is_null()) return "null";
    return v_->is_boolean() ? "a boolean" : v_->is_array() ? "an array" : "an object";
  }
  std::string HexBytes() const {
    if (!v_->is_string()) Fail(StrCat("expected a string of hex digits, found ", Type()));
    const std::string& hex = v_->get_ref<const std::string&>();
    if (hex.size() % 2 != 0) Fail("expected an even number of hex digits");
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      unsigned v = 0;
      auto r = std::from_chars(hex.data() + i, hex.data() + i + 2, v, 16);
      if (r.ec != std::errc() || r.ptr != hex.data() + i + 2) Fail("expected hex digits");
      out += static_cast<char>(v);
    }
    return out;
  }

  const J* v_;
  std::string path_;
};

// Names as HLO text writes them (so the printed module reads back).
bool IsHloName(std::string_view s) {
  if (s.empty() || s.find("->") != std::string_view::npos) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Name(const Node& n) {
  std::string s = n.Str();
  if (!IsHloName(s)) n.Fail(StrCat("'", s, "' is not a valid HLO name (letters, digits, _ $ . -)"));
  return s;
}

// Checks that `v` is a permutation of 0..n-1.
bool IsPermutation(const std::vector<int64_t>& v, size_t n) {
  if (v.size() != n) return false;
  std::vector<bool> seen(n, false);
  for (int64_t d : v) {
    if (d < 0 || static_cast<size_t>(d) >= n || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

PrimitiveType ElementType(const Node& n) {
  std::string s = n.Str();
  std::optional<PrimitiveType> t = ParsePrimitiveType(s);
  if (!t) n.Fail(StrCat("unknown element type '", s, "'"));
  return *t;
}

Opcode ParseOpcodeNode(const Node& n) {
  std::string s = n.Str();
  std::optional<Opcode> op = ParseOpcode(s);
  if (!op) n.Fail(StrCat("unknown opcode '", s, "'"));
  return *op;
}

// The opcode text the way Instruction::OpcodeText spells it.
std::string OpcodeText(Opcode op, std::optional<Opcode> wrapped) {
  if (!wrapped) return std::string(OpcodeName(op));
  return StrCat(OpcodeName(*wrapped), op == Opcode::kAsyncStart    ? "-start"
                                      : op == Opcode::kAsyncUpdate ? "-update"
                                                                   : "-done");
}

// `opcode` text as the parser reads it: a plain opcode, or the sugared
// `<op>-start` / `-update` / `-done` of an async op.
void ParseOpcodeText(const Node& n, Opcode* op, std::optional<Opcode>* wrapped) {
  std::string t = n.Str();
  if (std::optional<Opcode> plain = ParseOpcode(t)) {
    *op = *plain;
    return;
  }
  for (auto [suffix, async_op] : {std::pair{std::string_view("-start"), Opcode::kAsyncStart},
                                  std::pair{std::string_view("-update"), Opcode::kAsyncUpdate},
                                  std::pair{std::string_view("-done"), Opcode::kAsyncDone}}) {
    if (t.size() > suffix.size() &&
        std::string_view(t).substr(t.size() - suffix.size()) == suffix) {
      if (std::optional<Opcode> w = ParseOpcode(t.substr(0, t.size() - suffix.size()))) {
        *op = async_op;
        *wrapped = *w;
        return;
      }
    }
  }
  n.Fail(StrCat("unknown opcode '", t, "'"));
}

class Reader {
 public:
  std::unique_ptr<Module> ReadModule(const Node& n);

 private:
  using NameMap = absl::flat_hash_map<std::string, Instruction*>;

  // Shapes.
  const Shape* ReadShape(const Node& n, int depth);
  const Shape* ReadArrayShape(const Node& n, PrimitiveType type, int depth);
  Layout ReadLayout(const Node& n, int64_t rank, int depth);
  const Shape* ReadShapeWithText(const Node& obj, std::string_view text_key,
                                 std::string_view structure_key);
  // Module structure.
  void ReadHeader(const Node& n);
  void ReadEntryLayout(const Node& n);
  void ReadStyle(const Node& n);
  void ReadBody(const Node& n, Computation* c);
  Instruction* CreateInstruction(const Node& n, Computation* c);
  void Resolve(const Node& n, Instruction* inst, const NameMap& names);
  void ReadAttribute(const Node& n, Instruction* inst, const NameMap& names);
  // Attribute values.
  AttrValue ReadValue(const Node& v, AttrType type, AttrKind kind, const NameMap& names);
  AttrValue ReadStructValue(const Node& v, AttrType type);
  Computation* FindComputation(const Node& n);
  Instruction* FindInstruction(const Node& n, const NameMap& names);

  std::unique_ptr<Module> module_;
  absl::flat_hash_map<std::string, Computation*> computations_;
};

// ---- Shapes -------------------------------------------------------------------

const Shape* Reader::ReadShape(const Node& n, int depth) {
  if (depth > kMaxDepth) n.Fail("shape is nested too deeply");
  if (n.Has("tuple")) {
    n.ExpectObject({"tuple"});
    std::vector<const Shape*> elems;
    for (const Node& e : n.Get("tuple").Items()) elems.push_back(ReadShape(e, depth + 1));
    return module_->Intern(Shape::Tuple(std::move(elems)));
  }
  n.ExpectObject({"element_type", "dims", "dynamic", "layout"});
  PrimitiveType type = ElementType(n.Get("element_type"));
  if (type == PrimitiveType::kToken || type == PrimitiveType::kOpaque) {
    n.ExpectObject({"element_type"});
    return module_->Intern(type == PrimitiveType::kToken ? Shape::Token() : Shape::Opaque());
  }
  return ReadArrayShape(n, type, depth);
}

const Shape* Reader::ReadArrayShape(const Node& n, PrimitiveType type, int depth) {
  Node dims_node = n.Get("dims");
  std::vector<int64_t> dims = dims_node.Ints();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < Shape::kUnboundedSize) {
      dims_node.Items()[i].Fail("a dimension is a size >= 0, or -1 for unbounded ('?')");
    }
  }
  Shape s = Shape::Array(type, dims);
  if (n.Has("dynamic")) {
    std::vector<Node> flags = n.Get("dynamic").Items();
    if (flags.size() != dims.size()) {
      n.Get("dynamic").Fail(StrCat("has ", flags.size(), " flags for ", dims.size(), " dims"));
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      bool dynamic = flags[i].Bool();
      if (!dynamic && dims[i] == Shape::kUnboundedSize) {
        flags[i].Fail("an unbounded dimension (-1) is dynamic");
      }
      s = s.WithDynamicDim(static_cast<int64_t>(i), dynamic);
    }
  }
  if (n.Has("layout")) s = s.WithLayout(ReadLayout(n.Get("layout"), s.rank(), depth));
  return module_->Intern(s);
}

Tile ReadTile(const Node& n) {
  Tile tile;
  for (const Node& d : n.Items()) {
    if (d.json().is_string() && d.json() == "*") {
      tile.dims.push_back(Tile::kCombineDimension);
    } else {
      tile.dims.push_back(d.Int());
    }
  }
  return tile;
}

Layout Reader::ReadLayout(const Node& n, int64_t rank, int depth) {
  n.ExpectObject({"minor_to_major", "dim_levels", "tiles", "tail_padding_alignment_in_elements",
                  "index_primitive_type", "pointer_primitive_type", "element_size_in_bits",
                  "memory_space", "split_configs", "physical_shape",
                  "dynamic_shape_metadata_prefix_bytes"});
  Layout l;
  std::vector<int64_t> m2m = n.Get("minor_to_major").Ints();
  if (!IsPermutation(m2m, static_cast<size_t>(rank))) {
    n.Get("minor_to_major").Fail(StrCat("is not a permutation of 0..", rank - 1));
  }
  l.minor_to_major.assign(m2m.begin(), m2m.end());
  if (n.Has("dim_levels")) {
    for (const Node& d : n.Get("dim_levels").Items()) {
      d.ExpectObject({"type", "unique", "ordered"});
      std::string t = d.Get("type").Str();
      auto type = mj::ParseDimLevelTypeName(t);
      if (!type) d.Get("type").Fail(StrCat("unknown dimension level type '", t, "'"));
      l.dim_levels.push_back({*type, d.BoolOr("unique", true), d.BoolOr("ordered", true)});
    }
  }
  if (n.Has("tiles")) {
    for (const Node& t : n.Get("tiles").Items()) l.tiles.push_back(ReadTile(t));
  }
  l.tail_padding_alignment_in_elements = n.IntOr("tail_padding_alignment_in_elements", 1);
  if (n.Has("index_primitive_type"))
    l.index_primitive_type = ElementType(n.Get("index_primitive_type"));
  if (n.Has("pointer_primitive_type")) {
    l.pointer_primitive_type = ElementType(n.Get("pointer_primitive_type"));
  }
  l.element_size_in_bits = n.IntOr("element_size_in_bits", 0);
  l.memory_space = n.IntOr("memory_space", 0);
  if (n.Has("split_configs")) {
    for (const Node& sc : n.Get("split_configs").Items()) {
      sc.ExpectObject({"dimension", "split_indices"});
      l.split_configs.push_back({sc.Get("dimension").Int(), sc.Get("split_indices").Ints()});
    }
  }
  if (n.Has("physical_shape")) l.physical_shape = ReadShape(n.Get("physical_shape"), depth + 1);
  l.dynamic_shape_metadata_prefix_bytes = n.IntOr("dynamic_shape_metadata_prefix_bytes", 0);
  return l;
}

// The structure is what counts; the text, when given, must agree with it
// (so an edit to one and not the other is caught).
const Shape* Reader::ReadShapeWithText(const Node& obj, std::string_view text_key,
                                       std::string_view structure_key) {
  const Shape* s = ReadShape(obj.Get(structure_key), 0);
  if (obj.Has(text_key)) {
    std::string text = obj.Get(text_key).Str();
    if (text != module_->shapes().Text(s)) {
      obj.Get(text_key).Fail(StrCat("shape text '", text, "' does not match ", structure_key, " (",
                                    module_->shapes().Text(s), ")"));
    }
  }
  return s;
}

// ---- Literals -----------------------------------------------------------------

void ReadElement(const Node& v, Literal& lit, int64_t i) {
  PrimitiveType t = lit.element_type();
  if (IsPred(t)) {
    lit.SetInt(i, v.Bool());
  } else if (IsSignedInt(t)) {
    int64_t x = v.Int();
    int bits = BitWidth(t);
    if (bits < 64 && (x < -(int64_t{1} << (bits - 1)) || x >= (int64_t{1} << (bits - 1)))) {
      v.Fail(StrCat(x, " is out of range for ", PrimitiveTypeName(t)));
    }
    lit.SetInt(i, x);
  } else if (IsUnsignedInt(t)) {
    uint64_t x = v.UInt();
    if (BitWidth(t) < 64 && x >= (uint64_t{1} << BitWidth(t))) {
      v.Fail(StrCat(x, " is out of range for ", PrimitiveTypeName(t)));
    }
    lit.SetInt(i, static_cast<int64_t>(x));
  } else if (IsComplex(t)) {
    std::vector<Node> parts = v.Items();
    if (parts.size() != 2) v.Fail("a complex value is [real, imaginary]");
    lit.SetComplex(i, {parts[0].Number(), parts[1].Number()});
  } else if (IsFloat(t)) {
    lit.SetDouble(i, v.Number());
  } else {
    v.Fail(StrCat(PrimitiveTypeName(t), " literals have no values"));
  }
}

// "bits": the exact encoding of every element, hex strings ([re, im] pairs
// for complex), overriding the values (NaN payloads and signs).
void ReadBits(const Node& n, Literal& lit) {
  PrimitiveType t = lit.element_type();
  bool complex = IsComplex(t);
  if (!IsFloat(t) && !complex) n.Fail("bits are only given for floating-point literals");
  std::vector<Node> items = n.Items();
  if (static_cast<int64_t>(items.size()) != lit.element_count()) {
    n.Fail(StrCat("has ", items.size(), " entries for ", lit.element_count(), " elements"));
  }
  int width = BitWidth(complex ? ComplexComponentType(t) : t);
  auto parse = [&](const Node& h) {
    std::string s = h.Str();
    uint64_t bits = 0;
    auto r = s.size() > 2 ? std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16)
                          : std::from_chars_result{s.data(), std::errc::invalid_argument};
    if (s.rfind("0x", 0) != 0 || r.ec != std::errc() || r.ptr != s.data() + s.size() ||
        (width < 64 && bits >> width != 0)) {
      h.Fail(StrCat("expected the ", width, "-bit encoding as hex like \"0x7fc00000\""));
    }
    return bits;
  };
  for (size_t i = 0; i < items.size(); ++i) {
    int64_t e = static_cast<int64_t>(i);
    if (!complex) {
      lit.SetBits(e, parse(items[i]));
      continue;
    }
    std::vector<Node> parts = items[i].Items();
    if (parts.size() != 2) items[i].Fail("complex bits are [real, imaginary]");
    mj::SetComplexComponentBits(lit, e, 0, parse(parts[0]));
    mj::SetComplexComponentBits(lit, e, 1, parse(parts[1]));
  }
}

Literal ReadArrayLiteral(const Node& n, const Shape& shape);

Literal ReadLiteral(const Node& n, const Shape& shape, int depth) {
  if (depth > kMaxDepth) n.Fail("literal is nested too deeply");
  if (!shape.IsTuple()) return ReadArrayLiteral(n, shape);
  std::vector<Node> elems = n.Get("elements").Items();
  if (static_cast<int64_t>(elems.size()) != shape.tuple_size()) {
    n.Get("elements")
        .Fail(StrCat("has ", elems.size(), " elements but the shape has ", shape.tuple_size()));
  }
  std::vector<Literal> out;
  for (size_t i = 0; i < elems.size(); ++i) {
    elems[i].ExpectObject({"values", "bits", "elements"});
    out.push_back(ReadLiteral(elems[i], shape.tuple_shape(static_cast<int64_t>(i)), depth + 1));
  }
  return Literal::Tuple(std::move(out));
}

Literal ReadArrayLiteral(const Node& n, const Shape& shape) {
  if (n.Has("elements")) n.Get("elements").Fail("an array literal has values, not elements");
  Node values_node = n.Get("values");
  std::vector<Node> values = values_node.Items();
  // The count is checked before anything is allocated.
  int64_t want = shape.IsArray() ? shape.ElementCount() : 0;
  if (want < 0) n.Fail(StrCat("shape ", shape.ToString(), " has no static size"));
  if (static_cast<int64_t>(values.size()) != want) {
    values_node.Fail(StrCat("has ", values.size(), " values but shape ", shape.ToString(false),
                            " has ", want, " elements"));
  }
  absl::StatusOr<Literal> lit = Literal::Create(shape);
  if (!lit.ok()) n.Fail(std::string(lit.status().message()));
  for (size_t i = 0; i < values.size(); ++i) ReadElement(values[i], *lit, static_cast<int64_t>(i));
  if (n.Has("bits")) ReadBits(n.Get("bits"), *lit);
  return *std::move(lit);
}

// ---- Attribute values ---------------------------------------------------------

Computation* Reader::FindComputation(const Node& n) {
  std::string name = n.Str();
  auto it = computations_.find(name);
  if (it == computations_.end()) n.Fail(StrCat("no computation is named '", name, "'"));
  return it->second;
}

Instruction* Reader::FindInstruction(const Node& n, const NameMap& names) {
  std::string name = n.Str();
  auto it = names.find(name);
  if (it == names.end()) {
    n.Fail(StrCat("no instruction of this computation is named '", name, "'"));
  }
  return it->second;
}

// Identifier values (LT, kLoop, ...) print bare, so they must be names.
std::string Ident(const Node& n) {
  std::string s = n.Str();
  if (!IsHloName(s)) n.Fail(StrCat("'", s, "' is not an identifier"));
  return s;
}

IotaTileAssignment ReadIota(const Node& n) {
  n.ExpectObject({"dims", "reshape_dims", "transpose_perm"});
  IotaTileAssignment iota{n.Get("dims").Ints(), n.Get("reshape_dims").Ints(),
                          n.IntsOr("transpose_perm")};
  int64_t count = 1, reshaped = 1;
  for (int64_t d : iota.dims) {
    if (d < 0 || (d > 0 && count > (int64_t{1} << 40) / d)) n.Get("dims").Fail("bad iota dims");
    count *= d;
  }
  for (int64_t d : iota.reshape_dims) {
    if (d <= 0 || reshaped > (int64_t{1} << 40) / d) {
      n.Get("reshape_dims").Fail("bad iota reshape dims");
    }
    reshaped *= d;
  }
  if (count != reshaped) {
    n.Fail(StrCat("iota reshape dims hold ", reshaped, " devices but dims need ", count));
  }
  if (!iota.transpose_perm.empty() &&
      !IsPermutation(iota.transpose_perm, iota.reshape_dims.size())) {
    n.Get("transpose_perm").Fail("is not a permutation of the reshape dims");
  }
  return iota;
}

Mesh ReadMesh(const Node& n) {
  n.ExpectObject(
      {"axes", "iota_reshape_dims", "iota_transpose_perm", "device_ids", "maximal_device"});
  Mesh m;
  if (n.Has("maximal_device")) {
    if (n.Has("axes")) n.Fail("a maximal mesh has no axes");
    m.maximal_device = n.Get("maximal_device").Int();
  }
  int64_t devices = 1;
  if (n.Has("axes")) {
    for (const Node& a : n.Get("axes").Items()) {
      a.ExpectObject({"name", "size"});
      int64_t size = a.Get("size").Int();
      if (size < 1 || devices > (int64_t{1} << 40) / size) {
        a.Get("size").Fail("must be positive, and the mesh at most 2^40 devices");
      }
      devices *= size;
      m.axis_names.push_back(a.Get("name").Str());
      m.axis_sizes.push_back(size);
    }
  }
  m.device_ids = n.IntsOr("device_ids");
  if (!m.device_ids.empty() && static_cast<int64_t>(m.device_ids.size()) != devices) {
    n.Get("device_ids").Fail(StrCat("the mesh has ", devices, " devices"));
  }
  if (n.Has("iota_reshape_dims")) {
    m.iota_reshape_dims = n.Get("iota_reshape_dims").Ints();
    int64_t product = 1;
    for (int64_t d : m.iota_reshape_dims) {
      if (d < 1 || product > devices) n.Get("iota_reshape_dims").Fail("bad iota reshape dims");
      product *= d;
    }
    if (product != devices) {
      n.Get("iota_reshape_dims")
          .Fail(StrCat("hold ", product, " devices but the mesh has ", devices));
    }
    m.iota_perm = n.IntsOr("iota_transpose_perm");
    if (!IsPermutation(m.iota_perm, m.iota_reshape_dims.size())) {
      n.Fail("iota_transpose_perm is not a permutation of the iota reshape dims");
    }
    CanonicalizeIota(&m.iota_reshape_dims, &m.iota_perm);
    if (m.iota_reshape_dims.size() == 1) {
      m.iota_reshape_dims.clear();
      m.iota_perm.clear();
    }
  }
  if (std::string e = ValidateMesh(m); !e.empty()) n.Fail(e);
  return m;
}

std::vector<MeshAxisRef> ReadAxisRefs(const Node& n, const Mesh& mesh) {
  std::vector<MeshAxisRef> refs;
  for (const Node& r : n.Items()) {
    r.ExpectObject({"axis", "pre_size", "size"});
    std::string name = r.Get("axis").Str();
    MeshAxisRef ref;
    ref.axis = -1;
    for (size_t i = 0; i < mesh.axis_names.size(); ++i) {
      if (mesh.axis_names[i] == name) ref.axis = static_cast<int64_t>(i);
    }
    if (ref.axis < 0) r.Get("axis").Fail(StrCat("'", name, "' is not an axis of the mesh"));
    if (r.Has("pre_size") || r.Has("size")) {
      ref.pre_size = r.Get("pre_size").Int();
      ref.size = r.Get("size").Int();
      if (ref.pre_size < 1 || ref.size < 2) r.Fail("a sub-axis needs pre_size >= 1, size >= 2");
    }
    refs.push_back(ref);
  }
  return refs;
}

NamedSharding ReadNamedSharding(const Node& n) {
  n.ExpectObject({"mesh", "dims", "replicated", "unreduced", "manual", "reduction"});
  NamedSharding s;
  s.mesh = ReadMesh(n.Get("mesh"));
  if (n.Has("dims")) {
    for (const Node& d : n.Get("dims").Items()) {
      d.ExpectObject({"axes", "closed"});
      s.dims.push_back(
          {d.Has("axes") ? ReadAxisRefs(d.Get("axes"), s.mesh) : std::vector<MeshAxisRef>{},
           d.BoolOr("closed", true)});
    }
  }
  if (n.Has("replicated")) s.replicated = ReadAxisRefs(n.Get("replicated"), s.mesh);
  if (n.Has("unreduced")) s.unreduced = ReadAxisRefs(n.Get("unreduced"), s.mesh);
  if (n.Has("manual")) s.manual = ReadAxisRefs(n.Get("manual"), s.mesh);
  std::string reduction = n.StrOr("reduction", "sum");
  if (reduction == "max") {
    s.reduction = NamedSharding::Reduction::kMax;
  } else if (reduction == "min") {
    s.reduction = NamedSharding::Reduction::kMin;
  } else if (reduction != "sum") {
    n.Get("reduction").Fail("expected \"sum\", \"max\" or \"min\"");
  }
  if (std::string e = ValidateNamedSharding(s); !e.empty()) n.Fail(e);
  return s;
}

KeyValues ReadKeyValues(const Node& n) {
  KeyValues out;
  for (const Node& e : n.Items()) {
    e.ExpectObject({"key", "value", "quoted"});
    out.push_back({e.Get("key").Str(), e.Get("value").Str(), e.BoolOr("quoted", true)});
  }
  return out;
}

Sharding ReadSharding(const Node& n, int depth) {
  if (depth > kMaxDepth) n.Fail("sharding is nested too deeply");
  n.ExpectObject({"type", "device", "tile_dims", "devices", "iota", "last_tile_dim_replicate",
                  "last_tile_dims", "metadata", "shard_group", "tuple_elements", "named"});
  Sharding s;
  std::string type = n.Get("type").Str();
  auto t = mj::ParseShardingTypeName(type);
  if (!t) n.Get("type").Fail(StrCat("unknown sharding type '", type, "'"));
  s.type = *t;
  s.device = n.IntOr("device", 0);
  s.tile_dims = n.IntsOr("tile_dims");
  s.devices = n.IntsOr("devices");
  if (n.Has("iota")) s.iota = ReadIota(n.Get("iota"));
  s.last_tile_dim_replicate = n.BoolOr("last_tile_dim_replicate", false);
  if (n.Has("last_tile_dims")) {
    for (const Node& d : n.Get("last_tile_dims").Items()) s.last_tile_dims.push_back(Ident(d));
  }
  if (n.Has("metadata")) {
    for (const Node& m : n.Get("metadata").Items()) s.metadata.push_back(ReadKeyValues(m));
  }
  s.shard_group = n.StrOr("shard_group", "");
  std::vector<std::string_view> group = StrSplit(s.shard_group, ' ');
  int64_t g = 0;
  if (!s.shard_group.empty() && (group.size() != 2 || !ParseInt64(group[1], &g) ||
                                 (group[0] != "shard_as" && group[0] != "shard_like"))) {
    n.Get("shard_group").Fail("expected \"shard_as N\" or \"shard_like N\"");
  }
  if (n.Has("tuple_elements")) {
    for (const Node& e : n.Get("tuple_elements").Items()) {
      s.tuple_elements.push_back(ReadSharding(e, depth + 1));
    }
  }
  if (n.Has("named")) s.named = ReadNamedSharding(n.Get("named"));
  if ((s.type == Sharding::Type::kNamed) != s.named.has_value()) {
    n.Fail("a sharding of type \"named\" needs \"named\", and only it");
  }
  int64_t tiles = 1;
  for (int64_t d : s.tile_dims) tiles = d > 0 && tiles <= INT64_MAX / d ? tiles * d : -1;
  if (s.type == Sharding::Type::kTiled && !s.iota &&
      static_cast<int64_t>(s.devices.size()) != tiles) {
    n.Fail(StrCat("tile_dims need ", tiles, " devices but ", s.devices.size(), " are listed"));
  }
  return s;
}

ConvDims ReadConvDims(const Node& n) {
  n.ExpectObject({"text", "input_batch", "input_feature", "input_spatial", "kernel_input_feature",
                  "kernel_output_feature", "kernel_spatial", "output_batch", "output_feature",
                  "output_spatial"});
  ConvDims d{n.Get("input_batch").Int(),           n.Get("input_feature").Int(),
             n.Get("input_spatial").Ints(),        n.Get("kernel_input_feature").Int(),
             n.Get("kernel_output_feature").Int(), n.Get("kernel_spatial").Ints(),
             n.Get("output_batch").Int(),          n.Get("output_feature").Int(),
             n.Get("output_spatial").Ints()};
  // Each side's dims are distinct dimension numbers, as in `b01f_01io->b01f`
  // (a custom call's labels may leave some out: `?b01f_0?1io->b01?f`).
  auto side = [&](int64_t a, int64_t b, std::vector<int64_t> spatial, std::string_view what) {
    spatial.push_back(a);
    spatial.push_back(b);
    std::sort(spatial.begin(), spatial.end());
    if (spatial.front() < 0 || spatial.back() >= 64 ||
        std::adjacent_find(spatial.begin(), spatial.end()) != spatial.end()) {
      n.Fail(StrCat("the ", what, " dims are not distinct dimension numbers below 64"));
    }
  };
  side(d.input_batch, d.input_feature, d.input_spatial, "input");
  side(d.kernel_input_feature, d.kernel_output_feature, d.kernel_spatial, "kernel");
  side(d.output_batch, d.output_feature, d.output_spatial, "output");
  std::string text;
  AppendConvDims(text, d);
  if (n.Has("text") && n.Get("text").Str() != text) {
    n.Get("text").Fail(StrCat("does not match the dims (", text, ")"));
  }
  return d;
}

Window ReadWindow(const Node& n) {
  Window w;
  for (const Node& d : n.Items()) {
    d.ExpectObject({"size", "stride", "padding_low", "padding_high", "base_dilation",
                    "window_dilation", "window_reversal"});
    w.push_back({d.IntOr("size", 1), d.IntOr("stride", 1), d.IntOr("padding_low", 0),
                 d.IntOr("padding_high", 0), d.IntOr("base_dilation", 1),
                 d.IntOr("window_dilation", 1), d.BoolOr("window_reversal", false)});
  }
  return w;
}

ReplicaGroups ReadReplicaGroups(const Node& n) {
  n.ExpectObject({"groups", "iota", "mesh"});
  ReplicaGroups g;
  if (n.Has("iota")) g.iota = ReadIota(n.Get("iota"));
  if (n.Has("mesh")) {
    if (g.iota) n.Fail("replica groups are either \"iota\" or \"mesh\"");
    Node m = n.Get("mesh");
    m.ExpectObject({"mesh", "axes"});
    MeshReplicaGroups& mg = g.mesh.emplace();
    mg.mesh = ReadMesh(m.Get("mesh"));
    if (m.Has("axes")) mg.axes = ReadAxisRefs(m.Get("axes"), mg.mesh);
    if (std::string e = ValidateMeshAxes(mg.mesh, mg.axes); !e.empty()) m.Fail(e);
  }
  std::vector<std::vector<int64_t>> groups;
  if (n.Has("groups")) {
    for (const Node& e : n.Get("groups").Items()) groups.push_back(e.Ints());
  }
  if (!g.iota && !g.mesh) {
    g.groups = std::move(groups);
  } else if (n.Has("groups") && groups != g.Groups()) {
    n.Get("groups").Fail(g.iota ? "do not match the iota form" : "do not match the mesh form");
  }
  return g;
}

// The structured attribute types (window, sharding, literal, ...).
AttrValue Reader::ReadStructValue(const Node& v, AttrType type) {
  switch (type) {
    case AttrType::kWindow:
      return std::make_shared<const Window>(ReadWindow(v));
    case AttrType::kConvDims:
      return std::make_shared<const ConvDims>(ReadConvDims(v));
    case AttrType::kReplicaGroups:
      return std::make_shared<const ReplicaGroups>(ReadReplicaGroups(v));
    case AttrType::kSharding:
      return std::make_shared<const Sharding>(ReadSharding(v, 0));
    case AttrType::kKeyValues:
    case AttrType::kStringMap:
      return std::make_shared<const KeyValues>(ReadKeyValues(v));
    case AttrType::kPadding: {
      auto p = std::make_shared<PaddingConfig>();
      for (const Node& d : v.Items()) {
        d.ExpectObject({"low", "high", "interior"});
        p->push_back({d.Get("low").Int(), d.Get("high").Int(), d.IntOr("interior", 0)});
      }
      return std::shared_ptr<const PaddingConfig>(std::move(p));
    }
    case AttrType::kSlice: {
      auto s = std::make_shared<SliceSpec>();
      for (const Node& d : v.Items()) {
        d.ExpectObject({"start", "limit", "stride"});
        s->push_back({d.Get("start").Int(), d.Get("limit").Int(), d.IntOr("stride", 1)});
      }
      return std::shared_ptr<const SliceSpec>(std::move(s));
    }
    case AttrType::kBackendConfig: {
      v.ExpectObject({"text", "is_json_object"});
      return std::make_shared<const BackendConfig>(
          BackendConfig{v.Get("text").Str(), v.BoolOr("is_json_object", false)});
    }
    case AttrType::kAliasing: {
      auto a = std::make_shared<Aliasing>();
      for (const Node& e : v.Items()) {
        e.ExpectObject({"output_index", "operand", "operand_index"});
        a->push_back(
            {e.Get("output_index").Ints(), e.Get("operand").Int(), e.Get("operand_index").Ints()});
      }
      return std::shared_ptr<const Aliasing>(std::move(a));
    }
    case AttrType::kLiteral: {
      v.ExpectObject({"shape", "shape_structure", "values", "bits", "elements"});
      const Shape* s = ReadShapeWithText(v, "shape", "shape_structure");
      return std::make_shared<const Literal>(ReadLiteral(v, *s, 0));
    }
    default:
      v.Fail("unhandled attribute type");
  }
}

AttrValue Reader::ReadValue(const Node& v, AttrType type, AttrKind kind, const NameMap& names) {
  switch (type) {
    case AttrType::kInt:
      return v.Int();
    case AttrType::kFloat:
      return v.Number();
    case AttrType::kBool:
      return v.Bool();
    case AttrType::kString:
    case AttrType::kRaw:
      return v.Str();
    case AttrType::kIdent:
      return Ident(v);
    case AttrType::kIntList:
      return v.Ints();
    case AttrType::kBoolList: {
      std::vector<bool> out;
      for (const Node& b : v.Items()) out.push_back(b.Bool());
      return std::make_shared<const std::vector<bool>>(std::move(out));
    }
    case AttrType::kIdentList: {
      std::vector<std::string> out;
      for (const Node& s : v.Items()) out.push_back(Ident(s));
      return out;
    }
    case AttrType::kIntListList: {
      std::vector<std::vector<int64_t>> out;
      for (const Node& l : v.Items()) out.push_back(l.Ints());
      return out;
    }
    case AttrType::kShape: {
      v.ExpectObject({"shape", "shape_structure"});
      return ReadShapeWithText(v, "shape", "shape_structure");
    }
    case AttrType::kShapeList: {
      std::vector<const Shape*> out;
      for (const Node& s : v.Items()) {
        s.ExpectObject({"shape", "shape_structure"});
        out.push_back(ReadShapeWithText(s, "shape", "shape_structure"));
      }
      return out;
    }
    case AttrType::kComputation:
      return std::vector<Computation*>{FindComputation(v)};
    case AttrType::kComputationList: {
      std::vector<Computation*> out;
      for (const Node& c : v.Items()) out.push_back(FindComputation(c));
      if (out.empty()) v.Fail(StrCat("'", AttrName(kind), "' needs at least one computation"));
      return out;
    }
    case AttrType::kInstructionList: {
      std::vector<Instruction*> out;
      for (const Node& i : v.Items()) out.push_back(FindInstruction(i, names));
      return out;
    }
    default:
      return ReadStructValue(v, type);
  }
}

// ---- Instructions -------------------------------------------------------------

// base_opcode (+ wrapped_opcode) when given, else the opcode text; the text,
// when given, must agree.
void ReadOpcode(const Node& n, Opcode* op, std::optional<Opcode>* wrapped) {
  if (!n.Has("base_opcode")) {
    if (n.Has("wrapped_opcode")) n.Get("wrapped_opcode").Fail("needs base_opcode");
    ParseOpcodeText(n.Get("opcode"), op, wrapped);
    return;
  }
  *op = ParseOpcodeNode(n.Get("base_opcode"));
  if (n.Has("wrapped_opcode")) {
    if (*op != Opcode::kAsyncStart && *op != Opcode::kAsyncUpdate && *op != Opcode::kAsyncDone) {
      n.Get("wrapped_opcode").Fail("only async-start, async-update and async-done wrap an opcode");
    }
    *wrapped = ParseOpcodeNode(n.Get("wrapped_opcode"));
  }
  if (n.Has("opcode") && n.Get("opcode").Str() != OpcodeText(*op, *wrapped)) {
    n.Get("opcode").Fail(
        StrCat("does not match base_opcode/wrapped_opcode ('", OpcodeText(*op, *wrapped), "')"));
  }
}

Instruction* Reader::CreateInstruction(const Node& n, Computation* c) {
  n.ExpectObject({"name", "opcode", "base_opcode", "wrapped_opcode", "shape", "shape_structure",
                  "operands", "parameter_number", "literal", "called_computations",
                  "control_predecessors", "attributes"});
  std::string name = Name(n.Get("name"));
  Opcode op = Opcode::kAbs;
  std::optional<Opcode> wrapped;
  ReadOpcode(n, &op, &wrapped);
  const Shape* shape = ReadShapeWithText(n, "shape", "shape_structure");
  auto inst = std::make_unique<Instruction>(op, name, shape);
  if (wrapped) inst->set_wrapped_opcode(*wrapped);
  if (op == Opcode::kParameter) {
    int64_t p = n.Get("parameter_number").Int();
    if (p < 0 || p > (int64_t{1} << 31)) n.Get("parameter_number").Fail("out of range");
    if (p < c->parameter_count() && c->parameter(p)) {
      n.Get("parameter_number")
          .Fail(
              StrCat("parameter(", p, ") is defined twice (also '", c->parameter(p)->name(), "')"));
    }
    inst->set_parameter_number(p);
  } else if (n.Has("parameter_number")) {
    n.Get("parameter_number").Fail("only parameters have a parameter_number");
  }
  if (op == Opcode::kConstant) {
    Node lit = n.Get("literal");
    lit.ExpectObject({"elided", "values", "bits", "elements"});
    inst->set_literal_elided(lit.BoolOr("elided", false));
    if (lit.Has("values") || lit.Has("elements")) {
      inst->set_literal(std::make_shared<const Literal>(ReadLiteral(lit, *shape, 0)));
    } else if (!inst->literal_elided()) {
      lit.Fail("a constant needs values (or elements), or \"elided\": true");
    }
  } else if (n.Has("literal")) {
    n.Get("literal").Fail("only constants have a literal");
  }
  return c->AddInstruction(std::move(inst));
}

void Reader::ReadAttribute(const Node& n, Instruction* inst, const NameMap& names) {
  n.ExpectObject({"name", "type", "value"});
  std::string name = n.Get("name").Str();
  std::optional<AttrKind> kind = ParseAttrName(name);
  if (!kind) n.Get("name").Fail(StrCat("unknown attribute '", name, "'"));
  // A sugared async-start carries the wrapped op's attributes.
  Opcode rules = inst->opcode();
  if (inst->has_wrapped_opcode() && rules == Opcode::kAsyncStart &&
      *kind != AttrKind::kAsyncExecutionThread) {
    rules = inst->wrapped_opcode();
  }
  if (!IsAllowedAttr(rules, *kind)) {
    n.Get("name").Fail(
        StrCat("attribute '", name, "' is not allowed on '", OpcodeName(inst->opcode()), "'"));
  }
  if (inst->HasAttr(*kind)) n.Get("name").Fail(StrCat("attribute '", name, "' is given twice"));
  AttrType type = mj::StoredAttrType(*kind, inst->opcode());
  if (n.Has("type") && n.Get("type").Str() != mj::AttrTypeName(type)) {
    n.Get("type").Fail(
        StrCat("'", name, "' holds a ", mj::AttrTypeName(type), ", not a ", n.Get("type").Str()));
  }
  inst->SetAttr(*kind, ReadValue(n.Get("value"), type, *kind, names));
}

// As the parser's CheckRequiredAttrs.
void CheckRequiredAttrs(const Node& n, const Instruction* inst) {
  if (inst->has_wrapped_opcode() && inst->opcode() != Opcode::kAsyncStart) return;
  Opcode rules = inst->has_wrapped_opcode() ? inst->wrapped_opcode() : inst->opcode();
  for (const AttrRule& r : OpcodeAttrRules(rules)) {
    if (r.required && !inst->HasAttr(r.kind)) {
      n.Fail(StrCat("'", inst->OpcodeText(), "' needs the attribute '", AttrName(r.kind), "'"));
    }
  }
  if (inst->opcode() == Opcode::kConditional && !inst->HasAttr(AttrKind::kBranchComputations) &&
      !(inst->HasAttr(AttrKind::kTrueComputation) && inst->HasAttr(AttrKind::kFalseComputation))) {
    n.Fail("'conditional' needs branch_computations, or true_computation and false_computation");
  }
}

// called_computations and control_predecessors repeat what the attributes
// say; when given they must agree.
void CheckDerived(const Node& n, const Instruction* inst) {
  auto check = [&](std::string_view key, const auto& actual) {
    if (!n.Has(key)) return;
    std::vector<std::string> want, got;
    for (const auto* x : actual) want.push_back(std::string(x->name()));
    for (const Node& e : n.Get(key).Items()) got.push_back(e.Str());
    if (got != want) {
      n.Fail(StrCat(key, " [", StrJoin(got, ", "), "] does not match the attributes [",
                    StrJoin(want, ", "), "]"));
    }
  };
  check("called_computations", inst->called_computations());
  check("control_predecessors", inst->control_predecessors());
}

void Reader::Resolve(const Node& n, Instruction* inst, const NameMap& names) {
  if (n.Has("operands")) {
    for (const Node& o : n.Get("operands").Items()) inst->AppendOperand(FindInstruction(o, names));
  }
  int arity = OpcodeArity(inst->opcode());
  if (!inst->has_wrapped_opcode() && arity != kVariadic && inst->operand_count() != arity &&
      inst->opcode() != Opcode::kParameter && inst->opcode() != Opcode::kConstant) {
    n.Fail(StrCat("'", inst->OpcodeText(), "' takes ", arity, " operand", arity == 1 ? "" : "s",
                  " but ", inst->operand_count(), " are given"));
  }
  if ((inst->opcode() == Opcode::kParameter || inst->opcode() == Opcode::kConstant) &&
      inst->operand_count() != 0) {
    n.Get("operands").Fail(StrCat("a ", OpcodeName(inst->opcode()), " has no operands"));
  }
  if (n.Has("attributes")) {
    for (const Node& a : n.Get("attributes").Items()) ReadAttribute(a, inst, names);
  }
  CheckRequiredAttrs(n, inst);
  CheckDerived(n, inst);
}

// Operands and control predecessors must not form a cycle (iterative
// three-colour DFS, as in the parser).
void CheckCycles(const Node& instructions, const Computation* c) {
  absl::flat_hash_map<const Instruction*, size_t> index;
  for (size_t i = 0; i < c->instructions().size(); ++i) index[c->instructions()[i].get()] = i;
  std::vector<int> color(index.size(), 0);  // 1 open, 2 done
  for (const auto& start : c->instructions()) {
    if (color[index[start.get()]] == 2) continue;
    std::vector<std::pair<const Instruction*, size_t>> stack{{start.get(), 0}};
    color[index[start.get()]] = 1;
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      auto preds = inst->control_predecessors();
      size_t n_ops = inst->operands().size();
      if (next == n_ops + preds.size()) {
        color[index[inst]] = 2;
        stack.pop_back();
        continue;
      }
      const Instruction* dep = next < n_ops ? inst->operand(next) : preds[next - n_ops];
      ++next;
      int& col = color[index[dep]];
      if (col == 1) {
        instructions.Items()[index[dep]].Fail(StrCat(
            "instruction '", dep->name(), "' depends on itself (through '", inst->name(), "')"));
      }
      if (col == 0) {
        col = 1;
        stack.push_back({dep, 0});
      }
    }
  }
}

// ---- Computations and module --------------------------------------------------

void Reader::ReadBody(const Node& n, Computation* c) {
  c->set_execution_thread(n.StrOr("execution_thread", ""));
  c->set_printed_signature(n.BoolOr("printed_signature", true));
  Node list = n.Get("instructions");
  std::vector<Node> items = list.Items();
  if (items.empty()) list.Fail(StrCat("computation '", c->name(), "' has no instructions"));
  // Create every instruction first: operands may refer forward.
  NameMap names;
  for (const Node& item : items) {
    Instruction* inst = CreateInstruction(item, c);
    if (!names.emplace(inst->name(), inst).second) {
      item.Get("name").Fail(StrCat("duplicate instruction name '", inst->name(), "'"));
    }
  }
  for (size_t i = 0; i < items.size(); ++i) Resolve(items[i], c->instructions()[i].get(), names);
  for (int64_t i = 0; i < c->parameter_count(); ++i) {
    if (!c->parameter(i)) {
      list.Fail(StrCat("computation '", c->name(), "' has no parameter(", i, ") but has parameter(",
                       c->parameter_count() - 1, ")"));
    }
  }
  if (n.Has("parameters")) {
    std::vector<std::string> want, got;
    for (const Instruction* p : c->parameters()) want.push_back(std::string(p->name()));
    for (const Node& p : n.Get("parameters").Items()) got.push_back(p.Str());
    if (got != want) {
      n.Get("parameters")
          .Fail(StrCat("[", StrJoin(got, ", "),
                       "] does not match the parameter "
                       "instructions [",
                       StrJoin(want, ", "), "]"));
    }
  }
  c->set_root(FindInstruction(n.Get("root"), names));
  CheckCycles(list, c);
}

void Reader::ReadHeader(const Node& n) {
  for (const Node& a : n.Items()) {
    a.ExpectObject({"name", "value"});
    std::string name = Name(a.Get("name"));
    if (name == "entry_computation_layout") {
      a.Get("name").Fail("the entry computation layout goes in 'entry_computation_layout'");
    }
    if (module_->FindHeaderAttr(name)) {
      a.Get("name").Fail(StrCat("duplicate module attribute '", name, "'"));
    }
    module_->header_attrs().push_back({name, a.Get("value").Str()});
  }
}

void Reader::ReadEntryLayout(const Node& n) {
  n.ExpectObject({"parameters", "result"});
  std::vector<const Shape*> params;
  for (const Node& p : n.Get("parameters").Items()) {
    p.ExpectObject({"shape", "shape_structure"});
    params.push_back(ReadShapeWithText(p, "shape", "shape_structure"));
  }
  Node result = n.Get("result");
  result.ExpectObject({"shape", "shape_structure"});
  module_->set_entry_layout(std::move(params),
                            ReadShapeWithText(result, "shape", "shape_structure"));
}

void Reader::ReadStyle(const Node& n) {
  n.ExpectObject({"percent_names", "signatures", "operand_shapes", "print_metadata",
                  "print_layouts", "compact_gte"});
  PrintStyle& s = module_->style();
  s.percent_names = n.BoolOr("percent_names", s.percent_names);
  s.signatures = n.BoolOr("signatures", s.signatures);
  s.operand_shapes = n.BoolOr("operand_shapes", s.operand_shapes);
  s.print_metadata = n.BoolOr("print_metadata", s.print_metadata);
  s.print_layouts = n.BoolOr("print_layouts", s.print_layouts);
  s.compact_gte = n.BoolOr("compact_gte", s.compact_gte);
}

// The ids must name entries of the index (as XLA's StackFrames::FromProto
// requires); a parent of 0 means none.
StackFrameIndex ReadStackFrameIndex(const Node& n) {
  n.ExpectObject({"file_names", "function_names", "file_locations", "stack_frames"});
  StackFrameIndex index;
  if (n.Has("file_names")) {
    for (const Node& f : n.Get("file_names").Items()) index.file_names.push_back(f.Str());
  }
  if (n.Has("function_names")) {
    for (const Node& f : n.Get("function_names").Items()) index.function_names.push_back(f.Str());
  }
  auto id = [](const Node& e, std::string_view key, size_t count, bool zero_ok) {
    int64_t v = e.Get(key).Int();
    if (v < (zero_ok ? 0 : 1) || v > static_cast<int64_t>(count)) {
      e.Get(key).Fail(StrCat("is ", v, " but must be ", zero_ok ? "0 (none) or " : "",
                             "an id from 1 to ", count));
    }
    return static_cast<int32_t>(v);
  };
  auto int32 = [](const Node& e, std::string_view key) {
    int64_t v = e.Get(key).Int();
    if (v < INT32_MIN || v > INT32_MAX) e.Get(key).Fail("is out of range (32-bit signed)");
    return static_cast<int32_t>(v);
  };
  if (n.Has("file_locations")) {
    for (const Node& e : n.Get("file_locations").Items()) {
      e.ExpectObject(
          {"file_name_id", "function_name_id", "line", "end_line", "column", "end_column"});
      index.file_locations.push_back({id(e, "file_name_id", index.file_names.size(), false),
                                      id(e, "function_name_id", index.function_names.size(), false),
                                      int32(e, "line"), int32(e, "end_line"), int32(e, "column"),
                                      int32(e, "end_column")});
    }
  }
  if (n.Has("stack_frames")) {
    std::vector<Node> frames = n.Get("stack_frames").Items();
    for (const Node& e : frames) {
      e.ExpectObject({"file_location_id", "parent_frame_id"});
      index.frames.push_back({id(e, "file_location_id", index.file_locations.size(), false),
                              id(e, "parent_frame_id", frames.size(), true)});
    }
  }
  return index;
}

// replica_count / num_partitions: the field, else the header attribute, else
// 1; when both are given they must agree.
int64_t CountField(const Node& n, const Module& m, std::string_view key) {
  int64_t from_header = 0;
  const ModuleAttr* a = m.FindHeaderAttr(key);
  if (a && (!ParseInt64(a->value, &from_header) || from_header < 1)) {
    n.Get("header_attributes")
        .Fail(StrCat(key, " must be a positive integer, found '", a->value, "'"));
  }
  int64_t v = n.IntOr(key, a ? from_header : 1);
  if (v < 1) n.Get(key).Fail("must be a positive integer");
  if (a && v != from_header) {
    n.Get(key).Fail(StrCat("is ", v, " but the header attribute says ", from_header));
  }
  return v;
}

std::unique_ptr<Module> Reader::ReadModule(const Node& n) {
  n.ExpectObject({"format", "version", "name", "header_attributes", "entry_computation_layout",
                  "replica_count", "num_partitions", "print_style", "stack_frame_index",
                  "computations"});
  if (n.Get("format").Str() != kModuleJsonFormat) {
    n.Get("format").Fail(StrCat("expected \"", kModuleJsonFormat, "\""));
  }
  if (n.Get("version").Int() != kModuleJsonVersion) {
    n.Get("version").Fail(StrCat("unsupported version ", n.Get("version").Int(),
                                 " (this reader knows version ", kModuleJsonVersion, ")"));
  }
  module_ = std::make_unique<Module>(Name(n.Get("name")));
  if (n.Has("header_attributes")) ReadHeader(n.Get("header_attributes"));
  if (n.Has("entry_computation_layout")) ReadEntryLayout(n.Get("entry_computation_layout"));
  module_->set_replica_count(CountField(n, *module_, "replica_count"));
  module_->set_num_partitions(CountField(n, *module_, "num_partitions"));
  if (n.Has("print_style")) ReadStyle(n.Get("print_style"));
  if (n.Has("stack_frame_index")) {
    module_->stack_frames() = ReadStackFrameIndex(n.Get("stack_frame_index"));
  }
  // All computations first, so calls can refer forward.
  std::vector<Node> comps = n.Get("computations").Items();
  if (comps.empty()) n.Get("computations").Fail("a module needs at least one computation");
  for (const Node& cn : comps) {
    cn.ExpectObject({"name", "is_entry", "execution_thread", "printed_signature", "parameters",
                     "root", "instructions"});
    std::string name = Name(cn.Get("name"));
    Computation* c = module_->AddComputation(std::make_unique<Computation>(name));
    if (!computations_.emplace(name, c).second) {
      cn.Get("name").Fail(StrCat("duplicate computation name '", name, "'"));
    }
    if (cn.BoolOr("is_entry", false)) {
      if (module_->entry()) {
        cn.Get("is_entry")
            .Fail(StrCat("more than one entry computation ('", module_->entry()->name(), "' and '",
                         name, "')"));
      }
      module_->set_entry(c);
    }
  }
  if (!module_->entry()) n.Get("computations").Fail("no computation has \"is_entry\": true");
  for (size_t i = 0; i < comps.size(); ++i) ReadBody(comps[i], module_->computations()[i].get());
  return std::move(module_);
}

// ---- Documents ----------------------------------------------------------------

// The end of the JSON value starting at `pos` (a balanced {...} or [...],
// strings skipped), or the end of the text when it is not one: then the
// JSON parser reports what is wrong.
size_t ValueEnd(std::string_view text, size_t pos) {
  if (text[pos] != '{' && text[pos] != '[') return text.size();
  int depth = 0;
  bool in_string = false;
  for (size_t i = pos; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return text.size();
}

// Where a parse error is, in the whole text (nlohmann counts from the start
// of the document it was given): "line L, column C".
std::string ParseErrorPlace(const nlohmann::json::parse_error& e, std::string_view text,
                            size_t doc_start) {
  size_t at = std::min(text.size(), doc_start + (e.byte > 0 ? e.byte - 1 : 0));
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
  size_t line_start = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  size_t col = line_start == std::string_view::npos ? at + 1 : at - line_start;
  return StrCat("line ", line, ", column ", col);
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column
// 2: syntax error ..." without its prefix and position.
std::string ParseErrorWhat(const nlohmann::json::parse_error& e) {
  std::string what = e.what();
  size_t p = what.find("parse error");
  size_t colon = p == std::string::npos ? p : what.find(": ", p);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

bool OnlySpaceFrom(std::string_view text, size_t pos) {
  return text.find_first_not_of(" \t\r\n", pos) == std::string_view::npos;
}

absl::Status Error(std::string_view filename, std::string_view where, std::string_view what) {
  return MarkLocated(
      absl::InvalidArgumentError(StrCat(filename, ": error: module JSON: ", where, ": ", what)));
}

// Reads one module object; `prefix` and `path` place it in the input.
absl::StatusOr<std::unique_ptr<Module>> ReadDocument(const J& doc, std::string_view filename,
                                                     std::string_view prefix, std::string path) {
  try {
    return Reader().ReadModule(Node(doc, std::move(path)));
  } catch (const ReadError& e) {
    return Error(filename, StrCat(prefix, e.path), e.what);
  } catch (const nlohmann::json::exception& e) {
    return Error(filename, StrCat(prefix, "/"), e.what());
  }
}

// A document is a module object, or an array of them.
absl::Status ReadModules(const J& doc, std::string_view filename, std::string_view prefix,
                         std::vector<std::unique_ptr<Module>>& modules) {
  std::vector<std::pair<const J*, std::string>> items;
  if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i) items.push_back({&doc[i], StrCat("/", i)});
  } else {
    items.push_back({&doc, ""});
  }
  for (auto& [item, path] : items) {
    absl::StatusOr<std::unique_ptr<Module>> m = ReadDocument(*item, filename, prefix, path);
    if (!m.ok()) return m.status();
    modules.push_back(*std::move(m));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Module>>> ModulesFromJson(std::string_view json,
                                                                     std::string_view filename) {
  std::vector<std::unique_ptr<Module>> modules;
  size_t pos = 0;
  for (int count = 1; !OnlySpaceFrom(json, pos); ++count) {
    pos = json.find_first_not_of(" \t\r\n", pos);
    size_t end = ValueEnd(json, pos);
    J doc;
    try {
      doc = J::parse(json.substr(pos, end - pos));
    } catch (const nlohmann::json::parse_error& e) {
      return Error(filename, ParseErrorPlace(e, json, pos), ParseErrorWhat(e));
    } catch (const nlohmann::json::exception& e) {
      return Error(filename, "/", e.what());
    }
    // With several documents, errors say which one.
    std::string prefix =
        count == 1 && OnlySpaceFrom(json, end) ? "" : StrCat("document ", count, ": ");
    if (absl::Status st = ReadModules(doc, filename, prefix, modules); !st.ok()) return st;
    pos = end;
  }
  if (modules.empty()) return Error(filename, "/", "the input holds no module");
  return modules;
}

absl::StatusOr<std::unique_ptr<Module>> ModuleFromJson(std::string_view json,
                                                       std::string_view filename) {
  absl::StatusOr<std::vector<std::unique_ptr<Module>>> modules = ModulesFromJson(json, filename);
  if (!modules.ok()) return modules.status();
  if (modules->size() != 1) {
    return Error(filename, "/",
                 StrCat("the input holds ", modules->size(),
                        " modules where one was expected (read it with ModulesFromJson)"));
  }
  return std::move(modules->front());
}

}  // namespace hlo
