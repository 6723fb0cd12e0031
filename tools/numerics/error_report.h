// hlo-run --error-report[=N]: which instructions add the most rounding
// error. The module runs in its own types and beside it widened to f64
// (--precision=f64, the widen-floats pass); at each instruction of the f64
// run that computes (elementwise ops, converts, dots, convolutions,
// reductions, ...; not data movement, calls or loops, whose inner
// instructions are measured themselves) the instruction is evaluated again
// in its own types on the f64 run's operands rounded to those types, and
// its added error is
//
//   max_i |native_i - round(f64_i)| / max_i |round(f64_i)|
//
// over the float elements of its result, where round() rounds the f64 run's
// result to the instruction's type (infinite where one side is not finite
// and the other is; both non-finite and equal count as no error). Starting
// from the exact operands removes the error the operands carried in, and
// comparing with the correctly rounded result removes the rounding no
// instruction can avoid: an exact op (max, select, negate) adds 0, a
// correctly rounded one at most one ulp; what is left is the instruction's
// own error and what it makes of the one rounding of its inputs
// (cancellation shows here).
// An instruction run many times (in a loop) is ranked by its largest.
#ifndef HLO_TOOLS_NUMERICS_ERROR_REPORT_H_
#define HLO_TOOLS_NUMERICS_ERROR_REPORT_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "eval/evaluator.h"
#include "tools/numerics/trace.h"

namespace hlo {

// max |a - b| / max |b| over the float leaves of two values of one shape
// but for element types; `worst` gets the leaf's element of the largest
// difference (-1 when they agree). Tuples: the largest of the leaves.
struct RelativeError {
  double error = 0;
  int64_t worst = -1;  // row-major index in its leaf
  double got = 0, want = 0;
  Shape leaf_shape;  // the shape of the leaf holding `worst`
};
RelativeError MeasureError(const Value& got, const Value& want);

class ErrorReporter : public TracingObserver {
 public:
  // Observes the f64 run; evaluates the instructions of `native` (the same
  // module, not widened) with `native_evaluator`.
  ErrorReporter(const Module& native, Evaluator& native_evaluator);

  struct Row {
    const Instruction* inst = nullptr;  // the native module's
    RelativeError worst;
    std::vector<int64_t> trips;  // the iterations of the largest
    int64_t runs = 0;
  };
  // Every measured instruction, the largest added error first.
  std::vector<Row> Rows() const;
  int64_t evaluations() const { return evaluations_; }

 protected:
  absl::Status Finished(const Instruction& inst, absl::Span<const Value* const> operands,
                        const Value& result) override;

 private:
  const Module& native_;
  Evaluator& evaluator_;
  absl::flat_hash_map<std::string_view, const Instruction*> by_name_;
  absl::flat_hash_map<const Instruction*, Row> rows_;
  int64_t evaluations_ = 0;
};

// The report: `top` rows as text (or JSON), with each instruction's
// op_name, source and place in the module text; `outputs` is the native
// run's result against the f64 run's.
std::string FormatErrorReport(const Module& native, const std::vector<ErrorReporter::Row>& rows,
                              int64_t evaluations, const RelativeError& outputs, size_t top,
                              bool json);

}  // namespace hlo

#endif  // HLO_TOOLS_NUMERICS_ERROR_REPORT_H_
