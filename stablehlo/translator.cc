#include "stablehlo/translator.h"

#include "absl/container/flat_hash_set.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/locations.h"
#include "stablehlo/op_util.h"
#include "stablehlo/quant.h"

namespace hlo::stablehlo {

std::string HloName(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "_" + out;
  return out;
}

namespace {

bool IsTerminator(std::string_view name) {
  return name == "stablehlo.return" || name == "func.return" || name == "sdy.return";
}

}  // namespace

std::string Translator::NewName(std::string_view prefix) {
  return StrCat(HloName(prefix), ".", next_id_++);
}

// `, frontend_attributes={k="v",...}` of the op's mhlo.frontend_attributes,
// which XLA's translation gives every instruction it makes for the op; none
// when the body has its own (custom_call's, send/recv's).
static void AppendFrontendAttributes(const Op& op, std::string_view body, std::string* out) {
  if (op.attrs.empty() || body.find("frontend_attributes={") != std::string_view::npos) return;
  std::vector<std::string> entries = FrontendAttributeEntries(op);
  if (!entries.empty()) StrAppend(out, ", frontend_attributes={", StrJoin(entries, ","), "}");
}

std::string Translator::Emit(Scope& s, const Op& op, std::string_view prefix, const Type& type,
                             std::string_view body) {
  HloLine line;
  line.name = NewName(prefix);
  line.text = StrCat(line.name, " = ", type.Hlo(), " ", body);
  AppendFrontendAttributes(op, body, &line.text);
  std::string meta = MetadataText(op.loc);
  if (!meta.empty()) StrAppend(&line.text, ", ", meta);
  line.pos = op.pos;
  s.comp->lines.push_back(std::move(line));
  return s.comp->lines.back().name;
}

absl::StatusOr<Value> Translator::Lookup(const Scope& s, const Use& use) {
  auto it = s.values.find(use.name);
  if (it != s.values.end()) return it->second;
  if (s.captures != nullptr && s.parent != nullptr) {
    HLO_ASSIGN_OR_RETURN(Value outer, Lookup(*s.parent, use));
    const size_t index = s.captures->outer.size();
    s.captures->outer.push_back(outer);
    HloLine line;
    line.name = NewName("get-tuple-element");
    line.text = StrCat(line.name, " = ", outer.type.Hlo(), " get-tuple-element(", s.captures->param,
                       "), index=", index);
    line.pos = use.pos;
    s.comp->lines.push_back(std::move(line));
    Value inner{s.comp->lines.back().name, outer.type};
    s.values[use.name] = inner;
    return inner;
  }
  for (const Scope* p = s.parent; p != nullptr; p = p->parent) {
    if (p->values.contains(use.name)) {
      return Error(use.pos, StrCat(use.name,
                                   " is defined outside this region; implicit captures are not "
                                   "supported here (pass it as an operand)"));
    }
  }
  return Error(use.pos, StrCat("use of undefined value ", use.name));
}

absl::StatusOr<std::vector<Value>> Translator::Operands(const Scope& s, const Op& op) {
  std::vector<Value> out;
  out.reserve(op.operands.size());
  for (size_t i = 0; i < op.operands.size(); ++i) {
    HLO_ASSIGN_OR_RETURN(Value v, Lookup(s, op.operands[i]));
    if (i < op.operand_types.size() && op.operand_types[i].kind == Type::Kind::kTensor &&
        !(v.type == op.operand_types[i])) {
      return Error(op.operands[i].pos,
                   StrCat("type mismatch: ", op.operands[i].name, " is ", v.type.Mlir(),
                          " but the op says ", op.operand_types[i].Mlir()));
    }
    out.push_back(std::move(v));
  }
  return out;
}

absl::StatusOr<Type> Translator::SingleResult(const Op& op) const {
  if (op.result_types.size() != 1) {
    return Error(op.name_pos, StrCat(op.name, " has one result, not ", op.result_types.size()));
  }
  return op.result_types[0];
}

Type Translator::ResultType(const Op& op) const {
  if (op.result_types.size() == 1) return op.result_types[0];
  Type t;
  t.kind = Type::Kind::kTuple;
  t.elements = op.result_types;
  return t;
}

absl::Status Translator::BindResults(Scope& s, const Op& op, const std::string& name) {
  if (op.result_types.size() != 1) return BindTupleResults(s, op, name);
  if (op.results.size() != 1) {
    return Error(op.pos, StrCat(op.name, " has 1 result but ", op.results.size(), " are named"));
  }
  s.values[op.results[0]] = Value{name, op.result_types[0]};
  return absl::OkStatus();
}

absl::Status Translator::BindTupleResults(Scope& s, const Op& op, const std::string& tuple_name) {
  if (op.results.size() != op.result_types.size()) {
    return Error(op.pos, StrCat(op.name, " has ", op.result_types.size(), " results but ",
                                op.results.size(), " are named"));
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    std::string gte = Emit(s, op, "get-tuple-element", op.result_types[i],
                           StrCat("get-tuple-element(", tuple_name, "), index=", i));
    s.values[op.results[i]] = Value{gte, op.result_types[i]};
  }
  return absl::OkStatus();
}

std::string Translator::Splat(Scope& s, const Op& op, const Type& type, std::string_view text) {
  Type scalar = type;
  scalar.dims.clear();
  std::string c = Emit(s, op, "constant", scalar, StrCat("constant(", text, ")"));
  if (type.dims.empty()) return c;
  return Emit(s, op, "broadcast", type, StrCat("broadcast(", c, "), dimensions={}"));
}

std::string Translator::ScalarComputation(std::string_view opcode, std::string_view element) {
  std::string& name = scalar_computations_[StrCat(opcode, " ", element)];
  if (!name.empty()) return name;
  comps_.push_back(std::make_unique<HloComputation>());
  HloComputation* comp = comps_.back().get();
  comp->name = name = NewName(StrCat(opcode, "_", element));
  Type scalar;
  scalar.element = std::string(element);
  Scope s{comp, {}, nullptr};
  Op none;
  const std::string a = Emit(s, none, "lhs", scalar, "parameter(0)");
  const std::string b = Emit(s, none, "rhs", scalar, "parameter(1)");
  comp->root = Emit(s, none, opcode, scalar, StrCat(opcode, "(", a, ", ", b, ")"));
  return name;
}

absl::Status Translator::TranslateOp(const Op& op, Scope& s) {
  if (has_quant_types_ && UsesQuantTypes(op)) return TranslateQuantOp(*this, op, s);
  OpTranslator fn = FindOpTranslator(op.name);
  if (fn == nullptr) {
    return Error(op.name_pos, StrCat("unsupported op '", op.name, "'"));
  }
  return fn(*this, op, s);
}

absl::Status Translator::TranslateBlock(const Block& block, Scope& s,
                                        std::vector<Value>* returned) {
  // Values move when the table grows: make room for the block's at once.
  s.values.reserve(s.values.size() + block.ops.size() + block.args.size());
  s.comp->lines.reserve(s.comp->lines.size() + block.ops.size() * 2);
  for (size_t i = 0; i < block.ops.size(); ++i) {
    const Op& op = block.ops[i];
    if (IsTerminator(op.name)) {
      if (i + 1 != block.ops.size()) {
        return Error(block.ops[i + 1].pos, "an op after the block's terminator");
      }
      HLO_ASSIGN_OR_RETURN(*returned, Operands(s, op));
      return absl::OkStatus();
    }
    HLO_RETURN_IF_ERROR(TranslateOp(op, s));
  }
  Pos end = block.ops.empty() ? Pos() : block.ops.back().pos;
  return Error(end, "a block must end with a return");
}

absl::StatusOr<std::string> Translator::RegionComputation(const Region& region,
                                                          std::string_view prefix, bool tuple_param,
                                                          bool tuple_root, const Scope& outer,
                                                          size_t expected_args) {
  if (region.blocks.size() != 1) return Error(region.pos, "expected a region of one block");
  const Block& block = region.blocks[0];
  if (block.args.size() != expected_args) {
    return Error(region.pos, StrCat("the region has ", block.args.size(), " arguments, expected ",
                                    expected_args));
  }
  comps_.push_back(std::make_unique<HloComputation>());
  HloComputation* comp = comps_.back().get();
  comp->name = NewName(prefix);
  comp->pos = region.pos;
  Scope s{comp, {}, &outer};
  Op param_op;
  param_op.pos = region.pos;
  if (tuple_param) {
    Type t;
    t.kind = Type::Kind::kTuple;
    for (const auto& a : block.args) t.elements.push_back(a.second);
    std::string p = Emit(s, param_op, "arg_tuple", t, "parameter(0)");
    for (size_t i = 0; i < block.args.size(); ++i) {
      param_op.pos = block.arg_pos[i];
      std::string g = Emit(s, param_op, "get-tuple-element", block.args[i].second,
                           StrCat("get-tuple-element(", p, "), index=", i));
      s.values[block.args[i].first] = Value{g, block.args[i].second};
    }
  } else {
    for (size_t i = 0; i < block.args.size(); ++i) {
      param_op.pos = block.arg_pos[i];
      std::string p = Emit(s, param_op, "Arg_" + std::to_string(i), block.args[i].second,
                           StrCat("parameter(", i, ")"));
      s.values[block.args[i].first] = Value{p, block.args[i].second};
    }
  }
  std::vector<Value> returned;
  HLO_RETURN_IF_ERROR(TranslateBlock(block, s, &returned));
  if (returned.size() == 1 && !tuple_root) {
    comp->root = returned[0].name;
  } else {
    Type t;
    t.kind = Type::Kind::kTuple;
    std::vector<std::string> names;
    for (const Value& v : returned) {
      t.elements.push_back(v.type);
      names.push_back(v.name);
    }
    Op ret;
    ret.pos = block.ops.back().pos;
    comp->root = Emit(s, ret, "tuple", t, StrCat("tuple(", StrJoin(names, ", "), ")"));
  }
  return comp->name;
}

absl::StatusOr<std::string> Translator::BranchComputation(const Region& region, const Scope& outer,
                                                          std::vector<Value>* captured) {
  if (region.blocks.size() != 1 || !region.blocks[0].args.empty()) {
    return Error(region.pos, "a branch is one block without arguments");
  }
  comps_.push_back(std::make_unique<HloComputation>());
  HloComputation* comp = comps_.back().get();
  comp->name = NewName("branch");
  comp->pos = region.pos;
  Captures captures;
  captures.param = NewName("captures");
  Scope s{comp, {}, &outer, &captures};
  std::vector<Value> returned;
  HLO_RETURN_IF_ERROR(TranslateBlock(region.blocks[0], s, &returned));
  Type t;
  t.kind = Type::Kind::kTuple;
  std::vector<std::string> names;
  for (const Value& v : returned) {
    t.elements.push_back(v.type);
    names.push_back(v.name);
  }
  Op ret;
  ret.pos = region.blocks[0].ops.back().pos;
  comp->root = Emit(s, ret, "tuple", t, StrCat("tuple(", StrJoin(names, ", "), ")"));
  // The parameter, now that its type (the captured values') is known.
  Type param;
  param.kind = Type::Kind::kTuple;
  for (const Value& v : captures.outer) param.elements.push_back(v.type);
  HloLine line;
  line.name = captures.param;
  line.text = StrCat(line.name, " = ", param.Hlo(), " parameter(0)");
  line.pos = region.pos;
  comp->lines.insert(comp->lines.begin(), std::move(line));
  *captured = std::move(captures.outer);
  return comp->name;
}

absl::Status Translator::TranslateFunc(const Func& f, bool entry) {
  comps_.push_back(std::make_unique<HloComputation>());
  HloComputation* comp = comps_.back().get();
  comp->name = HloName(f.name);
  comp->entry = entry;
  comp->pos = f.pos;
  Scope s{comp, {}, nullptr};
  for (size_t i = 0; i < f.args.size(); ++i) {
    const Argument& a = f.args[i];
    Op param_op;
    param_op.pos = a.pos;
    std::string body = StrCat("parameter(", i, ")");
    if (const Attr* sh = a.attrs.Find("sdy.sharding"); sh && !sh->text.empty()) {
      std::string escaped;
      for (char c : "#" + sh->s + sh->text) {
        if (c == '"' || c == '\\') escaped.push_back('\\');
        escaped.push_back(c);
      }
      StrAppend(&body, ", frontend_attributes={xla.sdy.sharding=\"", escaped, "\"}");
    }
    if (const Attr* sh = a.attrs.Find("mhlo.sharding"); sh && sh->kind == Attr::Kind::kString) {
      StrAppend(&body, ", sharding=", sh->s);  // GSPMD's text, checked by the HLO parser
    }
    std::string p = Emit(s, param_op, StrCat("Arg_", i), a.type, body);
    s.values[a.name] = Value{p, a.type};
  }
  std::vector<Value> returned;
  HLO_RETURN_IF_ERROR(TranslateBlock(f.body.blocks[0], s, &returned));
  const Op& ret = f.body.blocks[0].ops.back();
  if (returned.size() != f.results.size()) {
    return Error(ret.pos, StrCat("@", f.name, " returns ", returned.size(), " values but has ",
                                 f.results.size(), " result types"));
  }
  for (size_t i = 0; i < returned.size(); ++i) {
    if (!(returned[i].type == f.results[i])) {
      return Error(ret.operands[i].pos,
                   StrCat("type mismatch: @", f.name, " returns ", returned[i].type.Mlir(),
                          " as result ", i, " of type ", f.results[i].Mlir()));
    }
  }
  if (returned.size() == 1) {
    comp->root = returned[0].name;
    // A parameter returned as it is: XLA's root must be an instruction of
    // its own when the entry returns an argument unchanged? No: any will do.
  } else {
    Type t;
    t.kind = Type::Kind::kTuple;
    std::vector<std::string> names;
    for (const Value& v : returned) {
      t.elements.push_back(v.type);
      names.push_back(v.name);
    }
    comp->root = Emit(s, ret, "tuple", t, StrCat("tuple(", StrJoin(names, ", "), ")"));
  }
  return absl::OkStatus();
}

absl::Status Translator::Translate() {
  const Func* entry = nullptr;
  absl::flat_hash_set<std::string> names;
  for (const Func& f : module_.funcs) {
    if (!names.insert(f.name).second) {
      return Error(f.pos, StrCat("function @", f.name, " is defined twice"));
    }
    if (f.name == "main") entry = &f;
  }
  if (entry == nullptr) {
    for (const Func& f : module_.funcs) {
      if (!f.is_public) continue;
      if (entry != nullptr) {
        return Error(f.pos, "no @main and more than one public function: which is the entry?");
      }
      entry = &f;
    }
  }
  if (entry == nullptr) return Error(module_.pos, "no @main function");
  for (const Func& f : module_.funcs) {
    HLO_RETURN_IF_ERROR(TranslateFunc(f, &f == entry));
  }
  Render();
  return absl::OkStatus();
}

absl::Status Translator::SetProcessGrid(Pos pos, int64_t replicas, int64_t partitions) {
  if (grid_replicas_ != 0 && (grid_replicas_ != replicas || grid_partitions_ != partitions)) {
    return Error(pos, StrCat("a grid of ", replicas, "x", partitions, " processes after one of ",
                             grid_replicas_, "x", grid_partitions_,
                             ": a module runs on one grid of devices"));
  }
  grid_replicas_ = replicas;
  grid_partitions_ = partitions;
  return absl::OkStatus();
}

std::vector<std::pair<std::string, std::string>> HeaderAttributes(const MlirModule& module,
                                                                  int64_t grid_replicas,
                                                                  int64_t grid_partitions) {
  std::vector<std::pair<std::string, std::string>> out;
  // A Shardy module (meshes) is the global program before partitioning: it
  // runs on one device, as XLA's dump of it before partitioning does.
  const Attr* fa = module.attrs.Find("mhlo.frontend_attributes");
  const bool shardy =
      !module.meshes.empty() || (fa != nullptr && fa->Find("xla.sdy.meshes") != nullptr);
  for (const auto& [key, header] :
       {std::pair<std::string_view, std::string_view>{"mhlo.num_replicas", "replica_count"},
        {"mhlo.num_partitions", "num_partitions"}}) {
    const Attr* a = module.attrs.Find(key);
    if (grid_replicas > 0) {  // interpreter.run_parallel's grid
      out.emplace_back(header, StrCat(header == "replica_count" ? grid_replicas : grid_partitions));
    } else if (!shardy && a != nullptr && a->kind == Attr::Kind::kInt) {
      out.emplace_back(header, StrCat(a->i));
    }
  }
  std::vector<std::string> entries;
  if (!module.meshes.empty()) {
    std::vector<std::string> meshes;
    for (const Mesh& m : module.meshes) meshes.push_back(StrCat(m.name, " = #sdy.mesh", m.text));
    entries.push_back(StrCat("xla.sdy.meshes={", StrJoin(meshes, ", "), "}"));
  }
  if (fa != nullptr && fa->kind == Attr::Kind::kDict) {
    for (const NamedAttr& e : fa->dict) {
      if (e.second.kind != Attr::Kind::kString) continue;
      if (e.first == "xla.sdy.meshes" && !module.meshes.empty()) continue;
      const std::string& v = e.second.s;
      if (v.size() >= 2 && v.front() == '{' && v.back() == '}') {
        entries.push_back(StrCat(e.first, "=", v));
        continue;
      }
      entries.push_back(StrCat(e.first, "=", HloQuoted(v)));
    }
  }
  if (!entries.empty())
    out.emplace_back("frontend_attributes", StrCat("{", StrJoin(entries, ","), "}"));
  return out;
}

void Translator::AppendModuleAttributes() {
  for (const auto& [name, value] : HeaderAttributes(module_, grid_replicas_, grid_partitions_)) {
    StrAppend(&text_, ", ", name, "=", value);
  }
}

void Translator::Render() {
  text_.clear();
  line_pos_.clear();
  size_t bytes = 256, lines = 2;
  for (const auto& c : comps_) {
    bytes += c->name.size() + 16;
    lines += c->lines.size() + 3;
    for (const HloLine& l : c->lines) bytes += l.text.size() + 8;
  }
  text_.reserve(bytes);
  line_pos_.reserve(lines);
  std::string name = module_.name.empty() ? "module" : HloName(module_.name);
  StrAppend(&text_, "HloModule ", name);
  AppendModuleAttributes();
  text_ += "\n\n";
  line_pos_.push_back(module_.pos);
  line_pos_.push_back(module_.pos);
  // Callees first is not needed (the parser resolves names); the entry last.
  std::vector<const HloComputation*> order;
  for (const auto& c : comps_) {
    if (!c->entry) order.push_back(c.get());
  }
  for (const auto& c : comps_) {
    if (c->entry) order.push_back(c.get());
  }
  for (const HloComputation* c : order) RenderComputation(*c, &text_, &line_pos_);
}

void RenderComputation(const HloComputation& c, std::string* text, std::vector<Pos>* line_pos) {
  StrAppend(text, c.entry ? "ENTRY " : "", c.name, " {\n");
  line_pos->push_back(c.pos);
  for (const HloLine& l : c.lines) {
    StrAppend(text, "  ", l.name == c.root ? "ROOT " : "", l.text, "\n");
    line_pos->push_back(l.pos);
  }
  *text += "}\n\n";
  line_pos->push_back(c.pos);
  line_pos->push_back(c.pos);
}

}  // namespace hlo::stablehlo
