// hlo-run --find-nonfinite: stops the run at the first instruction, in
// execution order (inside called computations and loops, an instruction
// after those it calls), whose result holds a NaN or an infinity, and
// describes it: its name, op_name and source line, the trip of every
// enclosing while loop, and each operand's shape, min, max and NaN/Inf
// counts.
//
// Values the program makes from its constants alone (constant(-inf) and
// its broadcasts: reduce inits, masks) are meant to be infinite and are not
// reported; entry parameters are (a NaN input). Instructions that only
// pass values on (tuple, get-tuple-element, call, fusion, while,
// conditional) are not checked: what they hold was checked where it was made.
#ifndef HLO_TOOLS_NUMERICS_NONFINITE_FINDER_H_
#define HLO_TOOLS_NUMERICS_NONFINITE_FINDER_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "tools/numerics/trace.h"

namespace hlo {

class NonFiniteFinder : public TracingObserver {
 public:
  explicit NonFiniteFinder(const Module& module) : module_(module) {}
  // The report, once found (empty before).
  const std::string& report() const { return report_; }

 protected:
  // Returns an error carrying kNonFinitePayload at the first finding.
  absl::Status Finished(const Instruction& inst, absl::Span<const Value* const> operands,
                        const Value& result) override;

 private:
  bool FromConstantsAlone(const Instruction& inst);
  std::string Describe(const Instruction& inst, absl::Span<const Value* const> operands,
                       const Value& result, const Literal& bad, std::string_view where);

  const Module& module_;
  absl::flat_hash_map<const Instruction*, bool> constant_only_;
  std::string report_;
};

// The payload of the status that stops a run at a finding.
inline constexpr absl::string_view kNonFinitePayload = "type.hlo/nonfinite";

}  // namespace hlo

#endif  // HLO_TOOLS_NUMERICS_NONFINITE_FINDER_H_
