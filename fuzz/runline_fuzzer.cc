// libFuzzer target: hlo-test's reading of a test file (golden/test_file.h,
// golden/shell.h): the fuzzer's bytes are the file's text; its RUN lines
// (continued with `\`), XFAIL line, substitutions (%s %S %t %T %{expected}
// %%) and the shell syntax of each command (`|`, `&&`, `not`, quotes,
// redirections) are parsed. Nothing runs.
//
// Checked: no crash or sanitizer report, no hang; a command line that parses
// holds no empty pipeline and no command without a program.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "golden/shell.h"
#include "golden/test_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)hlo::golden::ParseXfail(text, "fuzz.hlo");
  hlo::golden::TestFile test;
  test.root = "/suite";
  test.relative = "dir/fuzz.hlo";
  test.text = text;
  test.runs = hlo::golden::ParseRunLines(text);
  for (const hlo::golden::RunLine& run : test.runs) {
    std::string command = hlo::golden::Substitute(run.command, test, "/tmp/fuzz-temp");
    auto pipelines = hlo::golden::ParseCommandLine(command);
    if (!pipelines.ok()) continue;
    for (const hlo::golden::Pipeline& p : *pipelines) {
      if (p.empty()) hlo::fuzz::Fail("an empty pipeline parsed", command);
      for (const hlo::golden::Command& c : p) {
        if (c.argv.empty()) hlo::fuzz::Fail("a command without a program parsed", command);
      }
    }
  }
  return 0;
}
