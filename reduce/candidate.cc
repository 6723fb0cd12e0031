#include "reduce/candidate.h"

#include <algorithm>

#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "passes/control_flow_util.h"
#include "passes/shape_inference.h"
#include "passes/verifier.h"
#include "reduce/ir_edit.h"

namespace hlo::reduce {

absl::StatusOr<std::unique_ptr<Module>> ReadModule(const std::string& text,
                                                   const std::string& filename) {
  auto module = ParseModule(text, ParseOptions{filename, &InferShape});
  if (!module.ok()) return module.status();
  if (auto st = VerifyModule(**module); !st.ok()) return st;
  return module;
}

int64_t InstructionCount(const Module& module) {
  int64_t n = 0;
  for (const auto& comp : module.computations()) n += comp->instruction_count();
  return n;
}

Candidate Canonical(Module& module, const PrintStyle& style) {
  module.style() = style;
  Candidate c;
  c.text = PrintModule(module, style);
  int64_t elements = 0, magnitude = 0;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->shape().IsArray()) elements += std::max<int64_t>(0, inst->shape().ElementCount());
      if (std::optional<int64_t> v = ScalarIntConstant(inst.get())) {
        // Saturating: |INT64_MIN| and sums past INT64_MAX stay at the top.
        const int64_t m = *v == INT64_MIN ? INT64_MAX : (*v < 0 ? -*v : *v);
        magnitude = m > INT64_MAX - magnitude ? INT64_MAX : magnitude + m;
      }
    }
  }
  c.size = Size{InstructionCount(module), static_cast<int64_t>(c.text.size()), elements, magnitude};
  return c;
}

int64_t CountTargets(const std::string& text, Delta& delta) {
  auto module = ParseModule(text, ParseOptions{"<candidate>", &InferShape});
  if (!module.ok()) return 0;
  TargetSelector none(0, 0);
  delta.Run(**module, none);
  return none.count();
}

std::optional<Candidate> MakeCandidate(const std::string& text, Delta& delta, int64_t begin,
                                       int64_t end, const PrintStyle& style) {
  auto module = ParseModule(text, ParseOptions{"<candidate>", &InferShape});
  if (!module.ok()) return std::nullopt;
  TargetSelector select(begin, end);
  delta.Run(**module, select);
  CleanUp(**module);
  // Without signatures: the entry's list of parameters is stale after
  // CleanUp; reading the text again rebuilds it.
  PrintStyle flat = style;
  flat.signatures = false;
  flat.compact_gte = false;
  std::string edited = PrintModule(**module, flat);
  auto again = ReadModule(edited, "<candidate>");
  if (!again.ok()) return std::nullopt;
  Candidate c = Canonical(**again, style);
  if (c.text == text) return std::nullopt;
  return c;
}

}  // namespace hlo::reduce
