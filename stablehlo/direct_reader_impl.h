// The direct reader's pieces (direct_reader.h): the reader with what the op
// readers share, and the op readers' table. It reads with the general
// path's Lexer, so blanks, comments and places are counted as there.
// Every function returns false to give up: the caller then reads the text
// with the general path.
#ifndef HLO_STABLEHLO_DIRECT_READER_IMPL_H_
#define HLO_STABLEHLO_DIRECT_READER_IMPL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "ir/module.h"
#include "stablehlo/ast.h"
#include "stablehlo/lexer.h"
#include "stablehlo/translator.h"

namespace hlo::stablehlo::direct {

using Shapes = absl::InlinedVector<const Shape*, 4>;

// The same StableHLO type: layouts (which a delegated op's custom call may
// give its result) are no part of it.
inline bool SameType(const Shape* a, const Shape* b) { return a == b || a->Compatible(*b); }

// An op as its text gives it, before its reader translates it.
struct OpText {
  std::string_view name;  // stablehlo.add, func.call
  bool generic = false;   // written in MLIR's generic form (`"stablehlo.add"(...)`)
  SourceLoc pos;          // its first character: its results, or its name
  absl::InlinedVector<std::string_view, 2> results;   // `%x`, or `%x#i` for `%x:N`
  absl::InlinedVector<std::string_view, 4> operands;  // `%x` or `%x#i` as written
  Shapes operand_types, result_types;
};

// The values one block sees. A use of anything else (a value of an
// enclosing region: an implicit capture) is left to the general path.
struct Scope {
  Computation* comp = nullptr;
  absl::flat_hash_map<std::string_view, Instruction*> values;
};

class DirectReader {
 public:
  DirectReader(std::string_view text, uint32_t first_line);
  std::unique_ptr<Module> Read();

  // ---- For the op readers (direct_ops.cc) ----------------------------
  Lexer& lex() { return lex_; }
  // The place of what comes next, as the IR keeps it.
  SourceLoc Here() {
    const Pos p = lex_.Here();
    return {p.line, p.col};
  }
  // `%name` with its sigil (empty when none comes next).
  std::string_view ValueName();
  Module& module() { return *module_; }
  // use ::= '%' name ('#' int)?   as written (empty when none comes next).
  std::string_view Use();
  // use (',' use)*, stopping before a ',' that no '%' follows.
  bool Uses(OpText& op);
  // ':' and the op's types, with the short forms MLIR prints (one type for
  // every operand and the result, select's `pred, type`, pairwise lists).
  bool TrailingTypes(OpText& op);
  // '[' (int (',' int)*)? ']'
  bool IntList(std::vector<int64_t>* out);
  // ',' key '=' '[' ints ']' with this key.
  bool NamedInts(std::string_view key, std::vector<int64_t>* out);
  // A type: `tensor<...>` of a static shape and a plain element type, a
  // tuple of such, or a token.
  const Shape* Type();
  const Shape* ShapeOf(const stablehlo::Type& t);
  // The op's operands, each of the type the op gives it.
  bool Operands(const OpText& op, const Scope& s, absl::InlinedVector<Instruction*, 4>* out);
  // A new instruction `prefix.N` at the end of the scope's computation.
  Instruction* Emit(Scope& s, Opcode opcode, std::string_view prefix, const Shape* shape,
                    SourceLoc pos, absl::Span<Instruction* const> operands = {});
  // Parameter `number` of the scope's computation.
  Instruction* Parameter(Scope& s, size_t number, std::string_view prefix, const Shape* shape,
                         SourceLoc pos);
  // Binds the op's results to `inst`: its value, or (several, or always
  // with `tuple`) the elements of its tuple through get-tuple-element.
  bool BindResults(Scope& s, const OpText& op, Instruction* inst, bool tuple = false);
  // The one result's type (null when the op has another count).
  const Shape* SingleResult(const OpText& op) const;
  // The result type, a tuple of them when there are several.
  const Shape* ResultType(const OpText& op);
  // A computation for a region, created now (names are handed out in the
  // general path's order), added to the module at the end.
  Computation* NewComputation(std::string_view prefix, SourceLoc pos);
  // The ops of a block up to and with its terminator and the closing '}',
  // into `s`; `returned` gets the terminator's values.
  bool Block(Scope& s, int depth, absl::InlinedVector<Instruction*, 4>* returned,
             SourceLoc* return_pos);
  // A call of @name, bound once every function is read.
  void PendingCall(Instruction* call, std::string_view callee, const OpText& op);
  // A constant's value: `dense<...> : type`, as one literal of the result
  // shape, or (a splat) as a scalar literal to broadcast.
  struct Dense {
    std::shared_ptr<const Literal> literal;
    const Shape* literal_shape = nullptr;  // scalar when a splat
    const Shape* type = nullptr;
  };
  bool DenseValue(Dense* out);

 private:
  struct FuncInfo {
    Computation* comp = nullptr;
    Shapes args, results;
    bool is_public = true;
  };
  struct Call {
    Instruction* inst;
    std::string_view callee;
    Shapes args, results;
  };
  bool ModuleHeader();
  bool ModuleAttributes();
  bool Func();
  struct FuncArg {
    std::string_view name;
    SourceLoc pos;
    Attr attrs;  // a dictionary
  };
  bool FuncSignature(FuncInfo* f, std::vector<FuncArg>* args);
  bool ArgShardings(const Attr& attrs, Instruction* param);
  bool OpHead(OpText& op);
  bool LocationBody(std::string_view* body);
  bool Metadata(std::string_view loc, std::shared_ptr<const KeyValues>* out);
  bool SetMetadata(std::string_view loc, Computation* comp, int64_t first);
  bool AliasDef();
  void ScanLocationAliases();
  // An op without a reader here, read and translated by the general path's
  // reader and translator, and their HLO parsed into this module
  // (direct_delegate.cc). `start`: the op's first character.
  bool Delegate(const Lexer::Mark& start, std::string_view name, Scope& s, int depth);
  bool DelegatedText(const std::vector<Instruction*>& outer, HloComputation& lines,
                     std::string* text, std::vector<Pos>* line_pos);
  bool AdoptDelegated(Module& parsed, const std::vector<Instruction*>& outer,
                      const std::vector<Pos>& line_pos, Scope& s,
                      absl::flat_hash_map<std::string_view, Instruction*>* by_name);
  bool BindCalls();
  std::unique_ptr<Module> Finish();
  std::string_view NewName(std::string_view prefix);

  Lexer lex_;
  std::unique_ptr<Translator> translator_;  // made at the first delegated op
  absl::flat_hash_map<std::string, Computation*> delegated_comps_;  // by name
  std::unique_ptr<Module> module_;
  std::string module_name_;
  // The module's attributes and meshes (no functions): the header is made
  // from them, and the delegated ops' translator sees them.
  MlirModule context_;
  std::vector<std::unique_ptr<Computation>> comps_;  // in the order they were made
  absl::flat_hash_map<std::string_view, FuncInfo> funcs_;
  std::vector<std::string_view> func_order_;
  std::vector<Call> calls_;
  int64_t next_id_ = 1;
  std::string name_buf_;
  std::deque<std::string> owned_names_;  // `%x#i` of `%x:N` results
  absl::flat_hash_map<std::string_view, const Shape*> types_;
  absl::flat_hash_map<std::string_view, Dense> splats_;
  bool any_operands_ = false;
  // Locations: the text's `#name = loc(...)` aliases, the metadata of each
  // location read, and the last return's location (a function's tuple root
  // takes it).
  absl::flat_hash_map<std::string, std::string_view> aliases_;
  size_t defined_aliases_ = 0;  // the loc aliases AliasDef read
  absl::flat_hash_map<std::string_view, std::shared_ptr<const KeyValues>> metadata_;
  std::string_view return_loc_;
};

// An op reader: reads what follows the op's name and emits its instructions.
using OpReader = bool (*)(DirectReader&, OpText&, Scope&, int depth);
// Null for an op it has no reader for (handed to the general path's reader
// and translator, op by op: direct_delegate.cc).
OpReader FindOpReader(std::string_view name);

}  // namespace hlo::stablehlo::direct

#endif  // HLO_STABLEHLO_DIRECT_READER_IMPL_H_
