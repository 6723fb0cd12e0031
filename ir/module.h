// Module: computations, the entry computation and the header attributes.
#ifndef HLO_IR_MODULE_H_
#define HLO_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "ir/computation.h"
#include "ir/shape.h"
#include "ir/stack_frames.h"

namespace hlo {

// How the text was written, so that printing keeps the style it read.
struct PrintStyle {
  bool percent_names = true;   // `%add.1` rather than `add.1`
  bool signatures = true;      // `%comp (a: f32[]) -> f32[] {`
  bool operand_shapes = true;  // `add(f32[] %a, f32[] %b)`
  bool print_metadata = true;
  bool print_layouts = true;  // layouts on shapes as written
  // XLA's dump form: `%t#1` for get-tuple-element(%t), index=1, whose own
  // line is left out (unless it is the root).
  bool compact_gte = false;
  static PrintStyle Long() { return {}; }
  static PrintStyle Short() { return {false, false, false, true, true}; }
};

// A header attribute (`HloModule m, is_scheduled=true, ...`), kept as its
// canonical value text in written order. Known ones are also decoded below.
struct ModuleAttr {
  std::string name;
  std::string value;  // text after '='
};

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  ShapePool& shapes() { return shapes_; }
  const Shape* Intern(const Shape& shape) { return shapes_.Intern(shape); }

  const std::vector<std::unique_ptr<Computation>>& computations() const { return computations_; }
  Computation* AddComputation(std::unique_ptr<Computation> computation);
  // Hands over every computation, in order, leaving the module without any
  // (and without an entry): for moving them into another module.
  std::vector<std::unique_ptr<Computation>> TakeComputations();
  Computation* FindComputation(std::string_view name) const;
  // Removes computations that nothing calls (the entry stays).
  int64_t RemoveUnreachableComputations();
  // Removes the computations `keep` says no to (a pass that already knows
  // what is reachable need not read every instruction again to find out).
  int64_t RemoveComputationsExcept(absl::FunctionRef<bool(const Computation*)> keep);
  Computation* entry() const { return entry_; }
  void set_entry(Computation* c) { entry_ = c; }
  // Callees before callers, the entry last.
  std::vector<Computation*> PostOrder() const;
  // Compacts (Computation::CompactInstructions) the large computations whose
  // churn since their last compaction reaches half their size; returns how
  // many. Small ones are left: they stay in the caches however scattered.
  int64_t CompactScatteredComputations();
  // Takes the present layout of every computation as compact.
  void ResetChurn();

  std::vector<ModuleAttr>& header_attrs() { return header_attrs_; }
  const std::vector<ModuleAttr>& header_attrs() const { return header_attrs_; }
  const ModuleAttr* FindHeaderAttr(std::string_view name) const;

  // entry_computation_layout, when written: `{(p0, p1)->result}` shapes.
  const std::vector<const Shape*>& entry_parameter_layouts() const {
    return entry_parameter_layouts_;
  }
  const Shape* entry_result_layout() const { return entry_result_layout_; }
  void set_entry_layout(std::vector<const Shape*> params, const Shape* result) {
    entry_parameter_layouts_ = std::move(params);
    entry_result_layout_ = result;
  }
  int64_t replica_count() const { return replica_count_; }
  void set_replica_count(int64_t n) { replica_count_ = n; }
  int64_t num_partitions() const { return num_partitions_; }
  void set_num_partitions(int64_t n) { num_partitions_ = n; }

  // The stack-frame index that metadata's stack_frame_id points into.
  StackFrameIndex& stack_frames() { return stack_frames_; }
  const StackFrameIndex& stack_frames() const { return stack_frames_; }

  PrintStyle& style() { return style_; }
  const PrintStyle& style() const { return style_; }

  // Where the module was read from, for diagnostics: the file name and the
  // whole file's text (line numbers refer to it). Either may be empty.
  const std::string& source_name() const { return source_name_; }
  const std::shared_ptr<const std::string>& source_text() const { return source_text_; }
  void set_source(std::string name, std::shared_ptr<const std::string> text) {
    source_name_ = std::move(name);
    source_text_ = std::move(text);
  }

  // A fresh instruction name based on `prefix`: `prefix.N` with N above the
  // numeric suffix of every instruction name in the module, so it is unique
  // without a table of the names. The parser notes each name as it reads it
  // (NoteName); otherwise the first call looks at every instruction once.
  std::string UniqueName(std::string_view prefix);
  void NoteName(std::string_view name);
  void NotedAllNames() { names_noted_ = true; }

 private:
  std::string name_;
  ShapePool shapes_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
  std::vector<ModuleAttr> header_attrs_;
  std::vector<const Shape*> entry_parameter_layouts_;
  const Shape* entry_result_layout_ = nullptr;
  int64_t replica_count_ = 1;
  int64_t num_partitions_ = 1;
  StackFrameIndex stack_frames_;
  PrintStyle style_;
  std::string source_name_;
  std::shared_ptr<const std::string> source_text_;
  int64_t next_unique_ = 0;  // above every noted suffix
  bool names_noted_ = false;
};

}  // namespace hlo

#endif  // HLO_IR_MODULE_H_
