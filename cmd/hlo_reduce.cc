// hlo-reduce: shrinks an HLO module while a test stays true, or finds the
// pass after which it turns true (reduce/reduce_tool.h).
#include <optional>

#include "ir/interrupt.h"
#include "reduce/reduce_tool.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

int main(int argc, char** argv) {
  hlo::interrupt::InstallHandlers();  // SIGINT, SIGTERM, SIGHUP
  hlo::reduce::ReduceFlags flags;
  if (std::optional<int> code = hlo::reduce::ParseReduceFlags(argc, argv, flags)) return *code;
  absl::Status st = hlo::reduce::RunHloReduce(flags);
  if (!st.ok()) hlo::ReportError("hlo-reduce", st);
  return hlo::ExitCode(st);
}
