// Writing the module JSON (schema: docs/module-json.md).
//
// Everything the printer uses is written, so that module_json_read.cc can
// rebuild a module that prints the same; derived fields (parameters, called
// computations, control predecessors, shape text) are written too, for
// scripts, and are checked on reading.
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/module_json.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using J = nlohmann::ordered_json;
namespace mj = module_json;

// Free text: a JSON string when it is UTF-8 (JSON cannot hold other bytes),
// else {"hex": "..."}.
J Text(std::string_view s) {
  if (mj::IsValidUtf8(s)) return std::string(s);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  J o = J::object();
  o["hex"] = std::move(hex);
  return o;
}

template <typename T>
J NameList(const T& items) {
  J a = J::array();
  for (const auto* item : items) a.push_back(item ? Text(item->name()) : J());
  return a;
}

// ---- Shapes -------------------------------------------------------------------

J ShapeStructure(const Shape& s);

J TileJson(const Tile& tile) {
  J a = J::array();
  for (int64_t d : tile.dims) {
    if (d == Tile::kCombineDimension) {
      a.push_back("*");
    } else {
      a.push_back(d);
    }
  }
  return a;
}

// minor_to_major always; every other field only when it is not the default.
J LayoutJson(const Layout& l) {
  J o = J::object();
  o["minor_to_major"] = std::vector<int64_t>(l.minor_to_major.begin(), l.minor_to_major.end());
  if (!l.dim_levels.empty()) {
    J levels = J::array();
    for (const Layout::DimLevel& d : l.dim_levels) {
      levels.push_back(
          {{"type", mj::DimLevelTypeName(d.type)}, {"unique", d.unique}, {"ordered", d.ordered}});
    }
    o["dim_levels"] = std::move(levels);
  }
  if (!l.tiles.empty()) {
    J tiles = J::array();
    for (const Tile& t : l.tiles) tiles.push_back(TileJson(t));
    o["tiles"] = std::move(tiles);
  }
  if (l.tail_padding_alignment_in_elements != 1) {
    o["tail_padding_alignment_in_elements"] = l.tail_padding_alignment_in_elements;
  }
  if (l.index_primitive_type)
    o["index_primitive_type"] = PrimitiveTypeName(*l.index_primitive_type);
  if (l.pointer_primitive_type) {
    o["pointer_primitive_type"] = PrimitiveTypeName(*l.pointer_primitive_type);
  }
  if (l.element_size_in_bits != 0) o["element_size_in_bits"] = l.element_size_in_bits;
  if (l.memory_space != 0) o["memory_space"] = l.memory_space;
  if (!l.split_configs.empty()) {
    J scs = J::array();
    for (const SplitConfig& sc : l.split_configs) {
      scs.push_back({{"dimension", sc.dimension}, {"split_indices", sc.split_indices}});
    }
    o["split_configs"] = std::move(scs);
  }
  if (l.physical_shape) o["physical_shape"] = ShapeStructure(*l.physical_shape);
  if (l.dynamic_shape_metadata_prefix_bytes != 0) {
    o["dynamic_shape_metadata_prefix_bytes"] = l.dynamic_shape_metadata_prefix_bytes;
  }
  return o;
}

J ShapeStructure(const Shape& s) {
  J o = J::object();
  switch (s.kind()) {
    case Shape::Kind::kTuple: {
      J elems = J::array();
      for (const Shape* e : s.tuple_shapes()) elems.push_back(ShapeStructure(*e));
      o["tuple"] = std::move(elems);
      return o;
    }
    case Shape::Kind::kToken:
      o["element_type"] = "token";
      return o;
    case Shape::Kind::kOpaque:
      o["element_type"] = "opaque";
      return o;
    case Shape::Kind::kArray:
      break;
  }
  o["element_type"] = PrimitiveTypeName(s.element_type());
  o["dims"] = std::vector<int64_t>(s.dims().begin(), s.dims().end());
  J dynamic = J::array();
  for (int64_t i = 0; i < s.rank(); ++i) dynamic.push_back(s.is_dynamic_dim(i));
  o["dynamic"] = std::move(dynamic);
  if (s.has_layout()) o["layout"] = LayoutJson(s.layout());
  return o;
}

// A shape value outside an instruction: {"shape": text, "shape_structure"}.
J ShapeJson(const Shape& s) {
  return {{"shape", s.ToString(true)}, {"shape_structure", ShapeStructure(s)}};
}

// ---- Literals -----------------------------------------------------------------

// The JSON of one real float: a number, or "nan" / "inf" / "-inf". Finite
// values are the type's shortest text when that reads back to the same
// value (more readable than the double's digits), else the exact double.
J FloatJson(double v, PrimitiveType t, Literal& scratch) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (t == PrimitiveType::kF64) return v;
  std::string text;
  AppendShortestFloat(text, v, t);
  double d = 0;
  if (!ParseDouble(text, &d)) return v;
  scratch.SetDouble(0, d);
  uint64_t short_bits = scratch.GetBits(0);
  scratch.SetDouble(0, v);
  return short_bits == scratch.GetBits(0) ? J(d) : J(v);
}

// The bits the reader stores for a FloatJson value (to find the elements
// whose value alone does not give back their bits: NaN payloads, -nan).
uint64_t ReadBackBits(const J& v, Literal& scratch) {
  double d = 0;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    d = s == "nan" ? std::nan("") : s == "inf" ? INFINITY : -INFINITY;
  } else {
    d = v.get<double>();
  }
  scratch.SetDouble(0, d);
  return scratch.GetBits(0);
}

std::string Hex(uint64_t bits) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(bits));
  return buf;
}

// The exact encoding of every element, for "bits".
J BitsJson(const Literal& lit) {
  J bits = J::array();
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    if (IsComplex(lit.element_type())) {
      bits.push_back(
          {Hex(mj::ComplexComponentBits(lit, i, 0)), Hex(mj::ComplexComponentBits(lit, i, 1))});
    } else {
      bits.push_back(Hex(lit.GetBits(i)));
    }
  }
  return bits;
}

// Writes the elements of an array literal as "values", and "bits" when a
// value does not give back its element's exact encoding.
void ArrayValues(const Literal& lit, J& o) {
  PrimitiveType t = lit.element_type();
  bool complex = IsComplex(t);
  PrimitiveType scalar_type = complex ? ComplexComponentType(t) : t;
  Literal scratch;
  if (IsFloat(scalar_type)) scratch = *Literal::Create(Shape::Array(scalar_type, {1}));
  J values = J::array();
  bool need_bits = false;
  auto real = [&](double v, uint64_t exact) {
    J j = FloatJson(v, scalar_type, scratch);
    need_bits |= ReadBackBits(j, scratch) != exact;
    return j;
  };
  int64_t n = lit.shape().IsArray() ? lit.element_count() : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (IsPred(t)) {
      values.push_back(lit.GetInt(i) != 0);
    } else if (IsSignedInt(t)) {
      values.push_back(lit.GetInt(i));
    } else if (IsUnsignedInt(t)) {
      values.push_back(static_cast<uint64_t>(lit.GetInt(i)));
    } else if (complex) {
      std::complex<double> c = lit.GetComplex(i);
      J re = real(c.real(), mj::ComplexComponentBits(lit, i, 0));
      J im = real(c.imag(), mj::ComplexComponentBits(lit, i, 1));
      values.push_back(J::array({std::move(re), std::move(im)}));
    } else {
      values.push_back(real(lit.GetDouble(i), lit.GetBits(i)));
    }
  }
  o["values"] = std::move(values);
  if (need_bits) o["bits"] = BitsJson(lit);
}

// {"values": [...]} for arrays, {"elements": [...]} for tuples.
void LiteralFields(const Literal& lit, J& o) {
  if (!lit.IsTuple()) {
    ArrayValues(lit, o);
    return;
  }
  J elems = J::array();
  for (const Literal& e : lit.elements()) {
    J eo = J::object();
    LiteralFields(e, eo);
    elems.push_back(std::move(eo));
  }
  o["elements"] = std::move(elems);
}

J ConstantJson(const Instruction& inst) {
  J o = J::object();
  if (inst.literal_elided()) o["elided"] = true;
  if (inst.literal()) LiteralFields(*inst.literal(), o);
  return o;
}

// ---- Attributes ---------------------------------------------------------------

J IotaJson(const IotaTileAssignment& iota) {
  J o = {{"dims", iota.dims}, {"reshape_dims", iota.reshape_dims}};
  if (!iota.transpose_perm.empty()) o["transpose_perm"] = iota.transpose_perm;
  return o;
}

J KeyValuesJson(const KeyValues& kvs) {
  J a = J::array();
  for (const KeyValue& kv : kvs) {
    a.push_back({{"key", Text(kv.key)}, {"value", Text(kv.value)}, {"quoted", kv.quoted}});
  }
  return a;
}

// ---- Meshes ---------------------------------------------------------------------

J MeshJson(const Mesh& m) {
  J o = J::object();
  if (m.maximal_device) {
    o["maximal_device"] = *m.maximal_device;
    return o;
  }
  J axes = J::array();
  for (size_t i = 0; i < m.axis_sizes.size(); ++i) {
    axes.push_back({{"name", Text(m.axis_names[i])}, {"size", m.axis_sizes[i]}});
  }
  o["axes"] = std::move(axes);
  if (!m.iota_reshape_dims.empty()) {
    o["iota_reshape_dims"] = m.iota_reshape_dims;
    o["iota_transpose_perm"] = m.iota_perm;
  }
  if (!m.device_ids.empty()) o["device_ids"] = m.device_ids;
  return o;
}

J AxisRefsJson(const Mesh& m, const std::vector<MeshAxisRef>& refs) {
  J a = J::array();
  for (const MeshAxisRef& r : refs) {
    J o = {{"axis", Text(m.axis_names[r.axis])}};
    if (r.is_sub_axis()) {
      o["pre_size"] = r.pre_size;
      o["size"] = r.size;
    }
    a.push_back(std::move(o));
  }
  return a;
}

J NamedShardingJson(const NamedSharding& s) {
  J dims = J::array();
  for (const NamedSharding::Dim& d : s.dims) {
    dims.push_back({{"axes", AxisRefsJson(s.mesh, d.axes)}, {"closed", d.closed}});
  }
  static constexpr std::string_view kReductions[] = {"sum", "max", "min"};
  return {{"mesh", MeshJson(s.mesh)},
          {"dims", std::move(dims)},
          {"replicated", AxisRefsJson(s.mesh, s.replicated)},
          {"unreduced", AxisRefsJson(s.mesh, s.unreduced)},
          {"manual", AxisRefsJson(s.mesh, s.manual)},
          {"reduction", kReductions[static_cast<int>(s.reduction)]}};
}

// Every field that is not its default, so that reading gives an equal
// Sharding whatever the type.
J ShardingJson(const Sharding& s) {
  J o = {{"type", mj::ShardingTypeName(s.type)}};
  if (s.type == Sharding::Type::kMaximal || s.device != 0) o["device"] = s.device;
  if (!s.tile_dims.empty()) o["tile_dims"] = s.tile_dims;
  if (!s.devices.empty()) o["devices"] = s.devices;
  if (s.iota) o["iota"] = IotaJson(*s.iota);
  if (s.last_tile_dim_replicate) o["last_tile_dim_replicate"] = true;
  if (!s.last_tile_dims.empty()) o["last_tile_dims"] = s.last_tile_dims;
  if (!s.metadata.empty()) {
    J m = J::array();
    for (const KeyValues& kv : s.metadata) m.push_back(KeyValuesJson(kv));
    o["metadata"] = std::move(m);
  }
  if (!s.shard_group.empty()) o["shard_group"] = s.shard_group;
  if (s.named) o["named"] = NamedShardingJson(*s.named);
  if (s.type == Sharding::Type::kTuple) {
    J elems = J::array();
    for (const Sharding& e : s.tuple_elements) elems.push_back(ShardingJson(e));
    o["tuple_elements"] = std::move(elems);
  }
  return o;
}

J ConvDimsJson(const ConvDims& d) {
  std::string text;
  AppendConvDims(text, d);
  return {{"text", text},
          {"input_batch", d.input_batch},
          {"input_feature", d.input_feature},
          {"input_spatial", d.input_spatial},
          {"kernel_input_feature", d.kernel_input_feature},
          {"kernel_output_feature", d.kernel_output_feature},
          {"kernel_spatial", d.kernel_spatial},
          {"output_batch", d.output_batch},
          {"output_feature", d.output_feature},
          {"output_spatial", d.output_spatial}};
}

J WindowJson(const Window& w) {
  J a = J::array();
  for (const WindowDim& d : w) {
    a.push_back({{"size", d.size},
                 {"stride", d.stride},
                 {"padding_low", d.padding_low},
                 {"padding_high", d.padding_high},
                 {"base_dilation", d.base_dilation},
                 {"window_dilation", d.window_dilation},
                 {"window_reversal", d.window_reversal}});
  }
  return a;
}

// One overload per AttrValue alternative; `type` tells a single computation
// from a list.
struct AttrWriter {
  AttrType type;

  J operator()(int64_t v) const { return v; }
  J operator()(double v) const {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
  }
  J operator()(bool v) const { return v; }
  J operator()(const InternedString& v) const { return Text(v); }
  J operator()(const std::vector<int64_t>& v) const { return v; }
  J operator()(const std::shared_ptr<const std::vector<bool>>& flags) const {
    const std::vector<bool>& v = *flags;
    J a = J::array();
    for (bool b : v) a.push_back(b);
    return a;
  }
  J operator()(const std::vector<std::string>& v) const {
    J a = J::array();
    for (const std::string& s : v) a.push_back(Text(s));
    return a;
  }
  J operator()(const std::vector<std::vector<int64_t>>& v) const { return v; }
  J operator()(const Shape* s) const { return ShapeJson(*s); }
  J operator()(const std::vector<const Shape*>& v) const {
    J a = J::array();
    for (const Shape* s : v) a.push_back(ShapeJson(*s));
    return a;
  }
  J operator()(const std::vector<Computation*>& v) const {
    if (type == AttrType::kComputation && v.size() == 1) return Text(v[0]->name());
    return NameList(v);
  }
  J operator()(const std::vector<Instruction*>& v) const { return NameList(v); }
  J operator()(const std::shared_ptr<const Window>& w) const { return WindowJson(*w); }
  J operator()(const std::shared_ptr<const ConvDims>& d) const { return ConvDimsJson(*d); }
  J operator()(const std::shared_ptr<const PaddingConfig>& p) const {
    J a = J::array();
    for (const PaddingDim& d : *p) {
      a.push_back({{"low", d.low}, {"high", d.high}, {"interior", d.interior}});
    }
    return a;
  }
  J operator()(const std::shared_ptr<const SliceSpec>& s) const {
    J a = J::array();
    for (const SliceDim& d : *s) {
      a.push_back({{"start", d.start}, {"limit", d.limit}, {"stride", d.stride}});
    }
    return a;
  }
  J operator()(const std::shared_ptr<const ReplicaGroups>& g) const {
    // The iota form also lists the groups it stands for, for scripts.
    J o = J::object();
    if (g->iota) o["iota"] = IotaJson(*g->iota);
    if (g->mesh) {
      o["mesh"] = {{"mesh", MeshJson(g->mesh->mesh)},
                   {"axes", AxisRefsJson(g->mesh->mesh, g->mesh->axes)}};
    }
    o["groups"] = g->Groups();
    return o;
  }
  J operator()(const std::shared_ptr<const Sharding>& s) const { return ShardingJson(*s); }
  J operator()(const std::shared_ptr<const KeyValues>& kv) const { return KeyValuesJson(*kv); }
  J operator()(const std::shared_ptr<const BackendConfig>& b) const {
    return {{"text", Text(b->text)}, {"is_json_object", b->is_json_object}};
  }
  J operator()(const std::shared_ptr<const Aliasing>& a) const {
    J arr = J::array();
    for (const AliasEntry& e : *a) {
      arr.push_back({{"output_index", e.output_index},
                     {"operand", e.operand},
                     {"operand_index", e.operand_index}});
    }
    return arr;
  }
  J operator()(const std::shared_ptr<const Literal>& lit) const {
    J o = ShapeJson(lit->shape());
    LiteralFields(*lit, o);
    return o;
  }
};

J AttributeJson(const Instruction& inst, const Attribute& a) {
  AttrType type = mj::StoredAttrType(a.kind, inst.opcode());
  return {{"name", AttrName(a.kind)},
          {"type", mj::AttrTypeName(type)},
          {"value", std::visit(AttrWriter{type}, a.value)}};
}

// ---- Instructions, computations, module ---------------------------------------

J InstructionJson(Module& module, const Instruction& inst) {
  J o = J::object();
  o["name"] = Text(inst.name());
  o["opcode"] = inst.OpcodeText();
  o["base_opcode"] = OpcodeName(inst.opcode());
  if (inst.has_wrapped_opcode()) o["wrapped_opcode"] = OpcodeName(inst.wrapped_opcode());
  o["shape"] = module.shapes().Text(inst.shape_ptr());
  o["shape_structure"] = ShapeStructure(inst.shape());
  o["operands"] = NameList(inst.operands());
  if (inst.opcode() == Opcode::kParameter) o["parameter_number"] = inst.parameter_number();
  if (inst.opcode() == Opcode::kConstant) o["literal"] = ConstantJson(inst);
  std::vector<Computation*> called = inst.called_computations();
  if (!called.empty()) o["called_computations"] = NameList(called);
  if (!inst.control_predecessors().empty()) {
    o["control_predecessors"] = NameList(inst.control_predecessors());
  }
  J attrs = J::array();
  for (const Attribute& a : inst.attributes()) attrs.push_back(AttributeJson(inst, a));
  o["attributes"] = std::move(attrs);
  return o;
}

J ComputationJson(const Computation& c) {
  J o = J::object();
  o["name"] = Text(c.name());
  o["is_entry"] = c.is_entry();
  o["execution_thread"] = Text(c.execution_thread());
  o["printed_signature"] = c.printed_signature();
  o["parameters"] = NameList(c.parameters());
  o["root"] = c.root() ? Text(c.root()->name()) : J();
  return o;
}

// Ids as in ir/stack_frames.h: 1-based, a frame's parent 0 when it has none.
J StackFrameIndexJson(const StackFrameIndex& index) {
  J files = J::array(), functions = J::array(), locations = J::array(), frames = J::array();
  for (const std::string& f : index.file_names) files.push_back(Text(f));
  for (const std::string& f : index.function_names) functions.push_back(Text(f));
  for (const StackFrameIndex::FileLocation& l : index.file_locations) {
    locations.push_back({{"file_name_id", l.file_name_id},
                         {"function_name_id", l.function_name_id},
                         {"line", l.line},
                         {"end_line", l.end_line},
                         {"column", l.column},
                         {"end_column", l.end_column}});
  }
  for (const StackFrameIndex::Frame& f : index.frames) {
    frames.push_back({{"file_location_id", f.file_location_id}, {"parent_frame_id", f.parent}});
  }
  return {{"file_names", std::move(files)},
          {"function_names", std::move(functions)},
          {"file_locations", std::move(locations)},
          {"stack_frames", std::move(frames)}};
}

J ModuleFieldsJson(const Module& m) {
  J o = J::object();
  o["format"] = std::string(kModuleJsonFormat);
  o["version"] = kModuleJsonVersion;
  o["name"] = Text(m.name());
  J header = J::array();
  for (const ModuleAttr& a : m.header_attrs()) {
    header.push_back({{"name", Text(a.name)}, {"value", Text(a.value)}});
  }
  o["header_attributes"] = std::move(header);
  if (m.entry_result_layout()) {
    J params = J::array();
    for (const Shape* s : m.entry_parameter_layouts()) params.push_back(ShapeJson(*s));
    o["entry_computation_layout"] = {{"parameters", std::move(params)},
                                     {"result", ShapeJson(*m.entry_result_layout())}};
  }
  o["replica_count"] = m.replica_count();
  o["num_partitions"] = m.num_partitions();
  const PrintStyle& st = m.style();
  o["print_style"] = {{"percent_names", st.percent_names},   {"signatures", st.signatures},
                      {"operand_shapes", st.operand_shapes}, {"print_metadata", st.print_metadata},
                      {"print_layouts", st.print_layouts},   {"compact_gte", st.compact_gte}};
  const StackFrameIndex& frames = m.stack_frames();
  if (!frames.file_names.empty() || !frames.function_names.empty() ||
      !frames.file_locations.empty() || !frames.frames.empty()) {
    o["stack_frame_index"] = StackFrameIndexJson(frames);
  }
  return o;
}

// Compact JSON; Text() keeps every string UTF-8, so this never throws.
std::string Dump(const J& j) { return j.dump(-1, ' ', false, J::error_handler_t::replace); }

// The object's text without its closing brace, to append more members.
std::string Open(const J& j) {
  std::string s = Dump(j);
  s.pop_back();
  return s;
}

}  // namespace

std::string ModuleToJson(Module& module) {
  // One computation header per line and one instruction per line: still a
  // single JSON value, but readable and friendly to line-based diffs.
  std::string out = Open(ModuleFieldsJson(module));
  out += ",\"computations\":[";
  bool first_comp = true;
  for (const auto& c : module.computations()) {
    out += first_comp ? "\n" : ",\n";
    first_comp = false;
    out += Open(ComputationJson(*c));
    out += ",\"instructions\":[";
    bool first_inst = true;
    for (const auto& inst : c->instructions()) {
      out += first_inst ? "\n  " : ",\n  ";
      first_inst = false;
      out += Dump(InstructionJson(module, *inst));
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

}  // namespace hlo
