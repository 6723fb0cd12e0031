// libFuzzer target: the module JSON reader (hlo-opt --input-format=json),
// then the verifier, the HLO printer and the JSON writer.
//
// Checked: no crash or sanitizer report; a reader error names the file; a
// module that verifies writes JSON that reads back, and writing that again
// gives the same JSON (the writer and reader are inverse on what verifies).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "ir/hlo_printer.h"
#include "ir/module_json.h"
#include "passes/verifier.h"

namespace {

constexpr std::string_view kFile = "fuzz.json";

void CheckRoundTrip(hlo::Module& module) {
  std::string first = hlo::ModuleToJson(module);
  auto again = hlo::ModuleFromJson(first, "rewritten.json");
  if (!again.ok()) {
    hlo::fuzz::Fail("the JSON written for a verified module does not read back",
                    std::string(again.status().message()) + "\n" + first);
  }
  std::string second = hlo::ModuleToJson(**again);
  if (second != first) {
    hlo::fuzz::Fail("writing JSON is not a fixed point",
                    first + "\n----- written again -----\n" + second);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  auto modules = hlo::ModulesFromJson(json, kFile);
  if (!modules.ok()) {
    hlo::fuzz::CheckLocated(modules.status(), kFile);
    return 0;
  }
  for (const auto& m : *modules) {
    bool verified = hlo::VerifyModule(*m).ok();
    hlo::PrintModule(*m);
    if (verified) CheckRoundTrip(*m);
  }
  return 0;
}
