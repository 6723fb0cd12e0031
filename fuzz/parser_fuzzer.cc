// libFuzzer target: HLO text through the parser, the verifier and the
// printer, as hlo-opt reads a file (`// -----` separated modules).
//
// Checked on every input: no crash or sanitizer report; a parse or verifier
// error is a located diagnostic; and the printed text is a fixed point: when
// the first print parses again, printing that module gives the same text.
// (The printed text of a module that did not verify need not parse: the
// printer writes what it holds, e.g. an attribute the parser reads only on
// some opcodes. The fixed point is what the parser and printer guarantee
// between themselves.)
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "passes/verifier.h"

namespace {

constexpr std::string_view kFile = "fuzz.hlo";
constexpr std::string_view kReprint = "reprint.hlo";
// Between modules, as hlo-opt prints a file of several.
constexpr std::string_view kSeparator = "// -----\n\n";

void CheckFixedPoint(const std::string& first) {
  auto again = hlo::ParseModules(first, hlo::ParseOptions{std::string(kReprint)});
  if (!again.ok()) return;
  std::string second;
  for (const auto& m : *again) {
    if (!second.empty()) second += kSeparator;
    second += hlo::PrintModule(*m);
  }
  if (second != first) {
    hlo::fuzz::Fail("printing is not a fixed point",
                    first + "\n----- printed again -----\n" + second);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  auto modules = hlo::ParseModules(*text, hlo::ParseOptions{std::string(kFile)});
  if (!modules.ok()) {
    hlo::fuzz::CheckLocated(modules.status(), kFile);
    return 0;
  }
  std::string printed;
  for (const auto& m : *modules) {
    m->set_source(std::string(kFile), text);
    absl::Status verified = hlo::VerifyModule(*m);
    if (!verified.ok()) hlo::fuzz::CheckLocated(verified, kFile);
    if (!printed.empty()) printed += kSeparator;
    printed += hlo::PrintModule(*m);
  }
  CheckFixedPoint(printed);
  return 0;
}
