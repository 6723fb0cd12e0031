// libFuzzer target: HLO text through the parser, the verifier and the
// printer, as hlo-opt reads a file (`// -----` separated modules).
//
// Checked on every input: no crash or sanitizer report; a parse or verifier
// error is a located diagnostic. When every module verifies, the printed
// text parses again and printing it gives the same text (a fixed point).
// That is what hlo-opt guarantees; a module that does not verify need not
// print as a fixed point: computations print callees first, and with a cycle
// through calls (which the verifier rejects) that order depends on the input.
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
  if (!again.ok()) {
    hlo::fuzz::Fail("the printed text of modules that verify does not parse",
                    std::string(again.status().message()) + "\n" + first);
  }
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
  bool all_verified = true;
  for (const auto& m : *modules) {
    m->set_source(std::string(kFile), text);
    absl::Status verified = hlo::VerifyModule(*m);
    if (!verified.ok()) {
      hlo::fuzz::CheckLocated(verified, kFile);
      all_verified = false;
    }
    if (!printed.empty()) printed += kSeparator;
    printed += hlo::PrintModule(*m);
  }
  if (all_verified) CheckFixedPoint(printed);
  return 0;
}
