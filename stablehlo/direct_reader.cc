#include "stablehlo/direct_reader.h"

#include <charconv>

#include "absl/container/flat_hash_set.h"
#include "ir/bare_name.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "stablehlo/attributes.h"
#include "stablehlo/dense.h"
#include "stablehlo/direct_reader_impl.h"
#include "stablehlo/lexer.h"
#include "stablehlo/reader.h"
#include "stablehlo/translator.h"
#include "stablehlo/types.h"

namespace hlo::stablehlo {

namespace direct {

namespace {

constexpr int kMaxDepth = 64;  // regions; deeper ones go to the general path

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

// ---- Reader ------------------------------------------------------------------

DirectReader::DirectReader(std::string_view text, uint32_t first_line)
    : lex_(text, "", first_line), module_(std::make_unique<Module>("module")) {}

std::string_view DirectReader::ValueName() {
  std::string_view name = lex_.EatSigilView('%');
  return name.empty() ? name : std::string_view(name.data() - 1, name.size() + 1);
}

std::string_view DirectReader::NewName(std::string_view prefix) {
  name_buf_.assign(prefix);
  name_buf_.push_back('.');
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof(digits), next_id_++);
  name_buf_.append(digits, r.ptr);
  return name_buf_;
}

// The shape of a general-path type: static tensors of a plain element type,
// tuples of them and tokens (null for the others).
const Shape* DirectReader::ShapeOf(const stablehlo::Type& t) {
  switch (t.kind) {
    case stablehlo::Type::Kind::kToken:
      return module_->Intern(Shape::Token());
    case stablehlo::Type::Kind::kTuple: {
      std::vector<const Shape*> elements;
      for (const stablehlo::Type& e : t.elements) {
        const Shape* s = ShapeOf(e);
        if (s == nullptr) return nullptr;
        elements.push_back(s);
      }
      return module_->Intern(Shape::Tuple(std::move(elements)));
    }
    case stablehlo::Type::Kind::kTensor:
      break;
  }
  std::optional<PrimitiveType> element = ParsePrimitiveType(t.element);
  if (t.dynamic != 0 || t.quant != nullptr || !element) return nullptr;
  return module_->Intern(Shape::Array(*element, t.dims).WithDefaultLayout());
}

// type ::= 'tensor' '<' (int 'x')* element '>'   (element: a plain type or complex<f32|f64>)
//        | 'tuple' '<' ... '>' | '!stablehlo.token'
const Shape* DirectReader::Type() {
  if (lex_.PeekChar() != 't') {
    return lex_.Eat("!stablehlo.token") ? module_->Intern(Shape::Token()) : nullptr;
  }
  if (lex_.Eat("tuple")) {
    // Rare in JAX's text: read by the general path's type reader, once per text.
    const size_t at = lex_.offset() - 5;
    std::string_view group;
    if (lex_.PeekChar() != '<' || !lex_.SkipBalanced(&group).ok()) return nullptr;
    std::string_view text = lex_.text().substr(at, lex_.offset() - at);
    if (auto it = types_.find(text); it != types_.end()) return it->second;
    Lexer sub(text, "", 1);
    stablehlo::Type t;
    if (!ParseType(sub, &t).ok() || !sub.AtEnd()) return nullptr;
    const Shape* shape = ShapeOf(t);
    if (shape != nullptr) types_.emplace(text, shape);
    return shape;
  }
  if (!lex_.Eat("tensor") || lex_.PeekChar() != '<') return nullptr;
  // `<...>` up to the first '>' when nothing opens before it (most types);
  // else a balanced group.
  std::string_view group;
  const std::string_view rest = lex_.text().substr(lex_.offset());
  const size_t close = rest.find('>');
  if (close != std::string_view::npos &&
      rest.substr(1, close - 1).find_first_of("<\"\n(") == std::string_view::npos) {
    group = rest.substr(0, close + 1);
    Lexer::Mark after = lex_.Save();
    after.pos += group.size();  // on the same line
    lex_.Restore(after);
  } else if (!lex_.SkipBalanced(&group).ok()) {
    return nullptr;
  }
  if (auto it = types_.find(group); it != types_.end()) return it->second;
  std::string_view body = group.substr(1, group.size() - 2);
  std::vector<int64_t> dims;
  int64_t elements = 1;
  while (!body.empty() && IsDigit(body[0])) {
    int64_t d = 0;
    auto r = std::from_chars(body.data(), body.data() + body.size(), d);
    if (r.ec != std::errc() || r.ptr == body.data() + body.size() || *r.ptr != 'x') return nullptr;
    if (d != 0 && elements > (int64_t{1} << 62) / d) return nullptr;
    elements *= d;
    dims.push_back(d);
    if (dims.size() > 64) return nullptr;
    body.remove_prefix(static_cast<size_t>(r.ptr - body.data()) + 1);
  }
  std::string element;
  if (body == "complex<f32>") {
    element = "c64";
  } else if (body == "complex<f64>") {
    element = "c128";
  } else {
    for (char c : body) {
      if (!IsIdentChar(c)) return nullptr;
    }
    element = HloElementType(body);
  }
  std::optional<PrimitiveType> type = ParsePrimitiveType(element);
  if (element.empty() || !type) return nullptr;
  const Shape* shape = module_->Intern(Shape::Array(*type, dims).WithDefaultLayout());
  types_.emplace(group, shape);
  return shape;
}

std::string_view DirectReader::Use() {
  std::string_view name = ValueName();
  if (name.empty() || !lex_.EatRaw('#')) return name;
  int64_t n = 0;
  if (!lex_.EatDigitsRaw(&n)) return {};
  const char* end = lex_.text().data() + lex_.offset();
  return std::string_view(name.data(), static_cast<size_t>(end - name.data()));
}

bool DirectReader::Uses(OpText& op) {
  while (true) {
    std::string_view name = Use();
    if (name.empty()) return false;
    op.operands.push_back(name);
    const Lexer::Mark m = lex_.Save();
    if (!lex_.Eat(",")) return true;
    if (lex_.PeekChar() != '%') {  // the ',' belongs to what comes next
      lex_.Restore(m);
      return true;
    }
  }
}

// function-type ::= '(' types? ')' ('->' results)? | types ('->' results)?
bool DirectReader::TrailingTypes(OpText& op) {
  if (!lex_.Eat(":")) return false;
  Shapes in, out;
  auto list = [&](Shapes* v) {
    do {
      const Shape* t = Type();
      if (t == nullptr) return false;
      v->push_back(t);
    } while (lex_.Eat(","));
    return true;
  };
  if (lex_.Eat("(")) {
    if (!lex_.Eat(")") && (!list(&in) || !lex_.Eat(")"))) return false;
  } else if (!list(&in)) {
    return false;
  }
  if (lex_.Eat("->")) {
    if (lex_.Eat("(")) {
      if (!lex_.Eat(")") && (!list(&out) || !lex_.Eat(")"))) return false;
    } else {
      const Shape* t = Type();
      if (t == nullptr) return false;
      out.push_back(t);
    }
    op.operand_types = std::move(in);
    op.result_types = std::move(out);
    return true;
  }
  const size_t n = op.operands.size();
  if (op.name == "stablehlo.select" && in.size() == 2) {
    op.operand_types = {in[0], in[1], in[1]};
    op.result_types = {in[1]};
  } else if (op.name == "stablehlo.complex" && in.size() == 1) {
    const Shape& c = *in[0];
    if (!c.IsArray()) return false;
    const PrimitiveType part =
        c.element_type() == PrimitiveType::kC128 ? PrimitiveType::kF64 : PrimitiveType::kF32;
    const Shape* p = module_->Intern(Shape::Array(part, c.dims()).WithDefaultLayout());
    op.operand_types.assign(n, p);
    op.result_types = in;
  } else if (in.size() == 1) {
    op.operand_types.assign(n, in[0]);
    op.result_types = in;
  } else if (in.size() == n) {
    op.operand_types = in;
    op.result_types = in;
  } else {
    return false;
  }
  return true;
}

bool DirectReader::IntList(std::vector<int64_t>* out) {
  out->clear();
  if (!lex_.Eat("[")) return false;
  if (lex_.Eat("]")) return true;
  do {
    int64_t v = 0;
    if (!lex_.EatInt(&v)) return false;
    out->push_back(v);
  } while (lex_.Eat(","));
  return lex_.Eat("]");
}

bool DirectReader::NamedInts(std::string_view key, std::vector<int64_t>* out) {
  return lex_.Eat(",") && lex_.EatIdentView() == key && lex_.Eat("=") && IntList(out);
}

bool DirectReader::Operands(const OpText& op, const Scope& s,
                            absl::InlinedVector<Instruction*, 4>* out) {
  out->clear();
  for (size_t i = 0; i < op.operands.size(); ++i) {
    auto it = s.values.find(op.operands[i]);
    if (it == s.values.end()) return false;
    if (i < op.operand_types.size() && !SameType(it->second->shape_ptr(), op.operand_types[i])) {
      return false;
    }
    out->push_back(it->second);
  }
  return true;
}

Instruction* DirectReader::Emit(Scope& s, Opcode opcode, std::string_view prefix,
                                const Shape* shape, SourceLoc pos,
                                absl::Span<Instruction* const> operands) {
  auto owned = std::make_unique<Instruction>(opcode, NewName(prefix), shape);
  Instruction* inst = s.comp->AddInstruction(std::move(owned));
  inst->set_loc(pos);
  module_->NoteName(inst->name());
  for (Instruction* o : operands) inst->AppendOperand(o);
  any_operands_ = any_operands_ || !operands.empty();
  return inst;
}

Instruction* DirectReader::Parameter(Scope& s, size_t number, std::string_view prefix,
                                     const Shape* shape, SourceLoc pos) {
  auto owned = std::make_unique<Instruction>(Opcode::kParameter, NewName(prefix), shape);
  owned->set_parameter_number(static_cast<int64_t>(number));
  owned->set_loc(pos);
  module_->NoteName(owned->name());
  return s.comp->AddInstruction(std::move(owned));
}

const Shape* DirectReader::SingleResult(const OpText& op) const {
  return op.result_types.size() == 1 ? op.result_types[0] : nullptr;
}

const Shape* DirectReader::ResultType(const OpText& op) {
  if (op.result_types.size() == 1) return op.result_types[0];
  return module_->Intern(
      Shape::Tuple(std::vector<const Shape*>(op.result_types.begin(), op.result_types.end())));
}

bool DirectReader::BindResults(Scope& s, const OpText& op, Instruction* inst, bool tuple) {
  if (op.results.size() != op.result_types.size()) return false;
  if (op.result_types.size() == 1 && !tuple) {
    s.values[op.results[0]] = inst;
    return true;
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    Instruction* gte =
        Emit(s, Opcode::kGetTupleElement, "get-tuple-element", op.result_types[i], op.pos, {inst});
    gte->SetAttr(AttrKind::kIndex, static_cast<int64_t>(i));
    s.values[op.results[i]] = gte;
  }
  return true;
}

Computation* DirectReader::NewComputation(std::string_view prefix, SourceLoc pos) {
  comps_.push_back(std::make_unique<Computation>(std::string(NewName(prefix))));
  Computation* c = comps_.back().get();
  c->set_loc(pos);
  c->set_printed_signature(false);
  return c;
}

void DirectReader::PendingCall(Instruction* call, std::string_view callee, const OpText& op) {
  calls_.push_back({call, callee, op.operand_types, op.result_types});
}

// dense ::= 'dense' '<' ... '>' ':' type: the literal through the general
// path's own functions (DenseToHloLiteral, then the HLO literal parser), so
// every element type and form reads as there; splats are read once.
bool DirectReader::DenseValue(Dense* out) {
  const Lexer::Mark start = lex_.Save();
  const size_t from = lex_.Here().offset;
  std::string_view group;
  if (!lex_.Eat("dense") || lex_.PeekChar() != '<' || !lex_.SkipBalanced(&group).ok() ||
      !lex_.Eat(":")) {
    return false;
  }
  const Shape* type = Type();
  if (type == nullptr) return false;
  const size_t to = lex_.offset();
  std::string_view text = lex_.text().substr(from, to - from);
  if (auto it = splats_.find(text); it != splats_.end()) {
    *out = it->second;
    return true;
  }
  // Read again by the general path's attribute reader, which must end where
  // this reading did.
  lex_.Restore(start);
  Attr attr;
  if (!ParseAttr(lex_, &attr).ok() || attr.kind != Attr::Kind::kDense || lex_.offset() != to) {
    return false;
  }
  DenseText d;
  if (!DenseToHloLiteral(lex_, attr, attr.type, &d).ok()) return false;
  out->type = type;
  out->literal_shape =
      d.splat ? module_->Intern(Shape::Array(type->element_type(), {}).WithDefaultLayout()) : type;
  absl::StatusOr<Literal> lit = ParseLiteralValue(d.text, *out->literal_shape);
  if (!lit.ok()) return false;
  out->literal = std::make_shared<const Literal>(*std::move(lit));
  if (d.splat) splats_.emplace(text, *out);
  return true;
}

// op ::= (value-def (',' value-def)* '=')? name ...   value-def ::= '%' name (':' int)?
bool DirectReader::OpHead(OpText& op) {
  op.pos = Here();
  if (lex_.PeekChar() == '%') {
    do {
      std::string_view def = ValueName();
      if (def.empty()) return false;
      if (lex_.EatRaw('#')) return false;  // `%x#1 = `: left to the general path
      if (lex_.EatRaw(':')) {
        int64_t count = 0;
        if (!lex_.EatDigitsRaw(&count) || count < 1 || count > 1000000) return false;
        for (int64_t i = 0; i < count; ++i) {
          owned_names_.push_back(StrCat(def, "#", i));
          op.results.push_back(owned_names_.back());
        }
      } else {
        op.results.push_back(def);
      }
    } while (lex_.Eat(","));
    if (!lex_.Eat("=")) return false;
  }
  if (lex_.PeekChar() == '"') {  // the generic form: the general path reads it
    const size_t at = lex_.offset();
    std::string name;
    if (!lex_.EatString(&name)) return false;
    op.name = lex_.text().substr(at + 1, name.size());
    op.generic = true;
    return op.name == name;  // (no escapes in an op name)
  }
  op.name = lex_.EatIdentView();
  if (op.name == "call") op.name = "func.call";
  if (op.name == "return") op.name = "func.return";
  return !op.name.empty();
}

// block ::= op* ('stablehlo.return' | 'func.return') (uses ':' types)? '}'
bool DirectReader::Block(Scope& s, int depth, absl::InlinedVector<Instruction*, 4>* returned,
                         SourceLoc* return_pos) {
  if (depth > kMaxDepth) return false;
  while (true) {
    const char c = lex_.PeekChar();
    if (c == '}' || c == '^' || c == '\0') return false;  // no terminator, or block labels
    OpText op;
    const Lexer::Mark start = lex_.Save();
    if (!OpHead(op)) return false;
    if (op.name == "stablehlo.return" || op.name == "func.return") {
      if (!op.results.empty()) return false;
      if (lex_.PeekChar() == '%') {
        if (!Uses(op) || !lex_.Eat(":")) return false;
        do {
          const Shape* t = Type();
          if (t == nullptr) return false;
          op.operand_types.push_back(t);
        } while (lex_.Eat(","));
        if (op.operand_types.size() != op.operands.size()) return false;
      }
      *return_pos = op.pos;
      return_loc_ = {};
      if (lex_.PeekChar() == '{') return false;
      if (lex_.Eat("loc") && !LocationBody(&return_loc_)) return false;
      return Operands(op, s, returned) && lex_.Eat("}");
    }
    // An op this reader does not know, or one its reader gave up on before
    // it made anything (a form or attribute it does not read), goes to the
    // general path's reader and translator.
    OpReader read = op.generic ? nullptr : FindOpReader(op.name);
    const int64_t names_before = next_id_;
    const int64_t first = s.comp->instruction_count();
    if (read == nullptr || !read(*this, op, s, depth)) {
      if (next_id_ != names_before || !Delegate(start, op.name, s, depth)) return false;
    }
    // An attribute dictionary after the op was not read by its reader.
    if (lex_.PeekChar() == '{') return false;
    std::string_view loc;
    if (lex_.Eat("loc")) {
      if (!LocationBody(&loc) || !SetMetadata(loc, s.comp, first)) return false;
    }
  }
}

// func ::= 'func.func' ('public' | 'private')? '@' name '(' args? ')' ('->' results)? '{' block
bool DirectReader::Func() {
  const SourceLoc pos = Here();
  if (!lex_.Eat("func.func")) return false;
  FuncInfo f;
  if (lex_.Eat("private")) {
    f.is_public = false;
  } else {
    lex_.Eat("public");
  }
  std::string_view name = lex_.EatSigilView('@');
  if (name.empty()) return false;
  // A name the translation would change (or print with '%') is left to it.
  if (HloName(name) != name || !LexesBare(name) || funcs_.contains(name)) return false;
  std::vector<FuncArg> args;
  if (!FuncSignature(&f, &args)) return false;
  if (!lex_.Eat("{")) return false;
  comps_.push_back(std::make_unique<Computation>(std::string(name)));
  Computation* comp = comps_.back().get();
  comp->set_loc(pos);
  comp->set_printed_signature(false);
  f.comp = comp;
  Scope s{comp, {}};
  for (size_t i = 0; i < args.size(); ++i) {
    Instruction* p = Parameter(s, i, StrCat("Arg_", i), f.args[i], args[i].pos);
    if (!ArgShardings(args[i].attrs, p)) return false;
    s.values[args[i].name] = p;
  }
  absl::InlinedVector<Instruction*, 4> returned;
  SourceLoc return_pos;
  if (!Block(s, 1, &returned, &return_pos)) return false;
  if (returned.size() != f.results.size()) return false;
  for (size_t i = 0; i < returned.size(); ++i) {
    if (!SameType(returned[i]->shape_ptr(), f.results[i])) return false;
  }
  if (returned.size() == 1) {
    comp->set_root(returned[0]);
  } else {
    std::vector<const Shape*> elements(f.results.begin(), f.results.end());
    const int64_t first = comp->instruction_count();
    comp->set_root(Emit(s, Opcode::kTuple, "tuple", module_->Intern(Shape::Tuple(elements)),
                        return_pos, returned));
    if (!return_loc_.empty() && !SetMetadata(return_loc_, comp, first)) return false;
  }
  std::string_view ignored;  // a function's own location is not translated
  if (lex_.Eat("loc") && !LocationBody(&ignored)) return false;
  funcs_.emplace(name, std::move(f));
  func_order_.push_back(name);
  return true;
}

// args ::= '(' ('%' name ':' type dict? loc? (',' ...)*)? ')'
// results ::= '->' ('(' (type dict? (',' ...)*)? ')' | type)
// (a result's attributes, jax.result_info among them, are not translated)
bool DirectReader::FuncSignature(FuncInfo* f, std::vector<FuncArg>* args) {
  if (!lex_.Eat("(")) return false;
  if (!lex_.Eat(")")) {
    do {
      FuncArg a;
      a.pos = Here();
      a.name = ValueName();
      if (a.name.empty() || lex_.EatRaw('#') || !lex_.Eat(":")) return false;
      const Shape* t = Type();
      if (t == nullptr) return false;
      a.attrs.kind = Attr::Kind::kDict;
      if (lex_.PeekChar() == '{' && !ParseDict(lex_, &a.attrs.dict).ok()) return false;
      std::string_view ignored;  // an argument's location is not translated
      if (lex_.Eat("loc") && !LocationBody(&ignored)) return false;
      f->args.push_back(t);
      args->push_back(std::move(a));
    } while (lex_.Eat(","));
    if (!lex_.Eat(")")) return false;
  }
  if (!lex_.Eat("->")) return true;
  const bool paren = lex_.Eat("(");
  if (paren && lex_.Eat(")")) return true;
  do {
    const Shape* t = Type();
    if (t == nullptr) return false;
    f->results.push_back(t);
    std::vector<NamedAttr> ignored;  // a result's attributes are not translated
    if (paren && lex_.PeekChar() == '{' && !ParseDict(lex_, &ignored).ok()) return false;
  } while (paren && lex_.Eat(","));
  return !paren || lex_.Eat(")");
}

// An argument's shardings on its parameter, as the translation writes them:
// sdy.sharding as frontend_attributes={xla.sdy.sharding="#sdy.sharding<...>"},
// mhlo.sharding (GSPMD's text) as sharding=..., which the HLO parser reads
// (here on a parameter of its own, whose attributes it must be alone in).
bool DirectReader::ArgShardings(const Attr& attrs, Instruction* param) {
  if (const Attr* sh = attrs.Find("sdy.sharding"); sh && !sh->text.empty()) {
    std::string value = StrCat("#", sh->s, sh->text);
    for (char c : value) {
      if (static_cast<unsigned char>(c) < 0x20) return false;
    }
    auto kv = std::make_shared<KeyValues>();
    kv->push_back({InternedString("xla.sdy.sharding"), InternedString(value), true});
    param->SetAttr(AttrKind::kFrontendAttributes, std::shared_ptr<const KeyValues>(kv));
  }
  if (const Attr* sh = attrs.Find("mhlo.sharding"); sh && sh->kind == Attr::Kind::kString) {
    const std::string text =
        StrCat("HloModule sharding\n\nENTRY e {\n  p = ", param->shape().ToString(true),
               " parameter(0), sharding=", sh->s, "\n}\n");
    ParseOptions options;
    options.stablehlo_direct = false;
    options.shape_pool = &module_->shapes();
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, options);
    if (!m.ok() || (*m)->entry()->instruction_count() != 1) return false;
    absl::Span<const Attribute> read = (*m)->entry()->parameter(0)->attributes();
    if (read.size() != 1 || read[0].kind != AttrKind::kSharding) return false;
    param->SetAttr(AttrKind::kSharding, read[0].value);
  }
  return true;
}

// attributes ::= dict   (read as the general reader reads it; the header
// attributes made from it at the end, as the translation makes them)
bool DirectReader::ModuleAttributes() {
  context_.attrs.kind = Attr::Kind::kDict;
  return lex_.PeekChar() == '{' && ParseDict(lex_, &context_.attrs.dict).ok();
}

// file ::= 'module' ('@' name)? ('attributes' dict)? '{' func* '}' | func+
bool DirectReader::ModuleHeader() {
  if (!lex_.Eat("module")) {
    if (lex_.PeekChar() != 'f') return false;  // `#alias = ...` and the rest
    module_name_ = "module";
    return true;
  }
  if (lex_.PeekChar() == '@') {
    std::string_view name = lex_.EatSigilView('@');
    if (name.empty()) return false;
    module_name_ = HloName(name);
  } else {
    module_name_ = "module";
  }
  if (lex_.Eat("attributes") && !ModuleAttributes()) return false;
  return lex_.Eat("{");
}

// file ::= alias-def* (module | func+) alias-def*
std::unique_ptr<Module> DirectReader::Read() {
  ScanLocationAliases();
  while (lex_.PeekChar() == '#') {
    if (!AliasDef()) return nullptr;
  }
  const bool wrapped = lex_.PeekChar() == 'm';
  if (!ModuleHeader()) return nullptr;
  // (module | func+) body ::= (func | mesh)*
  while (lex_.PeekChar() == 'f' || lex_.PeekChar() == 's') {
    if (lex_.Eat("sdy.mesh")) {
      context_.meshes.emplace_back();
      Reader meshes(lex_);
      if (!meshes.ParseMesh(&context_.meshes.back()).ok()) return nullptr;
    } else if (!Func()) {
      return nullptr;
    }
  }
  if (wrapped) {
    std::string_view ignored;
    if (!lex_.Eat("}") || (lex_.Eat("loc") && !LocationBody(&ignored))) return nullptr;
  }
  while (lex_.PeekChar() == '#') {
    if (!AliasDef()) return nullptr;
  }
  // Every alias the scan found is one the text defines, once.
  if (defined_aliases_ != aliases_.size()) return nullptr;
  if (!lex_.AtEnd() || func_order_.empty() || !BindCalls()) return nullptr;
  return Finish();
}

// Each call's callee, now that every function is known, with the checks the
// translation makes: the argument and result types are the callee's.
bool DirectReader::BindCalls() {
  for (const Call& c : calls_) {
    auto it = funcs_.find(c.callee);
    if (it == funcs_.end()) return false;
    const FuncInfo& f = it->second;
    if (c.args.size() != c.inst->operands().size() || f.args.size() != c.args.size() ||
        f.results != c.results) {
      return false;
    }
    for (size_t i = 0; i < f.args.size(); ++i) {
      if (!SameType(c.inst->operand(static_cast<int64_t>(i))->shape_ptr(), f.args[i])) {
        return false;
      }
    }
    c.inst->SetAttr(AttrKind::kToApply, std::vector<Computation*>{f.comp});
  }
  return true;
}

// The module as the HLO parser leaves the translation's text: computations
// in the order they were made with the entry last, the header attributes,
// the print style of that text.
std::unique_ptr<Module> DirectReader::Finish() {
  // The entry: @main, else the one public function.
  const FuncInfo* entry = nullptr;
  if (auto it = funcs_.find("main"); it != funcs_.end()) {
    entry = &it->second;
  } else {
    for (std::string_view name : func_order_) {
      const FuncInfo& f = funcs_.at(name);
      if (!f.is_public) continue;
      if (entry != nullptr) return nullptr;
      entry = &f;
    }
  }
  if (entry == nullptr) return nullptr;
  // The header as the translation writes it, read by the HLO parser (which
  // checks the values and keeps them as it keeps them).
  std::string header = StrCat("HloModule ", module_name_);
  for (const auto& [name, value] : HeaderAttributes(context_, 0, 0)) {
    StrAppend(&header, ", ", name, "=", value);
  }
  header += "\n\nENTRY e {\n  p = f32[] parameter(0)\n}\n";
  ParseOptions options;
  options.stablehlo_direct = false;
  absl::StatusOr<std::unique_ptr<Module>> read = ParseModule(header, options);
  if (!read.ok()) return nullptr;
  // Computation names are unique in HLO text (a function may be named as a
  // region's computation is: the HLO parser's error then).
  absl::flat_hash_set<std::string_view> names;
  for (const auto& c : comps_) {
    if (!names.insert(c->name()).second) return nullptr;
  }
  Module& m = *module_;
  m.set_name((*read)->name());
  m.header_attrs() = (*read)->header_attrs();
  m.set_replica_count((*read)->replica_count());
  m.set_num_partitions((*read)->num_partitions());
  for (auto& c : comps_) {
    if (c.get() != entry->comp) m.AddComputation(std::move(c));
  }
  for (auto& c : comps_) {
    if (c != nullptr) m.set_entry(m.AddComputation(std::move(c)));
  }
  // The style of the translation's text: bare names, no signatures, no
  // operand shapes (when any instruction has operands).
  for (const auto& c : m.computations()) {
    if (LexesBare(c->name())) {
      m.style().percent_names = false;
      break;
    }
  }
  m.style().signatures = false;
  if (any_operands_) m.style().operand_shapes = false;
  m.NotedAllNames();
  return std::move(module_);
}

}  // namespace direct

std::unique_ptr<Module> ReadDirect(std::string_view text, uint32_t first_line,
                                   SourceLoc* gave_up_at) {
  direct::DirectReader reader(text, first_line);
  std::unique_ptr<Module> m = reader.Read();
  if (m == nullptr && gave_up_at != nullptr) *gave_up_at = reader.Here();
  return m;
}

}  // namespace hlo::stablehlo
