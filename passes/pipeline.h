// The pass registry and pipelines built from `--passes=a,b,fixed-point(c,d)`:
// passes run in the order given; a fixed-point group repeats its passes until
// an iteration changes nothing (at most a bound of iterations). Options verify
// after each pass, print the module after chosen passes (to stderr or numbered
// files) and time the passes.
#ifndef HLO_PASSES_PIPELINE_H_
#define HLO_PASSES_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace hlo {

struct PassInfo {
  std::string name;  // the pass's own name()
  std::function<std::unique_ptr<Pass>()> create;
};

// Every pass, in the order --list-passes shows them.
const std::vector<PassInfo>& AllPasses();
std::unique_ptr<Pass> CreatePass(std::string_view name);
// "name  description" lines.
std::string ListPasses();

// `-O`: inline calls, then simplify to a fixed point (as XLA's CPU pipeline
// runs its simplification passes; layout passes are not part of it). cse
// and dce come last, as in XLA's loop, so the duplicates and dead code the
// rewrites leave are cleaned up in the same round (one round fewer on the
// 1M-instruction bench module).
inline constexpr std::string_view kDefaultPipeline =
    "call-inliner,fixed-point(algsimp,constant-folding,reshape-mover,transpose-folding,"
    "tuple-simplifier,while-loop-simplifier,conditional-simplifier,cse,dce)";
// Iterations a fixed-point group runs at most.
inline constexpr int kFixedPointBound = 25;

class OutputDir;  // ir/output_dir.h

struct PipelineOptions {
  bool verify_each = false;              // run the verifier after every pass
  bool print_after_all = false;          // print the module after every pass
  std::vector<std::string> print_after;  // ... or after these passes
  // When set, each printed step goes to DIR/LABEL.NNN.PASS.hlo (the input as
  // step 000) instead of stderr.
  std::string dump_dir;
  // Where the dumps go, staged (ir/output_dir.h); required with dump_dir.
  OutputDir* dump_files = nullptr;
  // Prints the module for --print-after*; required when printing.
  std::function<std::string(Module&)> printer;
};

// Time and outcome of one pass name, summed over its runs.
struct PassTiming {
  std::string name;
  int64_t runs = 0;
  int64_t changed = 0;
  double seconds = 0;
};

class Pipeline {
 public:
  void Add(std::unique_ptr<Pass> pass);
  void AddFixedPoint(Pipeline group, int max_iterations = kFixedPointBound);
  bool empty() const { return steps_.empty(); }
  // Runs without printing or verifying.
  absl::Status Run(Module& module);
  // Runs with options; `label` names the module in dump files and messages.
  // Timings accumulate into `timings` when it is not null.
  absl::StatusOr<bool> Run(Module& module, const PipelineOptions& options, std::string_view label,
                           std::vector<PassTiming>* timings);

 private:
  struct Step {
    std::unique_ptr<Pass> pass;       // a single pass, or
    std::unique_ptr<Pipeline> group;  // a fixed-point group
    int max_iterations = 1;
  };
  class Runner;
  std::vector<Step> steps_;
};

// Builds a pipeline from a comma-separated list (empty: no passes), where
// `fixed-point(a,b)` is a group (groups nest). Unknown names are an error
// listing the known ones.
absl::StatusOr<Pipeline> BuildPipeline(std::string_view spec);

}  // namespace hlo

#endif  // HLO_PASSES_PIPELINE_H_
