// The reader of StableHLO/MLIR text into the AST (stablehlo/ast.h): the
// module, `func.func`s, `sdy.mesh`es, ops in the generic form
// (`"stablehlo.add"(%a, %b) <{props}> ({regions}) {attrs} : (types) -> types`)
// and, through pretty_ops.cc, in their pretty forms; regions, blocks,
// locations and `#alias = ...` definitions.
#ifndef HLO_STABLEHLO_READER_H_
#define HLO_STABLEHLO_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "stablehlo/ast.h"
#include "stablehlo/lexer.h"

namespace hlo::stablehlo {

class Reader {
 public:
  explicit Reader(Lexer& lex) : lex_(lex) {}

  absl::Status ReadFile(MlirModule* out);

  // Pieces the pretty op forms use.
  Lexer& lex() { return lex_; }
  // use ::= '%' name ('#' int)?
  absl::Status ParseUse(Use* out);
  // uses ::= use (',' use)*   (stops before a `,` not followed by `%`)
  absl::Status ParseUses(std::vector<Use>* out);
  // region ::= '{' block* '}'   block ::= ('^' name ('(' arg-list ')')? ':')? op*
  absl::Status ParseRegion(Region* out, int depth);
  // A region whose one block's arguments are given by the op (`cond {...}`),
  // or written as `(%a: t, ...) {...}`.
  absl::Status ParseRegionWithArgs(Region* out, int depth);
  // arg-list ::= '%' name ':' type (',' ...)*
  absl::Status ParseBlockArgs(Block* block);
  // attr-dict ::= ('{' dict '}')?   into op->attrs
  absl::Status ParseOptionalAttrDict(Op* op);
  // ':' function-type, resolved into operand_types and result_types.
  absl::Status ParseTrailingTypes(Op* op);
  // `key = value` parameters of the pretty forms: ', key = value' repeated.
  absl::Status ParseNamedParams(Op* op);
  absl::Status ParseOp(Op* out, int depth);
  // What follows a generic op's name: `(uses) <{props}> (regions) {attrs} : (types) -> types`.
  absl::Status ParseGenericOp(Op* op, int depth);
  // mesh ::= '@' name '=' '<' ... '>' attr-dict?   (after 'sdy.mesh')
  absl::Status ParseMesh(Mesh* out);

 private:
  absl::Status ParseModuleBody(MlirModule* out);
  absl::Status ParseFunc(MlirModule* module, Func* out);
  // loc ::= 'loc' '(' loc-body ')'; kept as text and resolved at the end.
  absl::Status ParseOptionalLoc(Location* out);
  absl::Status ParseAliasDef();
  void ResolveLocations(MlirModule* module);
  void ResolveRegion(Region& region);
  void ResolveLoc(Location& loc);

  Lexer& lex_;
  absl::flat_hash_map<std::string, std::string_view> aliases_;
};

// Pretty forms (pretty_ops.cc): parses what follows the op name. False when
// `op->name` has no pretty form known here.
bool HasPrettyForm(std::string_view name);
absl::Status ParsePrettyOp(Reader& r, Op* op, int depth);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_READER_H_
