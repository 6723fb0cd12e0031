// hlo-run --dump-values=RE2 DIR: the value of every instruction whose name
// the pattern matches (RE2, a partial match: `^dot\.3$` for one), each time
// it runs, as an .npy file of DIR, and DIR/index.json listing them in
// execution order. The files appear together when the run ends, or not at
// all (ir/output_dir.h).
//
// File names: NAME.npy; inside while loops and scans NAME.iter3.npy (each
// enclosing loop's iteration or scan's step from 0, outermost first:
// NAME.iter3.iter0.npy); a second
// run of the same instruction at the same iterations (a computation called
// twice) NAME.call1.npy, a third .call2; tuple results one file per array,
// NAME.elem1.npy, NAME.elem1_0.npy.
#ifndef HLO_TOOLS_NUMERICS_VALUE_DUMP_H_
#define HLO_TOOLS_NUMERICS_VALUE_DUMP_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/output_dir.h"
#include "re2/re2.h"
#include "tools/numerics/trace.h"

namespace hlo {

class ValueDumper : public TracingObserver {
 public:
  // `pattern` must be a valid RE2 (CheckFlags checks it).
  ValueDumper(const Module& module, const std::string& pattern, std::unique_ptr<OutputDir> dir);
  // Writes index.json (`complete`: the run ended normally) and publishes
  // the folder.
  absl::Status Finish(bool complete);
  int64_t files() const { return static_cast<int64_t>(index_.size()); }

 protected:
  absl::Status Finished(const Instruction& inst, absl::Span<const Value* const> operands,
                        const Value& result) override;

 private:
  absl::Status WriteLeaves(const Instruction& inst, const Value& value, const std::string& base,
                           const std::string& suffix, const std::vector<int64_t>& trips);

  const Module& module_;
  RE2 pattern_;
  std::unique_ptr<OutputDir> dir_;
  absl::flat_hash_map<std::string, int64_t> runs_;  // base name -> times written
  nlohmann::json index_ = nlohmann::json::array();
};

}  // namespace hlo

#endif  // HLO_TOOLS_NUMERICS_VALUE_DUMP_H_
