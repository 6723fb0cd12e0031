// The recursive-descent parser for HLO text. Internal to parser/: the
// functions are split across module_parser.cc (module, computations,
// instructions), attribute_parser.cc, shape_parser.cc and literal_parser.cc.
//
// Errors: the first one is recorded with its place and every later parse
// function returns false, so callers just propagate `false`.
#ifndef HLO_PARSER_PARSER_IMPL_H_
#define HLO_PARSER_PARSER_IMPL_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "ir/module.h"
#include "ir/string_hash.h"
#include "parser/lexer.h"
#include "parser/parser.h"

namespace hlo {

template <typename V>
using StringViewMap = absl::flat_hash_map<std::string_view, V, StringViewHash>;

class Parser {
 public:
  Parser(std::string_view text, uint32_t first_line, const ParseOptions& options);

  // module ::= ['HloModule' name (',' header_attr)*] computation+
  absl::StatusOr<std::unique_ptr<Module>> ParseModule();
  // shape alone, literal alone (for the public entry points)
  absl::StatusOr<Shape> ParseShapeOnly(ShapePool& pool);
  absl::StatusOr<Literal> ParseLiteralOnly(const Shape* shape);

 private:
  friend class AttributeParser;

  // ---- tokens and errors ----------------------------------------------------
  // A place in the text (1-based line and column).
  struct Pos {
    uint32_t line = 0;
    uint32_t col = 0;
  };
  // Moves to the next token, remembering where the current one ends.
  void Advance();
  // Moves on after the lexer was advanced past a raw region (ScanBalanced or
  // a shape read from the cache): `end_line`/`end_col` is where it ended.
  void AdvanceAfter(uint32_t end_line, uint32_t end_col) {
    prev_end_ = {end_line, end_col};
    prev_is_token_ = false;
    tok_ = lexer_.Next();
  }
  // Moves on after Lexer::ScanBalanced consumed a raw region.
  void AdvanceAfterRaw() {
    Pos end;
    lexer_.CurrentLocation(&end.line, &end.col);
    AdvanceAfter(end.line, end.col);
  }
  // Re-reads from `at` (a token seen before), restoring the end position of
  // the token before it.
  void Backtrack(const Token& at, Pos prev_end) {
    lexer_.Reset(at);
    tok_ = lexer_.Next();
    prev_end_ = prev_end;
    prev_is_token_ = false;
  }
  // Where the token before the current one ends (computed on demand: only
  // diagnostics need it).
  Pos PrevEnd() const;
  // Was `t` the last token consumed (nothing read after it)?
  bool PrevEndsAt(const Token& t) const { return prev_is_token_ && prev_tok_.begin == t.begin; }
  bool At(Tok kind) const { return tok_.kind == kind; }
  bool AtName(std::string_view text) const { return tok_.kind == Tok::kName && tok_.text == text; }
  bool Consume(Tok kind) {
    if (tok_.kind != kind) return false;
    Advance();
    return true;
  }
  // Consumes `kind` or reports "expected <what>, found <token>".
  bool Expect(Tok kind, std::string_view what);
  // Reports "expected <what>, found <current token>". When the current token
  // is the end of the input, or a closing bracket on a later line than the
  // previous token, the error points just after the previous token, where
  // the missing text belongs.
  bool ErrorExpected(std::string_view what);
  // Errors at a token; an invalid token (a lexer error) reports the lexer's
  // message instead of `message`.
  bool ErrorAt(const Token& at, std::string message);
  bool ErrorAt(uint32_t line, uint32_t col, std::string message);
  bool ErrorAt(Pos pos, std::string message) {
    return ErrorAt(pos.line, pos.col, std::move(message));
  }
  bool ErrorHere(std::string message) { return ErrorAt(tok_, std::move(message)); }
  // An error about bytes [offset, ...) inside a token's text (a part of
  // `2x2`, an escape inside a string).
  bool ErrorInToken(const Token& tok, size_t offset, std::string message);
  // An error about a bracket found by Lexer::ScanBalanced.
  bool ErrorAtPointer(const char* p, std::string message);
  std::string Found() const { return Describe(tok_); }  // the current token
  static std::string Describe(const Token& tok);        // 'name', '(', end of input
  bool failed() const { return !error_.ok(); }
  // The recorded error, for a parse function that returned false.
  absl::Status Failure();

  // ---- module structure (module_parser.cc) ----------------------------------
  bool ParseHeader();
  bool ParseHeaderAttr();
  // ---- the stack-frame index (stack_frame_parser.cc) ----------------------
  bool ParseStackFrameIndex(StackFrameIndex* out);
  // '{' name=int ... '}' with each of `names` once; values in names' order.
  bool ParseIntSubAttributes(absl::Span<const std::string_view> names, std::string_view what,
                             int32_t* values);
  bool ParseEntryLayout(std::string_view value_text);
  // ---- input_output_alias and buffer_donor (alias_parser.cc) -------------
  bool ParseShapeIndex(std::vector<int64_t>* out);
  bool ParseAliasHeader(bool donors, std::string* out);
  bool ParseComputation();
  // A computation's written signature: its parameters' names and shapes,
  // and the result shape.
  struct Signature {
    std::vector<std::pair<Token, const Shape*>> parameters;
    const Shape* result = nullptr;
  };
  bool ParseSignature(Signature* signature);
  bool ParseExecutionThread(Computation* comp);
  bool CheckSignature(const Signature& signature, const Computation& comp, const Token& name_tok);
  // body ::= '{' instruction+ '}' (after the '{'); `what` names the
  // computation in messages.
  bool ParseBody(Computation* comp, std::string_view what);
  // ---- inline computations (inline_computation.cc) -------------------------
  // Is the current '{' the start of an inline computation (`{ name = ...`)?
  bool AtInlineComputation() const;
  // inline_computation ::= '{' instruction+ '}', read where an attribute
  // names a computation (`to_apply={...}`).
  bool ParseInlineComputation(Computation** out);
  std::string ComputationLabel(const Computation& comp) const;
  // Names the inline computations `_`, `_.1`, ... as XLA's NameUniquer does.
  void NameInlineComputations();
  // ---- a lone instruction without a module (single_instruction.cc) ---------
  bool AtSingleInstruction() const;
  bool ParseSingleInstruction();
  bool MakeOperandParameter(Computation* comp, std::string_view name, const Shape* shape,
                            const Token& at, Instruction** out);
  bool ParseInstruction(Computation* comp);
  bool ParseInstructionRhs(Computation* comp, const Token& name_tok, std::string_view name,
                           const Shape* given_shape, Instruction** out);
  std::string AnonymousName(Opcode op);
  bool StartsNestedInstruction() const;
  bool CheckDebugLogModes(std::string_view value, uint32_t line, uint32_t col);
  bool ParseOperands(Instruction* inst, Computation* comp);
  bool ParseParameterNumber(Instruction* inst);
  bool ParseNestedOperand(Instruction* inst, Computation* comp, const Shape* written);
  bool ParseNamedOperand(Instruction* inst, Computation* comp, const Shape* written,
                         const Token& shape_tok, bool lone_level);
  bool ParseConstantOperand(Instruction* inst);
  bool ParseCompactGte(const Token& base_tok, Computation* comp, Instruction** out);
  void NameCompactGtes();
  bool ParseAttributes(Instruction* inst);
  static bool TakesIgnoredGroupMode(const Instruction& inst);
  bool ParseResultAccuracy(const Instruction& inst, const Token& name_tok, AttrValue* out,
                           bool* keep);
  bool SkipGroupMode();
  bool FinishComputation(Computation* comp, const Token& close);
  bool ResolveComputationRefs();
  bool CheckCycles(Computation* comp);
  bool CheckRequiredAttrs(Instruction* inst, const Token& at);

  // ---- attributes (attribute_parser.cc) -------------------------------------
  bool ParseAttrValue(AttrKind kind, Instruction* inst, AttrValue* out);
  bool ParseInt(int64_t* out);
  bool ParseIntList(std::vector<int64_t>* out);  // {1,2}
  bool ParseIntListList(std::vector<std::vector<int64_t>>* out);
  bool ParseWindow(Window* out);
  bool ParseConvDims(ConvDims* out);
  bool ParseConvDimsWithUnknown(ConvDims* out);
  bool ParsePadding(PaddingConfig* out);
  bool ParseSliceSpec(SliceSpec* out);
  bool ParseReplicaGroups(ReplicaGroups* out);
  bool ParseSharding(Sharding* out, int depth);
  bool ParseShardingWord(std::string_view w, const Token& at, Sharding* out, bool* have_type);
  bool ParseShardingDevices(Sharding* out);
  bool ParseShardingMetadata(std::vector<KeyValues>* out);
  // ---- device lists and meshes (mesh_parser.cc) -----------------------------
  bool ParseIotaDims(std::vector<int64_t>* out, std::string_view what);
  bool ParseIota(IotaTileAssignment* out);       // [..]<=[..]T(..)
  bool ParseIotaArray(IotaTileAssignment* out);  // [4,2]T(1,0), after `<=`
  bool ParseMesh(Mesh* out);
  bool ParseMaximalMesh(Mesh* out);
  bool ParseMeshAxes(Mesh* out, int64_t* devices);
  bool ParseMeshIotaIds(int64_t devices, Mesh* out);
  bool ParseMeshIdList(int64_t devices, const Token& open, Mesh* out);
  bool ParseMeshAxisRef(const Mesh& mesh, MeshAxisRef* out);
  bool ParseMeshAxisList(const Mesh& mesh, std::vector<MeshAxisRef>* out);
  bool ParseMeshReplicaGroups(MeshReplicaGroups* out);
  bool ParseNamedSharding(Sharding* out);  // after '{', at mesh / maximal_mesh
  bool ParseNamedShardingMetadata(Sharding* out);
  bool ParseUnreducedOp(NamedSharding::Reduction* r);
  bool ParseNamedShardingDims(NamedSharding* s);
  bool ParseKeyValues(KeyValues* out, bool allow_unquoted);
  bool ParseAliasing(Aliasing* out);
  bool ParseStringValue(std::string* out);
  bool ParseSparsityConfig(AttrValue* out);
  // Decodes a string token's escapes, reporting a bad one where it is.
  bool UnescapeString(const Token& tok, std::string* out);
  bool UnescapeInterned(const Token& tok, InternedString* out);
  bool ParseShapedLiteral(Literal* out, int depth);
  bool ParseComputationRef(Computation** out, Instruction* inst, int slot_attr, int slot_index);

  // ---- shapes (shape_parser.cc) ---------------------------------------------
  // shape ::= type '[' dims ']' [layout] | '(' [shape (',' shape)*] ')' | token[]
  bool ParseShape(const Shape** out);
  bool ParseShapeValue(Shape* out, int depth);
  bool ParseTupleShape(Shape* out, int depth);
  bool ErrorNotElementType();
  bool ParseDim(int64_t* size, bool* bounded);
  bool ParseLayout(Layout* out, int64_t rank, int depth);
  bool ParseLayoutDimensions(Layout* out);
  bool ParseLayoutField(Layout* out, int depth, Token* physical_tok);
  bool ParseLayoutTiles(Layout* out);
  bool ParseLayoutSplitConfigs(Layout* out);
  bool CheckLayout(const Layout& layout, int64_t rank, const Token& open,
                   const Token& physical_tok);
  bool ParseDimLevels(std::vector<Layout::DimLevel>* out);
  bool IsShapeStart() const;

  // ---- literals (literal_parser.cc) -----------------------------------------
  bool CreateLiteralFor(const Shape& shape, const Token& at, Literal* out);
  bool ParseLiteralForShape(const Shape& shape, Literal* out, int depth);
  bool ParseArrayLiteral(const Shape& shape, Literal* out);
  bool ParseElement(Literal* lit, int64_t index, PrimitiveType type);
  bool ParsePredElement(Literal* lit, int64_t index);
  bool ParseIntElement(Literal* lit, int64_t index, PrimitiveType type);
  bool ParseComplexElement(Literal* lit, int64_t index, PrimitiveType type);
  bool ParseRealElement(Literal* lit, int64_t index, PrimitiveType type);
  bool ParseFloatText(const Token& tok, bool negate, PrimitiveType type, double* value,
                      uint64_t* bits, bool* has_bits);

  // A reference by name that must be resolved after the whole computation
  // (operands, control predecessors) or module (computations) is read.
  static bool ShapeCanBeInferred(Opcode op);
  bool InferShapeNow(Instruction* inst, const Token& op_tok);

  struct PendingOperand {
    Instruction* inst;
    int64_t index;
    Token name;
  };
  struct PendingControl {
    Instruction* inst;
    size_t attr_index;
    size_t element;
    Token name;
  };
  struct PendingComputation {
    Instruction* inst;
    AttrKind attr;
    size_t element;
    Token name;
  };
  struct PendingOperandShape {
    Instruction* inst;
    int64_t index;
    const Shape* shape;
    Token at;
  };
  void BindComputation(const PendingComputation& p, Computation* callee);

  // The state of the computation whose body is being read. An inline
  // computation sets its caller's aside while its own body is read.
  struct BodyState {
    StringViewMap<Instruction*> names;
    uint32_t computation_serial = 0;
    std::vector<PendingOperand> pending_operands;
    std::vector<PendingControl> pending_controls;
    std::vector<PendingOperandShape> pending_shapes;
    absl::flat_hash_map<std::string, Instruction*> compact_gtes;
    Instruction* root = nullptr;
    const Instruction* last_inst = nullptr;
    uint32_t last_inst_line = 0;
    Token shape_tok;
  };
  BodyState SetAsideBody();
  void RestoreBody(BodyState state);

  static constexpr int kMaxDepth = 500;

  Lexer lexer_;
  Token tok_;
  // The previous token's end is prev_end_, or, when prev_is_token_, the end
  // of prev_tok_.
  Pos prev_end_;
  Token prev_tok_;
  bool prev_is_token_ = false;
  Pos error_pos_;              // where the recorded error is
  std::string error_message_;  // its message, without place and source line
  ParseOptions options_;
  absl::Status error_;
  std::unique_ptr<Module> module_;
  ShapePool* pool_ = nullptr;  // where shapes are interned
  bool saw_header_ = false;
  bool style_known_[3] = {false, false, false};
  Computation* explicit_entry_ = nullptr;
  int entry_count_ = 0;
  StackFrameIndex parsed_frames_;               // as read, before CanonicalizeStackFrameIds
  std::vector<Instruction*> compact_gte_list_;  // every one made, in order

  // Per-computation state.
  StringViewMap<Instruction*> names_;
  // Operands mostly name instructions defined a few lines up. A small
  // direct-mapped cache of recent definitions (valid for the computation
  // whose serial it carries) answers those without probing names_, which for
  // a 400k-instruction entry computation is megabytes of randomly hit table.
  struct RecentName {
    std::string_view name;
    Instruction* inst = nullptr;
    uint32_t computation = 0;
  };
  // At most kRecentNames entries (a power of two), grown to the largest
  // computation read so far: a small module must not pay for zeroing a
  // table made for a large one (that was most of the time of parsing a
  // 20-line module, every header attribute and literal included).
  static constexpr size_t kRecentNames = 4096;
  std::vector<RecentName> recent_names_;
  // The cache slot of `name` (recent_names_ must not be empty).
  RecentName& RecentSlot(std::string_view name) {
    return recent_names_[HashString(name) & (recent_names_.size() - 1)];
  }
  uint32_t computation_serial_ = 0;
  uint32_t serials_used_ = 0;  // every body gets a serial of its own
  // The instruction of this computation called `name` (without '%'), or null.
  Instruction* FindName(std::string_view name) const;
  std::vector<PendingOperand> pending_operands_;
  std::vector<PendingControl> pending_controls_;
  std::vector<PendingOperandShape> pending_shapes_;
  // `t#1#0` -> the get-tuple-element made for it (per computation).
  absl::flat_hash_map<std::string, Instruction*> compact_gtes_;
  Instruction* root_ = nullptr;
  Token shape_tok_;                         // where the current instruction's shape starts
  const Instruction* last_inst_ = nullptr;  // the last instruction read
  uint32_t last_inst_line_ = 0;             // the line it starts on
  // Module-wide.
  StringViewMap<Computation*> computations_;
  std::vector<PendingComputation> pending_computations_;
  // The last computation of the text (the entry when none is marked ENTRY).
  Computation* last_top_level_ = nullptr;
  // Inline computations, in the order their bodies were closed (XLA's).
  std::vector<Computation*> inline_computations_;
  // A lone instruction: operands named with a shape but not defined become
  // parameters of the entry computation (only at its level).
  bool single_instruction_ = false;
  int inline_depth_ = 0;
  // Names given to nested (anonymous) instructions, module-wide.
  absl::flat_hash_set<std::string> anonymous_names_;
  int nesting_depth_ = 0;
  // Raw shape text -> interned shape, so repeated shapes are parsed once.
  StringViewMap<const Shape*> shape_cache_;
  // The last simple shape read and its text (see ParseShape).
  std::string_view last_shape_text_;
  const Shape* last_shape_ = nullptr;
  // (shape, token) -> literal of the scalar constants read so far: constants
  // are immutable and shared, and dumps repeat a few scalars (0, 1, -inf)
  // thousands of times, so each distinct one is parsed and stored once.
  struct ScalarConstantKeyHash {
    size_t operator()(const std::pair<const Shape*, std::string_view>& k) const {
      return StringViewHash{}(k.second) ^ absl::Hash<const Shape*>{}(k.first);
    }
  };
  absl::flat_hash_map<std::pair<const Shape*, std::string_view>, std::shared_ptr<const Literal>,
                      ScalarConstantKeyHash>
      scalar_constants_;
};

}  // namespace hlo

#endif  // HLO_PARSER_PARSER_IMPL_H_
