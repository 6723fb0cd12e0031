// Inline computations: XLA's parser reads a computation written where an
// attribute names one (`to_apply={ p = f32[] parameter(0) ... }`,
// `branch_computations={{...}, {...}}`). Each becomes a computation of the
// module, named `_`, `_.1`, ... (XLA names them "_" and its NameUniquer
// makes the names unique); its instructions see only each other, as in XLA.
#include "absl/container/flat_hash_set.h"
#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {

Parser::BodyState Parser::SetAsideBody() {
  BodyState s;
  s.names = std::move(names_);
  s.computation_serial = computation_serial_;
  s.pending_operands = std::move(pending_operands_);
  s.pending_controls = std::move(pending_controls_);
  s.pending_shapes = std::move(pending_shapes_);
  s.compact_gtes = std::move(compact_gtes_);
  s.root = root_;
  s.last_inst = last_inst_;
  s.last_inst_line = last_inst_line_;
  s.shape_tok = shape_tok_;
  names_ = {};
  last_inst_ = nullptr;
  pending_operands_ = {};
  pending_controls_ = {};
  pending_shapes_ = {};
  compact_gtes_ = {};
  return s;
}

void Parser::RestoreBody(BodyState s) {
  names_ = std::move(s.names);
  // The cache entries the inline body wrote carry its serial, so they do
  // not answer for the caller's names.
  computation_serial_ = s.computation_serial;
  pending_operands_ = std::move(s.pending_operands);
  pending_controls_ = std::move(s.pending_controls);
  pending_shapes_ = std::move(s.pending_shapes);
  compact_gtes_ = std::move(s.compact_gtes);
  root_ = s.root;
  last_inst_ = s.last_inst;
  last_inst_line_ = s.last_inst_line;
  shape_tok_ = s.shape_tok;
}

// For messages: `computation 'name'`, or the inline computation being read
// (named only at the end).
std::string Parser::ComputationLabel(const Computation& comp) const {
  if (inline_depth_ > 0) {
    return StrCat("the inline computation opened at line ", comp.loc().line);
  }
  return StrCat("computation '", comp.name(), "'");
}

// '{' followed by `name =` or `ROOT`: an instruction list, not a braced
// list of computation names.
bool Parser::AtInlineComputation() const {
  if (!At(Tok::kLBrace)) return false;
  Lexer peek = lexer_;
  Token first = peek.Next();
  if (first.kind != Tok::kName) return false;
  if (first.text == "ROOT") return true;
  return peek.Next().kind == Tok::kEqual;
}

// inline_computation ::= '{' instruction+ '}'
bool Parser::ParseInlineComputation(Computation** out) {
  Token open = tok_;
  if (!Expect(Tok::kLBrace, "'{' to open the inline computation")) return false;
  // Each level holds a few large parse frames (an attribute value, an
  // instruction, a body): nested inline bodies get a tighter bound than
  // nested operands. XLA prints none; hand-written text nests a few.
  constexpr int kMaxInlineDepth = 100;
  if (inline_depth_ >= kMaxInlineDepth || nesting_depth_ + 1 > kMaxDepth) {
    return ErrorAt(open,
                   StrCat("inline computations nest more than ",
                          inline_depth_ >= kMaxInlineDepth ? kMaxInlineDepth : kMaxDepth, " deep"));
  }
  ++nesting_depth_;
  Computation* comp = module_->AddComputation(std::make_unique<Computation>("_"));
  comp->set_loc({open.line, open.col});
  BodyState caller = SetAsideBody();
  ++inline_depth_;
  const bool ok =
      ParseBody(comp, StrCat("the inline computation opened at line ", open.line, ":", open.col));
  --inline_depth_;
  --nesting_depth_;
  RestoreBody(std::move(caller));
  if (!ok) return false;
  inline_computations_.push_back(comp);
  *out = comp;
  return true;
}

// XLA names every inline computation "_" and its module's NameUniquer makes
// them `_`, `_.1`, `_.2`, ... in the order they were closed; names the text
// gives its computations are left as they are (and skipped).
void Parser::NameInlineComputations() {
  if (inline_computations_.empty()) return;
  absl::flat_hash_set<const Computation*> inline_set(inline_computations_.begin(),
                                                     inline_computations_.end());
  absl::flat_hash_set<std::string_view> taken;
  for (const auto& c : module_->computations()) {
    if (!inline_set.contains(c.get())) taken.insert(c->name());
  }
  int next = 0;
  for (Computation* comp : inline_computations_) {
    std::string name;
    do {
      name = next == 0 ? std::string("_") : StrCat("_.", next);
      ++next;
    } while (taken.contains(name));
    comp->set_name(std::move(name));
  }
}

}  // namespace hlo
