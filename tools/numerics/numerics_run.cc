#include "tools/numerics/numerics_run.h"

#include <cstdio>
#include <iostream>

#include "ir/output_dir.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "tools/numerics/compare_values.h"
#include "tools/numerics/error_report.h"
#include "tools/numerics/nonfinite_finder.h"
#include "tools/numerics/value_dump.h"
#include "tools/tool_status.h"

namespace hlo {
namespace {

// The dumper, then the finder: the non-finite value is dumped before the
// finder stops the run.
class BothObservers : public EvalObserver {
 public:
  BothObservers(EvalObserver& first, EvalObserver& second) : first_(first), second_(second) {}
  void Before(const Instruction& inst) override {
    first_.Before(inst);
    second_.Before(inst);
  }
  absl::Status After(const Instruction& inst, absl::Span<const Value* const> operands,
                     const Value* result) override {
    absl::Status a = first_.After(inst, operands, result);
    absl::Status b = second_.After(inst, operands, result);
    return a.ok() ? b : a;
  }
  void LoopTrip(int64_t trip) override {
    first_.LoopTrip(trip);
    second_.LoopTrip(trip);
  }

 private:
  EvalObserver& first_;
  EvalObserver& second_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<NumericsSession>> NumericsSession::Start(
    const Module& module, bool find_nonfinite, const std::vector<std::string>& dump_values) {
  std::unique_ptr<NumericsSession> s(new NumericsSession());
  if (find_nonfinite) s->finder_ = std::make_unique<NonFiniteFinder>(module);
  if (dump_values.size() == 2) {
    HLO_ASSIGN_OR_RETURN(std::unique_ptr<OutputDir> dir,
                         OutputDir::Open(dump_values[1], /*make_parents=*/false));
    s->dumper_ = std::make_unique<ValueDumper>(module, dump_values[0], std::move(dir));
  }
  if (s->finder_ && s->dumper_) {
    s->both_ = std::make_unique<BothObservers>(*s->dumper_, *s->finder_);
    s->observer_ = s->both_.get();
  } else if (s->finder_) {
    s->observer_ = s->finder_.get();
  } else {
    s->observer_ = s->dumper_.get();
  }
  return s;
}

NumericsSession::~NumericsSession() = default;

absl::Status NumericsSession::Finish(const absl::Status& run) {
  const bool found = !run.ok() && run.GetPayload(kNonFinitePayload).has_value();
  if (dumper_) {
    HLO_RETURN_IF_ERROR(dumper_->Finish(/*complete=*/run.ok()));
    std::cerr << "hlo-run: --dump-values wrote " << dumper_->files() << " values"
              << (run.ok() ? "" : " (up to where the run stopped)") << "\n";
  }
  if (found) {
    std::fputs(finder_->report().c_str(), stdout);
    std::fflush(stdout);
    return Finding("a non-finite value was found");
  }
  if (!run.ok()) return run;
  if (finder_) std::cerr << "hlo-run: --find-nonfinite: every value is finite\n";
  return absl::OkStatus();
}

absl::Status RunErrorReport(Module& native, Module& wide, const std::vector<Value>& arguments,
                            const EvalOptions& options, int top, bool json) {
  EvalOptions plain = options;
  plain.observer = nullptr;
  plain.progress = nullptr;
  Evaluator native_run(native, plain);
  HLO_ASSIGN_OR_RETURN(Value native_result, native_run.Run(arguments));
  ErrorReporter reporter(native, native_run);
  EvalOptions observed = plain;
  observed.observer = &reporter;
  Evaluator wide_run(wide, observed);
  HLO_ASSIGN_OR_RETURN(Value wide_result, wide_run.Run(arguments));
  const RelativeError outputs = MeasureError(native_result, wide_result);
  std::string report = FormatErrorReport(native, reporter.Rows(), reporter.evaluations(), outputs,
                                         static_cast<size_t>(top), json);
  std::fputs(report.c_str(), stdout);
  return absl::OkStatus();
}

absl::StatusOr<bool> RunCompareValues(const std::string& dir1, const std::string& dir2, bool json) {
  HLO_ASSIGN_OR_RETURN(ValueComparison c, CompareValueDirs(dir1, dir2, json));
  std::fputs(c.text.c_str(), stdout);
  return !c.differ;
}

}  // namespace hlo
