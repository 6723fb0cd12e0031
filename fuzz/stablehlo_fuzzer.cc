// libFuzzer target: StableHLO (MLIR) text through the StableHLO reader
// (stablehlo/stablehlo.h) and the HLO printer, as hlo-opt reads a .mlir file
// (the verifier is left out to keep the target's build to ir/, parser/ and
// stablehlo/).
//
// Checked on every input: no crash or sanitizer report (deep nesting, huge
// shapes and truncated text included); a read error is a located
// diagnostic; a module that reads prints, and its printed HLO parses again;
// where the direct reader (stablehlo/direct_reader.h) reads a piece, the
// general path reads it to the same module.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "stablehlo/direct_reader.h"
#include "stablehlo/stablehlo.h"

namespace {

constexpr std::string_view kFile = "fuzz.mlir";

// The direct reader's module, where it reads a piece, is the general path's.
void CheckDirectReader(std::string_view text) {
  hlo::ParseOptions general{std::string(kFile), nullptr};
  general.stablehlo_direct = false;
  for (const hlo::TextPiece& piece : hlo::SplitStableHlo(text)) {
    std::unique_ptr<hlo::Module> direct = hlo::stablehlo::ReadDirect(piece.text, piece.first_line);
    if (direct == nullptr) continue;
    auto expected = hlo::ParseStableHloPiece(piece.text, piece.first_line, general);
    if (!expected.ok()) {
      hlo::fuzz::Fail("the direct reader reads StableHLO text the general path rejects",
                      hlo::fuzz::Text(expected.status().message()));
    }
    std::string a = hlo::PrintModule(*direct), b = hlo::PrintModule(**expected);
    if (a != b) hlo::fuzz::Fail("the direct reader's module differs from the general path's", a);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  CheckDirectReader(*text);
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
