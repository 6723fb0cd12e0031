// The direct reader's way with the ops it has no reader for: the general
// path's reader (reader.h) reads the op, its translator (translator.h, one
// for the whole text, so that names and shared computations follow on) turns
// it into HLO text, and the HLO parser reads that text into this module.
// The op's semantics stay in one place, the translator, whichever path reads
// it.
#include "ir/strings.h"
#include "parser/parser.h"
#include "stablehlo/direct_reader_impl.h"
#include "stablehlo/locations.h"
#include "stablehlo/reader.h"

namespace hlo::stablehlo::direct {

namespace {

// The general path's type of a value of this shape (static tensors, tuples
// and tokens: the direct reader holds no other).
stablehlo::Type AstType(const Shape& s) {
  stablehlo::Type t;
  if (s.IsTuple()) {
    t.kind = stablehlo::Type::Kind::kTuple;
    for (const Shape* e : s.tuple_shapes()) t.elements.push_back(AstType(*e));
  } else if (s.IsToken()) {
    t.kind = stablehlo::Type::Kind::kToken;
  } else {
    t.element = std::string(PrimitiveTypeName(s.element_type()));
    t.dims.assign(s.dims().begin(), s.dims().end());
  }
  return t;
}

// Every value the op and its regions use; their locations resolved, as the
// general reader resolves them at the end of the text.
void CollectUses(stablehlo::Op& op,
                 const absl::flat_hash_map<std::string, std::string_view>& aliases,
                 std::vector<const std::string*>* uses) {
  if (!op.loc.raw.empty()) ResolveLocation(op.loc.raw, aliases, &op.loc);
  for (const stablehlo::Use& u : op.operands) uses->push_back(&u.name);
  for (stablehlo::Region& r : op.regions) {
    for (stablehlo::Block& b : r.blocks) {
      for (stablehlo::Op& inner : b.ops) CollectUses(inner, aliases, uses);
    }
  }
}

}  // namespace

bool DirectReader::Delegate(const Lexer::Mark& start, std::string_view name, Scope& s, int depth) {
  // The check and interpreter ops keep state of the whole module (the
  // device grid, probes) in the translator: the general path reads them.
  if (name.starts_with("check.") || name.starts_with("interpreter.")) return false;
  lex_.Restore(start);
  stablehlo::Op op;
  Reader reader(lex_);
  if (!reader.ParseOp(&op, depth).ok()) return false;
  std::vector<const std::string*> uses;
  CollectUses(op, aliases_, &uses);

  // The translator's scope: the outer values the op uses, under their
  // instructions' names; the text stands for each by a parameter.
  HloComputation lines;
  stablehlo::Scope scope{&lines, {}, nullptr};
  std::vector<Instruction*> outer;
  for (const std::string* use : uses) {
    auto it = s.values.find(*use);
    if (it == s.values.end() || scope.values.contains(*use)) continue;
    Instruction* v = it->second;
    scope.values[*use] = stablehlo::Value{std::string(v->name()), AstType(v->shape())};
    if (std::find(outer.begin(), outer.end(), v) == outer.end()) outer.push_back(v);
  }
  if (translator_ == nullptr) translator_ = std::make_unique<Translator>(lex_, context_);
  translator_->set_next_id(next_id_);
  if (!translator_->TranslateOne(op, scope).ok()) return false;
  next_id_ = translator_->next_id();

  std::vector<Pos> line_pos;
  std::string text;
  if (!DelegatedText(outer, lines, &text, &line_pos)) return false;
  ParseOptions options;
  options.filename = "<delegated>";
  options.stablehlo_direct = false;
  options.shape_pool = &module_->shapes();
  options.outside_computation = [this](std::string_view n) -> Computation* {
    auto it = delegated_comps_.find(absl::string_view(n.data(), n.size()));
    return it == delegated_comps_.end() ? nullptr : it->second;
  };
  absl::StatusOr<std::unique_ptr<Module>> parsed = ParseModule(text, options);
  if (!parsed.ok()) return false;
  absl::flat_hash_map<std::string_view, Instruction*> by_name;
  if (!AdoptDelegated(**parsed, outer, line_pos, s, &by_name)) return false;

  // The op's results, as the translator bound them.
  for (const std::string& result : op.results) {
    auto v = scope.values.find(result);
    if (v == scope.values.end()) return false;
    auto it = by_name.find(v->second.name);
    if (it == by_name.end()) return false;
    // The general path knows a value by the type the translator bound it
    // with, this reader by its instruction's shape: they must agree (they
    // differ where an op's result type contradicts its operands, which the
    // general path reports where the value is used).
    const Shape* bound = ShapeOf(v->second.type);
    if (bound == nullptr || !SameType(it->second->shape_ptr(), bound)) return false;
    owned_names_.push_back(result);
    s.values[owned_names_.back()] = it->second;
  }
  return true;
}

// The HLO text: the computations the translation made, then one whose
// parameters stand for the outer values and whose body is the op's lines;
// line_pos maps the text's lines back to the StableHLO text.
bool DirectReader::DelegatedText(const std::vector<Instruction*>& outer, HloComputation& lines,
                                 std::string* text, std::vector<Pos>* line_pos) {
  *text = "HloModule delegated\n\n";
  *line_pos = {Pos(), Pos()};
  std::vector<std::unique_ptr<HloComputation>> made = translator_->TakeComputations();
  for (const auto& c : made) RenderComputation(*c, text, line_pos);
  HloComputation body;
  body.name = "delegated";
  body.entry = true;
  for (size_t i = 0; i < outer.size(); ++i) {
    const std::string n(outer[i]->name());
    body.lines.push_back(
        {StrCat(n, " = ", outer[i]->shape().ToString(true), " parameter(", i, ")"), n, Pos()});
  }
  for (HloLine& l : lines.lines) body.lines.push_back(std::move(l));
  if (body.lines.empty()) return false;
  RenderComputation(body, text, line_pos);
  return true;
}

// Into this module: places back to the StableHLO text, as the general path
// moves them; the wrapper's parameters replaced by the values they stand
// for; by_name: the wrapper's instructions as they are now.
bool DirectReader::AdoptDelegated(Module& parsed, const std::vector<Instruction*>& outer,
                                  const std::vector<Pos>& line_pos, Scope& s,
                                  absl::flat_hash_map<std::string_view, Instruction*>* by_name) {
  auto place = [&](SourceLoc loc) {
    if (loc.line == 0 || loc.line > line_pos.size()) return SourceLoc{};
    const Pos& p = line_pos[loc.line - 1];
    return SourceLoc{p.line, p.col};
  };
  std::vector<std::unique_ptr<Computation>> comps = parsed.TakeComputations();
  if (comps.empty()) return false;
  std::unique_ptr<Computation> wrapper = std::move(comps.back());
  comps.pop_back();
  for (auto& c : comps) {
    c->set_loc(place(c->loc()));
    for (const auto& inst : c->instructions()) {
      inst->set_loc(place(inst->loc()));
      module_->NoteName(inst->name());
      any_operands_ = any_operands_ || inst->operand_count() > 0;
    }
    delegated_comps_[c->name()] = c.get();
    comps_.push_back(std::move(c));
  }
  for (std::unique_ptr<Instruction>& inst : wrapper->TakeInstructions()) {
    if (inst->opcode() == Opcode::kParameter && inst->parameter_number() >= 0 &&
        static_cast<size_t>(inst->parameter_number()) < outer.size()) {
      Instruction* real = outer[inst->parameter_number()];
      inst->ReplaceAllUsesWith(real);
      (*by_name)[real->name()] = real;
      continue;
    }
    inst->set_loc(place(inst->loc()));
    module_->NoteName(inst->name());
    any_operands_ = any_operands_ || inst->operand_count() > 0;
    Instruction* moved = s.comp->AddInstruction(std::move(inst));
    (*by_name)[moved->name()] = moved;
  }
  return true;
}

}  // namespace hlo::stablehlo::direct
