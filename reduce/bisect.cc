#include "reduce/bisect.h"

#include "ir/hlo_printer.h"
#include "passes/pipeline.h"
#include "passes/verifier.h"
#include "tools/tool_status.h"

namespace hlo::reduce {
namespace {

// A pipeline spec as a tree: names, and fixed-point groups of them.
struct Item {
  std::string name;            // a pass, or empty for a group
  std::vector<Item> children;  // a fixed-point group's
};

absl::StatusOr<std::vector<Item>> ParseSpec(std::string_view spec, size_t& at, bool nested) {
  std::vector<Item> items;
  while (at < spec.size()) {
    size_t end = spec.find_first_of(",()", at);
    std::string word(spec.substr(at, end == std::string_view::npos ? spec.size() - at : end - at));
    at = end == std::string_view::npos ? spec.size() : end;
    if (at < spec.size() && spec[at] == '(') {
      if (word != "fixed-point") return UsageError("--passes: unknown group '" + word + "'");
      ++at;
      auto children = ParseSpec(spec, at, true);
      if (!children.ok()) return children.status();
      items.push_back(Item{"", *std::move(children)});
    } else if (!word.empty()) {
      if (CreatePass(word) == nullptr) return UsageError("--passes: unknown pass '" + word + "'");
      items.push_back(Item{word, {}});
    }
    if (at < spec.size() && spec[at] == ')') {
      if (!nested) return UsageError("--passes: unbalanced ')'");
      ++at;
      return items;
    }
    if (at < spec.size() && spec[at] == ',') ++at;
  }
  if (nested) return UsageError("--passes: missing ')'");
  return items;
}

// Runs the items; records a step after each pass that changed the module.
absl::StatusOr<bool> RunItems(Module& module, const std::vector<Item>& items,
                              const PrintStyle& style, const std::string& round,
                              std::vector<PassStep>& steps) {
  bool changed = false;
  for (const Item& item : items) {
    if (!item.name.empty()) {
      auto pass = CreatePass(item.name);
      auto did = pass->Run(module);
      if (!did.ok()) return did.status();
      if (!*did) continue;
      changed = true;
      steps.push_back(PassStep{item.name + round, PrintModule(module, style)});
      continue;
    }
    for (int i = 1; i <= kFixedPointBound; ++i) {
      auto did = RunItems(module, item.children, style,
                          round + " (fixed-point round " + std::to_string(i) + ")", steps);
      if (!did.ok()) return did.status();
      if (!*did) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<std::vector<PassStep>> RunPassSteps(Module& module, std::string_view spec,
                                                   const PrintStyle& style) {
  size_t at = 0;
  auto items = ParseSpec(spec, at, false);
  if (!items.ok()) return items.status();
  std::vector<PassStep> steps;
  auto run = RunItems(module, *items, style, "", steps);
  if (!run.ok()) return run.status();
  return steps;
}

BisectResult Bisect(const std::string& input, const std::vector<PassStep>& steps, Tester& tester) {
  BisectResult r;
  r.steps = static_cast<int64_t>(steps.size());
  auto make = [&](int64_t i) -> std::optional<Candidate> {
    return Candidate{steps[i].text, Size{}};
  };
  auto hit = tester.FirstInteresting(static_cast<int64_t>(steps.size()), make);
  if (!hit) return r;
  r.found = true;
  r.step = hit->first;
  r.pass = steps[r.step].pass;
  r.before = r.step == 0 ? input : steps[r.step - 1].text;
  r.after = steps[r.step].text;
  return r;
}

}  // namespace hlo::reduce
