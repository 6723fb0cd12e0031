// libFuzzer target: StableHLO (MLIR) text through the StableHLO reader
// (stablehlo/stablehlo.h) and the HLO printer, as hlo-opt reads a .mlir file
// (the verifier is left out to keep the target's build to ir/, parser/ and
// stablehlo/).
//
// Checked on every input: no crash or sanitizer report (deep nesting, huge
// shapes and truncated text included); a read error is a located
// diagnostic; a module that reads prints, and its printed HLO parses again.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "stablehlo/stablehlo.h"

namespace {

constexpr std::string_view kFile = "fuzz.mlir";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  auto modules = hlo::ParseStableHlo(*text, hlo::ParseOptions{std::string(kFile), nullptr});
  if (!modules.ok()) {
    hlo::fuzz::CheckLocated(modules.status(), kFile);
    return 0;
  }
  for (const auto& m : *modules) {
    m->set_source(std::string(kFile), text);
    std::string printed = hlo::PrintModule(*m);
    auto again = hlo::ParseModule(printed, hlo::ParseOptions{"reprint.hlo", nullptr});
    if (!again.ok()) {
      hlo::fuzz::Fail("the HLO printed for StableHLO text does not parse",
                      hlo::fuzz::Text(again.status().message()));
    }
  }
  return 0;
}
