// The StableHLO writer's state, shared by its files: writer.cc (module,
// functions, regions, values), writer_ops.cc and writer_structured.cc (one
// instruction). In namespace `writing`, apart from the reader's Op and Value.
#ifndef HLO_STABLEHLO_WRITER_IMPL_H_
#define HLO_STABLEHLO_WRITER_IMPL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/module.h"

namespace hlo::stablehlo::writing {

// An instruction's value: one SSA name, or the elements of a tuple that was
// never built as one value (`flat`).
struct Value {
  std::vector<std::string> parts;
  bool flat = false;
};

// The custom assembly forms the writer knows (MLIR's generic form is
// written for every other op, and for all with --print-op-generic):
//   kSameType    name %a, %b : T                   (operands and result of T)
//   kFunctional  name %a, %b<pretty_text> : (A, B) -> R
//   kConstant    name <pretty_text> : R
//   kCompare     name <DIR>, %a, %b, <TYPE> : (A, B) -> R   (pretty_text "DIR TYPE")
//   kSelect      name %p, %a, %b : P, R   (P and R of one shape)
//   kBare        name<pretty_text> : R    (iota, partition_id)
//   kSlice       name %a <pretty_text> : (A) -> R
//   kCall        call @f(%a) : (A) -> R
enum class PrettyForm : uint8_t {
  kNone,
  kSameType,
  kFunctional,
  kConstant,
  kCompare,
  kSelect,
  kBare,
  kSlice,
  kCall
};

// One operation.
struct Op {
  std::string name;                   // "stablehlo.add"
  std::vector<std::string> operands;  // SSA names
  std::vector<const Shape*> operand_shapes;
  std::vector<std::string> properties;  // "dimension = 0 : i64"
  std::vector<std::string> regions;     // "{\n ... }"
  std::vector<std::string> attributes;  // discardable: "mhlo.sharding = ..."
  std::vector<const Shape*> results;    // one per result
  // The op's custom assembly, as JAX prints it (kNone: generic form only).
  PrettyForm pretty = PrettyForm::kNone;
  std::string pretty_text;  // what the form puts after the operands
};

class Writer {
 public:
  Writer(const Module& module, bool generic) : module_(module), generic_(generic) {}
  absl::StatusOr<std::string> Run();

  // writer.cc
  absl::Status Function(const Computation& comp);
  // The entry's tuple parameter of shape `s` as block arguments (appended to
  // `args`), one per leaf; its value.
  absl::StatusOr<Value> EntryParameter(const Shape& s, std::vector<std::string>& args, int indent);
  // The leaves of the entry's tuple result `v` of shape `s`: their SSA names
  // and shapes, appended.
  absl::Status EntryResults(const Value& v, const Shape& s, int indent,
                            std::vector<std::string>& names, std::vector<const Shape*>& shapes);
  // The body of `comp` with its parameters bound to `params`, at `indent`;
  // returns the root's value.
  absl::StatusOr<Value> Body(const Computation& comp, const std::vector<Value>& params, int indent);
  // A region `{ ^bb0(args): body; "stablehlo.return"(...) }` for `comp`,
  // each parameter a block argument (tuple parameters flattened when
  // `flatten_tuples`), or bound to `captured` (no block arguments).
  absl::StatusOr<std::string> Region(const Computation& comp, int indent, bool flatten_tuples,
                                     const std::vector<Value>* captured = nullptr);
  // The value's elements as SSA names (get_tuple_element for a tuple value
  // not built from elements) / the value as one SSA name (a tuple built).
  absl::StatusOr<std::vector<std::string>> Elements(const Value& v, const Shape& shape, int indent);
  absl::StatusOr<std::string> Single(const Value& v, const Shape& shape, int indent);
  // Writes `op` at `indent`; its value (flat when it has several results
  // standing for one tuple `shape`).
  absl::StatusOr<Value> Emit(const Op& op, int indent);
  // Emit for the op that computes `inst`: a tuple-shaped instruction whose
  // op has one result per element is that flat tuple (a 1-tuple too).
  absl::StatusOr<Value> EmitFor(const hlo::Instruction& inst, const Op& op, int indent);
  std::string FreshArg() { return "%arg" + std::to_string(next_arg_++); }
  absl::Status Error(const Instruction& inst, std::string_view message) const;
  const Value& ValueOf(const Instruction* inst) const { return values_.at(inst); }
  void SetValue(const Instruction* inst, Value v) { values_[inst] = std::move(v); }
  // Operand i as one SSA name.
  absl::StatusOr<std::string> Operand(const Instruction& inst, int64_t i, int indent);
  // Every operand as SSA names, with their shapes, into `op`.
  absl::Status Operands(const Instruction& inst, int indent, Op& op);
  void Line(int indent, std::string_view text);
  // The op in its custom assembly after `results = `; empty when it has
  // none here (or its types do not fit the form).
  absl::StatusOr<std::string> PrettyText(const Op& op) const;
  const std::string& FunctionName(const Computation& comp);

  // writer_ops.cc: writes `inst` (inside a body at `indent`), its value.
  absl::StatusOr<Value> Instruction(const hlo::Instruction& inst, int indent);

 private:
  absl::StatusOr<Value> InstructionOps(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Elementwise(const hlo::Instruction& inst, std::string_view name,
                                    int indent);
  absl::StatusOr<Value> Bitcast(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Constant(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Reduce(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> ReduceWindow(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> While(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Conditional(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Call(const hlo::Instruction& inst, const Computation& callee, int indent);
  absl::StatusOr<bool> DynamicOpCall(const hlo::Instruction& inst, int indent, Op& op);
  absl::StatusOr<Value> CustomCall(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Collective(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> TupleAllToAll(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> DataMovement(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Structured(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Receive(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Transmit(const hlo::Instruction& inst, int indent);
  absl::StatusOr<Value> Other(const hlo::Instruction& inst, int indent);
  // Results of an op whose HLO value is `shape`: its elements when a tuple
  // of arrays, else `shape` itself.
  static std::vector<const Shape*> ResultsOf(const Shape& shape);

  const Module& module_;
  const bool generic_;  // MLIR's generic form for every op
  std::string out_;
  std::string* sink_ = &out_;  // where lines go (a region being built)
  int next_value_ = 0;
  int next_arg_ = 0;
  // The instruction being written: the ops written for it (not the tuples
  // and get_tuple_elements that move its operands) carry its frontend
  // attributes and sharding.
  const hlo::Instruction* decorating_ = nullptr;
  absl::flat_hash_map<const hlo::Instruction*, Value> values_;
  absl::flat_hash_map<const Computation*, std::string> function_names_;
  std::vector<const Computation*> pending_functions_;
  absl::flat_hash_set<const Computation*> queued_;
};

}  // namespace hlo::stablehlo::writing

#endif  // HLO_STABLEHLO_WRITER_IMPL_H_
