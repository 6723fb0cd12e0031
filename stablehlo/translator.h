// Translation of the AST into HLO text, computation by computation, in the
// way XLA's StableHLO-to-HLO translation does it: a function becomes a
// computation (main the entry), func.call a `call`, a region a computation
// of its own, several results a tuple read back by get-tuple-element.
//
// Every HLO line remembers the place of the op it came from, so that what the
// HLO parser and the verifier say about it points at the StableHLO text.
#ifndef HLO_STABLEHLO_TRANSLATOR_H_
#define HLO_STABLEHLO_TRANSLATOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stablehlo/ast.h"
#include "stablehlo/lexer.h"

namespace hlo::stablehlo {

// A translated value: the HLO instruction holding it and its type.
struct Value {
  std::string name;
  Type type;
};

struct HloLine {
  std::string text;  // without the leading `ROOT `
  std::string name;  // the instruction's name
  Pos pos;
};

struct HloComputation {
  std::string name;
  std::vector<HloLine> lines;
  std::string root;
  Pos pos;
  bool entry = false;
};

// Values a branch of case/if uses from outside it (implicit captures): they
// reach the branch's computation as the elements of its one tuple parameter,
// as XLA's translation passes them.
struct Captures {
  std::string param;         // the parameter's instruction name
  std::vector<Value> outer;  // the captured values, outside
};

// The values one block sees. A use of a value of an enclosing scope is an
// implicit capture: allowed where `captures` is set, else an error.
struct Scope {
  HloComputation* comp = nullptr;
  mutable absl::flat_hash_map<std::string, Value> values;  // captures are added on use
  const Scope* parent = nullptr;
  Captures* captures = nullptr;
};

class Translator {
 public:
  Translator(const Lexer& lex, const MlirModule& module)
      : lex_(lex),
        module_(module),
        // Most modules have no quantized type: then no op needs the check.
        has_quant_types_(lex.text().find("!quant.") != std::string_view::npos) {}

  absl::Status Translate();
  // The HLO text and, per line of it (0-based), the StableHLO place; moved
  // out (the translator is done).
  std::string TakeText() { return std::move(text_); }
  std::vector<Pos> TakeLinePos() { return std::move(line_pos_); }

  // ---- For the op translators ----------------------------------------
  const Lexer& lex() const { return lex_; }
  const MlirModule& module() const { return module_; }
  absl::Status Error(Pos pos, std::string_view message) const { return lex_.Error(pos, message); }
  // A fresh instruction or computation name `prefix.N`.
  std::string NewName(std::string_view prefix);
  // Appends `NAME = TYPE BODY` (BODY is `opcode(operands), attrs`) to the
  // scope's computation; metadata from the op's location. Returns NAME.
  std::string Emit(Scope& s, const Op& op, std::string_view prefix, const Type& type,
                   std::string_view body);
  // The operands' values (checked against the op's operand types).
  absl::StatusOr<std::vector<Value>> Operands(const Scope& s, const Op& op);
  absl::StatusOr<Value> Lookup(const Scope& s, const Use& use);
  // Binds the op's results: one value, or the elements of a tuple-shaped
  // instruction `tuple_name` through get-tuple-element.
  absl::Status BindResults(Scope& s, const Op& op, const std::string& name);
  absl::Status BindTupleResults(Scope& s, const Op& op, const std::string& tuple_name);
  // The result type when an op has exactly one.
  absl::StatusOr<Type> SingleResult(const Op& op) const;
  // The type of all results: the one result's, or a tuple of them.
  Type ResultType(const Op& op) const;
  // A scalar constant `text` of `element` broadcast to `type` (scalar when rank 0).
  std::string Splat(Scope& s, const Op& op, const Type& type, std::string_view text);
  // A computation `(a, b) -> opcode(a, b)` on `element` scalars (made once),
  // for the reductions the lowerings build. Returns its name.
  std::string ScalarComputation(std::string_view opcode, std::string_view element);
  // Translates a region into a computation. Block arguments become the
  // parameters (or, with `tuple_param`, the elements of one tuple
  // parameter); the returned values its root (a tuple when several, or
  // always with `tuple_root`). Returns the computation's name.
  absl::StatusOr<std::string> RegionComputation(const Region& region, std::string_view prefix,
                                                bool tuple_param, bool tuple_root,
                                                const Scope& outer, size_t expected_args);
  // A branch of case/if: no arguments; what it uses from outside becomes its
  // one tuple parameter (`captured` gets the outer values, in order).
  absl::StatusOr<std::string> BranchComputation(const Region& region, const Scope& outer,
                                                std::vector<Value>* captured);
  // Translates the ops of a block into `s`; `returned` gets the operands of
  // its terminator (return), checked to be one.
  absl::Status TranslateBlock(const Block& block, Scope& s, std::vector<Value>* returned);

  // interpreter.run_parallel (ops_parallel.cc): the grid of devices the
  // module runs on (its header's replica_count and num_partitions; one grid
  // per module), and the values that belong to one device of it (by
  // instruction name: the device-index instruction and the device), which
  // the check ops check on that device only.
  absl::Status SetProcessGrid(Pos pos, int64_t replicas, int64_t partitions);
  struct DeviceValue {
    std::string device_index;
    int64_t device = 0;
  };
  absl::flat_hash_map<std::string, DeviceValue>& device_values() { return device_values_; }
  // The dense value of each instruction a stablehlo.constant became (by
  // name): what the dynamic ops whose sizes are constants read
  // (ops_misc.cc).
  absl::flat_hash_map<std::string, const Attr*>& constants() { return constants_; }

  // ---- For the direct reader (direct_reader.h), which hands it the ops it
  // has no reader for, one at a time, under its own names. ---------------
  int64_t next_id() const { return next_id_; }
  void set_next_id(int64_t id) { next_id_ = id; }
  absl::Status TranslateOne(const Op& op, Scope& s) { return TranslateOp(op, s); }
  // The computations made since the last call (regions, shared scalar
  // computations), in the order they were made.
  std::vector<std::unique_ptr<HloComputation>> TakeComputations() { return std::move(comps_); }

 private:
  absl::Status TranslateFunc(const Func& f, bool entry);
  absl::Status TranslateOp(const Op& op, Scope& s);
  void Render();
  void AppendModuleAttributes();

  const Lexer& lex_;
  const MlirModule& module_;
  std::vector<std::unique_ptr<HloComputation>> comps_;
  absl::flat_hash_map<std::string, int64_t> counters_;
  int64_t next_id_ = 1;
  std::string text_;
  std::vector<Pos> line_pos_;
  int64_t grid_replicas_ = 0, grid_partitions_ = 0;
  absl::flat_hash_map<std::string, DeviceValue> device_values_;
  absl::flat_hash_map<std::string, const Attr*> constants_;
  absl::flat_hash_map<std::string, std::string> scalar_computations_;
  bool has_quant_types_;
};

// The HLO module header's attributes (name, value text) for the module's
// attributes: mhlo.num_replicas / num_partitions as replica_count /
// num_partitions (not for a Shardy module; `grid_replicas` > 0: the grid of
// interpreter.run_parallel instead), mhlo.frontend_attributes and the sdy
// meshes as frontend_attributes (values that are `{...}` written bare, as XLA
// prints xla.sdy.meshes, the others quoted).
std::vector<std::pair<std::string, std::string>> HeaderAttributes(const MlirModule& module,
                                                                  int64_t grid_replicas,
                                                                  int64_t grid_partitions);

// Appends the computation's HLO text (`[ENTRY] name {`, its lines, `}`)
// and, per line, the StableHLO place it came from.
void RenderComputation(const HloComputation& c, std::string* text, std::vector<Pos>* line_pos);

// A name as HLO text can hold it: characters other than [A-Za-z0-9_.-]
// become '_', and a leading digit (or nothing) gets a '_' before it.
std::string HloName(std::string_view name);

// The op translators (ops_*.cc, chlo.cc): each takes the op and the scope
// it is in, emits its instructions and binds its results.
using OpTranslator = absl::Status (*)(Translator&, const Op&, Scope&);
// Null when the op is unknown.
OpTranslator FindOpTranslator(std::string_view name);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_TRANSLATOR_H_
