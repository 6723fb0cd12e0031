// Parsing HLO text into the IR, and literals and shapes on their own.
#ifndef HLO_PARSER_PARSER_H_
#define HLO_PARSER_PARSER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

// Infers an instruction's result shape from its operands, attributes and
// called computations (passes/shape_inference.h's InferShape; the parser
// library does not link the passes, so tools hand it in).
using ShapeInferrer = absl::StatusOr<Shape> (*)(const Instruction&, ShapePool&);

struct ParseOptions {
  std::string filename = "<input>";
  // With an inferrer, an instruction may leave out its shape where XLA's
  // parser infers it (`add.1 = add(a, b)`); without one that is an error.
  ShapeInferrer infer_shape = nullptr;
  // StableHLO text (stablehlo/stablehlo.h): try the one-pass direct reader
  // first (stablehlo/direct_reader.h). Tests turn it off to hold it to the
  // general path's result.
  bool stablehlo_direct = true;
  // For a text that adds to a module being built elsewhere (the StableHLO
  // direct reader hands it the ops it has no reader for): shapes are
  // interned in `shape_pool` (which must outlive the parsed module), and a
  // computation the text names but does not define is looked up here.
  ShapePool* shape_pool = nullptr;
  std::function<Computation*(std::string_view)> outside_computation = nullptr;
};

// Parses one module (or bare computations without an HloModule header).
// Errors are `FILE:LINE:COL: error: message` followed by the source line and
// a caret, in the status message.
absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                                    const ParseOptions& options = {});

// Parses a file of one or more modules separated by `// -----` lines.
absl::StatusOr<std::vector<std::unique_ptr<Module>>> ParseModules(std::string_view text,
                                                                  const ParseOptions& options = {});

// Splits text at `// -----` lines: each piece and the line its text starts on.
struct TextPiece {
  std::string_view text;
  uint32_t first_line;
};
std::vector<TextPiece> SplitModules(std::string_view text);
// Parses one piece of a split file, with line numbers of the whole file. A
// piece with nothing but blanks and comments gives NotFound.
absl::StatusOr<std::unique_ptr<Module>> ParseModulePiece(std::string_view text, uint32_t first_line,
                                                         const ParseOptions& options);

// A shape on its own: `f32[2,3]{1,0}`. Arrays without a layout get the
// default one.
absl::StatusOr<Shape> ParseShape(std::string_view text, ShapePool& pool);

// A literal with its shape: `f32[2] {1, 2}`, `(s32[] 1, pred[] true)`.
absl::StatusOr<Literal> ParseLiteral(std::string_view text, const ParseOptions& options = {});
// A literal's value for a known shape: `{1, 2}` or `7`.
absl::StatusOr<Literal> ParseLiteralValue(std::string_view text, const Shape& shape,
                                          const ParseOptions& options = {});

}  // namespace hlo

#endif  // HLO_PARSER_PARSER_H_
