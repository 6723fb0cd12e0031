// Module, computation and instruction structure; reference resolution.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>

#include "ir/bare_name.h"
#include "ir/hlo_printer.h"
#include "ir/located_status.h"
#include "ir/opcode_attributes.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "parser/parser_impl.h"

namespace hlo {

Parser::Parser(std::string_view text, uint32_t first_line, const ParseOptions& options)
    : lexer_(text, first_line), options_(options) {}

namespace {

// Lines from `p` up to the next line that starts with '}' (where XLA closes a
// computation): a good guess of its instruction count, so the instruction
// list is allocated once.
size_t CountLinesToClosingBrace(const char* p, std::string_view buffer) {
  const char* end = buffer.data() + buffer.size();
  if (p == nullptr || p < buffer.data() || p >= end) return 0;
  size_t lines = 1;  // the line `p` is on
  while (const void* nl = std::memchr(p, '\n', end - p)) {
    p = static_cast<const char*>(nl) + 1;
    if (p < end && *p == '}') break;
    ++lines;
  }
  return lines;
}

}  // namespace

Instruction* Parser::FindName(std::string_view name) const {
  if (!recent_names_.empty()) {
    const RecentName& recent = recent_names_[HashString(name) & (recent_names_.size() - 1)];
    if (recent.computation == computation_serial_ && recent.name == name) return recent.inst;
  }
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : it->second;
}

void Parser::Advance() {
  if (tok_.begin != nullptr && tok_.kind != Tok::kEof) {
    prev_tok_ = tok_;
    prev_is_token_ = true;
  }
  tok_ = lexer_.Next();
}

Parser::Pos Parser::PrevEnd() const {
  if (!prev_is_token_) return prev_end_;
  const Token& t = prev_tok_;
  const char* end = t.end ? t.end : t.begin + t.text.size();
  // Only a string can span lines; count within the token.
  uint32_t newlines = 0;
  const char* line_start = nullptr;
  for (const char* p = t.begin; p < end; ++p) {
    if (*p == '\n') {
      ++newlines;
      line_start = p + 1;
    }
  }
  return newlines == 0 ? Pos{t.line, t.col + static_cast<uint32_t>(end - t.begin)}
                       : Pos{t.line + newlines, static_cast<uint32_t>(end - line_start) + 1};
}

bool Parser::ErrorAt(uint32_t line, uint32_t col, std::string message) {
  if (failed()) return false;
  error_pos_ = {line, col};
  error_message_ = message;
  error_ = MarkLocated(absl::InvalidArgumentError(
      FormatDiagnostic(options_.filename, line, col, message, lexer_.LineText(line))));
  return false;
}

absl::Status Parser::Failure() {
  // Every parse function that returns false has recorded an error; should one
  // not have, the input still gets a diagnostic (never an OK status for a
  // failed parse).
  if (error_.ok()) ErrorHere("internal error: the parser stopped here without a message");
  return error_;
}

bool Parser::ErrorAt(const Token& at, std::string message) {
  // A lexer error is the real problem, whatever the parser expected there.
  if (at.kind == Tok::kError) message = std::string(at.text);
  return ErrorAt(at.line, at.col, std::move(message));
}

bool Parser::ErrorInToken(const Token& tok, size_t offset, std::string message) {
  if (tok.kind == Tok::kError) return ErrorAt(tok, std::move(message));
  const char* p = tok.text.data() + std::min(offset, tok.text.size());
  if (std::find(tok.begin, p, '\n') == p) {
    return ErrorAt(tok.line, tok.col + static_cast<uint32_t>(p - tok.begin), std::move(message));
  }
  return ErrorAtPointer(p, std::move(message));
}

bool Parser::ErrorAtPointer(const char* p, std::string message) {
  uint32_t line = 0, col = 0;
  lexer_.LocationOf(p, &line, &col);
  return ErrorAt(line, col, std::move(message));
}

namespace {
// A token's text for a message, shortened when long.
std::string Quoted(std::string_view text) {
  constexpr size_t kMax = 48;
  if (text.size() <= kMax) return StrCat("'", text, "'");
  return StrCat("'", text.substr(0, kMax), "...'");
}
}  // namespace

std::string Parser::Describe(const Token& tok) {
  switch (tok.kind) {
    case Tok::kEof:
      return "end of input";
    case Tok::kError:
      return StrCat("invalid input (", tok.text, ")");
    case Tok::kString: {
      std::string q = Quoted(tok.text);
      return StrCat("string \"", std::string_view(q).substr(1, q.size() - 2), "\"");
    }
    case Tok::kName:
    case Tok::kNumber:
      return Quoted(tok.text);
    default:
      return std::string(TokName(tok.kind));
  }
}

bool Parser::ErrorExpected(std::string_view what) {
  if (tok_.kind == Tok::kError) return ErrorAt(tok_, "");
  std::string message = StrCat("expected ", what, ", found ", Found());
  // Something missing at the end of a line: the next line's closing bracket
  // (or the end of the input) says little about where the text is missing.
  const bool closer =
      tok_.kind == Tok::kRBrace || tok_.kind == Tok::kRParen || tok_.kind == Tok::kRSquare;
  if (PrevEnd().line != 0 && (tok_.kind == Tok::kEof || (closer && tok_.line > PrevEnd().line))) {
    return ErrorAt(PrevEnd(), std::move(message));
  }
  return ErrorHere(std::move(message));
}

bool Parser::Expect(Tok kind, std::string_view what) {
  if (tok_.kind == kind) {
    Advance();
    return true;
  }
  return ErrorExpected(what);
}

// module ::= ['HloModule' name (',' header_attr)*] computation+
absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModule() {
  Advance();
  module_ = std::make_unique<Module>("module");
  pool_ = options_.shape_pool != nullptr ? options_.shape_pool : &module_->shapes();
  if (AtName("HloModule")) {
    saw_header_ = true;
    if (!ParseHeader()) return Failure();
  }
  if (AtName("FileNames") && !ParseStackFrameIndex(&parsed_frames_)) return Failure();
  if (At(Tok::kEof) && !failed()) {
    if (saw_header_) {
      ErrorExpected("a computation after the HloModule header");
    } else {
      ErrorAt(lexer_.first_line(), 1,
              "expected 'HloModule' or a computation, found end of input (the "
              "input has no module)");
    }
  }
  if (!saw_header_ && AtSingleInstruction()) {
    if (!ParseSingleInstruction()) return Failure();
  }
  while (!failed() && !At(Tok::kEof)) {
    if (!ParseComputation()) return Failure();
  }
  if (failed() || module_->computations().empty()) return Failure();
  if (!ResolveComputationRefs()) return Failure();
  if (entry_count_ > 1) return Failure();
  // Without an ENTRY mark the last computation is the entry, as in XLA.
  module_->set_entry(explicit_entry_ ? explicit_entry_ : last_top_level_);
  NameInlineComputations();
  // Metadata ids renumbered to the index XLA would hold (and print).
  if (const Instruction* bad = CanonicalizeStackFrameIds(*module_, parsed_frames_)) {
    ErrorAt(bad->loc().line, bad->loc().col,
            StrCat("%", bad->name(), ": metadata stack_frame_id must be a 32-bit integer"));
    return Failure();
  }
  NameCompactGtes();
  // Without a header the module is named after its entry, as XLA does.
  if (!saw_header_ && !single_instruction_) {
    module_->set_name(StrCat("module_", module_->entry()->name()));
  }
  module_->NotedAllNames();  // each went to NoteName as it was read
  return std::move(module_);
}

// header ::= 'HloModule' name (',' attr_name '=' value)*
bool Parser::ParseHeader() {
  Advance();
  if (AtName("ENTRY")) {
    return ErrorAt(PrevEnd(), "expected the module name after 'HloModule', found 'ENTRY'");
  }
  if (!At(Tok::kName)) return ErrorExpected("the module name after 'HloModule'");
  std::string_view name = tok_.text;
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  module_->set_name(std::string(name));
  const char* name_end = tok_.end ? tok_.end : tok_.begin + tok_.text.size();
  Advance();
  // `HloModule name:` (XLA's lexer reads `name:` as a name).
  if (At(Tok::kColon) && tok_.begin == name_end) Advance();
  while (Consume(Tok::kComma)) {
    if (!ParseHeaderAttr()) return false;
  }
  return true;
}

bool Parser::ParseHeaderAttr() {
  if (!At(Tok::kName)) return ErrorExpected("a module attribute name after ','");
  Token name = tok_;
  Advance();
  if (!Expect(Tok::kEqual, "'=' after the module attribute name")) return false;
  std::string value;
  const uint32_t value_line = tok_.line, value_col = tok_.col;
  if (name.text == "input_output_alias" || name.text == "buffer_donor") {
    if (!ParseAliasHeader(name.text == "buffer_donor", &value)) return false;
  } else if (At(Tok::kLBrace) || At(Tok::kLParen) || At(Tok::kLSquare)) {
    std::string err;
    const char* err_at = nullptr;
    Token open = tok_;
    std::string_view raw = lexer_.ScanBalanced(open, &err, &err_at);
    if (raw.empty()) return ErrorAtPointer(err_at, err);
    value = std::string(raw);
    AdvanceAfterRaw();
  } else if (At(Tok::kName) || At(Tok::kNumber)) {
    value = std::string(tok_.text);
    Advance();
  } else if (At(Tok::kString)) {
    value = StrCat("\"", tok_.text, "\"");
    Advance();
  } else {
    return ErrorExpected(StrCat("a value for module attribute '", name.text, "'"));
  }
  for (const ModuleAttr& a : module_->header_attrs()) {
    if (a.name == name.text) {
      return ErrorAt(name, StrCat("duplicate module attribute '", name.text, "'"));
    }
  }
  if (name.text == "replica_count" || name.text == "num_partitions") {
    int64_t n = 0;
    if (!ParseInt64(value, &n) || n < 1) {
      return ErrorAt(value_line, value_col,
                     StrCat(name.text, " must be a positive integer, found '", value, "'"));
    }
    if (name.text == "replica_count")
      module_->set_replica_count(n);
    else
      module_->set_num_partitions(n);
  }
  if (name.text == "entry_computation_layout") {
    // Re-parse the value with a sub-parser so shapes get default layouts and
    // print canonically.
    Parser sub(value, value_line, options_);
    sub.pool_ = pool_;
    sub.Advance();
    std::vector<const Shape*> params;
    const Shape* result = nullptr;
    bool ok = sub.Expect(Tok::kLBrace, "'{'") &&
              sub.Expect(Tok::kLParen, "'(' to open the parameter shapes");
    while (ok && !sub.At(Tok::kRParen)) {
      const Shape* s = nullptr;
      ok = sub.ParseShape(&s);
      if (ok) params.push_back(s);
      if (ok && !sub.Consume(Tok::kComma)) break;
    }
    ok = ok && sub.Expect(Tok::kRParen, "',' or ')' after a parameter shape") &&
         sub.Expect(Tok::kArrow, "'->' before the result shape") && sub.ParseShape(&result) &&
         sub.Expect(Tok::kRBrace, "'}' after the result shape");
    if (!ok) {
      // Report where the sub-parser stopped, in the coordinates of the file,
      // with its message.
      Pos at = sub.error_pos_;
      if (at.line == value_line) at.col += value_col - 1;
      return ErrorAt(at, StrCat("in entry_computation_layout: ", sub.error_message_));
    }
    module_->set_entry_layout(params, result);
    return true;  // printed from the parsed shapes, not kept as text
  }
  if (name.text == "debug_attributes" && !CheckDebugLogModes(value, value_line, value_col)) {
    return false;
  }
  module_->header_attrs().push_back({std::string(name.text), std::move(value)});
  return true;
}

// debug_attributes is kept as text, but XLA rejects a log_mode other than
// default and fusion_debugger in it.
bool Parser::CheckDebugLogModes(std::string_view value, uint32_t line, uint32_t col) {
  constexpr std::string_view kKey = "log_mode=";
  for (size_t at = value.find(kKey); at != std::string_view::npos; at = value.find(kKey, at + 1)) {
    size_t begin = at + kKey.size(), end = begin;
    while (end < value.size() &&
           (std::isalnum(static_cast<unsigned char>(value[end])) || value[end] == '_')) {
      ++end;
    }
    std::string_view mode = value.substr(begin, end - begin);
    if (mode == "default" || mode == "fusion_debugger") continue;
    uint32_t l = line, c = col;
    for (size_t i = 0; i < begin; ++i) {
      if (value[i] == '\n') {
        ++l;
        c = 1;
      } else {
        ++c;
      }
    }
    return ErrorAt(
        l, c, StrCat("invalid debug log_mode '", mode, "'; expected default or fusion_debugger"));
  }
  return true;
}

// computation ::= ['ENTRY'] name [signature] '{' instruction* '}' [thread]
bool Parser::ParseComputation() {
  bool is_entry = false;
  Token entry_tok = tok_;
  if (AtName("ENTRY")) {
    is_entry = true;
    Advance();
  }
  if (!At(Tok::kName)) {
    if (At(Tok::kRBrace) && !is_entry) {
      return ErrorHere(
          "unexpected '}' outside any computation (is there one '}' too "
          "many?)");
    }
    return ErrorExpected(is_entry ? "the entry computation's name after 'ENTRY'"
                                  : "a computation name (or 'ENTRY')");
  }
  Token name_tok = tok_;
  std::string_view name = tok_.text;
  bool percent = name[0] == '%';
  if (percent) name.remove_prefix(1);
  if (auto it = computations_.find(name); it != computations_.end()) {
    return ErrorHere(StrCat("duplicate computation name '", name, "' (first defined at line ",
                            it->second->loc().line, ")"));
  }
  Advance();
  auto comp_owner = std::make_unique<Computation>(std::string(name));
  Computation* comp = module_->AddComputation(std::move(comp_owner));
  comp->set_loc({name_tok.line, name_tok.col});
  computations_.emplace(comp->name(), comp);
  if (is_entry) {
    if (explicit_entry_) {
      ++entry_count_;
      return ErrorAt(entry_tok, StrCat("more than one ENTRY computation ('",
                                       explicit_entry_->name(), "' and '", name, "')"));
    }
    explicit_entry_ = comp;
    entry_count_ = 1;
  }
  Signature signature;
  const bool has_signature = At(Tok::kLParen);
  if (has_signature && !ParseSignature(&signature)) return false;
  comp->set_printed_signature(has_signature);
  if (!style_known_[1]) {
    module_->style().signatures = has_signature;
    style_known_[1] = true;
  }
  // The '%' of a name that cannot lex without it (`%8c`) says nothing of
  // the style: the next computation's header decides.
  if (!style_known_[0] && LexesBare(name)) {
    module_->style().percent_names = percent;
    style_known_[0] = true;
  }
  if (!At(Tok::kLBrace)) return ErrorExpected("'{' to open the computation body");
  Advance();
  last_top_level_ = comp;
  if (!ParseBody(comp, StrCat("computation '", name, "' (opened at line ", name_tok.line, ")"))) {
    return false;
  }
  if (At(Tok::kComma) && !ParseExecutionThread(comp)) return false;
  return !has_signature || CheckSignature(signature, *comp, name_tok);
}

// signature ::= '(' [pname ':' shape (',' pname ':' shape)*] ')' '->' shape
bool Parser::ParseSignature(Signature* signature) {
  Advance();  // '('
  while (!At(Tok::kRParen)) {
    if (!At(Tok::kName)) return ErrorExpected("a parameter name in the signature");
    Token pname = tok_;
    Advance();
    if (!Expect(Tok::kColon, "':' after the parameter name")) return false;
    const Shape* s = nullptr;
    if (!ParseShape(&s)) return false;
    signature->parameters.push_back({pname, s});
    if (!Consume(Tok::kComma)) break;
  }
  if (!Expect(Tok::kRParen, "',' or ')' after a parameter of the signature")) {
    return false;
  }
  if (!Expect(Tok::kArrow, "'->' before the result shape")) return false;
  return ParseShape(&signature->result);
}

// `}, execution_thread="name"` marks a computation of another thread.
// thread ::= ',' 'execution_thread' '=' string
bool Parser::ParseExecutionThread(Computation* comp) {
  Advance();  // ','
  if (!AtName("execution_thread")) {
    return ErrorExpected("'execution_thread' after '}' and ','");
  }
  Advance();
  std::string thread;
  if (!Expect(Tok::kEqual, "'=' after 'execution_thread'") || !ParseStringValue(&thread)) {
    return false;
  }
  comp->set_execution_thread(std::move(thread));
  return true;
}

// A written signature must agree with the body's parameters and root.
bool Parser::CheckSignature(const Signature& signature, const Computation& comp,
                            const Token& name_tok) {
  const std::vector<std::pair<Token, const Shape*>>& params = signature.parameters;
  if (static_cast<int64_t>(params.size()) != comp.parameter_count()) {
    return ErrorAt(name_tok, StrCat("signature of '", comp.name(), "' lists ", params.size(),
                                    " parameter", params.size() == 1 ? "" : "s",
                                    " but the body has ", comp.parameter_count()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Shape* declared = params[i].second;
    if (!declared->Compatible(comp.parameter(i)->shape())) {
      return ErrorAt(
          params[i].first,
          StrCat("signature gives parameter ", i, " shape ", declared->ToString(),
                 " but parameter(", i, ") has shape ", comp.parameter(i)->shape().ToString()));
    }
  }
  const Instruction* root = comp.root();
  if (root != nullptr && !signature.result->Compatible(root->shape())) {
    return ErrorAt(name_tok, StrCat("signature of '", comp.name(), "' gives the result shape ",
                                    signature.result->ToString(), " but its root '", root->name(),
                                    "' has shape ", root->shape().ToString()));
  }
  return true;
}

// body ::= '{' instruction+ '}'. The caller has read the '{'.
bool Parser::ParseBody(Computation* comp, std::string_view what) {
  // An inline computation ends before the line its caller's '}' is on:
  // nothing to count there.
  const size_t lines =
      inline_depth_ > 0 ? 16 : CountLinesToClosingBrace(tok_.begin, lexer_.buffer());
  comp->ReserveInstructions(lines);
  names_.clear();
  names_.reserve(lines);
  // A slot per line up to kRecentNames; only grows, so each size is zeroed once.
  const size_t slots = std::min(kRecentNames, std::bit_ceil(std::max<size_t>(lines, 16)));
  if (recent_names_.size() < slots) recent_names_.assign(slots, RecentName{});
  computation_serial_ = ++serials_used_;  // empties recent_names_
  pending_operands_.clear();
  pending_controls_.clear();
  pending_shapes_.clear();
  compact_gtes_.clear();
  root_ = nullptr;
  while (!At(Tok::kRBrace)) {
    if (At(Tok::kEof)) {
      std::string expected = StrCat("'}' to close ", what);
      // An attribute value left open (`dimensions={1,0` at the end of a line)
      // swallows the computation's '}': the last instruction then spans
      // several lines, which XLA never prints.
      if (last_inst_ != nullptr && last_inst_line_ < PrevEnd().line &&
          comp->instructions().size() > 0 && comp->instructions().back().get() == last_inst_) {
        return ErrorAt(PrevEnd(),
                       StrCat("expected ", expected,
                              ", found end of input; the last "
                              "instruction '",
                              last_inst_->name(), "' (line ", last_inst_line_, ") runs on to line ",
                              PrevEnd().line, ": is a bracket in it unclosed?"));
      }
      return ErrorExpected(expected);
    }
    if (!ParseInstruction(comp)) return false;
  }
  Token close = tok_;
  Advance();
  return FinishComputation(comp, close);
}

bool Parser::FinishComputation(Computation* comp, const Token& close) {
  if (comp->instructions().empty()) {
    return ErrorAt(close, StrCat(ComputationLabel(*comp), " has no instructions"));
  }
  for (const PendingOperand& p : pending_operands_) {
    auto it = names_.find(p.name.text[0] == '%' ? p.name.text.substr(1) : p.name.text);
    if (it == names_.end()) {
      std::vector<std::string_view> candidates;
      for (const auto& [n, inst] : names_) {
        if (inst != p.inst) candidates.push_back(n);
      }
      std::string_view name = p.name.text[0] == '%' ? p.name.text.substr(1) : p.name.text;
      std::string msg = StrCat("use of undefined instruction '", name, "'");
      std::string_view close_match = ClosestMatch(name, candidates);
      if (!close_match.empty()) StrAppend(&msg, "; did you mean '", close_match, "'?");
      if (inline_depth_ > 0) {
        StrAppend(&msg, " (an inline computation sees only its own instructions)");
      }
      return ErrorAt(p.name, msg);
    }
    p.inst->ReplaceOperand(p.index, it->second);
  }
  for (const PendingControl& p : pending_controls_) {
    std::string_view name = p.name.text[0] == '%' ? p.name.text.substr(1) : p.name.text;
    auto it = names_.find(name);
    if (it == names_.end()) {
      std::vector<std::string_view> candidates;
      for (const auto& [n, inst] : names_) {
        if (inst != p.inst) candidates.push_back(n);
      }
      std::string msg =
          StrCat("control predecessor '", name, "' is not an instruction of this computation");
      std::string_view close_match = ClosestMatch(name, candidates);
      if (!close_match.empty()) StrAppend(&msg, "; did you mean '", close_match, "'?");
      return ErrorAt(p.name, msg);
    }
    Attribute& a = const_cast<Attribute&>(p.inst->attributes()[p.attr_index]);
    std::get<std::vector<Instruction*>>(a.value)[p.element] = it->second;
  }
  for (const PendingOperandShape& p : pending_shapes_) {
    const Instruction* op = p.inst->operand(p.index);
    if (!p.shape->Compatible(op->shape())) {
      return ErrorAt(p.at,
                     StrCat("operand ", p.index, " is written with shape ", p.shape->ToString(),
                            " but '", op->name(), "' has shape ", op->shape().ToString()));
    }
  }
  // Parameters must be numbered 0..n-1 without gaps.
  for (int64_t i = 0; i < comp->parameter_count(); ++i) {
    if (comp->parameter(i) == nullptr) {
      // Reported at the first parameter numbered past the gap.
      const Instruction* after = nullptr;
      for (int64_t j = i + 1; j < comp->parameter_count() && !after; ++j) {
        after = comp->parameter(j);
      }
      SourceLoc loc = after ? after->loc() : comp->loc();
      return ErrorAt(loc.line, loc.col,
                     StrCat("parameters must be numbered 0, 1, 2, ... without gaps: "
                            "computation '",
                            comp->name(), "' has parameter(", after ? after->parameter_number() : i,
                            ") but no parameter(", i, ")"));
    }
  }
  comp->set_root(root_ ? root_ : comp->instructions().back().get());
  if ((!pending_operands_.empty() || !pending_controls_.empty()) && !CheckCycles(comp)) {
    return false;
  }
  return true;
}

// Iterative three-colour DFS over operands and control predecessors.
bool Parser::CheckCycles(Computation* comp) {
  absl::flat_hash_map<const Instruction*, int> color;  // 1 open, 2 done
  for (const auto& start : comp->instructions()) {
    if (color[start.get()] == 2) continue;
    std::vector<std::pair<Instruction*, size_t>> stack{{start.get(), 0}};
    color[start.get()] = 1;
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      auto preds = inst->control_predecessors();
      size_t n = inst->operands().size() + preds.size();
      if (next == n) {
        color[inst] = 2;
        stack.pop_back();
        continue;
      }
      Instruction* dep = next < inst->operands().size() ? inst->operand(next)
                                                        : preds[next - inst->operands().size()];
      ++next;
      int& c = color[dep];
      if (c == 1) {
        if (dep == inst) {
          return ErrorAt(
              dep->loc().line, dep->loc().col,
              StrCat("instruction '", dep->name(), "' uses itself as ",
                     next <= inst->operands().size() ? "an operand" : "a control predecessor"));
        }
        // The cycle is the part of the stack from `dep` to `inst`.
        std::vector<std::string_view> cycle;
        for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
          cycle.push_back(it->first->name());
          if (it->first == dep) break;
        }
        std::reverse(cycle.begin(), cycle.end());
        std::string path;
        for (std::string_view n : cycle) StrAppend(&path, "'", n, "' -> ");
        StrAppend(&path, "'", dep->name(), "'");
        if (cycle.size() > 8) {
          path = StrCat("'", dep->name(), "' -> ... (", cycle.size(), " instructions) -> '",
                        inst->name(), "' -> '", dep->name(), "'");
        }
        return ErrorAt(dep->loc().line, dep->loc().col,
                       StrCat("instruction '", dep->name(), "' depends on itself: ", path,
                              " (each depends on the next through an operand or a "
                              "control predecessor)"));
      }
      if (c == 0) {
        c = 1;
        stack.push_back({dep, 0});
      }
    }
  }
  return true;
}

// instruction ::= ['ROOT'] name '=' shape opcode '(' operands ')' (',' attr)*
bool Parser::ParseInstruction(Computation* comp) {
  bool is_root = false;
  Token root_tok = tok_;
  if (AtName("ROOT")) {
    is_root = true;
    Advance();
  }
  if (!At(Tok::kName)) {
    return ErrorExpected(is_root ? "an instruction name after 'ROOT'"
                                 : "an instruction name (or '}' to close the computation)");
  }
  Token name_tok = tok_;
  std::string_view name = tok_.text;
  if (name[0] == '%') name.remove_prefix(1);
  Advance();
  if (!Expect(Tok::kEqual, "'=' after the instruction name")) return false;
  Instruction* inst = nullptr;
  if (!ParseInstructionRhs(comp, name_tok, name, nullptr, &inst)) return false;
  last_inst_ = inst;
  last_inst_line_ = name_tok.line;
  if (is_root) {
    if (root_) {
      return ErrorAt(root_tok, StrCat(ComputationLabel(*comp), " has more than one ROOT ('",
                                      root_->name(), "' and '", name, "')"));
    }
    root_ = inst;
  }
  return true;
}

// An opcode, or XLA's sugared async form `<op>-start`, `<op>-update`,
// `<op>-done` (async-start etc. wrapping <op>, set in `wrapped`).
static std::optional<Opcode> ParseOpcodeOrSugaredAsync(std::string_view text,
                                                       std::optional<Opcode>* wrapped) {
  if (std::optional<Opcode> op = ParseOpcode(text)) return op;
  for (auto [suffix, async_op] : {std::pair{std::string_view("-start"), Opcode::kAsyncStart},
                                  std::pair{std::string_view("-update"), Opcode::kAsyncUpdate},
                                  std::pair{std::string_view("-done"), Opcode::kAsyncDone}}) {
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      *wrapped = ParseOpcode(text.substr(0, text.size() - suffix.size()));
      if (*wrapped) return async_op;
    }
  }
  return std::nullopt;
}

// instruction_rhs ::= [shape] opcode '(' operands ')' (',' attribute)*
// The shape may be left out where XLA infers it; `given_shape` is one a
// nested operand instruction had before its opcode.
bool Parser::ParseInstructionRhs(Computation* comp, const Token& name_tok, std::string_view name,
                                 const Shape* given_shape, Instruction** out) {
  const Shape* shape = given_shape;
  shape_tok_ = tok_;
  // XLA's parser infers the shapes of many opcodes when they are left out.
  // (For the others ParseShape says a shape is expected before the opcode.)
  const bool infer = shape == nullptr && options_.infer_shape != nullptr && At(Tok::kName) &&
                     !ParsePrimitiveType(tok_.text) && ParseOpcode(tok_.text).has_value() &&
                     ShapeCanBeInferred(*ParseOpcode(tok_.text));
  if (infer) {
    shape = pool_->Intern(Shape::Tuple({}));  // until InferShapeNow
  } else if (shape == nullptr && !ParseShape(&shape)) {
    return false;
  }
  if (!At(Tok::kName)) return ErrorExpected("an opcode after the shape");
  Token op_tok = tok_;
  std::optional<Opcode> wrapped;
  std::optional<Opcode> opcode = ParseOpcodeOrSugaredAsync(tok_.text, &wrapped);
  if (!opcode) {
    std::vector<std::string_view> names;
    for (int i = 0; i < kNumOpcodes; ++i) names.push_back(OpcodeName(static_cast<Opcode>(i)));
    std::string msg = StrCat("unknown opcode '", tok_.text, "'");
    std::string_view close = ClosestMatch(tok_.text, names);
    if (!close.empty()) StrAppend(&msg, "; did you mean '", close, "'?");
    return ErrorHere(msg);
  }
  Advance();
  std::string anon_name;
  if (name.empty()) {
    anon_name = AnonymousName(*opcode);
    name = anon_name;
  }
  auto owned = std::make_unique<Instruction>(*opcode, name, shape);
  Instruction* inst = owned.get();
  inst->set_loc({name_tok.line, name_tok.col});
  if (wrapped) inst->set_wrapped_opcode(*wrapped);
  auto [it, inserted] = names_.emplace(inst->name(), inst);
  if (!inserted) {
    return ErrorAt(name_tok, StrCat("duplicate instruction name '", name,
                                    "' (first defined at line ", it->second->loc().line, ")"));
  }
  RecentSlot(inst->name()) = {inst->name(), inst, computation_serial_};
  module_->NoteName(inst->name());
  if (!Expect(Tok::kLParen, "'(' before the operands")) {
    // `owned` dies here: nothing may point at it.
    names_.erase(inst->name());
    RecentSlot(inst->name()) = {};
    return false;
  }
  bool ok = ParseOperands(inst, comp);
  if (ok) {
    ok = Expect(Tok::kRParen, *opcode == Opcode::kParameter || *opcode == Opcode::kConstant
                                  ? std::string_view("')' to close the operand")
                                  : std::string_view("',' or ')' after the operand"));
  }
  // async-update continues a chain: operand 0 is its async-start or
  // async-update, any others are bound late (as XLA reads them).
  if (ok && *opcode == Opcode::kAsyncUpdate && inst->operand_count() == 0) {
    ok = ErrorAt(op_tok, StrCat("'", op_tok.text,
                                "' takes the async-start or async-update it "
                                "continues as operand 0, found no operands"));
  }
  if (ok && (!wrapped || *opcode == Opcode::kAsyncDone) && OpcodeArity(*opcode) != kVariadic &&
      inst->operand_count() != OpcodeArity(*opcode) && *opcode != Opcode::kParameter &&
      *opcode != Opcode::kConstant) {
    ok = ErrorAt(op_tok,
                 StrCat("'", op_tok.text, "' takes ", OpcodeArity(*opcode), " operand",
                        OpcodeArity(*opcode) == 1 ? "" : "s", ", found ", inst->operand_count()));
  }
  // A nested instruction takes no attributes (as in XLA: a ',' after it
  // separates operands).
  if (ok && anon_name.empty()) ok = ParseAttributes(inst);
  if (ok) ok = CheckRequiredAttrs(inst, op_tok);
  if (ok && infer) ok = InferShapeNow(inst, op_tok);
  if (*opcode == Opcode::kParameter && ok) {
    int64_t n = inst->parameter_number();
    if (n < comp->parameter_count() && comp->parameter(n) != nullptr) {
      ok = ErrorAt(name_tok,
                   StrCat("parameter(", n, ") is defined twice: '", comp->parameter(n)->name(),
                          "' (line ", comp->parameter(n)->loc().line, ") and '", name, "'"));
    }
  }
  comp->AddInstruction(std::move(owned));
  *out = inst;
  return ok;
}

// An opcode name followed by '(' where an operand name is expected.
bool Parser::StartsNestedInstruction() const {
  const char* p = tok_.begin + tok_.text.size();
  const char* end = lexer_.buffer().data() + lexer_.buffer().size();
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  if (p >= end || *p != '(' || tok_.text[0] == '%') return false;
  std::optional<Opcode> wrapped;
  return ParseOpcodeOrSugaredAsync(tok_.text, &wrapped).has_value();
}

// XLA names a nested instruction `<opcode>.anon`, then `.1`, `.2`, ... (its
// NameUniquer), past the names the module has so far.
std::string Parser::AnonymousName(Opcode op) {
  const std::string base = StrCat(OpcodeName(op), ".anon");
  std::string name = base;
  for (int k = 1; names_.contains(name) || !anonymous_names_.insert(name).second; ++k) {
    name = StrCat(base, ".", k);
  }
  return name;
}

// XLA's CanInferShape: the opcodes whose shape its parser infers when the
// text leaves it out (broadcast aside: XLA infers it only in a degenerate
// form; scan when it has an input).
bool Parser::ShapeCanBeInferred(Opcode op) {
  switch (op) {
    case Opcode::kScan:
      return true;
    case Opcode::kBroadcast:
    case Opcode::kDomain:
      return false;
    case Opcode::kAbs:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAdd:
    case Opcode::kAddDependency:
    case Opcode::kAfterAll:
    case Opcode::kAtan2:
    case Opcode::kAtanh:
    case Opcode::kBatchNormGrad:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining:
    case Opcode::kCall:
    case Opcode::kCeil:
    case Opcode::kCholesky:
    case Opcode::kClamp:
    case Opcode::kClz:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kConcatenate:
    case Opcode::kConditional:
    case Opcode::kConvolution:
    case Opcode::kCopy:
    case Opcode::kCos:
    case Opcode::kCosh:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDivide:
    case Opcode::kDot:
    case Opcode::kErf:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kFft:
    case Opcode::kFloor:
    case Opcode::kGather:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kGetTupleElement:
    case Opcode::kImag:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kAnd:
    case Opcode::kNot:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kMap:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMultiply:
    case Opcode::kMulhi:
    case Opcode::kNegate:
    case Opcode::kPad:
    case Opcode::kPartitionId:
    case Opcode::kPopcnt:
    case Opcode::kPower:
    case Opcode::kRaggedDot:
    case Opcode::kReal:
    case Opcode::kReduce:
    case Opcode::kRemainder:
    case Opcode::kReplicaId:
    case Opcode::kReverse:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kScaledDot:
    case Opcode::kScatter:
    case Opcode::kSelect:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kSign:
    case Opcode::kSin:
    case Opcode::kSinh:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kSort:
    case Opcode::kSubtract:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kTranspose:
    case Opcode::kTriangularSolve:
    case Opcode::kTuple:
    case Opcode::kWhile:
    case Opcode::kTopK:
      return true;
    default:
      return false;
  }
}

// Arrays (also inside tuples) without a layout get the default one, as a
// written shape does.
static const Shape* WithDefaultLayouts(const Shape& s, ShapePool& pool) {
  if (s.IsArray()) return pool.Intern(s.has_layout() ? s : s.WithDefaultLayout());
  if (!s.IsTuple()) return pool.Intern(s);
  std::vector<const Shape*> elements;
  for (const Shape* e : s.tuple_shapes()) elements.push_back(WithDefaultLayouts(*e, pool));
  return pool.Intern(Shape::Tuple(std::move(elements)));
}

// The shape of an instruction written without one, as XLA's parser infers
// it on the spot: its operands and called computations must be defined
// above it.
bool Parser::InferShapeNow(Instruction* inst, const Token& op_tok) {
  for (int64_t i = 0; i < inst->operand_count(); ++i) {
    if (inst->operand(i) == nullptr) {
      return ErrorAt(op_tok, StrCat("the shape of '", op_tok.text,
                                    "' is inferred from its "
                                    "operands, so operand ",
                                    i, " must be defined above it"));
    }
  }
  for (auto p = pending_computations_.rbegin();
       p != pending_computations_.rend() && p->inst == inst; ++p) {
    std::string_view name = p->name.text[0] == '%' ? p->name.text.substr(1) : p->name.text;
    auto it = computations_.find(name);
    if (it == computations_.end()) {
      return ErrorAt(p->name, StrCat("the shape of '", op_tok.text, "' is inferred from '", name,
                                     "', so that computation must be defined above it"));
    }
    BindComputation(*p, it->second);
  }
  // Products take the wider operand type (XLA infers dot and convolution
  // without a preferred element type); their inference reads it from here.
  const Opcode op = inst->opcode();
  if ((op == Opcode::kDot || op == Opcode::kConvolution || op == Opcode::kRaggedDot ||
       op == Opcode::kScaledDot) &&
      inst->operand_count() >= 2) {
    const Shape& a = inst->operand(0)->shape();
    const Shape& b = inst->operand(1)->shape();
    if (a.IsArray() && b.IsArray()) {
      PrimitiveType t = a.element_type();
      if (BitWidth(b.element_type()) > BitWidth(t) || (IsFloat(b.element_type()) && !IsFloat(t))) {
        t = b.element_type();
      }
      inst->set_shape(pool_->Intern(Shape::Array(t, {})));
    }
  }
  absl::StatusOr<Shape> inferred = options_.infer_shape(*inst, *pool_);
  if (!inferred.ok()) {
    return ErrorAt(op_tok, StrCat("cannot infer the shape of '", op_tok.text,
                                  "': ", std::string(inferred.status().message())));
  }
  inst->set_shape(WithDefaultLayouts(*inferred, *pool_));
  return true;
}

// operands ::= parameter-number | constant-literal
//            | [operand (',' operand)*]
// operand  ::= [shape] name ['#' int]* | [shape] opcode '(' operands ')' attrs
bool Parser::ParseOperands(Instruction* inst, Computation* comp) {
  if (inst->opcode() == Opcode::kParameter) return ParseParameterNumber(inst);
  if (inst->opcode() == Opcode::kConstant) return ParseConstantOperand(inst);
  if (At(Tok::kRParen)) return true;
  while (true) {
    const Shape* written = nullptr;
    Token shape_tok = tok_;
    if (IsShapeStart() && !ParseShape(&written)) return false;
    const bool lone_level = single_instruction_ && inline_depth_ == 0;
    if (!At(Tok::kName) && lone_level && written != nullptr) {
      // `multiply(f32[2], f32[2])`: a parameter per shape.
      Instruction* param = nullptr;
      if (!MakeOperandParameter(comp, "", written, shape_tok, &param)) return false;
      inst->AppendOperand(param);
      if (!Consume(Tok::kComma)) return true;
      continue;
    }
    if (!At(Tok::kName)) {
      return ErrorExpected(written ? "an operand name after its shape" : "an operand name");
    }
    const bool nested = StartsNestedInstruction();
    // The print style follows the first named operand (a nested
    // instruction's shape is its own, not an operand shape).
    if (!style_known_[2] && !nested) {
      module_->style().operand_shapes = written != nullptr;
      style_known_[2] = true;
    }
    const bool ok = nested ? ParseNestedOperand(inst, comp, written)
                           : ParseNamedOperand(inst, comp, written, shape_tok, lone_level);
    if (!ok) return false;
    if (!Consume(Tok::kComma)) return true;
  }
}

// parameter-number ::= int  (0, 1, 2, ... without gaps)
bool Parser::ParseParameterNumber(Instruction* inst) {
  int64_t n = 0;
  Token at = tok_;
  if (!At(Tok::kNumber)) return ErrorExpected("a parameter number");
  if (!ParseInt(&n)) return false;
  if (n < 0) {
    return ErrorAt(at, StrCat("parameter number ", n, " is negative"));
  }
  // Parameters are numbered without gaps, so each number below this one
  // needs an instruction of its own: a number past the size of the text
  // can only leave a gap (and would make the computation's parameter table
  // huge).
  if (static_cast<uint64_t>(n) >= lexer_.buffer().size() / 8 + 64) {
    return ErrorAt(at, StrCat("parameter number ", n,
                              " is too large for this module: parameters are numbered "
                              "0, 1, 2, ... without gaps"));
  }
  inst->set_parameter_number(n);
  return true;
}

// `add(f32[] parameter(0), multiply(x, y))`: XLA's nested operands.
bool Parser::ParseNestedOperand(Instruction* inst, Computation* comp, const Shape* written) {
  Instruction* nested = nullptr;
  if (++nesting_depth_ > kMaxDepth) {
    return ErrorHere(StrCat("nested instructions more than ", kMaxDepth, " deep"));
  }
  const Token saved_shape_tok = shape_tok_;
  const bool ok = ParseInstructionRhs(comp, tok_, "", written, &nested);
  shape_tok_ = saved_shape_tok;
  --nesting_depth_;
  if (!ok) return false;
  inst->AppendOperand(nested);
  return true;
}

// A named operand (or `name#1#0`), defined already or later (resolved at
// the computation's end); `written`, its shape where the text gives one.
bool Parser::ParseNamedOperand(Instruction* inst, Computation* comp, const Shape* written,
                               const Token& shape_tok, bool lone_level) {
  std::string_view name = tok_.text;
  if (name[0] == '%') name.remove_prefix(1);
  Token operand_tok = tok_;
  Advance();
  Instruction* operand = nullptr;
  std::string compact_name;
  if (At(Tok::kHash)) {
    // `name#1#0`: XLA's compact form of get-tuple-element.
    if (!ParseCompactGte(operand_tok, comp, &operand)) return false;
    compact_name = operand->name();  // `t#1#0` until NameCompactGtes
    name = compact_name;
  } else {
    operand = FindName(name);
    if (operand == nullptr && lone_level &&
        !MakeOperandParameter(comp, name, written, operand_tok, &operand)) {
      return false;
    }
  }
  int64_t index = inst->operand_count();
  if (operand != nullptr && operand != inst) {
    inst->AppendOperand(operand);
    if (written && written != operand->shape_ptr() && !written->Compatible(operand->shape())) {
      return ErrorAt(shape_tok,
                     StrCat("operand ", index, " is written with shape ", written->ToString(),
                            " but '", name, "' has shape ", operand->shape().ToString()));
    }
  } else {
    inst->AppendOperand(nullptr);
    pending_operands_.push_back({inst, index, operand_tok});
    if (written) pending_shapes_.push_back({inst, index, written, shape_tok});
  }
  if (At(Tok::kLParen)) {
    return ErrorHere(StrCat("found '(' after the operand '", operand_tok.text,
                            "', which is not an opcode: an operand is an instruction name "
                            "or a nested instruction, [shape] opcode(operands)"));
  }
  return true;
}

// compact_gte ::= name ('#' int)+
// XLA prints `%t#1` for `get-tuple-element(%t), index=1` (and omits the
// get-tuple-element itself) when dumping; its parser makes the
// get-tuple-element back, one per distinct `name#i#j...` of a computation,
// just before the instruction that first uses it. The tuple must be defined
// above. The names are given at the end of the module (NameCompactGtes).
bool Parser::ParseCompactGte(const Token& base_tok, Computation* comp, Instruction** out) {
  std::string_view base = base_tok.text[0] == '%' ? base_tok.text.substr(1) : base_tok.text;
  Instruction* current = FindName(base);
  if (current == nullptr) {
    return ErrorAt(base_tok, StrCat("'", base, "#...' names an element of the tuple '", base,
                                    "', which must be defined above this line"));
  }
  std::string key(base);
  while (At(Tok::kHash)) {
    Advance();
    Token at = tok_;
    int64_t index = 0;
    if (!ParseInt(&index)) return false;
    const Shape& shape = current->shape();
    if (!shape.IsTuple()) {
      return ErrorAt(at, StrCat("'", key, "' has shape ", shape.ToString(),
                                ", not a tuple, so it has no element #", index));
    }
    const int64_t count = static_cast<int64_t>(shape.tuple_shapes().size());
    if (index < 0 || index >= count) {
      return ErrorAt(
          at, StrCat("tuple element #", index, " of '", key, "' is out of range: ", "its shape ",
                     shape.ToString(), " has ", count, " element", count == 1 ? "" : "s"));
    }
    StrAppend(&key, "#", index);
    auto [it, inserted] = compact_gtes_.try_emplace(key, nullptr);
    if (inserted) {
      auto gte = std::make_unique<Instruction>(Opcode::kGetTupleElement, key,
                                               pool_->Intern(*shape.tuple_shapes()[index]));
      gte->set_loc({base_tok.line, base_tok.col});
      gte->AppendOperand(current);
      gte->SetAttr(AttrKind::kIndex, index);
      it->second = comp->AddInstruction(std::move(gte));
      compact_gte_list_.push_back(it->second);
    }
    current = it->second;
  }
  if (!module_->style().compact_gte) module_->style().compact_gte = true;
  *out = current;
  return true;
}

// Names the get-tuple-elements made for `t#1#0` `t_1_0` (XLA's sanitized
// name), with `.N` added when the module has that name already.
void Parser::NameCompactGtes() {
  if (compact_gte_list_.empty()) return;
  absl::flat_hash_set<const Instruction*> made(compact_gte_list_.begin(), compact_gte_list_.end());
  absl::flat_hash_set<std::string> taken;
  for (const auto& c : module_->computations()) {
    for (const auto& inst : c->instructions()) {
      if (!made.contains(inst.get())) taken.insert(std::string(inst->name()));
    }
  }
  for (Instruction* gte : compact_gte_list_) {
    std::string base(gte->name());
    std::replace(base.begin(), base.end(), '#', '_');
    std::string name = base;
    for (int k = 1; taken.contains(name); ++k) name = StrCat(base, ".", k);
    gte->set_name(name);
    module_->NoteName(name);
    taken.insert(std::move(name));
  }
}

// all-reduce, all-reduce-start and reduce-scatter may carry `mode=`, which
// XLA reads and drops (added and rolled back in 2025; text of that time has
// it).
bool Parser::TakesIgnoredGroupMode(const Instruction& inst) {
  Opcode op = inst.has_wrapped_opcode() ? inst.wrapped_opcode() : inst.opcode();
  return op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kReduceScatter;
}

// mode ::= 'mode' '=' ('cross_replica' | 'cross_partition'
//                      | 'cross_replica_and_partition' | 'flattened_id')
bool Parser::SkipGroupMode() {
  Advance();
  if (!Expect(Tok::kEqual, "'=' after 'mode'")) return false;
  static constexpr std::string_view kModes[] = {"cross_replica", "cross_partition",
                                                "cross_replica_and_partition", "flattened_id"};
  for (std::string_view m : kModes) {
    if (AtName(m)) {
      Advance();
      return true;
    }
  }
  return ErrorExpected(
      "a collective group mode (cross_replica, cross_partition, "
      "cross_replica_and_partition or flattened_id)");
}

// attrs ::= (',' name '=' value)*
bool Parser::ParseAttributes(Instruction* inst) {
  while (Consume(Tok::kComma)) {
    if (!At(Tok::kName)) return ErrorExpected("an attribute name after ','");
    Token name_tok = tok_;
    std::optional<AttrKind> kind = ParseAttrName(tok_.text);
    if (!kind && tok_.text == "mode" && TakesIgnoredGroupMode(*inst)) {
      if (!SkipGroupMode()) return false;
      continue;
    }
    if (!kind) {
      std::string msg = StrCat("unknown attribute '", tok_.text, "'");
      std::string_view close = ClosestMatch(tok_.text, AllAttrNames());
      if (!close.empty()) StrAppend(&msg, "; did you mean '", close, "'?");
      return ErrorHere(msg);
    }
    // A sugared async-start carries the wrapped op's attributes.
    Opcode rules_op = inst->opcode();
    if (inst->has_wrapped_opcode() && inst->opcode() == Opcode::kAsyncStart &&
        *kind != AttrKind::kAsyncExecutionThread) {
      rules_op = inst->wrapped_opcode();
    }
    if (!IsAllowedAttr(rules_op, *kind)) {
      std::vector<std::string_view> allowed;
      for (const AttrRule& r : OpcodeAttrRules(rules_op)) allowed.push_back(AttrName(r.kind));
      std::string msg = StrCat("attribute '", tok_.text, "' is not allowed on '",
                               OpcodeName(inst->opcode()), "'");
      if (allowed.empty()) {
        StrAppend(&msg,
                  "; it takes none of its own (only the common ones: metadata, "
                  "sharding, frontend_attributes, backend_config, ...)");
      } else {
        std::string list;
        for (size_t i = 0; i < allowed.size(); ++i) {
          StrAppend(&list, i == 0 ? "" : i + 1 == allowed.size() ? " and " : ", ", allowed[i]);
        }
        StrAppend(&msg, "; it takes ", list, " (and the common ones: metadata, sharding, ...)");
      }
      return ErrorHere(msg);
    }
    if (inst->HasAttr(*kind)) {
      return ErrorHere(
          StrCat("attribute '", tok_.text, "' is given twice on '", inst->name(), "'"));
    }
    Advance();
    if (!Consume(Tok::kEqual))
      return Expect(Tok::kEqual, StrCat("'=' after '", name_tok.text, "'"));
    // Append first so pending references can point at the slot.
    inst->SetAttr(*kind, AttrValue{});
    AttrValue value;
    if (*kind == AttrKind::kResultAccuracy) {
      bool keep = true;
      if (!ParseResultAccuracy(*inst, name_tok, &value, &keep)) return false;
      if (!keep) {
        inst->RemoveAttr(*kind);
        continue;
      }
    } else if (!ParseAttrValue(*kind, inst, &value)) {
      return false;
    }
    inst->SetAttr(*kind, std::move(value));  // fills the slot in place
  }
  return true;
}

bool Parser::CheckRequiredAttrs(Instruction* inst, const Token& at) {
  if (inst->has_wrapped_opcode() && inst->opcode() != Opcode::kAsyncStart) return true;
  Opcode rules_op = inst->has_wrapped_opcode() ? inst->wrapped_opcode() : inst->opcode();
  // XLA: a broadcast of a scalar may leave out `dimensions` (it is {}).
  if (inst->opcode() == Opcode::kBroadcast && !inst->HasAttr(AttrKind::kDimensions) &&
      inst->operand_count() == 1 && inst->operand(0) != nullptr &&
      inst->operand(0)->shape().IsArray() && inst->operand(0)->shape().rank() == 0) {
    inst->SetAttr(AttrKind::kDimensions, std::vector<int64_t>{});
  }
  for (const AttrRule& r : OpcodeAttrRules(rules_op)) {
    if (r.required && !inst->HasAttr(r.kind)) {
      return ErrorAt(at, StrCat("'", inst->OpcodeText(), "' needs the attribute '",
                                AttrName(r.kind), "', which is missing"));
    }
  }
  if (inst->opcode() == Opcode::kConditional && !inst->HasAttr(AttrKind::kBranchComputations) &&
      !(inst->HasAttr(AttrKind::kTrueComputation) && inst->HasAttr(AttrKind::kFalseComputation))) {
    return ErrorAt(at,
                   "'conditional' needs branch_computations, or both "
                   "true_computation and false_computation");
  }
  // As XLA's parser: a pred selects between true_computation and
  // false_computation, an s32 index among branch_computations.
  if (inst->opcode() == Opcode::kConditional && inst->operand_count() > 0 &&
      inst->operand(0) != nullptr && inst->operand(0)->shape().IsArray() &&
      inst->operand(0)->shape().element_type() == PrimitiveType::kPred &&
      inst->HasAttr(AttrKind::kBranchComputations)) {
    return ErrorAt(at,
                   "a 'conditional' on a pred takes true_computation and "
                   "false_computation, not branch_computations");
  }
  return true;
}

// Puts a referenced computation into its slot of the attribute.
void Parser::BindComputation(const PendingComputation& p, Computation* callee) {
  for (const Attribute& a : p.inst->attributes()) {
    if (a.kind != p.attr) continue;
    auto& v = std::get<std::vector<Computation*>>(const_cast<Attribute&>(a).value);
    v[p.element] = callee;
    // (SetAttr, which marks a fusion's callees, saw a null here.)
    if (p.inst->opcode() == Opcode::kFusion ||
        (p.inst->opcode() == Opcode::kAsyncStart && p.inst->has_wrapped_opcode() &&
         p.inst->wrapped_opcode() == Opcode::kFusion)) {
      callee->set_fusion_computation();
    }
  }
}

bool Parser::ResolveComputationRefs() {
  for (const PendingComputation& p : pending_computations_) {
    std::string_view name = p.name.text[0] == '%' ? p.name.text.substr(1) : p.name.text;
    auto it = computations_.find(name);
    if (it == computations_.end() && options_.outside_computation) {
      if (Computation* outside = options_.outside_computation(name)) {
        BindComputation(p, outside);
        continue;
      }
    }
    if (it == computations_.end()) {
      std::vector<std::string_view> candidates;
      for (const auto& [n, c] : computations_) candidates.push_back(n);
      std::string msg = StrCat("use of undefined computation '", name, "'");
      std::string_view close = ClosestMatch(name, candidates);
      if (!close.empty()) StrAppend(&msg, "; did you mean '", close, "'?");
      return ErrorAt(p.name, msg);
    }
    BindComputation(p, it->second);
  }
  return true;
}

// ---- public entry points ----------------------------------------------------

std::vector<TextPiece> SplitModules(std::string_view text) {
  std::vector<TextPiece> pieces;
  size_t start = 0;
  uint32_t line = 1, start_line = 1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view l = text.substr(pos, eol - pos);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
    while (!l.empty() && l.front() == ' ') l.remove_prefix(1);
    if (l.substr(0, 8) == "// -----") {
      pieces.push_back({text.substr(start, pos - start), start_line});
      start = eol + 1;
      start_line = line + 1;
    }
    pos = eol + 1;
    ++line;
  }
  if (start <= text.size()) pieces.push_back({text.substr(start), start_line});
  return pieces;
}

absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                                    const ParseOptions& options) {
  Parser parser(text, 1, options);
  return parser.ParseModule();
}

absl::StatusOr<std::unique_ptr<Module>> ParseModulePiece(std::string_view text, uint32_t first_line,
                                                         const ParseOptions& options) {
  Lexer probe(text, first_line);
  if (probe.Next().kind == Tok::kEof) {
    // NotFound lets a caller skip an empty piece of a split file; the message
    // is a full diagnostic for when the piece is all there is.
    return MarkLocated(absl::NotFoundError(
        FormatDiagnostic(options.filename, first_line, 1,
                         "expected 'HloModule' or a computation, found end of input (the input has "
                         "no module)",
                         probe.LineText(first_line))));
  }
  Parser parser(text, first_line, options);
  return parser.ParseModule();
}

absl::StatusOr<std::vector<std::unique_ptr<Module>>> ParseModules(std::string_view text,
                                                                  const ParseOptions& options) {
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<TextPiece> pieces = SplitModules(text);
  absl::Status first_empty;
  for (const TextPiece& piece : pieces) {
    auto m = ParseModulePiece(piece.text, piece.first_line, options);
    if (absl::IsNotFound(m.status())) {
      if (first_empty.ok()) {
        first_empty = MarkLocated(absl::InvalidArgumentError(m.status().message()));
      }
      continue;
    }
    if (!m.ok()) return m.status();
    modules.push_back(*std::move(m));
  }
  // Empty pieces are skipped, but a file needs at least one module.
  if (modules.empty()) return first_empty;
  return modules;
}

absl::StatusOr<Shape> ParseShape(std::string_view text, ShapePool& pool) {
  Parser parser(text, 1, ParseOptions{"<shape>"});
  return parser.ParseShapeOnly(pool);
}

}  // namespace hlo
