// libFuzzer target: `hlo-opt -O` on what parses and verifies; the optimised
// module must verify too, and print.
//
// Checked: no crash or sanitizer report; a module that verifies goes through
// the default pipeline without an error and verifies afterwards.
//
// Modules with an array of more than 2^16 elements are left out: constant
// folding would evaluate them (XLA folds up to 45 million elements), which
// makes an execution take seconds and finds nothing the small ones do not.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/shape_inference.h"
#include "passes/verifier.h"

namespace {

constexpr std::string_view kFile = "fuzz.hlo";
constexpr int64_t kMaxElements = int64_t{1} << 16;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  auto module = hlo::ParseModule(*text, hlo::ParseOptions{std::string(kFile), &hlo::InferShape});
  if (!module.ok()) return 0;
  hlo::Module& m = **module;
  m.set_source(std::string(kFile), text);
  if (!hlo::VerifyModule(m).ok() || !hlo::fuzz::ShapesAtMost(m, kMaxElements)) return 0;
  auto pipeline = hlo::BuildPipeline(hlo::kDefaultPipeline);
  if (!pipeline.ok())
    hlo::fuzz::Fail("-O does not build", hlo::fuzz::Text(pipeline.status().message()));
  std::string before = hlo::PrintModule(m);
  if (absl::Status run = pipeline->Run(m); !run.ok()) {
    hlo::fuzz::Fail("-O failed on a module that verifies",
                    std::string(run.message()) + "\n" + before);
  }
  if (absl::Status verified = hlo::VerifyModule(m); !verified.ok()) {
    hlo::fuzz::Fail("-O broke the module", std::string(verified.message()) + "\n" + before);
  }
  hlo::PrintModule(m);
  return 0;
}
