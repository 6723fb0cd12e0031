// hlo-opt: reads HLO text (or module JSON), runs passes, prints the result
// (tools/opt_tool.h); with --bisect, bisects a pipeline (reduce/bisect_tool.h).
#include <optional>

#include "ir/interrupt.h"
#include "reduce/bisect_tool.h"
#include "tools/opt_tool.h"
#include "tools/tool_common.h"
#include "tools/tool_status.h"

int main(int argc, char** argv) {
  hlo::interrupt::InstallHandlers();  // SIGINT, SIGTERM, SIGHUP
  if (hlo::reduce::WantsBisect(argc, argv)) return hlo::reduce::HloOptBisectMain(argc, argv);
  hlo::OptFlags flags;
  if (std::optional<int> code = hlo::ParseOptFlags(argc, argv, flags)) return *code;
  auto report = [](const absl::Status& st) { hlo::ReportError("hlo-opt", st); };
  absl::Status st = hlo::RunHloOpt(flags, report);
  if (!st.ok() && !hlo::IsReported(st)) report(st);
  return hlo::ExitCode(st);
}
