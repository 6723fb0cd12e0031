// libFuzzer target: hlo-run's evaluator on small modules that parse and
// verify, with random inputs; aimed at the custom-calls that take their
// sizes from the module (jaxlib's LAPACK kernels, eval/linalg/) and the
// Shardy manual computations (eval/collectives/sdy_manual_computation.cc),
// whose seeds come from testdata/eval/lapack_* and sdy_* (fuzz/corpus.py).
//
// Checked: no crash or sanitizer report; an error names where it is
// (`fuzz.hlo:LINE:COL: error: ` or `fuzz.hlo: error: `).
//
// Bounded, so that an execution takes milliseconds: arrays of at most 2^12
// elements, 16 MiB live, 64 while-loop trips, Shardy meshes of at most 16
// devices (one thread each).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/io/random_fill.h"
#include "fuzz/fuzz_check.h"
#include "parser/parser.h"
#include "passes/shape_inference.h"
#include "passes/verifier.h"

namespace {

constexpr std::string_view kFile = "fuzz.hlo";
constexpr int64_t kMaxElements = int64_t{1} << 12;
constexpr int64_t kMaxMeshDevices = 16;

// Every `#sdy.mesh<[...]>` in the text has at most kMaxMeshDevices devices
// (the product of the numbers after '=' inside its brackets).
bool SmallMeshes(std::string_view text) {
  for (size_t at = text.find("sdy.mesh<["); at != std::string_view::npos;
       at = text.find("sdy.mesh<[", at + 1)) {
    const size_t end = text.find(']', at);
    std::string_view axes = text.substr(at, end == std::string_view::npos ? end : end - at);
    int64_t devices = 1;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] != '=') continue;
      int64_t size = 0;
      for (size_t j = i + 1; j < axes.size() && std::isdigit(static_cast<unsigned char>(axes[j]));
           ++j) {
        size = size * 10 + (axes[j] - '0');
        if (size > kMaxMeshDevices) return false;
      }
      devices *= size == 0 ? 1 : size;
      if (devices > kMaxMeshDevices) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  if (!SmallMeshes(*text)) return 0;
  auto module = hlo::ParseModule(*text, hlo::ParseOptions{std::string(kFile), &hlo::InferShape});
  if (!module.ok()) return 0;
  hlo::Module& m = **module;
  m.set_source(std::string(kFile), text);
  if (!hlo::VerifyModule(m).ok() || !hlo::fuzz::ShapesAtMost(m, kMaxElements) ||
      m.entry() == nullptr) {
    return 0;
  }
  std::vector<hlo::Value> args;
  for (int64_t i = 0; i < m.entry()->parameter_count(); ++i) {
    auto lit = hlo::RandomLiteral(m.entry()->parameter(i)->shape(), 1, static_cast<uint64_t>(i));
    if (!lit.ok()) return 0;
    args.push_back(hlo::Value::FromLiteral(*std::move(lit)));
  }
  hlo::EvalOptions options;
  options.max_memory_bytes = int64_t{1} << 24;
  options.max_iterations = 64;
  hlo::Evaluator evaluator(m, std::move(options));
  auto result = evaluator.Run(std::move(args));
  if (!result.ok()) hlo::fuzz::CheckLocated(result.status(), kFile);
  return 0;
}
