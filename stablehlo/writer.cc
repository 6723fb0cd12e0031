#include "stablehlo/writer.h"

#include "ir/located_status.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "stablehlo/mlir_text.h"
#include "stablehlo/writer_impl.h"

namespace hlo::stablehlo::writing {
namespace {

// A dictionary key MLIR reads bare, else quoted.
std::string DictionaryKey(std::string_view key) {
  bool bare = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_');
  for (char c : key) {
    bare &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
  }
  return bare ? std::string(key) : Quoted(key);
}

// mhlo.frontend_attributes and mhlo.sharding of `inst`, as XLA's StableHLO
// import writes them.
void AppendDiscardable(const hlo::Instruction& inst, std::vector<std::string>& out) {
  if (const Attribute* a = inst.FindAttr(AttrKind::kFrontendAttributes)) {
    std::vector<std::string> entries;
    for (const KeyValue& kv : *std::get<std::shared_ptr<const KeyValues>>(a->value)) {
      entries.push_back(StrCat(DictionaryKey(std::string_view(kv.key)), " = ",
                               Quoted(std::string_view(kv.value))));
    }
    out.push_back(StrCat("mhlo.frontend_attributes = {", StrJoin(entries, ", "), "}"));
  }
  if (const Attribute* a = inst.FindAttr(AttrKind::kSharding)) {
    std::string text;
    AppendSharding(text, *std::get<std::shared_ptr<const Sharding>>(a->value));
    out.push_back(StrCat("mhlo.sharding = ", Quoted(text)));
  }
}

// The entries of a header attribute's `{key=value, ...}` text: split at
// the top-level commas, values unquoted.
std::vector<std::pair<std::string, std::string>> HeaderEntries(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return out;
  text = text.substr(1, text.size() - 2);
  int depth = 0;
  bool quoted = false;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (quoted) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == '{' || c == '[' || c == '(' || c == '<') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')' || c == '>') {
      --depth;
    } else if (c == ',' && depth == 0) {
      std::string_view entry = StripWhitespace(text.substr(begin, i - begin));
      begin = i + 1;
      size_t eq = entry.find('=');
      if (eq == std::string_view::npos) continue;
      std::string key(StripWhitespace(entry.substr(0, eq)));
      std::string_view value = StripWhitespace(entry.substr(eq + 1));
      std::string v;
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        for (size_t k = 1; k + 1 < value.size(); ++k) {
          if (value[k] == '\\' && k + 2 < value.size()) ++k;
          v += value[k];
        }
      } else {
        v = std::string(value);
      }
      out.emplace_back(std::move(key), std::move(v));
    }
  }
  return out;
}

std::string Indent(int n) { return std::string(static_cast<size_t>(n) * 2, ' '); }

// A symbol name MLIR reads bare: letters, digits, '_', '$', '.'.
std::string SymbolName(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) return "_" + out;
  return out;
}

absl::StatusOr<std::string> TypeList(const std::vector<const Shape*>& shapes) {
  std::vector<std::string> types;
  for (const Shape* s : shapes) {
    HLO_ASSIGN_OR_RETURN(std::string t, TypeText(*s));
    types.push_back(std::move(t));
  }
  return StrJoin(types, ", ");
}

}  // namespace

absl::Status Writer::Error(const hlo::Instruction& inst, std::string_view message) const {
  return InstructionError(module_, inst, message);
}

void Writer::Line(int indent, std::string_view text) {
  StrAppend(sink_, Indent(indent), text, "\n");
}

const std::string& Writer::FunctionName(const Computation& comp) {
  auto it = function_names_.find(&comp);
  if (it != function_names_.end()) return it->second;
  std::string base = &comp == module_.entry() ? "main" : SymbolName(comp.name());
  if (base == "main" && &comp != module_.entry()) base = "main_";
  std::string name = base;
  for (int i = 1; true; ++i) {
    bool taken = false;
    for (const auto& [c, n] : function_names_) taken |= n == name;
    if (!taken) break;
    name = StrCat(base, "_", i);
  }
  if (&comp != module_.entry() && queued_.insert(&comp).second) pending_functions_.push_back(&comp);
  return function_names_.emplace(&comp, name).first->second;
}

absl::StatusOr<Value> Writer::Emit(const Op& op, int indent) {
  std::string line;
  Value v;
  if (!op.results.empty()) {
    std::string name = StrCat("%", next_value_++);
    if (op.results.size() == 1) {
      v.parts.push_back(name);
      line = StrCat(name, " = ");
    } else {
      for (size_t i = 0; i < op.results.size(); ++i) v.parts.push_back(StrCat(name, "#", i));
      v.flat = true;
      line = StrCat(name, ":", op.results.size(), " = ");
    }
  }
  std::vector<std::string> attributes = op.attributes;
  if (decorating_ != nullptr && op.name != "stablehlo.tuple" &&
      op.name != "stablehlo.get_tuple_element") {
    AppendDiscardable(*decorating_, attributes);
  }
  if (!generic_ && attributes.empty() && op.regions.empty() && op.properties.size() <= 4) {
    HLO_ASSIGN_OR_RETURN(std::string pretty, PrettyText(op));
    if (!pretty.empty()) {
      Line(indent, line + pretty);
      return v;
    }
  }
  StrAppend(&line, "\"", op.name, "\"(", StrJoin(op.operands, ", "), ")");
  if (!op.properties.empty()) StrAppend(&line, " <{", StrJoin(op.properties, ", "), "}>");
  if (!op.regions.empty()) StrAppend(&line, " (", StrJoin(op.regions, ", "), ")");
  if (!attributes.empty()) StrAppend(&line, " {", StrJoin(attributes, ", "), "}");
  HLO_ASSIGN_OR_RETURN(std::string operand_types, TypeList(op.operand_shapes));
  HLO_ASSIGN_OR_RETURN(std::string result_types, TypeList(op.results));
  StrAppend(&line, " : (", operand_types, ") -> ");
  if (op.results.size() == 1) {
    StrAppend(&line, result_types);
  } else {
    StrAppend(&line, "(", result_types, ")");
  }
  Line(indent, line);
  return v;
}

absl::StatusOr<std::string> Writer::PrettyText(const Op& op) const {
  if (op.pretty == PrettyForm::kNone || op.results.size() != 1) return std::string();
  HLO_ASSIGN_OR_RETURN(std::string result, TypeText(*op.results[0]));
  std::vector<std::string> types;
  for (const Shape* s : op.operand_shapes) {
    HLO_ASSIGN_OR_RETURN(std::string t, TypeText(*s));
    types.push_back(std::move(t));
  }
  const std::string operands = StrJoin(op.operands, ", ");
  const std::string functional = StrCat("(", StrJoin(types, ", "), ") -> ", result);
  switch (op.pretty) {
    case PrettyForm::kNone:
      break;
    case PrettyForm::kSameType:
      for (const std::string& t : types) {
        if (t != result) return std::string();
      }
      return StrCat(op.name, " ", operands, " : ", result);
    case PrettyForm::kFunctional:
      return StrCat(op.name, " ", operands, op.pretty_text, " : ", functional);
    case PrettyForm::kConstant:
      return StrCat(op.name, " ", op.pretty_text, " : ", result);
    case PrettyForm::kCompare: {
      size_t space = op.pretty_text.find(' ');
      return StrCat(op.name, " ", op.pretty_text.substr(0, space), ", ", operands, ", ",
                    op.pretty_text.substr(space + 1), " : ", functional);
    }
    case PrettyForm::kSelect:
      if (types.size() != 3 || types[1] != result || types[2] != result ||
          op.operand_shapes[0]->dims() != op.results[0]->dims()) {
        return StrCat(op.name, " ", operands, " : ", functional);
      }
      return StrCat(op.name, " ", operands, " : ", types[0], ", ", result);
    case PrettyForm::kBare:
      return StrCat(op.name, op.pretty_text, " : ", result);
    case PrettyForm::kSlice:
      return StrCat(op.name, " ", operands, " ", op.pretty_text, " : ", functional);
    case PrettyForm::kCall:
      return StrCat("call ", op.pretty_text, "(", operands, ") : ", functional);
  }
  return std::string();
}

absl::StatusOr<Value> Writer::EmitFor(const hlo::Instruction& inst, const Op& op, int indent) {
  HLO_ASSIGN_OR_RETURN(Value v, Emit(op, indent));
  const Shape& s = inst.shape();
  if (s.IsTuple() && op.results.size() == s.tuple_shapes().size() &&
      !(op.results.size() == 1 && op.results[0] == &s)) {
    v.flat = true;
  }
  return v;
}

absl::StatusOr<std::vector<std::string>> Writer::Elements(const Value& v, const Shape& shape,
                                                          int indent) {
  if (v.flat) {
    for (const std::string& part : v.parts) {
      if (part.empty()) {
        return absl::InvalidArgumentError(
            "a value with no StableHLO counterpart (send's data or context) is used");
      }
    }
    return v.parts;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
    Op op;
    op.name = "stablehlo.get_tuple_element";
    op.operands = {v.parts[0]};
    op.operand_shapes = {&shape};
    op.properties = {StrCat("index = ", i, " : i32")};
    op.results = {shape.tuple_shapes()[i]};
    HLO_ASSIGN_OR_RETURN(Value e, Emit(op, indent));
    out.push_back(e.parts[0]);
  }
  return out;
}

absl::StatusOr<std::string> Writer::Single(const Value& v, const Shape& shape, int indent) {
  for (const std::string& part : v.parts) {
    if (part.empty()) {
      return absl::InvalidArgumentError(
          "a value with no StableHLO counterpart (send's data or context) is used");
    }
  }
  if (!v.flat) return v.parts[0];
  Op op;
  op.name = "stablehlo.tuple";
  op.operands = v.parts;
  op.operand_shapes = shape.tuple_shapes();
  op.results = {&shape};
  HLO_ASSIGN_OR_RETURN(Value t, Emit(op, indent));
  return t.parts[0];
}

absl::StatusOr<std::string> Writer::Operand(const hlo::Instruction& inst, int64_t i, int indent) {
  const hlo::Instruction* operand = inst.operand(i);
  return Single(ValueOf(operand), operand->shape(), indent);
}

absl::Status Writer::Operands(const hlo::Instruction& inst, int indent, Op& op) {
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    HLO_ASSIGN_OR_RETURN(std::string name, Operand(inst, i, indent));
    op.operands.push_back(std::move(name));
    op.operand_shapes.push_back(&inst.operand(i)->shape());
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Writer::Body(const Computation& comp, const std::vector<Value>& params,
                                   int indent) {
  for (const hlo::Instruction* inst : comp.PostOrder()) {
    if (inst->opcode() == Opcode::kParameter) {
      int64_t n = inst->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(params.size())) {
        return Error(*inst, "parameter number out of range");
      }
      values_[inst] = params[n];
      continue;
    }
    HLO_ASSIGN_OR_RETURN(Value v, Instruction(*inst, indent));
    values_[inst] = std::move(v);
  }
  if (comp.root() == nullptr) return absl::InvalidArgumentError("computation has no root");
  return ValueOf(comp.root());
}

absl::StatusOr<std::string> Writer::Region(const Computation& comp, int indent, bool flatten_tuples,
                                           const std::vector<Value>* captured) {
  std::string text = "{\n";
  std::string* outer = sink_;
  sink_ = &text;
  std::vector<Value> params;
  std::vector<std::string> args;
  if (captured != nullptr) {
    params = *captured;
  } else {
    for (const hlo::Instruction* p : comp.parameters()) {
      if (p == nullptr) return absl::InvalidArgumentError("computation lacks a parameter");
      const Shape& s = p->shape();
      Value v;
      const bool flatten = flatten_tuples && s.IsTuple();
      for (const Shape* e : flatten ? s.tuple_shapes() : std::vector<const Shape*>{&s}) {
        std::string arg = FreshArg();
        HLO_ASSIGN_OR_RETURN(std::string type, TypeText(*e));
        args.push_back(StrCat(arg, ": ", type));
        v.parts.push_back(arg);
      }
      v.flat = flatten;
      params.push_back(std::move(v));
    }
  }
  if (captured == nullptr) Line(indent + 1, StrCat("^bb0(", StrJoin(args, ", "), "):"));
  absl::StatusOr<Value> root = Body(comp, params, indent + 2);
  if (!root.ok()) {
    sink_ = outer;
    return root.status();
  }
  const Shape& rs = comp.root()->shape();
  std::vector<std::string> returned;
  std::vector<const Shape*> shapes;
  if (rs.IsTuple() && (flatten_tuples || root->flat)) {
    absl::StatusOr<std::vector<std::string>> parts = Elements(*root, rs, indent + 2);
    if (!parts.ok()) {
      sink_ = outer;
      return parts.status();
    }
    returned = *parts;
    shapes = rs.tuple_shapes();
  } else {
    returned = root->parts;
    shapes = {&rs};
  }
  absl::StatusOr<std::string> types = TypeList(shapes);
  sink_ = outer;
  if (!types.ok()) return types.status();
  if (generic_) {
    StrAppend(&text, Indent(indent + 2), "\"stablehlo.return\"(", StrJoin(returned, ", "), ") : (",
              *types, ") -> ()\n", Indent(indent + 1), "}");
  } else {
    StrAppend(&text, Indent(indent + 2), "stablehlo.return ", StrJoin(returned, ", "), " : ",
              *types, "\n", Indent(indent + 1), "}");
  }
  return text;
}

// Whether the entry function's tuple parameter or result `s` is written as
// its leaves, as XLA's HLO-to-StableHLO translation and JAX write main (a
// result tuple<A, B> is `-> (A, B)`). The empty tuple stays one value.
static bool FlattenedAtEntry(const Shape& s) { return s.IsTuple() && !s.tuple_shapes().empty(); }

// A tuple parameter of the entry written as block arguments, one per leaf;
// nested tuples are built back with stablehlo.tuple in the body.
absl::StatusOr<Value> Writer::EntryParameter(const Shape& s, std::vector<std::string>& args,
                                             int indent) {
  Value v{{}, true};
  for (const Shape* e : s.tuple_shapes()) {
    if (!FlattenedAtEntry(*e)) {
      std::string arg = FreshArg();
      HLO_ASSIGN_OR_RETURN(std::string type, TypeText(*e));
      args.push_back(StrCat(arg, ": ", type));
      v.parts.push_back(std::move(arg));
      continue;
    }
    HLO_ASSIGN_OR_RETURN(Value inner, EntryParameter(*e, args, indent));
    HLO_ASSIGN_OR_RETURN(std::string built, Single(inner, *e, indent));
    v.parts.push_back(std::move(built));
  }
  return v;
}

// The leaves of the entry's tuple result `v`, with their shapes.
absl::Status Writer::EntryResults(const Value& v, const Shape& s, int indent,
                                  std::vector<std::string>& names,
                                  std::vector<const Shape*>& shapes) {
  HLO_ASSIGN_OR_RETURN(std::vector<std::string> parts, Elements(v, s, indent));
  for (size_t i = 0; i < parts.size(); ++i) {
    const Shape& e = *s.tuple_shapes()[i];
    if (FlattenedAtEntry(e)) {
      HLO_RETURN_IF_ERROR(EntryResults(Value{{parts[i]}, false}, e, indent, names, shapes));
    } else {
      names.push_back(parts[i]);
      shapes.push_back(&e);
    }
  }
  return absl::OkStatus();
}

absl::Status Writer::Function(const Computation& comp) {
  next_value_ = 0;
  next_arg_ = 0;
  const bool entry = &comp == module_.entry();
  std::vector<Value> params;
  std::vector<std::string> args;
  std::string body;
  sink_ = &body;
  // Lines go to `body` until the signature is known; back to out_ on every return.
  struct RestoreSink {
    Writer& w;
    ~RestoreSink() { w.sink_ = &w.out_; }
  } restore{*this};
  for (const hlo::Instruction* p : comp.parameters()) {
    if (p == nullptr) return absl::InvalidArgumentError("computation lacks a parameter");
    if (entry && FlattenedAtEntry(p->shape())) {
      HLO_ASSIGN_OR_RETURN(Value v, EntryParameter(p->shape(), args, 2));
      params.push_back(std::move(v));
      continue;
    }
    std::string arg = FreshArg();
    HLO_ASSIGN_OR_RETURN(std::string type, TypeText(p->shape()));
    args.push_back(StrCat(arg, ": ", type));
    params.push_back(Value{{arg}, false});
  }
  if (comp.root() == nullptr) return absl::InvalidArgumentError("computation has no root");
  const Shape& rs = comp.root()->shape();
  HLO_ASSIGN_OR_RETURN(Value root, Body(comp, params, 2));
  std::vector<std::string> names;
  std::vector<const Shape*> shapes;
  if (entry && FlattenedAtEntry(rs)) {
    HLO_RETURN_IF_ERROR(EntryResults(root, rs, 2, names, shapes));
  } else {
    HLO_ASSIGN_OR_RETURN(std::string result, Single(root, rs, 2));
    names = {std::move(result)};
    shapes = {&rs};
  }
  HLO_ASSIGN_OR_RETURN(std::string types, TypeList(shapes));
  const std::string result_type = shapes.size() == 1 ? types : StrCat("(", types, ")");
  const std::string returned = StrJoin(names, ", ");
  Line(2, generic_ ? StrCat("\"func.return\"(", returned, ") : (", types, ") -> ()")
                   : StrCat("return ", returned, " : ", types));
  sink_ = &out_;
  Line(1, StrCat("func.func ", entry ? "public" : "private", " @", FunctionName(comp), "(",
                 StrJoin(args, ", "), ") -> ", result_type, " {"));
  out_ += body;
  Line(1, "}");
  return absl::OkStatus();
}

absl::StatusOr<std::string> Writer::Run() {
  if (module_.entry() == nullptr) return absl::InvalidArgumentError("module has no entry");
  out_ = StrCat("module @", SymbolName(module_.name()),
                " attributes {mhlo.num_partitions = ", module_.num_partitions(),
                " : i32, mhlo.num_replicas = ", module_.replica_count(), " : i32");
  if (const ModuleAttr* a = module_.FindHeaderAttr("frontend_attributes")) {
    std::vector<std::string> entries;
    for (const auto& [key, value] : HeaderEntries(a->value)) {
      entries.push_back(StrCat(DictionaryKey(key), " = ", Quoted(value)));
    }
    out_ += StrCat(", mhlo.frontend_attributes = {", StrJoin(entries, ", "), "}");
  }
  out_ += "} {\n";
  FunctionName(*module_.entry());
  HLO_RETURN_IF_ERROR(Function(*module_.entry()));
  for (size_t i = 0; i < pending_functions_.size(); ++i) {
    HLO_RETURN_IF_ERROR(Function(*pending_functions_[i]));
  }
  out_ += "}\n";
  return std::move(out_);
}

}  // namespace hlo::stablehlo::writing

namespace hlo::stablehlo {

absl::StatusOr<std::string> PrintStableHlo(const Module& module, bool generic) {
  writing::Writer writer(module, generic);
  return writer.Run();
}

}  // namespace hlo::stablehlo
