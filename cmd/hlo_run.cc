// hlo-run: evaluates an HLO module's entry computation on inputs from files,
// .npy or a seed, and prints or checks the result (tools/run_tool.h).
#include <optional>

#include "ir/interrupt.h"
#include "tools/run_tool.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

int main(int argc, char** argv) {
  hlo::interrupt::InstallHandlers();  // SIGINT, SIGTERM, SIGHUP
  // Before any module, input or buffer: what --bench's peak data is
  // measured from.
  const hlo::Resident start = hlo::ResidentNow();
  hlo::RunFlags flags;
  if (std::optional<int> code = hlo::ParseRunFlags(argc, argv, flags)) return *code;
  bool matched = true;
  absl::Status st = hlo::RunHloRun(flags, start, &matched);
  if (!st.ok() && !hlo::IsReported(st)) hlo::ReportError("hlo-run", st);
  return st.ok() ? (matched ? 0 : 1) : hlo::ExitCode(st);
}
